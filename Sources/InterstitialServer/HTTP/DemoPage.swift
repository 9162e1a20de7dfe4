/// The web page at `/`: plays the server's VOD assets and live channels with hls.js (or natively in
/// Safari) and draws the integrated timeline with its interstitials.
///
/// For tests it keeps a trace of the player's interstitial events in `window.trace`.
///
/// Below, two more players form a coordinated group through the server's `/group/NAME` WebSocket
/// (the protocol `hlsi play --group` speaks, so terminal players can join the same group): play,
/// pause, rate and seeks on either apply to both. They coordinate primary time; hls.js plays the
/// interstitials of each on its own and the group follows its primary position.
enum DemoPage {
    static func html(configuration: ServerConfiguration, hlsjs: String) -> String {
        var sources: [(String, String)] = []
        for content in configuration.vod { sources.append(("VOD \(content.id)", "\(content.path)/\(content.entry)")) }
        for content in configuration.live { sources.append(("Live \(content.id)", "\(content.path)/\(content.entry)")) }
        let options = sources.map { label, url in
            "<option value=\"\(escape(url))\">\(escape(label)) — \(escape(url))</option>"
        }.joined(separator: "\n        ")
        return
            template
            .replacingOccurrences(of: "{{OPTIONS}}", with: options)
            .replacingOccurrences(of: "{{HLSJS}}", with: escape(hlsjs))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let template = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>hlsi serve: HLS Interstitials</title>
        <style>
          body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 960px; padding: 0 1rem; color: #222; }
          video { width: 100%; max-height: 480px; background: #000; }
          #timeline { position: relative; height: 34px; margin: 12px 0 4px; background: #ddd; border-radius: 4px; overflow: hidden; }
          #timeline .item { position: absolute; top: 0; bottom: 0; font-size: 11px; color: #fff; overflow: hidden; white-space: nowrap; padding: 2px 4px; box-sizing: border-box; }
          #timeline .primary { background: #4a78c2; }
          #timeline .interstitial { background: #e07b22; border-left: 1px solid #fff; }
          #timeline .point { background: #e07b22; width: 8px !important; margin-left: -4px; padding: 0; z-index: 1; }
          #timeline .current { outline: 3px solid #222; outline-offset: -3px; }
          #playhead { position: absolute; top: 0; bottom: 0; width: 2px; background: #d00; }
          #log { font: 12px/1.4 ui-monospace, monospace; background: #f4f4f4; padding: 8px; height: 180px; overflow: auto; white-space: pre-wrap; }
          .status { font-weight: 600; }
        </style>
        </head>
        <body>
        <h1>HLS Interstitials</h1>
        <p>
          <label>Stream <select id="source">
                {{OPTIONS}}
          </select></label>
          <button id="load">Play</button>
          <span class="status" id="status"></span>
        </p>
        <video id="video" controls muted playsinline></video>
        <div id="timeline"><div id="playhead"></div></div>
        <div id="times"></div>
        <h3>Events</h3>
        <div id="log"></div>
        <h3>Coordinated group</h3>
        <p>Two players in group <code id="group-name"></code>: play, pause, seek or change the rate of one and
          the other follows (join from a terminal with <code id="group-command"></code>).
          <button id="group-start">Start both</button></p>
        <div style="display:flex;gap:8px">
          <video id="member-a" controls muted playsinline style="width:50%"></video>
          <video id="member-b" controls muted playsinline style="width:50%"></video>
        </div>
        <div id="group-status"></div>
        <script type="module">
        window.trace = [];
        const video = document.getElementById("video");
        const select = document.getElementById("source");
        const timeline = document.getElementById("timeline");
        const playhead = document.getElementById("playhead");
        const status = document.getElementById("status");
        const logBox = document.getElementById("log");
        const params = new URLSearchParams(location.search);
        if (params.get("src")) select.value = params.get("src");
        let hls = null, Hls = null, schedule = [];

        function log(entry) {
          entry.at = Math.round(performance.now());
          entry.time = video.currentTime;
          window.trace.push(entry);
          logBox.textContent += JSON.stringify(entry) + "\\n";
          logBox.scrollTop = logBox.scrollHeight;
        }

        function draw(items, duration) {
          for (const node of [...timeline.querySelectorAll(".item")]) node.remove();
          if (!duration || !isFinite(duration)) return;
          for (const item of items) {
            const node = document.createElement("div");
            const point = item.end - item.start < 0.001;
            node.className = "item " + item.kind + (point ? " point" : "");
            node.style.left = (100 * item.start / duration) + "%";
            node.style.width = (100 * (item.end - item.start) / duration) + "%";
            node.textContent = point ? "" : (item.id || "");
            node.title = (item.id ? item.id + ": " : "primary: ") + item.start.toFixed(1) + "–" + item.end.toFixed(1) + " s";
            node.dataset.id = item.id || "";
            timeline.insertBefore(node, playhead);
          }
        }

        function fromHls() {
          const manager = hls && hls.interstitialsManager;
          if (!manager || !manager.schedule) return null;
          const items = manager.schedule.map((item) => ({
            kind: item.event ? "interstitial" : "primary",
            id: item.event ? item.event.identifier : "",
            start: item.integrated ? item.integrated.start : item.start,
            end: item.integrated ? item.integrated.end : item.end }));
          return { items, duration: manager.integrated ? manager.integrated.duration : 0,
                   current: manager.integrated ? manager.integrated.currentTime : video.currentTime,
                   playing: manager.playingItem && manager.playingItem.event ? manager.playingItem.event.identifier : "" };
        }

        function tick() {
          const state = fromHls();
          if (state && state.items.length) {
            if (JSON.stringify(state.items) !== JSON.stringify(schedule)) { schedule = state.items; draw(schedule, state.duration); }
            playhead.style.left = (100 * state.current / state.duration) + "%";
            for (const node of timeline.querySelectorAll(".item")) node.classList.toggle("current", !!state.playing && node.dataset.id === state.playing);
            document.getElementById("times").textContent = "integrated " + state.current.toFixed(1) + " / " + state.duration.toFixed(1) + " s" + (state.playing ? " — playing " + state.playing : "");
          }
          requestAnimationFrame(tick);
        }

        async function drawServerTimeline(url) {
          if (!url.includes("/vod") && !url.includes("vod/")) return;
          try {
            const base = url.substring(0, url.lastIndexOf("/"));
            const response = await fetch(base + "/timeline.json");
            if (response.ok) {
              // timeline.json is the schedule document that `hlsi schedule --json` prints.
              const data = await response.json();
              schedule = data.items.map((item) => ({ kind: item.kind, id: item.id, start: item.integrated[0], end: item.integrated[1] }));
              draw(schedule, data.durations.integrated);
            }
          } catch (error) { /* the player's own timeline is drawn instead */ }
        }

        async function load() {
          const url = select.value;
          if (hls) { hls.destroy(); hls = null; }
          drawServerTimeline(url);
          if (!Hls) {
            try { const module = await import("{{HLSJS}}"); Hls = module.default || module.Hls; }
            catch (error) { log({ event: "HLSJS_LOAD_FAILED", details: String(error) }); }
          }
          if (Hls && Hls.isSupported()) {
            hls = new Hls({ debug: false });
            window.hls = hls;
            for (const [key, name] of Object.entries(Hls.Events)) {
              if (key.startsWith("INTERSTITIAL") && key !== "INTERSTITIALS_BUFFERED_TO_BOUNDARY") {
                hls.on(name, (_, data) => log({ event: key,
                  id: data && data.event ? data.event.identifier : undefined,
                  asset: data && data.asset ? data.asset.uri : undefined }));
              }
            }
            hls.on(Hls.Events.ERROR, (_, data) => log({ event: "ERROR", details: data.details, fatal: data.fatal }));
            hls.loadSource(url);
            hls.attachMedia(video);
            status.textContent = "hls.js " + Hls.version;
          } else if (video.canPlayType("application/vnd.apple.mpegurl")) {
            video.src = url;
            status.textContent = "native HLS";
          } else {
            status.textContent = "this browser cannot play HLS";
            return;
          }
          video.play().catch((error) => log({ event: "PLAY_FAILED", details: String(error) }));
        }

        // A coordinated group: each member speaks the /group protocol over its own WebSocket.
        const groupName = params.get("group") || "demo-page";
        const groupURL = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/group/" + encodeURIComponent(groupName);
        document.getElementById("group-name").textContent = groupName;
        document.getElementById("group-command").textContent = "hlsi play " + location.origin + (select.options[0] ? select.options[0].value : "") + " --group " + groupURL;
        window.groupTrace = [];
        function member(name, element) {
          const m = { name, video: element, socket: null, offset: 0, applyingUntil: 0, hls: null };
          const primaryTime = () => (m.hls && m.hls.interstitialsManager) ? m.hls.interstitialsManager.primary.currentTime : element.currentTime;
          const seek = (t) => { if (m.hls && m.hls.interstitialsManager) m.hls.interstitialsManager.primary.currentTime = t; else element.currentTime = t; };
          // hls.js pauses, seeks and plays the element itself around interstitials: only primary playback proposes.
          const inInterstitial = () => !!(m.hls && m.hls.interstitialsManager && m.hls.interstitialsManager.playingItem && m.hls.interstitialsManager.playingItem.event);
          const now = () => Date.now() * 1e6 + m.offset;
          // `playing` given: the user's intent (the start button), proposed even inside an interstitial.
          m.propose = (playing) => {
            if (!m.socket || m.socket.readyState !== 1) return;
            if (playing === undefined && (performance.now() < m.applyingUntil || inInterstitial())) return;
            m.socket.send(JSON.stringify({ type: "propose", state: { playing: playing === undefined ? !element.paused : playing,
              rate: element.playbackRate || 1, location: { primary: primaryTime() }, referenceTime: Math.round(now()) } }));
          };
          m.apply = (state) => {
            m.applyingUntil = performance.now() + 400;
            const gone = state.playing ? (now() - state.referenceTime) / 1e9 * state.rate : 0;
            const target = (state.location.primary !== undefined ? state.location.primary : primaryTime()) + Math.max(0, gone);
            if (Math.abs(primaryTime() - target) > 0.25) seek(target);
            if (element.playbackRate !== state.rate) element.playbackRate = state.rate;
            if (state.playing && element.paused) element.play().catch(() => {});
            if (!state.playing && !element.paused) element.pause();
            window.groupTrace.push({ member: name, revision: state.revision, playing: state.playing, target });
          };
          m.connect = () => {
            m.socket = new WebSocket(groupURL);
            m.socket.onopen = () => { m.socket.send(JSON.stringify({ type: "ping", sent: Date.now() * 1e6 })); m.socket.send(JSON.stringify({ type: "join", name })); };
            m.socket.onmessage = (message) => {
              const data = JSON.parse(message.data);
              if (data.type === "pong") m.offset = data.time - (data.sent + (Date.now() * 1e6 - data.sent) / 2);
              else if (data.type === "welcome") {
                m.id = data.participant;
                // The start button asked this member to play: the group plays, whatever hls.js is doing now.
                if (m.startsGroup) { m.startsGroup = false; m.propose(true); }
                else if (data.state) m.apply(data.state);
                else if (!element.paused) m.propose();  // a paused joiner waits for the group's state
              }
              else if (data.type === "state" && data.state.originator !== m.id) m.apply(data.state);
              else if (data.type === "release") m.apply(data.state);
              else if (data.type === "participants") document.getElementById("group-status").textContent = data.participants.length + " in the group";
            };
          };
          for (const type of ["play", "pause", "seeked", "ratechange"]) element.addEventListener(type, () => m.propose());
          return m;
        }
        const members = [member("page-a", document.getElementById("member-a")), member("page-b", document.getElementById("member-b"))];
        window.groupMembers = members;
        document.getElementById("group-start").addEventListener("click", async () => {
          if (!Hls) {
            try { const module = await import("{{HLSJS}}"); Hls = module.default || module.Hls; } catch (error) { return; }
          }
          members[0].startsGroup = !members[0].socket;
          for (const m of members) {
            if (!m.hls && Hls && Hls.isSupported()) { m.hls = new Hls(); m.hls.loadSource(select.options[0].value); m.hls.attachMedia(m.video); }
            if (!m.socket) m.connect();
          }
          members[0].video.play().catch(() => {});
          if (!members[0].startsGroup) members[0].propose(true);
        });

        document.getElementById("load").addEventListener("click", load);
        window.currentTime = () => video.currentTime;
        requestAnimationFrame(tick);
        if (params.get("autoplay") !== "0") load();
        </script>
        </body>
        </html>
        """
}
