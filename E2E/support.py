"""What the end-to-end scripts share: checks that print and collect failures, and free ports."""

import socket
import subprocess
import time
import urllib.request

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
