"""Drives `segue serve` as a pipeline would, over plain HTTP (Python's standard library, or
httpx when asked), and prints what it saw as JSON for ServeTests to check:
    serve_client.py SEGUE FOLDER [--httpx] [--scenario service|hostile|slurm]
FOLDER has inputs/ (a.png, b.png). A webhook receiver of the script's own verifies every
signature (Standard Webhooks 1.0: HMAC-SHA256 over id.timestamp.body). The scenarios:
service, the API end to end (the default); hostile, receivers that hang or fail forever,
idle connections, huge bodies and budgets; slurm, renders as the jobs of the cluster that
SLURM_CONF names."""
import base64, hashlib, hmac, http.server, json, os, signal, socket, subprocess, sys, threading, time, urllib.error, urllib.request

segue, folder = sys.argv[1], sys.argv[2]
use_httpx = "--httpx" in sys.argv
scenario = sys.argv[sys.argv.index("--scenario") + 1] if "--scenario" in sys.argv else "service"
store, inputs = os.path.join(folder, "store"), os.path.join(folder, "inputs")
secret = "whsec_" + base64.b64encode(b"segue-test-secret-of-24b").decode()
open(os.path.join(folder, "secret"), "w").write(secret + "\n")
seen = {}
hooks = []  # (path, webhook-id, verified, type, render)
fail_first = {"/flaky": 2, "/broken": 10**9}
hang = {"/hang"}


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        mid, stamp = self.headers["webhook-id"], self.headers["webhook-timestamp"]
        key = base64.b64decode(secret[len("whsec_"):])
        expected = "v1," + base64.b64encode(hmac.new(key, f"{mid}.{stamp}.".encode() + body, hashlib.sha256).digest()).decode()
        verified = expected in self.headers["webhook-signature"].split(" ")
        message = json.loads(body)
        hooks.append((self.path, mid, verified, message["type"], message["data"]["id"], time.time()))
        if self.path in hang:
            time.sleep(30)
            return
        left = fail_first.get(self.path, 0)
        if left:
            fail_first[self.path] = left - 1
            self.send_response(500)
        else:
            self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
hook_url = f"http://127.0.0.1:{receiver.server_address[1]}"


def start(*extra):
    process = subprocess.Popen([segue, "serve", "--port", "0", "--store", store, "--inputs", inputs,
                                "--webhook-secret-file", os.path.join(folder, "secret"), *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if "serving at" not in line:
        sys.exit(f"serve did not start: {line} {process.stderr.read()}")
    return process, line.split("serving at ")[1].split(" ")[0].rstrip("/"), line


def call(base, method, path, body=None, headers=None, raw=False):
    headers = dict(headers or {})
    data = body
    if isinstance(body, (dict, list)):
        data, headers["content-type"] = json.dumps(body).encode(), "application/json"
    elif isinstance(body, str):
        data = body.encode()
        headers.setdefault("content-type", "application/yaml")
    if use_httpx:
        import httpx
        answer = httpx.request(method, base + path, content=data, headers=headers, timeout=30)
        status, got, text = answer.status_code, dict(answer.headers), answer.content
    else:
        request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, got, text = answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            status, got, text = error.code, dict(error.headers), error.read()
    got = {k.lower(): v for k, v in got.items()}
    if raw:
        return status, got, text
    return status, got, (json.loads(text) if text and "json" in got.get("content-type", "") else text)


def wait(base, rid, until=("done", "failed", "cancelled"), seconds=120):
    end = time.time() + seconds
    while time.time() < end:
        status, _, render = call(base, "GET", f"/v1/renders/{rid}")
        if render["status"] in until:
            return render
        time.sleep(0.1)
    sys.exit(f"render {rid} did not end: {render}")


small = {"set": {"canvas.size": [90, 160], "hold": 0.5}, "slides": [{"image": "a.png"}, {"image": "b.png"}]}


def service():
    server, base, _ = start()

    # A story renders; the output is the one segue render makes, whole and by range.
    status, headers, render = call(base, "POST", "/v1/renders", {"story": small, "webhook": hook_url + "/hook", "metadata": {"order": 7}})
    seen["created"] = [status, headers.get("location"), render["status"], render["metadata"]]
    done = wait(base, render["id"])
    status, headers, video = call(base, "GET", done["links"]["output"], raw=True)
    seen["output"] = [status, headers.get("content-type"), len(video), done["output"]["bytes"], headers.get("accept-ranges")]
    open(os.path.join(folder, "served.mp4"), "wb").write(video)
    status, headers, part = call(base, "GET", done["links"]["output"], headers={"Range": "bytes=100-199"}, raw=True)
    seen["range"] = [status, headers.get("content-range"), part == video[100:200]]
    status, _, _ = call(base, "GET", done["links"]["output"], headers={"Range": "bytes=999999999-"}, raw=True)
    seen["range_outside"] = status

    # The same inputs again: done at once, from the render made.
    status, _, again = call(base, "POST", "/v1/renders", {"story": small})
    seen["reused"] = [status, again["status"], again.get("reused") == render["id"]]

    # The same key from 50 clients at once: one render.
    def post_keyed(results):
        results.append(call(base, "POST", "/v1/renders", {"story": dict(small, set={"canvas.size": [90, 160], "hold": 0.6})},
                            headers={"Idempotency-Key": "fifty"}))
    results = []
    threads = [threading.Thread(target=post_keyed, args=(results,)) for _ in range(50)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    seen["idempotent"] = [sorted(set(r[0] for r in results)), len(set(r[2]["id"] for r in results)),
                          sum(1 for r in results if r[1].get("idempotent-replayed") == "false")]
    status, _, problem = call(base, "POST", "/v1/renders", {"story": small}, headers={"Idempotency-Key": "fifty"})
    seen["key_reused"] = [status, problem.get("errors", [{}])[0].get("key")]

    # Hostile requests: refused, naming the key; the service serves on.
    os.symlink("/etc", os.path.join(inputs, "etc"))
    for name, body in [("passwd", {"story": {"slides": [{"image": "/etc/passwd"}]}}),
                       ("climb", "story:\n  slides:\n    - image: ../../../etc/hostname\n"),
                       ("link", {"story": {"slides": [{"image": "a.png"}, {"image": "etc/hostname"}]}}),
                       ("template", {"template": "/etc/passwd", "row": {}})]:
        status, headers, problem = call(base, "POST", "/v1/renders", body)
        seen[name] = [status, headers.get("content-type"), [e.get("key") for e in problem.get("errors", [])]]
    status, _, problem = call(base, "POST", "/v1/renders", {"story": {"set": {"canvas.size": [1080, 1920]}, "slides": [{"image": "a.png", "hold": 3600}] * 3}})
    seen["frames"] = [status, problem.get("detail", "")]
    status, _, problem = call(base, "POST", "/v1/renders", "story:\n  slides:\n    - {image: a.png, hold: -1}\n")
    seen["invalid"] = [status, problem.get("errors", [{}])[0]]
    status, _, problem = call(base, "POST", "/v1/renders", b"x" * (2 << 20), headers={"content-type": "application/yaml"})
    seen["large"] = [status, problem.get("title")]
    status, _, problem = call(base, "GET", "/v1/renders?limit=lots")
    seen["bad_query"] = [status, problem.get("status")]
    status, _, problem = call(base, "GET", "/v1/renders/r_000000000000000000000000")
    seen["missing"] = [status, problem.get("title")]
    status, _, problem = call(base, "GET", "/no/such/route")
    seen["no_route"] = status

    # Files sent with the story (curl -F, as a user sends them): found by their names before the
    # inputs folders, removed once the render ends; a name with a folder is refused.
    extra = os.path.join(folder, "c.png")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=blue:size=320x240", "-frames:v", "1", extra], check=True)
    request = os.path.join(folder, "request.yaml")
    open(request, "w").write("story:\n  set: {canvas.size: [90, 160], hold: 0.5}\n  slides: [{image: c.png}, {image: a.png}]\n")
    def curl(*fields):
        got = subprocess.run(["curl", "-sS", "-w", "\n%{http_code}", "-X", "POST", base + "/v1/renders", *sum((["-F", f] for f in fields), [])],
                             capture_output=True, text=True)
        body, _, code = got.stdout.rpartition("\n")
        return int(code), json.loads(body) if body.startswith("{") else body
    status, sent = curl(f"request=<{request}", f"files=@{extra}")
    sent_done = wait(base, sent["id"]) if status == 202 else sent
    status2, again = curl(f"request=<{request}", f"files=@{extra}")
    status3, climbing = curl(f"request=<{request}", f"files=@{extra};filename=../c.png")
    status4, unsent = curl(f"request=<{request}")
    uploads = os.path.join(store, "uploads")
    seen["upload"] = [status, sent_done["status"], sent_done["progress"]["frames_total"] > 0, status2, again.get("status"), again.get("reused") == sent["id"],
                      status3, [e.get("key") for e in climbing.get("errors", [])], status4, [e.get("key") for e in unsent.get("errors", [])],
                      sorted(os.listdir(uploads)) if os.path.isdir(uploads) else []]

    # Pages, newest first.
    status, _, page = call(base, "GET", "/v1/renders?limit=2")
    status2, _, page2 = call(base, "GET", f"/v1/renders?limit=2&after={page['next']}")
    seen["pages"] = [len(page["renders"]), len(page2["renders"]), page["renders"][0]["id"] != page2["renders"][0]["id"]]
    status, _, page = call(base, "GET", "/v1/renders?status=done&limit=100")
    seen["done_listed"] = sorted(set(r["status"] for r in page["renders"]))

    # Events of a render that ended: its status, then the stream's end.
    status, headers, events = call(base, "GET", f"/v1/renders/{render['id']}/events", raw=True)
    seen["events"] = [status, headers.get("content-type", "").split(";")[0], events.decode().count("event: status"), '"status":"done"' in events.decode()]

    # A long render cancelled: cancelled, nothing at its output.
    long_story = {"set": {"canvas.size": [90, 160]}, "slides": [{"image": "a.png", "hold": 600}, {"image": "b.png", "hold": 600}]}
    status, _, long_render = call(base, "POST", "/v1/renders", {"story": long_story})
    wait(base, long_render["id"], until=("rendering",))
    status, _, cancelled = call(base, "DELETE", f"/v1/renders/{long_render['id']}")
    seen["cancel"] = [status, cancelled["status"], os.path.exists(os.path.join(store, "outputs", long_render["id"] + ".mp4"))]

    # kill -9 during a render, then a restart: the render is done once, its webhook sent once.
    longer = {"set": {"canvas.size": [360, 640]}, "slides": [{"image": "a.png", "hold": 60}, {"image": "b.png", "hold": 60}]}
    status, _, killed = call(base, "POST", "/v1/renders", {"story": longer, "webhook": hook_url + "/flaky"})
    wait(base, killed["id"], until=("rendering",))
    server.send_signal(signal.SIGKILL)
    server.wait()
    half = [name for name in os.listdir(os.path.join(store, "outputs")) if name.startswith(killed["id"])]
    server, base, line = start()
    seen["restart_line"] = line.strip().split("(", 1)[1]
    finished = wait(base, killed["id"])
    time.sleep(6)  # the webhook's retries: 500, 500, then 204 (waits of 1 and 3 seconds)
    _, _, finished = call(base, "GET", f"/v1/renders/{killed['id']}")
    seen["after_kill"] = [finished["status"], finished["attempts"], finished["progress"]["frames_done"], finished["progress"]["frames_total"], half]
    flaky = [h for h in hooks if h[0] == "/flaky"]
    seen["flaky_hooks"] = [len(flaky), len(set(h[1] for h in flaky)), all(h[2] for h in flaky), sorted(set(h[3] for h in flaky)),
                           [d.get("status") for d in finished.get("deliveries", [])]]
    seen["hooks"] = [[h[0], h[2], h[3], h[4] == render["id"]] for h in hooks if h[0] == "/hook"]
    status, _, listed = call(base, "GET", f"/v1/renders/{render['id']}")
    seen["kept"] = [status, listed["status"]]
    seen["leftovers"] = sorted(name for name in os.listdir(os.path.join(store, "outputs")) if not name.endswith(".mp4"))
    server.terminate()
    server.wait()

    # Tokens: beyond the token file, nothing is answered.
    open(os.path.join(folder, "tokens"), "w").write("sesame\n")
    server, base, _ = start("--token-file", os.path.join(folder, "tokens"))
    status, headers, problem = call(base, "GET", "/v1/renders")
    seen["no_token"] = [status, headers.get("www-authenticate"), problem.get("status")]
    status, _, _ = call(base, "GET", "/v1/renders", headers={"Authorization": "Bearer sesame"})
    seen["token"] = status
    status, _, _ = call(base, "GET", "/v1/health")
    seen["health_open"] = status
    status, _, spec = call(base, "GET", "/openapi.json")
    seen["openapi"] = [status, spec.get("openapi"), sorted(spec["paths"])]
    if use_httpx:
        # schemathesis against the document the service serves: no 5xx, every answer as documented.
        tool = os.path.join(os.path.dirname(sys.executable), "schemathesis")
        fuzzed = subprocess.run([tool, "run", base + "/openapi.json", "-H", "Authorization: Bearer sesame", "--suppress-health-check", "all",
                                 "-c", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
                                 "-n", "25", "--seed", "7", "--request-timeout", "10"], capture_output=True, text=True, cwd=folder)
        seen["schemathesis"] = [fuzzed.returncode, fuzzed.stdout[-3000:]]
    server.terminate()
    server.wait()


def raw(base, data, read=True):
    """Bytes sent on a socket of its own; the status line answered, if any."""
    host, port = base.split("//")[1].split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    try:
        sock.sendall(data)
        return sock.recv(4096).decode(errors="replace").split("\r\n")[0] if read else sock
    except OSError as error:
        return f"closed: {error}"
    finally:
        if read:
            sock.close()


def hooks_at(path):
    return [h for h in hooks if h[0] == path]


def until(condition, seconds=60):
    end = time.time() + seconds
    while time.time() < end and not condition():
        time.sleep(0.02)
    return condition()


def hostile():
    server, base, _ = start("--webhook-waits", "0.2,0.2,0.2,0.2,0.2", "--webhook-timeout", "2", "--max-token-pixel-frames", "800000000",
                            "--max-upload", "100000")
    _, _, made = call(base, "POST", "/v1/renders", {"story": small})
    wait(base, made["id"])
    # A receiver that hangs: its tries end at the timeout; another's message goes out meanwhile.
    _, _, hanging = call(base, "POST", "/v1/renders", {"story": small, "webhook": hook_url + "/hang"})
    until(lambda: hooks_at("/hang"))
    _, _, other = call(base, "POST", "/v1/renders", {"story": small, "webhook": hook_url + "/hook"})
    until(lambda: hooks_at("/hook"), 10)
    _, _, meanwhile = call(base, "GET", f"/v1/renders/{hanging['id']}")
    seen["hang_meanwhile"] = [len(hooks_at("/hook")), len(meanwhile.get("deliveries", []))]
    # A receiver that answers 500 forever: six tries, then given up.
    _, _, broken = call(base, "POST", "/v1/renders", {"story": small, "webhook": hook_url + "/broken"})
    def tried(rid):
        return len(call(base, "GET", f"/v1/renders/{rid}")[2].get("deliveries", []))
    until(lambda: tried(hanging["id"]) >= 6 and tried(broken["id"]) >= 6, 40)
    time.sleep(1)  # no seventh try comes
    for name, rid in [("hang", hanging["id"]), ("broken", broken["id"])]:
        _, _, got = call(base, "GET", f"/v1/renders/{rid}")
        seen[name] = [[d.get("status"), bool(d.get("error"))] for d in got.get("deliveries", [])]
    seen["hang_tries"] = len(hooks_at("/hang"))
    # 200 idle connections and 50 that stop inside their headers: the service answers on.
    idle = [raw(base, b"", read=False) for _ in range(200)]
    idle += [raw(base, b"POST /v1/renders HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n", read=False) for _ in range(50)]
    status, _, health = call(base, "GET", "/v1/health")
    status2, _, again = call(base, "POST", "/v1/renders", {"story": dict(small, set={"canvas.size": [90, 160], "hold": 0.7})})
    seen["idle"] = [len(idle), status, status2, wait(base, again["id"])["status"]]
    for sock in idle:
        sock.close()
    # A body said to be 1 GB, and 2 MiB sent in chunks with no length: refused, not read.
    seen["gigabyte"] = raw(base, b"POST /v1/renders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n" + b"{" * 65536)
    chunk = b"x" * 65536
    seen["chunked"] = raw(base, b"POST /v1/renders HTTP/1.1\r\nHost: x\r\nContent-Type: application/yaml\r\nTransfer-Encoding: chunked\r\n\r\n"
                          + (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 32 + b"0\r\n\r\n")
    # Files over --max-upload: 413, nothing of them kept.
    big = os.path.join(folder, "big.png")
    open(big, "wb").write(os.urandom(200000))
    request = os.path.join(folder, "request.json")
    open(request, "w").write(json.dumps({"story": {"slides": [{"image": "big.png"}, {"image": "a.png"}]}}))
    got = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", base + "/v1/renders", "-F", f"request=<{request}", "-F", f"files=@{big}"],
                         capture_output=True, text=True)
    uploads = os.path.join(store, "uploads")
    seen["upload_over"] = [got.stdout, sorted(os.listdir(uploads)) if os.path.isdir(uploads) else []]
    # A story of a billion frames (9,300 slides of an hour at 30 fps): refused at once.
    status, _, problem = call(base, "POST", "/v1/renders", {"story": {"set": {"canvas.size": [90, 160]}, "slides": [{"image": "a.png", "hold": 3600}] * 9300}})
    seen["billion"] = [status, problem.get("detail", "")]
    # The token's pixel budget: a second long render waits for the first's end.
    long_story = {"set": {"canvas.size": [90, 160]}, "slides": [{"image": "a.png", "hold": 600}, {"image": "b.png", "hold": 600}]}
    _, _, first = call(base, "POST", "/v1/renders", {"story": long_story})
    status, _, problem = call(base, "POST", "/v1/renders", {"story": dict(long_story, set={"canvas.size": [90, 160], "hold": 2})})
    seen["budget"] = [first["status"], status, problem.get("title")]
    call(base, "DELETE", f"/v1/renders/{first['id']}")
    status, _, second = call(base, "POST", "/v1/renders", {"story": dict(long_story, set={"canvas.size": [90, 160], "hold": 2})})
    seen["budget_after"] = status
    call(base, "DELETE", f"/v1/renders/{second['id']}")
    status, _, _ = call(base, "GET", "/v1/health")
    seen["serving"] = status
    server.terminate()
    server.wait()


def jobs():
    """The service's jobs the cluster still holds (their names are segue-r_...)."""
    names = subprocess.run(["squeue", "-h", "-o", "%j"], capture_output=True, text=True).stdout.split()
    return [name for name in names if name.startswith("segue-r_")]


def slurm():
    server, base, line = start("--executor", "slurm", "--workers", "2")
    status, _, render = call(base, "POST", "/v1/renders", {"story": small, "webhook": hook_url + "/hook"})
    done = wait(base, render["id"], seconds=180)
    status, _, video = call(base, "GET", done["links"]["output"], raw=True)
    open(os.path.join(folder, "served.mp4"), "wb").write(video)
    seen["render"] = [done["status"], done["attempts"], done["progress"]["frames_done"] == done["progress"]["frames_total"], status, done.get("error")]
    # Cancelled while its job renders: the job leaves the cluster, nothing is left behind.
    long_story = {"set": {"canvas.size": [90, 160]}, "slides": [{"image": "a.png", "hold": 600}, {"image": "b.png", "hold": 600}]}
    _, _, long_render = call(base, "POST", "/v1/renders", {"story": long_story})
    rendering = wait(base, long_render["id"], until=("rendering", "failed", "done"), seconds=180)
    until(lambda: call(base, "GET", f"/v1/renders/{long_render['id']}")[2]["progress"]["frames_done"] > 0, 30)
    _, _, progressed = call(base, "GET", f"/v1/renders/{long_render['id']}")
    status, _, cancelled = call(base, "DELETE", f"/v1/renders/{long_render['id']}")
    gone = until(lambda: not jobs(), 60)
    seen["cancel"] = [rendering["status"], progressed["progress"]["frames_done"] > 0, status, cancelled["status"], gone]
    # The service killed while a job renders: the job runs on, and the service started again
    # watches it to its end, once.
    longer = {"set": {"canvas.size": [360, 640]}, "slides": [{"image": "a.png", "hold": 20}, {"image": "b.png", "hold": 20}]}
    _, _, running = call(base, "POST", "/v1/renders", {"story": longer, "webhook": hook_url + "/after"})
    wait(base, running["id"], until=("rendering",), seconds=180)
    server.send_signal(signal.SIGKILL)
    server.wait()
    server, base, line = start("--executor", "slurm", "--workers", "2")
    seen["restart_line"] = line.strip()
    finished = wait(base, running["id"], seconds=300)
    until(lambda: hooks_at("/after"), 10)
    seen["after_kill"] = [finished["status"], finished["attempts"], finished["progress"]["frames_done"] == finished["progress"]["frames_total"],
                          len(hooks_at("/after")), all(h[2] for h in hooks_at("/after"))]
    seen["hooks"] = [[h[0], h[2], h[3]] for h in hooks_at("/hook")]
    until(lambda: not os.listdir(os.path.join(store, "tasks")), 10)
    seen["leftovers"] = sorted(os.listdir(os.path.join(store, "tasks"))) + sorted(n for n in os.listdir(os.path.join(store, "outputs")) if not n.endswith(".mp4"))
    # sbatch refusing a job (an option it does not know): the render fails, saying so.
    server.terminate()
    server.wait()
    server, base, _ = start("--executor", "slurm", "--slurm-option=--no-such-option")
    _, _, refused = call(base, "POST", "/v1/renders", {"story": dict(small, set={"canvas.size": [90, 160], "hold": 0.8})})
    refused = wait(base, refused["id"], seconds=60)
    seen["refused"] = [refused["status"], refused.get("error", {}).get("message", "")]
    server.terminate()
    server.wait()


{"service": service, "hostile": hostile, "slurm": slurm}[scenario]()
print(json.dumps(seen))
