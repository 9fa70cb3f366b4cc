"""How long after the first save in a fresh checkout the editor sees a type error in input.md.

Usage, from a fresh clone whose `cargo build` has run, with rust-analyzer on PATH:

    cargo build -p literate && python3 src/literate/measure/first_save.py "$PWD"

It starts `target/debug/literate lsp` (of the checkout this script is in) in the crate given, opens
input.md, waits until the server says rust-analyzer has loaded the book, types a type error, saves,
and prints the seconds from the save to the diagnostic.
"""
import json, subprocess, sys, time, os, threading, queue
crate = sys.argv[1]
literate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../target/debug/literate")
env = dict(os.environ)
p = subprocess.Popen([literate, "lsp"], cwd=crate, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
q = queue.Queue()
def reader():
    while True:
        headers = {}
        while True:
            line = p.stdout.readline()
            if not line: return
            line = line.decode().strip()
            if not line: break
            k, v = line.split(":", 1); headers[k.lower()] = v.strip()
        body = p.stdout.read(int(headers["content-length"]))
        q.put(json.loads(body))
threading.Thread(target=reader, daemon=True).start()
def send(msg):
    data = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data); p.stdin.flush()
uri = "file://" + os.path.join(crate, "book/src/input.md")
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": "file://" + crate, "capabilities": {}}})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
text = open(os.path.join(crate, "book/src/input.md")).read()
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
start = time.time()
def wait(pred, limit):
    end = time.time() + limit
    while time.time() < end:
        try: m = q.get(timeout=1)
        except queue.Empty: continue
        if m.get("method") == "workspace/configuration" or ("id" in m and "method" in m):
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        if pred(m): return m
    return None
loaded = wait(lambda m: m.get("method") == "window/logMessage" and "loaded" in m["params"]["message"], 900)
print("loaded after %.1f s" % (time.time() - start), flush=True)
broken = text.replace("build_bfs_table(world, Node::Boundary)", "build_bfs_table(world, 7u8)", 1)
send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}})
t0 = time.time()
send({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}})
got = wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and any("mismatched types" in d["message"] for d in m["params"]["diagnostics"]), 900)
print("type error %.1f s after the save" % (time.time() - t0) if got else "no type error", flush=True)
p.kill()
