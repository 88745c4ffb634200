"""The record editor's text area: Markdown highlighting for the body, YAML for the frontmatter.

Textual's TextArea highlights one language per document and its Markdown grammar leaves a
frontmatter block unstyled. After the Markdown pass this widget parses the frontmatter lines with
the tree-sitter YAML grammar and puts YAML highlights on those lines. It overrides the private
``_build_highlight_map`` (Textual is pinned to 8.2.8); if anything in that pass fails the editor
keeps plain Markdown highlighting, so editing never depends on it.
"""

from __future__ import annotations

import contextlib

from textual.widgets import TextArea

try:  # textual[syntax] is a dependency, but a build without tree-sitter still edits fine.
    from textual._tree_sitter import get_language
    from tree_sitter import Parser, Query, QueryCursor
except ImportError:  # pragma: no cover - depends on the installed extras
    get_language = None  # type: ignore[assignment]


def frontmatter_rows(lines: list[str]) -> tuple[int, int] | None:
    """0-based (first, last) rows of the YAML between the opening and closing '---' (None: no block)."""
    if not lines or lines[0].rstrip() != "---":
        return None
    for row in range(1, len(lines)):
        if lines[row].rstrip() in ("---", "..."):
            return (1, row - 1) if row > 1 else None
    return None


class RecordTextArea(TextArea):
    """A code-editor TextArea for a record file (frontmatter + Markdown body)."""

    _yaml_query: object | None = None

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(text, language="markdown", theme="monokai", soft_wrap=True, tab_behavior="indent",
                         show_line_numbers=True, id=id)
        self.indent_width = 2

    def _yaml_captures(self, source: str) -> dict[str, list[object]]:
        language = get_language("yaml") if get_language is not None else None
        if language is None:
            return {}
        cls = type(self)
        if cls._yaml_query is None:
            cls._yaml_query = Query(language, self._get_builtin_highlight_query("yaml"))
        tree = Parser(language).parse(source.encode("utf-8"))
        return QueryCursor(cls._yaml_query).captures(tree.root_node)  # type: ignore[arg-type]

    def _build_highlight_map(self) -> None:
        super()._build_highlight_map()
        with contextlib.suppress(Exception):
            self._overlay_yaml()

    def _overlay_yaml(self) -> None:
        document = self.document
        lines = [document.get_line(row) for row in range(min(document.line_count, 2000))]
        rows = frontmatter_rows(lines)
        if rows is None:
            return
        first, last = rows
        source = "\n".join(lines[first:last + 1])
        captures = self._yaml_captures(source)
        highlights = self._highlights
        for row in range(first, last + 1):
            highlights[row] = []
        for name, nodes in captures.items():
            for node in nodes:
                (start_row, start_col), (end_row, end_col) = node.start_point, node.end_point  # type: ignore[attr-defined]
                for offset in range(start_row, end_row + 1):
                    row = first + offset
                    begin = start_col if offset == start_row else 0
                    finish = end_col if offset == end_row else None
                    highlights[row].append((begin, finish, name))
