"""The tools ``yoi mcp`` offers (``mcp_server`` is the protocol): their JSON schemas, the checking
of a call's arguments, and the call itself, made on ``core.retrieval.search``.

The schemas are written out, not generated: ``tools/list`` is answered before any of the search
code is imported (``mcp_server``'s docstring says why). A tool result carries the hits both as
``structuredContent`` (matching the tool's ``outputSchema``; a list is wrapped as ``{"result": [...]}``,
as MCP requires an object) and as the same JSON in a text block, for clients that read only text.
A problem the agent can fix (a bad argument, a missing record) is a result with ``isError``, so the
model sees the message and can retry; an unknown tool is a JSON-RPC error (``mcp_server``).
"""

from __future__ import annotations

import json
from typing import Any

_QUERY = {"type": "string", "default": "",
          "description": "whitespace-separated terms that must ALL occur (case-insensitive, frontmatter included)"}
_LIMIT = {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None,
          "description": "at most this many hits (default from the project's config)"}
_NULLABLE_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
_MEMORY_KINDS = ["summary", "decision", "request"]
_RECORD_KINDS = ["knowledge", "decision", "request", "summary"]
_OPTIONAL_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}]}
_READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}


def _listing(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"result": {"type": "array", "items": item}}, "required": ["result"]}


_KNOWLEDGE_HIT = {
    "type": "object",
    "properties": {
        "slug": {"type": "string"},
        "kind": {"type": "string", "description": "knowledge kind: term, policy, rule, fact, howto, ..."},
        "description": {"type": "string", "description": "what the record is and when to read it"},
        "model_invokation": {"type": "boolean"},
        "excerpt": {"type": "string",
                    "description": "lines around the first match (the body's start without a query)"},
        "replaced_by": {**_OPTIONAL_STRING, "description": "set only for replaced records (include_replaced)"},
    },
    "required": ["slug", "kind", "description", "model_invokation", "excerpt"],
}
_MEMORY_HIT = {
    "type": "object",
    "properties": {
        "slug": {"type": "string"},
        "kind": {"type": "string", "enum": _MEMORY_KINDS},
        "description": _OPTIONAL_STRING,
        "status": {**_OPTIONAL_STRING, "description": "decisions: open, resolved or replaced"},
        "excerpt": {"type": "string"},
        "replaced_by": _OPTIONAL_STRING,
    },
    "required": ["slug", "kind", "excerpt"],
}
_RECORD = {
    "type": "object",
    "properties": {
        "slug": {"type": "string"},
        "kind": {"type": "string", "enum": _RECORD_KINDS},
        "path": {"type": "string", "description": "path relative to the workspace root"},
        "meta": {"type": "object", "additionalProperties": True, "description": "the YAML frontmatter"},
        "body": {"type": "string"},
    },
    "required": ["slug", "kind", "path", "meta", "body"],
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "knowledge_search",
        "description": "Search the project's knowledge records (knowledge/*.md): terms, policies, rules, facts, "
                       "how-tos. Use slug=SLUG for a #slug you were shown.",
        "inputSchema": {"type": "object", "properties": {
            "query": _QUERY,
            "slug": {**_NULLABLE_STRING, "description": "exact record name; returns at most that record"},
            "kind": {**_NULLABLE_STRING,
                     "description": "only records of this knowledge kind (term, policy, rule, fact, howto, ...)"},
            "limit": _LIMIT,
            "include_replaced": {"type": "boolean", "default": False,
                                 "description": "also return records superseded by another (normally hidden)"},
        }},
        "outputSchema": _listing(_KNOWLEDGE_HIT),
        "annotations": _READ_ONLY,
    },
    {
        "name": "memory_search",
        "description": "Search the project's memory: memory/summary.md, decisions and requests. Decision hits "
                       "carry status (open, resolved, replaced).",
        "inputSchema": {"type": "object", "properties": {
            "query": _QUERY,
            "slug": {**_NULLABLE_STRING, "description": "exact record name ('summary' for the summary)"},
            "kind": {"anyOf": [{"type": "string", "enum": _MEMORY_KINDS}, {"type": "null"}], "default": None,
                     "description": "summary, decision or request"},
            "limit": _LIMIT,
            "include_replaced": {"type": "boolean", "default": False,
                                 "description": "also return replaced decisions/requests (normally hidden)"},
        }},
        "outputSchema": _listing(_MEMORY_HIT),
        "annotations": _READ_ONLY,
    },
    {
        "name": "read_record",
        "description": "Read one record in full: its frontmatter (meta) and Markdown body. Read-only.",
        "inputSchema": {"type": "object", "properties": {
            "slug": {"type": "string", "description": "the record's name (file name without .md; ignored for "
                                                      "the summary)"},
            "kind": {"type": "string", "enum": _RECORD_KINDS, "description": "knowledge, decision, request or summary"},
        }, "required": ["slug", "kind"]},
        "outputSchema": _RECORD,
        "annotations": _READ_ONLY,
    },
]
TOOL_NAMES = frozenset(tool["name"] for tool in TOOLS)


class ArgumentError(Exception):
    """A tool argument that does not fit the tool's input schema."""


def _check_arguments(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments, defaults filled in, checked against the tool's ``inputSchema`` (the subset it
    uses: string / integer / boolean, nullable, enum, minimum, required). Unknown keys are ignored."""
    [tool] = [t for t in TOOLS if t["name"] == name]
    schema = tool["inputSchema"]
    checked: dict[str, Any] = {}
    for key in schema.get("required", []):
        if key not in arguments:
            raise ArgumentError(f"{name}: missing required argument {key!r}")
    for key, spec in schema["properties"].items():
        if key not in arguments:
            if "default" in spec:
                checked[key] = spec["default"]
            continue
        value = arguments[key]
        options = spec.get("anyOf", [spec])
        if not any(_fits(value, option) for option in options):
            raise ArgumentError(f"{name}: argument {key!r} {_describe(options)}, got {json.dumps(value)}")
        checked[key] = value
    return checked


def _fits(value: Any, option: dict[str, Any]) -> bool:
    kind = option.get("type")
    if kind == "null":
        return value is None
    if kind == "string":
        ok = isinstance(value, str)
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "boolean":
        ok = isinstance(value, bool)
    else:  # pragma: no cover - the table above uses no other type
        ok = False
    if ok and "enum" in option:
        ok = value in option["enum"]
    if ok and "minimum" in option:
        ok = value >= option["minimum"]
    return ok


def _describe(options: list[dict[str, Any]]) -> str:
    words = []
    for option in options:
        if "enum" in option:
            words.append("one of " + ", ".join(option["enum"]))
        elif option.get("type") == "integer" and "minimum" in option:
            words.append(f"an integer >= {option['minimum']}")
        else:
            words.append({"string": "a string", "integer": "an integer", "boolean": "true or false",
                          "null": "null"}[option["type"]])
    return "must be " + " or ".join(words)


def _text_result(text: str, *, error: bool) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


class ToolContext:
    """The workspace and session the tools act for; ``call`` runs one tool call."""

    def __init__(self, ws: Any, session_id: str | None = None) -> None:
        self.ws = ws
        self.explicit_session = session_id
        self._lifetime_session: str | None = None
        self._watching = False

    def session(self) -> str:
        """The usage session of this call, asked again at every call: the client's hooks may announce
        a new one (``/clear`` in Claude Code starts a new session with the same MCP server)."""
        from .core.usage.agent_session import session_for_mcp

        found = session_for_mcp(self.ws, self.explicit_session)
        if found is not None:
            return found
        if self._lifetime_session is None:
            from .core.store.ids import new_id

            self._lifetime_session = new_id()
        return self._lifetime_session

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from .core.errors import YoiError

        try:
            args = _check_arguments(name, arguments)
            structured = self._run(name, args)
        except ArgumentError as exc:
            return _text_result(str(exc), error=True)
        except YoiError as exc:
            return _text_result(str(exc), error=True)
        result = _text_result(json.dumps(structured, ensure_ascii=False), error=False)
        result["structuredContent"] = structured
        return result

    def _run(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        from .core.retrieval import search

        if not self._watching:
            from .core.retrieval.search_index import watch_for_changes

            # A long-running process: the kernel says when records change (freshness.record_feed:
            # the folders and every record's inode), instead of an lstat of every record per search.
            watch_for_changes()
            self._watching = True
        session = self.session()
        if name == "read_record":
            view = search.get_record(self.ws, args["slug"], args["kind"], session_id=session)
            return view.to_json()
        if name == "knowledge_search":
            hits = search.knowledge_search(self.ws, args["query"], slug=args["slug"], kind=args["kind"],
                                           limit=args["limit"], include_replaced=args["include_replaced"],
                                           session_id=session)
            return {"result": [{**{"replaced_by": None}, **h.to_json()} for h in hits]}
        hits = search.memory_search(self.ws, args["query"], slug=args["slug"], kind=args["kind"],
                                    limit=args["limit"], include_replaced=args["include_replaced"],
                                    session_id=session)
        return {"result": [{"description": None, "status": None, "replaced_by": None, **h.to_json()}
                           for h in hits]}
