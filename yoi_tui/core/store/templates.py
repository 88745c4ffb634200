"""New records: the text of a fresh, lint-clean record of each kind, and whether a slug can name one.

One source for every way a person starts a record: the app's ``n`` (``NewRecordModal`` then the
editor) and ``yoi new KIND SLUG`` both take their text from ``record_template`` and their slug
check from ``slug_problem``, so a record started either way passes ``yoi lint`` as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from .kinds import SLUG_MAX, RecordKind, is_valid_slug, path_for, slugify
from .workspace import Workspace
from .writer import new_record_text

NEW_RECORD_KINDS = (RecordKind.DECISION, RecordKind.REQUEST, RecordKind.KNOWLEDGE)
"""The kinds a person creates (the summary exists once, from ``yoi init``)."""


def title_from_slug(slug: str) -> str:
    return slug.replace("-", " ").capitalize() if slug else "Untitled"


def knowledge_kind_for(slug: str, kinds: Sequence[str], default: str = "fact") -> str:
    """The knowledge kind a slug names by its prefix (``howto-deploy`` → ``howto``), else ``default``."""
    return next((kind for kind in kinds if slug.startswith(f"{kind}-")), default)


def record_template(kind: RecordKind, slug: str, *, now: datetime | None = None,
                    knowledge_kind: str = "fact", title: str | None = None) -> str:
    """The text of a new, lint-clean record of ``kind`` (timestamps ``now``, default: current UTC).

    ``title``: the heading (and the start of a knowledge description); default: from the slug.
    """
    stamp = (now or datetime.now(UTC)).replace(microsecond=0)
    title = " ".join(title.split()) if title and title.strip() else title_from_slug(slug)
    if kind is RecordKind.DECISION:
        meta = {"created_at": stamp, "updated_at": stamp, "sources": [], "status": "open"}
        body = (f"# {title}\n\nWhat had to be decided, and why it came up.\n\n"
                "Options:\n- ...\n\nChosen: ...\n\nWhy: ...\n")
    elif kind is RecordKind.REQUEST:
        meta = {"created_at": stamp, "updated_at": stamp, "sources": []}
        body = f"# {title}\n\nWhat the user asked for, and where it applies.\n"
    elif kind is RecordKind.KNOWLEDGE:
        meta = {"kind": knowledge_kind, "description": f"{title}: what this is and when to read it.",
                "model_invokation": False, "user_invocable": True, "last_sources": [],
                "created_at": stamp, "updated_at": stamp}
        body = f"# {title}\n\nThe knowledge itself, dense and to the point.\n"
    else:
        meta = {"updated_at": stamp}
        body = "# Project summary\n\nWhat this project is, where it stands, how the user likes to work.\n"
    return new_record_text(meta, body)


def slug_problem(ws: Workspace, kind: RecordKind, slug: str) -> str | None:
    """Why ``slug`` cannot name a new ``kind`` record (None: it can)."""
    if not slug:
        return "type a slug: lowercase words joined by hyphens"
    if len(slug) > SLUG_MAX:
        return f"at most {SLUG_MAX} characters"
    if not is_valid_slug(slug):
        suggestion = slugify(slug)
        return f"not a valid slug; try '{suggestion}'" if suggestion and suggestion != slug else \
            "use lowercase letters, digits and single hyphens"
    path = path_for(ws, kind, slug)
    if path.exists() or path.is_symlink():
        return f"{ws.rel(path)} already exists"
    return None


__all__ = ["NEW_RECORD_KINDS", "knowledge_kind_for", "record_template", "slug_problem", "title_from_slug"]
