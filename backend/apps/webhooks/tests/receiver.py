"""A real HTTP receiver on 127.0.0.1 (http.server in a thread) that verifies signatures
the way a customer would, and answers with a scripted list of status codes."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, *, secret: str = "", statuses: list[int] | None = None, location: str = ""):
        self.secret = secret
        self.statuses = list(statuses or [])  # answered in order; 200 once exhausted
        self.location = location
        self.received: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                expected = "sha256=" + hmac.new(receiver.secret.encode(), body, hashlib.sha256).hexdigest()
                receiver.received.append({
                    "path": self.path, "headers": dict(self.headers), "body": json.loads(body),
                    "signature_ok": hmac.compare_digest(expected, self.headers.get("X-LatencyLab-Signature", "")),
                })
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/latencylab?src=test"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Receiver":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
