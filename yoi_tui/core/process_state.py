"""Every value a module keeps for the life of its process, listed in one place (issue 24).

The command server and the MCP server run many commands in one process, so a module-level value
that a command changes outlives the command. Each such value is one of three kinds, and this
table says which, with why it is safe:

* ``PER_REQUEST`` — belongs to one command: the server resets it before each request
  (``reset_per_request``), as if the command ran in a process of its own;
* ``CHECKED`` — a memo kept across requests *because* it checks itself on every use (against the
  kernel's change feed, a file signature, a key holding every input), so a later request can never
  see a stale answer: that check is what ``tests/test_server_exact.py`` and the served/one-shot
  comparisons prove;
* ``PROCESS`` — a fact of the process itself (a loaded library, a compiled pattern set, the
  inotify budget, a switch the server turns on at start, a counter that only has to be unique or
  monotonic within the process), the same for every request.

Beyond module globals, the server sets per request what a process of its own would have: the
environment (``os.environ``), the working folder, the umask, ``sys.stdout``/``sys.stderr``
(``cli/server.py``: ``Server._run``).

``tests/test_process_state.py`` walks every module of ``yoi_tui`` for module-level names a
function assigns (``global``) or mutates (``x[k] = …``, ``x.append(…)``, …) and fails on one this
table does not name — so a new memo on the served path cannot leak between requests unnoticed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

PER_REQUEST = "per-request"
CHECKED = "checked"
PROCESS = "process"

# "module:name" -> (kind, why; for PER_REQUEST also the factory of the value a request starts with)
STATE: dict[str, tuple[Any, ...]] = {
    # per request
    "yoi_tui.core.usage.log:_process_session_id": (
        PER_REQUEST, "the session id made up once per process when none is given: each caller is its own process",
        lambda: None),
    "yoi_tui.core.crashpoints:_count": (
        PER_REQUEST, "crash points count the steps of one command (tests set YOI_CRASH_AT per command)", lambda: 0),
    # checked on every use
    "yoi_tui.core.freshness.record_feed:_feeds": (
        CHECKED, "per-workspace kernel feeds; a subscription answers None (check everything) when one was lost"),
    "yoi_tui.core.freshness.record_feed:_watched_files": (
        CHECKED, "the file watches the open feeds hold, recounted from the feeds after every drain"),
    "yoi_tui.core.retrieval.resident_context:_MEMO": (
        CHECKED, "the last resident block per workspace, kept only while its record feed reports nothing"),
    "yoi_tui.core.retrieval.search_index:_STEADY": (
        CHECKED, "the last listing per index, kept only while the record feed reports nothing"),
    "yoi_tui.core.lint.resident:_states": (
        CHECKED, "the kept lint state per workspace, brought up to date from its record feed on every lint"),
    "yoi_tui.core.lint.index:_LISTINGS": (
        CHECKED, "folder listings reused while the folder's mtime, ctime, inode and device are unchanged "
                 "(never one changed within RACY_NS)"),
    "yoi_tui.core.lint.index:_UNLOADED": (
        CHECKED, "lazy index entries keyed by the id of the very listing tuple they were built for"),
    "yoi_tui.core.lint.rules:_SIMILAR_KEPT": (
        CHECKED, "near-duplicate slug pairs keyed by the slugs themselves and the ratio"),
    "yoi_tui.core.store.records:_FOLDER_PATHS": (
        CHECKED, "Path objects of folders, keyed by the folder's own string: a pure function of its key"),
    "yoi_tui.core.store.simple_yaml:_SEEN": (
        CHECKED, "parsed scalar values keyed by their raw text: a pure function of its key"),
    "yoi_tui.core.retrieval.summary_lists:_VALUE_RES": (
        CHECKED, "compiled patterns keyed by the key they match: a pure function of its key"),
    # facts of the process
    "yoi_tui.core.freshness.change_feed:_libc": (PROCESS, "libc loaded through ctypes once"),
    "yoi_tui.core.freshness.change_feed:_mounts": (
        PROCESS, "the poll on /proc/self/mountinfo: one per process, every feed compares generations"),
    "yoi_tui.core.freshness.change_feed:_mount_generation": (
        PROCESS, "how many mount-table changes this process has seen; only ever grows"),
    "yoi_tui.core.freshness.record_feed:_budget": (
        PROCESS, "the inotify file-watch budget, read once from the environment the process started in"),
    "yoi_tui.core.retrieval.resident_context:_watching": (PROCESS, "switched on once by a long-running process"),
    "yoi_tui.core.retrieval.search_index:_watching": (PROCESS, "switched on once by a long-running process"),
    "yoi_tui.core.retrieval.search_index:_steady_lock": (PROCESS, "made once with the switch above"),
    "yoi_tui.core.retrieval.search_index:LISTINGS": (PROCESS, "a count of full listings tests read; only grows"),
    "yoi_tui.core.lint.resident:_enabled": (PROCESS, "switched on once by the command server"),
    "yoi_tui.core.lint.rules:_TEXT_PLAN": (PROCESS, "the compiled text-rule plan, built on first use"),
    "yoi_tui.core.text.secrets:_ALL": (PROCESS, "the compiled secret patterns, built on first use"),
    "yoi_tui.core.text.secrets:_PLAN": (PROCESS, "the prefilter plan of those patterns, built on first use"),
    "yoi_tui.core.text.secrets:_PLANNED": (PROCESS, "whether that plan was built"),
    "yoi_tui.core.runs.changeset:_renameat2": (PROCESS, "renameat2 looked up through ctypes once"),
    "yoi_tui.core.store.atomic:_temp_serial": (PROCESS, "a serial making temp-file names unique in the process"),
    "yoi_tui.core.store.ids:_last": (PROCESS, "the last UUIDv7 timestamp, so ids stay monotonic in the process"),
    "yoi_tui.core.notices:_to_stderr": (
        PROCESS, "the CLI asked once for warnings on stderr; the handler writes to the sys.stderr of the moment"),
    "yoi_tui.cli.server_client:busy": (
        PROCESS, "the client side of one call (never imported by the server's request path)"),
}


def reset_per_request() -> None:
    """Give every ``PER_REQUEST`` value of a loaded module the value a fresh process starts with."""
    for key, entry in STATE.items():
        if entry[0] != PER_REQUEST:
            continue
        module_name, name = key.split(":")
        module = sys.modules.get(module_name)
        if module is not None:
            factory: Callable[[], Any] = entry[2]
            setattr(module, name, factory())
