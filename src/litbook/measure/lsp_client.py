"""A language server as a child process, spoken to over its standard input and output, for the
measuring scripts beside this one."""
import json, queue, subprocess, threading


class Connection:
    """A language server as a child process, its messages read on a thread of their own."""

    def __init__(self, command, cwd, env):
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.messages = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        out = self.process.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.decode().strip()
                if not line:
                    break
                key, value = line.split(":", 1)
                headers[key.lower()] = value.strip()
            self.messages.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, message):
        data = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def next(self, timeout):
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            return None
