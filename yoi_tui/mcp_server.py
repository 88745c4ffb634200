"""``yoi mcp``: a stdio MCP server giving an agent the retrieval tools of SPEC 5.

Tools (same inputs and outputs as the library functions in ``yoi_tui.core.retrieval.search``):

- ``knowledge_search(query, slug?, kind?, limit?, include_replaced?)``
- ``memory_search(query, slug?, kind?, limit?, include_replaced?)``
- ``read_record(slug, kind)`` — one record's frontmatter and body, read-only.

Every record returned counts as one invoke in ``.yoi/usage/<session>.jsonl``; the session is the
``--session`` option, else ``$YOI_SESSION_ID``, else one id for the server's lifetime. Files are
scanned on every call, so edits made while the server runs are seen at once. Nothing but the MCP
protocol is written to stdout; logs go to stderr.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .core.errors import YoiError
from .core.retrieval import search as _search
from .core.retrieval.usage import resolve_session_id
from .core.store.workspace import Workspace

SERVER_NAME = "yoi-memory"
INSTRUCTIONS = (
    "Project memory for this repository: knowledge records (terms, policies, rules, facts, how-tos) "
    "and memory records (the summary, decisions, requests). Search before re-deriving project "
    "conventions or repeating a past attempt; read a record by slug when a #slug is mentioned."
)


class KnowledgeHitModel(BaseModel):
    slug: str
    kind: str = Field(description="knowledge kind: term, policy, rule, fact, howto, ...")
    description: str = Field(description="what the record is and when to read it")
    model_invokation: bool
    excerpt: str = Field(description="lines around the first match (the body's start without a query)")
    replaced_by: str | None = Field(None, description="set only for replaced records (include_replaced)")


class MemoryHitModel(BaseModel):
    slug: str
    kind: Literal["summary", "decision", "request"]
    description: str | None = None
    status: str | None = Field(None, description="decisions: open, resolved or replaced")
    excerpt: str
    replaced_by: str | None = None


class RecordModel(BaseModel):
    slug: str
    kind: Literal["knowledge", "decision", "request", "summary"]
    path: str = Field(description="path relative to the workspace root")
    meta: dict[str, Any] = Field(description="the YAML frontmatter")
    body: str


def build_server(ws: Workspace, session_id: str | None = None) -> Any:
    """An ``MCPServer`` with the three tools bound to ``ws`` (imported lazily: the SDK is heavy)."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    session = resolve_session_id(session_id)
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    def knowledge_search(query: str = "", slug: str | None = None, kind: str | None = None,
                              limit: int | None = None, include_replaced: bool = False) -> list[KnowledgeHitModel]:
        """Search the project's knowledge records (knowledge/*.md).

        query: whitespace-separated terms that must ALL occur (case-insensitive, frontmatter included).
        slug: exact record name; returns at most that record (use it for a #slug you were shown).
        kind: only records of this knowledge kind (term, policy, rule, fact, howto, ...).
        limit: at most this many hits (default from the project's config).
        include_replaced: also return records superseded by another (normally hidden).
        """
        try:
            hits = _search.knowledge_search(ws, query, slug=slug, kind=kind, limit=limit,
                                    include_replaced=include_replaced, session_id=session)
        except YoiError as exc:
            raise ToolError(str(exc)) from exc
        return [KnowledgeHitModel(**h.to_json()) for h in hits]

    @server.tool(annotations=read_only)
    def memory_search(query: str = "", slug: str | None = None,
                           kind: Literal["summary", "decision", "request"] | None = None,
                           limit: int | None = None, include_replaced: bool = False) -> list[MemoryHitModel]:
        """Search the project's memory: memory/summary.md, decisions and requests.

        query: whitespace-separated terms that must ALL occur (case-insensitive, frontmatter included).
        slug: exact record name ('summary' for the summary).
        kind: summary, decision or request.
        limit: at most this many hits (default from the project's config).
        include_replaced: also return replaced decisions/requests (normally hidden).
        Decision hits carry status (open, resolved, replaced).
        """
        try:
            hits = _search.memory_search(ws, query, slug=slug, kind=kind, limit=limit,
                                 include_replaced=include_replaced, session_id=session)
        except YoiError as exc:
            raise ToolError(str(exc)) from exc
        return [MemoryHitModel(**h.to_json()) for h in hits]

    @server.tool(annotations=read_only)
    def read_record(slug: str, kind: Literal["knowledge", "decision", "request", "summary"]) -> RecordModel:
        """Read one record in full: its frontmatter (meta) and Markdown body. Read-only.

        slug: the record's name (file name without .md; ignored for the summary).
        kind: knowledge, decision, request or summary.
        """
        try:
            view = _search.get_record(ws, slug, kind, session_id=session)
        except YoiError as exc:
            raise ToolError(str(exc)) from exc
        return RecordModel(**view.to_json())

    return server


def run_stdio(ws: Workspace, session_id: str | None = None) -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    from .core.retrieval.search_index import watch_for_changes

    watch_for_changes()  # a long-running process: the kernel says when records change (change_feed)
    build_server(ws, session_id).run()
