"""A local OpenAI-compatible chat server on 127.0.0.1 for end-to-end ``llm`` engine tests.

``openai_tool_stub(arguments, prompt_tokens, completion_tokens, tools=True)`` answers a chat
completion the way a capable server does: a request with ``response_format`` gets ``arguments`` as
JSON content (the capability probe's own schema gets a valid probe answer), a request with ``tools``
gets a call of the first tool with ``arguments`` (``tools=False``: a model without native tool
calls, which writes a ```json block instead). Each request (path, Authorization header, JSON body)
is kept so tests can check what the engine sent. The model boundary is the only place the project's
tests use a double.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any


def _message(body: dict[str, Any], arguments: dict[str, Any], tools: bool) -> tuple[dict[str, Any], str]:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema" and fmt["json_schema"].get("name") == "probe":
        return {"role": "assistant", "content": json.dumps({"greeting": "hello", "number": 1})}, "stop"
    if fmt:
        return {"role": "assistant", "content": json.dumps(arguments)}, "stop"
    if body.get("tools") and tools:
        name = body["tools"][0]["function"]["name"]
        if name == "report_number":  # the capability probe
            arguments = {"value": 7}
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}, \
            "tool_calls"
    return {"role": "assistant", "content": "```json\n" + json.dumps(arguments) + "\n```"}, "stop"


@contextmanager
def openai_tool_stub(arguments: dict[str, Any], prompt_tokens: int = 100, completion_tokens: int = 10, *,
                     tools: bool = True) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Yield ``(base_url, requests)``; the server stops when the block ends."""
    requests: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
            message, finish = _message(body, arguments, tools)
            reply = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                     "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                               "total_tokens": prompt_tokens + completion_tokens}}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", requests
    finally:
        server.shutdown()
        server.server_close()
