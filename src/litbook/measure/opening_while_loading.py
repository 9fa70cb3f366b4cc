"""How often rust-analyzer leaves the mirror's tangled files outside the crate when they are opened
while it loads the workspace, against when they are opened once it says it has loaded.

Usage, from a checkout whose `cargo build -p litbook` has run, with rust-analyzer on PATH:

    python3 src/litbook/measure/opening_while_loading.py "$PWD" ROUNDS AT_ONCE

It has `target/debug/litbook lsp` write the mirror (`target/litbook-lsp`) of the crate given, then
starts rust-analyzer on that mirror ROUNDS times in each of two ways, AT_ONCE of them side by side
(as a busy machine has them): opening every tangled file with it as soon as it is initialized (as
the language server did), or once its status first says it is quiescent (as it does now). Each start
ends 6 s after it is quiescent; a start counts as bad if any tangled file's last diagnostics then
hold `unlinked-file`. It prints the bad starts of each way.
"""
import glob, os, sys, threading, time

from lsp_client import Connection

crate, rounds, at_once = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
here = os.path.dirname(os.path.abspath(__file__))
literate = os.path.join(here, "../../../target/debug/litbook")
mirror = os.path.join(crate, "target/litbook-lsp")
target_dir = os.path.join(crate, "target/measure-target")


def write_mirror():
    """Has the language server write the mirror, and stops it once the library root is there."""
    server = Connection([literate, "lsp"], crate, dict(os.environ))
    server.request("initialize", {"processId": None, "rootUri": "file://" + crate, "capabilities": {}})
    while (message := server.next(120)) is not None and message.get("id") != 1:
        pass
    server.notify("initialized", {})
    deadline = time.time() + 120
    while not os.path.exists(os.path.join(mirror, "lib.rs")) and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(2)
    server.process.kill()


def start(early, result):
    """One start of rust-analyzer on the mirror; appends whether it left a file unlinked."""
    settings = {"linkedProjects": [mirror + "/Cargo.toml"], "checkOnSave": False,
                "files": {"watcher": "server"}}
    analyzer = Connection(["rust-analyzer"], mirror, dict(os.environ, CARGO_TARGET_DIR=target_dir))
    analyzer.request("initialize", {
        "processId": os.getpid(), "rootUri": "file://" + mirror,
        "capabilities": {"workspace": {"configuration": True},
                         "experimental": {"serverStatusNotification": True}},
        "initializationOptions": settings})
    files = sorted(glob.glob(mirror + "/tangled/*.rs"))

    def open_all():
        for path in files:
            with open(path) as f:
                document = {"uri": "file://" + path, "languageId": "rust", "version": 1, "text": f.read()}
            analyzer.notify("textDocument/didOpen", {"textDocument": document})

    codes, quiescent = {}, None
    deadline = time.time() + 300
    while time.time() < deadline and not (quiescent and time.time() - quiescent > 6):
        message = analyzer.next(0.5)
        if message is None:
            continue
        method = message.get("method")
        if "id" in message and method:
            answer = [settings] if method == "workspace/configuration" else None
            analyzer.send({"id": message["id"], "result": answer})
        elif message.get("id") == 1:
            analyzer.notify("initialized", {})
            if early:
                open_all()
        elif method == "experimental/serverStatus" and message["params"]["quiescent"]:
            if quiescent is None and not early:
                open_all()
            quiescent = quiescent or time.time()
        elif method == "textDocument/publishDiagnostics":
            codes[message["params"]["uri"]] = [d.get("code") for d in message["params"]["diagnostics"]]
    analyzer.process.kill()
    if quiescent is None:
        raise SystemExit("rust-analyzer did not load the mirror within 300 s")
    result.append(any("unlinked-file" in c for c in codes.values()))


write_mirror()
for early, way in [(True, "opened while it loads"), (False, "opened once it has loaded")]:
    bad = []
    for _ in range(rounds):
        threads = [threading.Thread(target=start, args=(early, bad)) for _ in range(at_once)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print(f"{way}: {sum(bad)} of {len(bad)} starts left tangled files unlinked")
