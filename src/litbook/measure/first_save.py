"""How long after the first save in a fresh checkout the editor sees a type error in input.md.

Usage, from a fresh clone whose `cargo build` has run, with rust-analyzer on PATH:

    cargo build -p litbook && python3 src/litbook/measure/first_save.py "$PWD"

It starts `target/debug/litbook lsp` (of the checkout this script is in) in the crate given, opens
input.md, waits until the server says rust-analyzer has loaded the book, types a type error, saves,
and prints the seconds from the save to the diagnostic.
"""
import os, sys, time

from lsp_client import Connection

crate = sys.argv[1]
literate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../target/debug/litbook")
server = Connection([literate, "lsp"], crate, dict(os.environ))
uri = "file://" + os.path.join(crate, "book/src/input.md")
server.request("initialize", {"processId": None, "rootUri": "file://" + crate, "capabilities": {}})
server.notify("initialized", {})
text = open(os.path.join(crate, "book/src/input.md")).read()
server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}})
start = time.time()
def wait(pred, limit):
    end = time.time() + limit
    while time.time() < end:
        m = server.next(1)
        if m is None:
            continue
        if "id" in m and "method" in m:
            server.send({"id": m["id"], "result": None})
        if pred(m): return m
    return None
loaded = wait(lambda m: m.get("method") == "window/logMessage" and "loaded" in m["params"]["message"], 900)
print("loaded after %.1f s" % (time.time() - start), flush=True)
broken = text.replace("build_bfs_table(world, Node::Boundary)", "build_bfs_table(world, 7u8)", 1)
server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]})
t0 = time.time()
server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
got = wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and any("mismatched types" in d["message"] for d in m["params"]["diagnostics"]), 900)
print("type error %.1f s after the save" % (time.time() - t0) if got else "no type error", flush=True)
server.process.kill()
