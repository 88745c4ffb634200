"""A forwarding proxy on 127.0.0.1 in front of a real model server, for the slow tests.

``ModelProxy(upstream)`` forwards every request to ``upstream`` (the local llama.cpp server) and keeps
each chat completion exchange (request body, response body), so a test can check what the engines
sent and what the model answered. ``corrupt(n)`` makes the next ``n`` chat completions (of one
schema, if named) come back
malformed — the content cut in half, ``finish_reason: length`` — as a truncated answer from a real
model would: the way to force the engines' retry and clean-stop paths on a real server.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ModelProxy:
    def __init__(self, upstream: str, timeout: float = 900) -> None:
        self.upstream = upstream.rstrip("/")
        self.timeout = timeout
        self.exchanges: list[dict[str, Any]] = []
        self._corrupt = 0
        self._schema: str | None = None
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self, body: bytes | None) -> None:
                request = urllib.request.Request(proxy.upstream + self.path.removeprefix("/v1"), data=body,
                                                 method=self.command,
                                                 headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=proxy.timeout) as response:
                        status, data = response.status, response.read()
                except urllib.error.HTTPError as exc:
                    status, data = exc.code, exc.read()
                if self.path.endswith("/chat/completions") and body:
                    data = proxy._record(json.loads(body), status, data)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def do_GET(self) -> None:  # noqa: N802
                self._forward(None)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def corrupt(self, count: int = 1, *, schema: str | None = None) -> None:
        """Corrupt the next ``count`` chat completions (only those asking for the JSON schema named
        ``schema``, e.g. ``"ActivityAnswer"``, when given: the capability probe is left alone)."""
        with self._lock:
            self._corrupt, self._schema = count, schema

    def _record(self, request: dict[str, Any], status: int, data: bytes) -> bytes:
        try:
            reply = json.loads(data)
        except ValueError:
            reply = None
        name = ((request.get("response_format") or {}).get("json_schema") or {}).get("name")
        with self._lock:
            corrupt = self._corrupt > 0 and status == 200 and isinstance(reply, dict) and \
                (self._schema is None or name == self._schema)
            if corrupt:
                self._corrupt -= 1
        if corrupt and isinstance(reply, dict):
            message = reply["choices"][0]["message"]
            content = message.get("content") or ""
            message["content"] = content[: len(content) // 2]
            message.pop("tool_calls", None)
            reply["choices"][0]["finish_reason"] = "length"
            data = json.dumps(reply).encode()
        self.exchanges.append({"request": request, "status": status, "reply": reply, "corrupted": corrupt})
        return data

    def __enter__(self) -> ModelProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
