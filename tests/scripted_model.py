"""A scripted model server on 127.0.0.1 for the real-client contract tests (the model boundary).

One HTTP server speaks both wire protocols the clients use:

- Anthropic Messages (``POST /v1/messages``, SSE when ``"stream": true``) for Claude Code, reached
  through ``ANTHROPIC_BASE_URL``;
- OpenAI Responses (``POST /v1/responses``, SSE) for Codex, reached through a
  ``[model_providers.<id>]`` with ``wire_api = "responses"``.

Every request is logged (path, headers, parsed JSON body) in ``requests``. The replies follow
:data:`SCRIPT`: the step of a conversation is the number of tool results already in it, so the
replies do not depend on how many side requests (title generation, quota probes) the client makes.
A request is the agent's conversation when its tool list offers the client's shell tool; anything
else gets a short text reply.

The script: (0) call yoi's ``knowledge_search`` MCP tool; (1) run ``python3 check.py``, which fails;
(2) create ``config.txt`` (the fix); (3) run ``python3 check.py`` again, which passes; (4) a final
text. :class:`RefusingProxy` is the ``HTTPS_PROXY``/``HTTP_PROXY`` the clients get: it answers every
request, ``CONNECT`` included, with 403, so nothing leaves the machine and nothing waits on a timeout.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHECK_COMMAND = "python3 check.py"
FIX_FILE = "config.txt"
FIX_TEXT = "mode = fixed\n"
SEARCH_QUERY = "release"
FINAL_TEXT = "Fixed it: check.py needed config.txt; I created it and the check passes now."
# check.py as the project holds it: fails (exit 1) until config.txt says "mode = fixed".
CHECK_SCRIPT = (
    "import pathlib, sys\n"
    "p = pathlib.Path('config.txt')\n"
    "if not p.exists() or 'mode = fixed' not in p.read_text():\n"
    "    print('error: config.txt is missing mode = fixed', file=sys.stderr)\n"
    "    sys.exit(1)\n"
    "print('check passed')\n"
)
SHELL_TOOLS = ("Bash", "exec_command", "shell", "shell_command", "local_shell")


def tool_names(body: dict[str, Any]) -> list[str]:
    """Names of the tools a request offers (Anthropic ``name``; Responses ``name`` or a namespace's tools)."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("name"), str):
            names.append(tool["name"])
        for inner in tool.get("tools") or []:  # a Responses "namespace" groups MCP tools
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                names.append(f"{tool.get('name', '')}{inner['name']}")
    return names


def _find(names: list[str], *wanted: str) -> str | None:
    for want in wanted:
        for name in names:
            if name == want:
                return name
    return None


class Request:
    """One request the server received."""

    def __init__(self, method: str, path: str, headers: dict[str, str], body: Any) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    @property
    def text(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)

    @property
    def tools(self) -> list[str]:
        return tool_names(self.body) if isinstance(self.body, dict) else []

    @property
    def agentic(self) -> bool:
        return any(name in SHELL_TOOLS for name in self.tools)


class ScriptedModel:
    """The server; ``start()`` binds 127.0.0.1 on a free port, ``close()`` stops it."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self.counter = 0
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib name
                return

            def _body(self) -> Any:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Encoding") == "zstd" or not raw:
                    return raw.decode("latin-1") if raw else None
                try:
                    return json.loads(raw)
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                model.record(Request("GET", self.path, dict(self.headers), None))
                if self.path.split("?")[0].endswith("/models"):
                    self._send(200, "application/json", json.dumps({"data": [], "models": []}).encode())
                else:
                    self._send(404, "application/json", b'{"error": "not scripted"}')

            def do_HEAD(self) -> None:  # noqa: N802 - stdlib name
                model.record(Request("HEAD", self.path, dict(self.headers), None))
                self._send(200, "text/plain", b"")

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                body = self._body()
                request = Request("POST", self.path, dict(self.headers), body)
                model.record(request)
                path = self.path.split("?")[0]
                if path.endswith("/messages/count_tokens"):
                    self._send(200, "application/json", json.dumps({"input_tokens": len(request.text) // 4}).encode())
                elif path.endswith("/messages") and isinstance(body, dict):
                    self._anthropic(request)
                elif path.endswith("/responses") and isinstance(body, dict):
                    self._responses(request)
                else:
                    self._send(404, "application/json", b'{"error": "not scripted"}')

            def _send(self, status: int, ctype: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
                data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events).encode()
                self._send(200, "text/event-stream", data)

            def _anthropic(self, request: Request) -> None:
                body = request.body
                blocks, stop = model.anthropic_turn(request)
                usage_in = max(len(request.text) // 4, 1)
                message = {"id": f"msg_{model.next_id()}", "type": "message", "role": "assistant",
                           "model": body.get("model", "scripted"), "content": [], "stop_reason": None,
                           "stop_sequence": None,
                           "usage": {"input_tokens": usage_in, "output_tokens": 1,
                                     "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
                if not body.get("stream"):
                    self._send(200, "application/json", json.dumps(
                        {**message, "content": blocks, "stop_reason": stop,
                         "usage": {**message["usage"], "output_tokens": 20}}).encode())
                    return
                events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start",
                                                                               "message": message})]
                for index, block in enumerate(blocks):
                    if block["type"] == "text":
                        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                               "content_block": {"type": "text", "text": ""}}))
                        events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                               "delta": {"type": "text_delta",
                                                                         "text": block["text"]}}))
                    else:
                        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                               "content_block": {**block, "input": {}}}))
                        events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                               "delta": {"type": "input_json_delta",
                                                                         "partial_json": json.dumps(block["input"])}}))
                    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
                events.append(("message_delta", {"type": "message_delta",
                                                 "delta": {"stop_reason": stop, "stop_sequence": None},
                                                 "usage": {"output_tokens": 20}}))
                events.append(("message_stop", {"type": "message_stop"}))
                self._sse(events)

            def _responses(self, request: Request) -> None:
                items = model.responses_turn(request)
                rid = f"resp_{model.next_id()}"
                usage_in = max(len(request.text) // 4, 1)
                events: list[tuple[str, dict[str, Any]]] = [
                    ("response.created", {"type": "response.created", "response": {"id": rid}})]
                for index, item in enumerate(items):
                    events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                                  "output_index": index, "item": item}))
                    events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                                 "output_index": index, "item": item}))
                events.append(("response.completed", {"type": "response.completed", "response": {
                    "id": rid, "usage": {"input_tokens": usage_in, "input_tokens_details": {"cached_tokens": 0},
                                         "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                                         "total_tokens": usage_in + 20}}}))
                self._sse(events)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> ScriptedModel:
        self.thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def record(self, request: Request) -> None:
        with self.lock:
            self.requests.append(request)

    def next_id(self) -> int:
        with self.lock:
            self.counter += 1
            return self.counter

    def agentic_requests(self) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.method == "POST" and r.agentic]

    # --- the script -------------------------------------------------------------------------------

    @staticmethod
    def _search_tool(names: list[str]) -> str:
        found = [n for n in names if n.endswith("knowledge_search") and "yoi" in n]
        return found[0] if found else "mcp__yoi__knowledge_search"

    def anthropic_turn(self, request: Request) -> tuple[list[dict[str, Any]], str]:
        """Content blocks and stop reason of the reply to one Messages request."""
        if not request.agentic:
            return [{"type": "text", "text": "Scripted session"}], "end_turn"
        results = sum(1 for message in request.body.get("messages", []) if isinstance(message.get("content"), list)
                      for block in message["content"] if isinstance(block, dict) and block.get("type") == "tool_result")
        cwd = _anthropic_cwd(request.text)

        def use(name: str, tool_input: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
            return [{"type": "tool_use", "id": f"toolu_{self.next_id():04d}", "name": name,
                     "input": tool_input}], "tool_use"

        if results == 0:
            return use(self._search_tool(request.tools), {"query": SEARCH_QUERY})
        if results in (1, 3):
            return use("Bash", {"command": CHECK_COMMAND, "description": "Run the project check"})
        if results == 2:
            path = f"{cwd}/{FIX_FILE}" if cwd else FIX_FILE
            return use("Write", {"file_path": path, "content": FIX_TEXT})
        return [{"type": "text", "text": FINAL_TEXT}], "end_turn"

    def responses_turn(self, request: Request) -> list[dict[str, Any]]:
        """Output items of the reply to one Responses request.

        Codex 0.169 defers MCP tools: the first request names the ``mcp__yoi`` namespace in a
        ``<tools>`` developer block and offers a client-side ``tool_search``; a direct call is
        refused ("unsupported call"). So, as a model would, the script first searches, and calls the
        tool once the search output has loaded it (one step more than on Claude Code).
        """
        mid = f"msg_{self.next_id()}"
        if not request.agentic:
            return [{"type": "message", "role": "assistant", "id": mid,
                     "content": [{"type": "output_text", "text": "Scripted session"}]}]
        items_in = [item for item in request.body.get("input", []) if isinstance(item, dict)]
        searched = any(item.get("type") == "tool_search_output" for item in items_in)
        results = sum(1 for item in items_in
                      if item.get("type") in ("function_call_output", "custom_tool_call_output"))
        names = request.tools
        tools = {t.get("name") or t.get("type"): t for t in request.body.get("tools", []) if isinstance(t, dict)}
        call_id = f"call_{self.next_id():04d}"
        shell = _find(names, "exec_command", "shell_command", "shell") or "exec_command"
        if results == 0:
            loaded = _namespace_tool(request, "knowledge_search")
            if loaded is None and "tool_search" in tools and not searched and "mcp__yoi" in request.text:
                return [{"type": "tool_search_call", "call_id": call_id, "execution": "client",
                         "arguments": {"query": "mcp__yoi knowledge_search", "limit": 5}}]
            namespace, tool = loaded or ("mcp__yoi", "knowledge_search")
            return [{"type": "function_call", "name": tool, "namespace": namespace, "call_id": call_id,
                     "arguments": json.dumps({"query": SEARCH_QUERY})}]
        if results in (1, 3):
            args = {"cmd": CHECK_COMMAND} if shell == "exec_command" else (
                {"command": CHECK_COMMAND} if shell == "shell_command" else {"command": ["bash", "-lc", CHECK_COMMAND]})
            return [{"type": "function_call", "name": shell, "call_id": call_id, "arguments": json.dumps(args)}]
        if results == 2:
            patch = f"*** Begin Patch\n*** Add File: {FIX_FILE}\n+{FIX_TEXT.rstrip()}\n*** End Patch\n"
            if tools.get("apply_patch", {}).get("type") == "custom":
                return [{"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id, "input": patch}]
            if "apply_patch" in tools:
                return [{"type": "function_call", "name": "apply_patch", "call_id": call_id,
                         "arguments": json.dumps({"input": patch})}]
            args = {"cmd": f"printf 'mode = fixed\\n' > {FIX_FILE}"}
            return [{"type": "function_call", "name": shell, "call_id": call_id, "arguments": json.dumps(args)}]
        return [{"type": "message", "role": "assistant", "id": mid,
                 "content": [{"type": "output_text", "text": FINAL_TEXT}]}]


def _namespace_tool(request: Request, wanted: str) -> tuple[str, str] | None:
    """``(namespace, tool)`` of a loaded yoi tool named ``wanted``: in the tool list (a ``namespace``
    tool) or in a ``tool_search_output`` of the conversation."""
    places: list[Any] = list(request.body.get("tools") or [])
    for item in request.body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "tool_search_output":
            places.extend(item.get("tools") or [])
    for tool in places:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace" and "yoi" in str(tool.get("name")):
            for inner in tool.get("tools") or []:
                if isinstance(inner, dict) and inner.get("name") == wanted:
                    return str(tool["name"]), wanted
    return None


def _anthropic_cwd(text: str) -> str | None:
    """The working directory Claude Code states in its system prompt (``Primary working directory: …``)."""
    import re

    match = re.search(r"(?:Primary working directory|Working directory): ([^\s\\\"]+)", text)
    return match.group(1) if match else None


class RefusingProxy:
    """An HTTP(S) proxy on 127.0.0.1 that refuses everything (403), CONNECT included, and logs the targets."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.stopped = False
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def start(self) -> RefusingProxy:
        self.thread.start()
        return self

    def _serve(self) -> None:
        while not self.stopped:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._refuse, args=(conn,), daemon=True).start()

    def _refuse(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                head = conn.recv(65536).decode("latin-1")
            except OSError:
                return
            first = head.split("\r\n", 1)[0]
            if first:
                self.targets.append(first)
            try:
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass

    def close(self) -> None:
        self.stopped = True
        self.sock.close()
