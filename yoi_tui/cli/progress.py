"""Progress display for long CLI work: ``rich.progress`` on a terminal, nothing otherwise.

Shown on stderr only when stderr is a terminal and the command is not asked for ``--json``, so
pipes, redirects, CI logs and machine output stay exactly the results. ``rich`` is imported only
when a display is really shown.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def wanted(args: argparse.Namespace) -> bool:
    return not getattr(args, "json", False) and sys.stderr.isatty()


class Steps:
    """Handle given to the work: ``describe`` the current step, ``advance`` after each item."""

    def __init__(self, describe: Callable[[str], None] | None = None,
                 advance: Callable[[], None] | None = None) -> None:
        self.describe: Callable[[str], None] = describe or (lambda _message: None)
        self.advance: Callable[[], None] = advance or (lambda: None)


@contextmanager
def steps(title: str, total: int | None, enabled: bool) -> Iterator[Steps]:
    """A bar over ``total`` items (a spinner when ``total`` is None); a silent handle when disabled."""
    if not enabled:
        yield Steps()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [SpinnerColumn(), TextColumn("[bold]{task.fields[title]}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}")]
    if total is None:
        columns = [SpinnerColumn(), TextColumn("[bold]{task.fields[title]}"), TimeElapsedColumn(),
                   TextColumn("{task.description}")]
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("", total=total, title=title)
        yield Steps(lambda message: progress.update(task, description=message),
                    lambda: progress.advance(task))
