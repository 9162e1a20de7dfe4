"""What the end-to-end scripts share: checks that print and collect failures, free ports, starting
`hlsi serve` and waiting for it, starting the local ad server (E2E/ad_server.py), launching headless
Chromium (Playwright, sync and async) and stopping what a script started."""

import contextlib
import os
import select
import sys
import socket
import subprocess
import time
import urllib.request

# Debian's chromium (E2E/run.sh installs it); Playwright drives it instead of a browser of its own.
CHROMIUM = "/usr/bin/chromium"
# Media plays without a click.
AUTOPLAY = "--autoplay-policy=no-user-gesture-required"

failures = []


def wait_until_serving(url, attempts=100):
    """Polls `url` until the server answers (at most `attempts` times, 0.2 s apart)."""
    for _ in range(attempts):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return True
        except OSError:
            time.sleep(0.2)
    return False


def check(condition, message):
    print(("  ok   " if condition else "  FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ad_server(media_base, log, delay_ms=0, timeout=10):
    """Starts E2E/ad_server.py (VAST whose media files are under `media_base`, every request appended
    to the file `log`, each decision answered after `delay_ms`); returns (process, origin), origin None
    if it did not say its port within `timeout` s. Stop it with `stop(process)`."""
    here = os.path.dirname(os.path.abspath(__file__))
    process = subprocess.Popen([sys.executable, os.path.join(here, "ad_server.py"), media_base, log, str(delay_ms)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    words = (process.stdout.readline() if ready else "").split()
    return process, (f"http://127.0.0.1:{words[-1]}" if words and words[-1].isdigit() else None)


def stop(process, label=None):
    """Stops a process a script started (SIGTERM, then SIGKILL after 15 s); returns its output.

    With `label`, checks that it shut down gracefully (exit 0).
    """
    process.terminate()
    try:
        output, _ = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    if label:
        check(process.returncode == 0, f"{label} shuts down gracefully (exit {process.returncode})")
    return output or ""


class Server:
    """`hlsi serve` on a free loopback port, with its output (standard output and error) kept.

    `arguments` follow `serve --port PORT` (for example "--demo", "--admin-token", TOKEN); `base` is
    the server's URL. `wait()` polls until it answers; `stop(label)` ends it (see `stop`) and returns
    its output. As a context manager, it waits on entry and stops on exit.
    """

    def __init__(self, hlsi, *arguments, port=None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([hlsi, "serve", "--port", str(self.port), *arguments],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def wait(self, path="/"):
        """Polls `path` until the server answers (see `wait_until_serving`); True once it does."""
        return wait_until_serving(self.base + path)

    def stop(self, label=None):
        return stop(self.process, label)

    def __enter__(self):
        self.wait()
        return self

    def __exit__(self, *_):
        self.stop()


def demo_server(hlsi, *arguments):
    """`hlsi serve --demo` with `arguments` added (see `Server`)."""
    return Server(hlsi, "--demo", *arguments)


def _chromium_arguments(autoplay, arguments):
    return ([AUTOPLAY] if autoplay else []) + list(arguments)


@contextlib.contextmanager
def chromium(autoplay=False, arguments=()):
    """Headless Chromium through Playwright's sync API; closed on exit. `autoplay` lets media play
    without a click; `arguments` are more command-line switches."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=_chromium_arguments(autoplay, arguments))
        try:
            yield browser
        finally:
            browser.close()


@contextlib.asynccontextmanager
async def async_chromium(autoplay=False, arguments=()):
    """`chromium` for Playwright's async API."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM,
                                                   args=_chromium_arguments(autoplay, arguments))
        try:
            yield browser
        finally:
            await browser.close()


def finish(name):
    """Prints the failed checks and exits 1 if any failed; otherwise prints that all `name` checks passed."""
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n- " + "\n- ".join(failures))
        sys.exit(1)
    print(f"\nall {name} checks passed")
