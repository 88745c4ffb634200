"""Freshness wing: how yoi decides that a file changed — the one place to learn it.

* ``signature``: the two rules every derived file under ``.yoi/state/`` shares (racily clean
  timestamps, the same-bytes check).
* ``change_feed``: the kernel's word (inotify) that nothing changed in some folders, checked
  against folder replacement and mounts.
* ``record_feed``: one feed per workspace for a long-running process, watching the record folders
  *and every record file's inode*, so a write through any name of a record is seen; the served
  search, lint and resident context subscribe to it instead of ``lstat``-ing every file per call.

Imports ``core.store`` (paths, folder listing) and the shared modules only.
"""
