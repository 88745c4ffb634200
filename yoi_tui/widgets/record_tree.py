"""The record tree: groups by kind (decisions by status) with counts, one leaf per record.

Rebuilding is cheap at any workspace size because each group shows at most ``LEAF_CAP`` leaves
(a "… N more" leaf says how many are hidden; the filter reaches the rest). Leaves carry the record's
relative path; lint marks (✖ error, ⚠ warning) lead the labels, set after a lint run.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ..model.browse import Group, RecordEntry

LEAF_CAP = 500
EXPAND_ALL_BELOW = 400  # total leaves under which every group starts expanded


class RecordTree(Tree[str | None]):
    """Tree of records; node data is the record's relative path (None for groups and "more")."""

    BINDINGS = [
        # Not in the footer: the main screen's own "e Edit" is, after help and the pipeline keys.
        Binding("e", "edit", "Edit", tooltip="Edit the highlighted record", id="yoi.tree.edit", show=False),
    ]

    class EditRequested(Message):
        """Enter/e on a record leaf."""

        def __init__(self, tree: RecordTree, rel: str) -> None:
            super().__init__()
            self.tree = tree
            self.rel = rel

        @property
        def control(self) -> RecordTree:
            return self.tree

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("records", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._leaves: dict[str, TreeNode[str | None]] = {}
        self._entries: dict[str, RecordEntry] = {}
        self._marks: dict[str, str] = {}
        self._expanded: dict[str, bool] = {}
        self._filtering = False
        self._group_nodes: dict[str, TreeNode[str | None]] = {}

    # ------------------------------------------------------------------ building

    def rebuild(self, groups: list[Group], *, filtering: bool = False, keep: str | None = None) -> None:
        """Replace the tree with ``groups``; keep the cursor on ``keep`` (a rel) when it is still shown."""
        keep = keep if keep is not None else self.highlighted_rel
        if not self._filtering:
            self._expanded.update({key: node.is_expanded for key, node in self._group_nodes.items()})
        self._filtering = filtering
        self.clear()
        self._leaves.clear()
        self._entries.clear()
        self._group_nodes.clear()
        total = sum(group.count for group in groups)
        expand_default = filtering or total <= EXPAND_ALL_BELOW
        for group in groups:
            self._add_group(self.root, group, expand_default, filtering)
        if keep and keep in self._leaves:
            self._move_to(self._leaves[keep])
        elif self._leaves:
            self._move_to(next(iter(self._leaves.values())))

    def _add_group(self, parent: TreeNode[str | None], group: Group, expand_default: bool, filtering: bool) -> None:
        if filtering and group.count == 0:
            return  # a filter shows only the groups holding matches
        label = Text.assemble((group.label, "bold"), (f"  {group.count}", "dim"))
        if filtering:
            expand = group.count > 0
        else:
            expand = self._expanded.get(group.key, expand_default or group.key == "summary")
        node = parent.add(label, data=None, expand=expand)
        self._group_nodes[group.key] = node
        for child in group.children:
            self._add_group(node, child, expand_default, filtering)
        for entry in group.entries[:LEAF_CAP]:
            self._entries[entry.rel] = entry
            self._leaves[entry.rel] = node.add_leaf(self._label(entry), data=entry.rel)
        hidden = len(group.entries) - LEAF_CAP
        if hidden > 0:
            node.add_leaf(Text(f"… {hidden:,} more — press / to filter", style="dim italic"), data=None)

    def _move_to(self, node: TreeNode[str | None]) -> None:
        parent = node.parent
        while parent is not None:
            if not parent.is_expanded and parent is not self.root:
                parent.expand()
            parent = parent.parent
        # A node's line is only known once the tree's lines are rebuilt (lazily, on render);
        # build them now so the cursor lands synchronously (private, Textual is pinned).
        _ = self._tree_lines
        self.cursor_line = node._line
        # Scroll once the tree knows its size; scrolling now would put the node at the very top.
        self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        node = self.cursor_node
        if node is not None:
            self.scroll_to_node(node, animate=False)

    def _label(self, entry: RecordEntry) -> Text:
        # The lint mark leads the label: the tree crops a long label at its right edge, which
        # must cut the name, never the mark (issue 28: slugs over ~22 characters lost their ✖).
        mark = self._marks.get(entry.rel, "")
        text = Text.assemble(("✖ ", "bold red") if mark == "error" else ("⚠ ", "yellow") if mark == "warning"
                             else "  ")
        text.append(entry.slug, style="dim" if entry.is_replaced else "")
        if entry.is_replaced and entry.replaced_by:
            text.append(f" → {entry.replaced_by}", style="dim italic")
        if entry.record is None and entry.loaded:
            text.append(" (unreadable)", style="red")
        return text

    def set_marks(self, marks: dict[str, str]) -> None:
        """Lint marks per rel ('error' or 'warning'); relabels the affected leaves."""
        changed = set(self._marks) ^ set(marks) | {rel for rel in marks if self._marks.get(rel) != marks[rel]}
        self._marks = dict(marks)
        for rel in changed:
            node = self._leaves.get(rel)
            entry = self._entries.get(rel)
            if node is not None and entry is not None:
                node.set_label(self._label(entry))

    # ------------------------------------------------------------------ queries

    @property
    def highlighted_rel(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None else None

    @property
    def shown_rels(self) -> list[str]:
        """Relative paths of the record leaves currently in the tree, in tree order."""
        return list(self._leaves)

    def select_rel(self, rel: str) -> bool:
        node = self._leaves.get(rel)
        if node is None:
            return False
        self._move_to(node)
        return True

    def first_rels(self, rels: Iterable[str]) -> str | None:
        for rel in rels:
            if rel in self._leaves:
                return rel
        return None

    # ------------------------------------------------------------------ actions

    def action_edit(self) -> None:
        rel = self.highlighted_rel
        if rel:
            self.post_message(self.EditRequested(self, rel))

    def action_select_cursor(self) -> None:
        rel = self.highlighted_rel
        if rel:
            self.post_message(self.EditRequested(self, rel))
        else:
            super().action_select_cursor()
