"""Drives `segue preview`'s page in Debian's Chromium through Playwright, as a user would,
and prints what it saw as one JSON object (PreviewBrowserTests reads it).

    python preview.py URL STORY --slides N --frame-out FILE --screenshot FILE

STORY is the story file the server previews: the script edits it (a longer first hold, then
broken YAML, then the original) and watches the page follow. The frame shown by F (full
resolution) is saved to --frame-out, its number in the JSON, for the test to compare with
`segue render --frames N`.
"""
import argparse, http.client, json, re, sys, time, urllib.parse
from playwright.sync_api import sync_playwright

p = argparse.ArgumentParser()
p.add_argument("url")
p.add_argument("story")
p.add_argument("--frame-out", required=True)
p.add_argument("--screenshot", required=True)
args = p.parse_args()
out = {"console_errors": []}


def raw(method, path, host=None, origin=None):
    """A request with the Host (and Origin) given, not the browser's."""
    u = urllib.parse.urlparse(args.url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    c.putheader("Host", host or u.netloc)
    if origin:
        c.putheader("Origin", origin)
    c.putheader("Content-Length", "0")
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    return r.status, body[:300].decode("utf-8", "replace")


# Whether an element is drawn at all (not hidden by its attribute, its style or a parent's).
SHOWN = "(() => { const e = document.querySelector('%s'); return !!e && e.getClientRects().length > 0; })()"


def wait(page, condition, timeout):
    """Seconds until the JavaScript `condition` holds, or None after `timeout` seconds."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if page.evaluate(condition):
            return time.monotonic() - start
        time.sleep(0.02)
    return None


def settle(page):
    """Waits until the page plays the newest story it was told of, and gives its version."""
    wait(page, "document.body.dataset.loaded === document.body.dataset.version", 15)
    time.sleep(0.3)
    wait(page, "document.body.dataset.loaded === document.body.dataset.version", 15)
    return page.evaluate("document.body.dataset.loaded")


with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                 args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.on("console", lambda m: out["console_errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: out["console_errors"].append(str(e)))
    page.goto(args.url)
    out["loaded"] = wait(page, "document.body.dataset.loaded !== undefined", 60) is not None
    story = page.evaluate("fetch('/api/story').then(r => r.json())")["story"]
    out["story_duration"] = story["duration"]
    out["video_duration"] = page.evaluate("document.querySelector('#player').duration")
    out["slide_blocks"] = page.evaluate("document.querySelectorAll('#timeline [data-slide]').length")
    out["cut_blocks"] = page.evaluate("document.querySelectorAll('#timeline [data-cut]').length")
    out["overlay_blocks"] = page.evaluate("document.querySelectorAll('#timeline [data-overlay]').length")
    out["thumbnails_drawn"] = wait(page, "[...document.querySelectorAll('[data-slide] img')].every(i => i.complete && i.naturalWidth > 0)", 20) is not None

    # The video plays to its end.
    page.evaluate("(() => { const v = document.querySelector('#player'); v.muted = true; v.playbackRate = 4; v.play(); })()")
    out["ended"] = wait(page, "document.querySelector('#player').ended", 30) is not None
    page.evaluate("document.querySelector('#player').pause()")

    # Clicking a slide names its file and line.
    page.click("[data-slide='1']")
    out["origin_text"] = page.inner_text("#origin")

    # Stepping: the playhead at 1.0 s, then one frame on with the arrow key.
    page.evaluate("document.querySelector('#player').currentTime = 1.0")
    wait(page, "!document.querySelector('#player').seeking", 5)
    page.keyboard.press("ArrowRight")
    wait(page, "!document.querySelector('#player').seeking", 5)
    out["frame_after_step"] = int(page.inner_text("#frame"))
    kept_time = page.evaluate("document.querySelector('#player').currentTime")

    # A longer first hold: the page follows within seconds, the playhead kept.
    original = open(args.story).read()
    edited = re.sub(r"hold: ([0-9.]+)", lambda m: "hold: %g" % (float(m.group(1)) + 1), original, count=1)
    version = settle(page)
    start = time.monotonic()
    with open(args.story, "w") as f:
        f.write(edited)
    seen = wait(page, "document.body.dataset.loaded !== '%s'" % version, 15)
    out["update_seconds"] = None if seen is None else time.monotonic() - start
    out["video_duration_after"] = page.evaluate("document.querySelector('#player').duration")
    out["time_kept"] = abs(page.evaluate("document.querySelector('#player').currentTime") - kept_time) < 0.05
    out["rendered_again"] = page.evaluate("fetch('/api/story').then(r => r.json())")["build"]

    # Broken YAML: the error in the page with its line, the last good video kept.
    version = settle(page)
    with open(args.story, "w") as f:
        f.write(edited + "\n  - image: [unclosed\n")
    out["error_shown"] = wait(page, "!document.querySelector('#errors').hidden", 15) is not None
    out["error_text"] = page.inner_text("#errortext")
    out["video_kept"] = page.evaluate("document.querySelector('#player').duration") == out["video_duration_after"] \
        and page.evaluate("document.body.dataset.loaded") == version
    with open(args.story, "w") as f:
        f.write(edited)
    out["error_cleared"] = wait(page, "document.querySelector('#errors').hidden", 15) is not None

    # The last slide's hold longer: its segment and the one before it (whose transition leads
    # into it) are rendered again, not the first.
    version = settle(page)
    last = edited.rindex("hold: ")
    number = re.match(r"hold: ([0-9.]+)", edited[last:]).group(1)
    edited = edited[:last] + "hold: %g" % (float(number) + 0.5) + edited[last + len("hold: ") + len(number):]
    with open(args.story, "w") as f:
        f.write(edited)
    wait(page, "document.body.dataset.loaded !== '%s'" % version, 15)
    out["last_hold_build"] = page.evaluate("fetch('/api/story').then(r => r.json())")["build"]

    # F: the frame at the playhead at full resolution.
    page.evaluate("document.querySelector('#player').currentTime = %f" % (story["duration"] * 0.45))
    wait(page, "!document.querySelector('#player').seeking", 5)
    out["full_frame_number"] = int(page.inner_text("#frame"))
    page.keyboard.press("f")
    out["full_frame_shown"] = wait(page, "document.querySelector('#fullimg').complete && document.querySelector('#fullimg').naturalWidth > 0", 20) is not None
    out["full_frame_size"] = page.evaluate("[document.querySelector('#fullimg').naturalWidth, document.querySelector('#fullimg').naturalHeight]")
    src = page.evaluate("document.querySelector('#fullimg').src")
    out["full_frame_src"] = urllib.parse.urlparse(src).path
    with open(args.frame_out, "wb") as f:
        f.write(page.request.get(src).body())
    page.keyboard.press("Escape")

    # The page's export: one at a time, and only from the page's own origin (the second
    # press is refused, which the console reports as a failed request: not counted).
    errors_before = list(out["console_errors"])
    replies = page.evaluate("Promise.all([fetch('/api/export', {method: 'POST'}), fetch('/api/export', {method: 'POST'})]).then(rs => rs.map(r => r.status))")
    out["export_statuses"] = sorted(replies)
    out["export_done"] = wait(page, "/wrote /.test(document.querySelector('#exporttext').textContent)", 120) is not None
    out["export_text"] = page.inner_text("#exporttext")
    out["console_errors"] = errors_before + [e for e in out["console_errors"][len(errors_before):] if "409" not in e]

    out["export_from_elsewhere"] = raw("POST", "/api/export", origin="http://evil.example")[0]

    # Traversal and a foreign Host.
    out["traversal"] = raw("GET", "/..%2f..%2fetc/passwd")
    out["traversal_plain"] = raw("GET", "/../../etc/passwd")
    out["foreign_host"] = raw("GET", "/", host="evil.example")[0]
    out["csp"] = page.request.get(args.url).headers.get("content-security-policy", "")

    # A caption names its cue's line in its file.
    page.click("#timeline .caption")
    out["caption_origin"] = page.inner_text("#origin")

    # The full frame's bar hides what is behind it.
    page.keyboard.press("f")
    out["full_bar_background"] = page.evaluate("getComputedStyle(document.querySelector('#fullview .bar')).backgroundColor")
    out["full_view_background"] = page.evaluate("getComputedStyle(document.querySelector('#fullview')).backgroundColor")
    page.keyboard.press("Escape")

    # The story has no target: the safe-area toggle is off and says why, and draws nothing.
    out["safe_disabled"] = page.evaluate("document.querySelector('#safe').disabled")
    out["safe_hidden"] = not page.evaluate(SHOWN % "#safearea")

    # The export's status belongs to the story it exported: gone once the story changes, and
    # not shown on a page opened after it.
    out["export_status_shown"] = page.evaluate(SHOWN % "#exportstatus")
    version = settle(page)
    with open(args.story, "w") as f:
        f.write(re.sub(r"hold: ([0-9.]+)", lambda m: "hold: %g" % (float(m.group(1)) + 0.25), edited, count=1))
    wait(page, "document.body.dataset.loaded !== '%s'" % version, 15)
    out["export_status_after_edit"] = page.evaluate(SHOWN % "#exportstatus")
    fresh = browser.new_page(viewport={"width": 1280, "height": 860})
    fresh.goto(args.url)
    wait(fresh, "document.body.dataset.loaded !== undefined", 30)
    out["export_status_fresh_page"] = fresh.evaluate(SHOWN % "#exportstatus")
    fresh.close()
    # The story as it was before (the test renders it to compare the full frame).
    version = settle(page)
    with open(args.story, "w") as f:
        f.write(edited)
    wait(page, "document.body.dataset.loaded !== '%s'" % version, 15)

    # At three widths: nothing wider than the window, every cut's label whole and apart from
    # the others, the music's label over its levels; a screenshot of each (the test keeps them).
    page.evaluate("document.querySelector('#player').currentTime = %f" % (story["duration"] * 0.3))
    wait(page, "!document.querySelector('#player').seeking", 5)
    out["widths"] = {}
    for width in (420, 768, 1440):
        page.set_viewport_size({"width": width, "height": 860})
        time.sleep(0.4)
        out["widths"][str(width)] = page.evaluate("""() => {
            const w = innerWidth, shown = (e) => e.offsetParent !== null || getComputedStyle(e).position === 'fixed';
            const wide = [...document.querySelectorAll('body *')].filter((e) => shown(e) && !e.closest('#fullview'))
                .filter((e) => e.getBoundingClientRect().right > w + 0.5 || e.getBoundingClientRect().left < -0.5)
                .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : ''));
            const labels = [...document.querySelectorAll('#cuts .cut span')].map((s) => s.getBoundingClientRect());
            const line = document.querySelector('#timeline').getBoundingClientRect();
            const meet = labels.some((a, i) => labels.some((b, j) => i < j && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom));
            const outside = labels.filter((r) => r.left < line.left - 0.5 || r.right > line.right + 0.5).length;
            const cut = [...document.querySelectorAll('.slide span, .sound span, .text, .caption')]
                .filter((e) => e.classList.contains('text') || e.classList.contains('caption') ? false : e.scrollWidth > e.clientWidth + 1).length;
            const music = document.querySelector('[data-lane="music"] .sound span');
            return {page: document.documentElement.scrollWidth, window: w, wide, labels: labels.length, labels_meet: meet,
                    labels_outside: outside, labels_cut: cut,
                    music_label_over: music ? getComputedStyle(music).zIndex === '1' && getComputedStyle(music).position === 'relative' : null};
        }""")
        page.screenshot(path=args.screenshot.replace(".png", "-%d.png" % width))
    page.set_viewport_size({"width": 1280, "height": 860})
    page.screenshot(path=args.screenshot)

    # A page of another origin (another port of this machine) cannot show the preview's
    # pictures or video: the browser marks its requests cross-site, and they are refused.
    import http.server, socketserver, threading
    u = urllib.parse.urlparse(args.url)
    base = "http://%s:%d" % (u.hostname, u.port)
    html = ("<!doctype html><img id=f src='%s/frame/10'><img id=t src='%s/thumb/0'>"
            "<video id=v src='%s/proxy.mp4' muted preload=auto></video>" % (base, base, base)).encode()
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(html)
        def log_message(self, *a):
            pass
    elsewhere = socketserver.TCPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    other = browser.new_page()
    other.goto("http://127.0.0.1:%d/" % elsewhere.server_address[1])
    wait(other, "[...document.images].every((i) => i.complete) && (document.querySelector('#v').error !== null || document.querySelector('#v').readyState > 0)", 15)
    out["elsewhere"] = other.evaluate("({frame: document.querySelector('#f').naturalWidth, thumb: document.querySelector('#t').naturalWidth,"
                                      " video: document.querySelector('#v').readyState, video_error: document.querySelector('#v').error !== null})")
    other.close()
    elsewhere.shutdown()
    browser.close()

print(json.dumps(out))
