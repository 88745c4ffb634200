"""The runs screen: start Phase 1, Phase 2 or GC, watch it work, cancel it with escape.

The run is a thread worker of this screen that never touches a widget: the runner's ``progress``
callback posts ``RunProgress`` (phase, steps done / total, current record), shown as a
``ProgressBar`` and log lines; at the end it posts ``RunPrepared`` (a change set to review) or
``RunEnded``. Escape flags the worker cancelled; the callback then raises ``RunCancelled`` at the
runner's next step, so the run stops inside ``start_run`` (the lock is released, nothing applied).
A second run while another holds the lock ends at once with the holder named.

Phase 1 picks session logs: this project's Claude Code and Codex logs found on this machine
(``core.sessions.discover``), the demo's own logs, and any file typed into the path input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, ProgressBar, RichLog, SelectionList, Static, Switch
from textual.worker import Worker, get_current_worker

from ..core.errors import YoiError
from ..core.runs.progress import Progress, RunCancelled
from ..messages import RunEnded, RunPrepared, RunProgress
from ..widgets.header import AppHeader

TITLES = {"phase1": "Phase 1: session logs → staging", "phase2": "Phase 2: staging → records",
          "gc": "GC: clean up the memory"}


class RunsScreen(Screen[None]):
    """One run of ``kind`` (phase1 | phase2 | gc); see the module docstring."""

    HELP_TITLE = "yoi — run the memory pipeline"
    HELP_TEXT = (
        "Enter (or ctrl+s) starts the run. Phase 2 and GC work on a scratch copy and then open the review "
        "screen: nothing is applied until you accept it there. With the dry-run switch on (ctrl+d) "
        "the review is read-only and no lock is taken. Phase 1 reads the checked session logs "
        "(space toggles one; type a path and press enter to add any file). Escape cancels a "
        "running run cleanly (the lock is released, nothing applied), or closes the screen."
    )
    PALETTE_AREA = "run"
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", tooltip="Start the run", id="yoi.run.start", priority=True),
        Binding("enter", "start", "Start", show=False, id="yoi.run.start_enter"),
        Binding("ctrl+d", "toggle_dry_run", "Dry run", tooltip="Switch dry-run semantics (nothing applied)",
                id="yoi.run.dry"),
        Binding("escape", "cancel", "Cancel/close", tooltip="Cancel the running run, or close",
                id="yoi.run.cancel"),
    ]

    def __init__(self, kind: str, *, logs: list[Any] | None = None) -> None:
        super().__init__(id=f"runs-{kind}")
        self.kind = kind
        self.logs = logs or []  # core.sessions.discover.FoundLog
        self.worker: Worker | None = None
        self.state = "ready"  # ready | running | cancelling | ended
        self.lines: list[str] = []

    def compose(self) -> ComposeResult:
        yield AppHeader(icon="◆")
        with Vertical(id="run-body", classes="pane"):
            yield Static(id="run-info")
            if self.kind == "phase1":
                yield SelectionList[str](*[(self._log_label(f), str(f.path), True) for f in self.logs], id="run-logs")
                yield Input(placeholder="add a session log by path, then enter", id="run-path")
            else:
                with Horizontal(id="run-options"):
                    yield Switch(value=False, id="run-dry")
                    yield Label("dry run: compute and show the change set, apply nothing, take no lock",
                                id="run-dry-label")
            # A known total from the start: an indeterminate bar animates (and costs CPU) while idle.
            yield ProgressBar(total=len(self.logs) if self.kind == "phase1" else 4, show_eta=False, id="run-bar")
            yield Static(id="run-current")
            yield RichLog(id="run-log", wrap=True, markup=False, highlight=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#run-body").border_title = TITLES[self.kind]
        self.query_one("#run-info", Static).update(self._info())
        if self.kind == "phase1":
            self.query_one("#run-path", Input).cursor_blink = self.app.cursor_blink  # type: ignore[attr-defined]
            self.query_one("#run-logs").focus()
        else:
            self.query_one("#run-log").focus()  # so enter starts the run (the switch would take it)

    def _log_label(self, found: Any) -> str:
        try:
            shown = str(found.path.relative_to(self.app.ws.root))  # type: ignore[attr-defined]
        except ValueError:
            shown = str(found.path).replace(str(Path.home()), "~", 1)
        return f"{found.agent:<11} {shown}  ({found.size // 1024 + 1} KiB)"

    def _info(self) -> Text:
        ws = self.app.ws  # type: ignore[attr-defined]
        text = Text()
        if self.kind == "phase1":
            text.append(f"engine {ws.config.phase1.engine} · {len(self.logs)} log(s) found for this project · "
                        "ctrl+s starts (the token threshold is ignored: you asked)")
        elif self.kind == "phase2":
            from ..core.phase2.runner import staging_pressure

            text.append(f"engine {ws.config.phase2.engine} · {staging_pressure(ws).describe()} · "
                        "enter starts; the change set opens for review before anything is applied")
        else:
            text.append(f"engine {ws.config.gc.engine} · enter starts; each proposed operation opens for "
                        "review before anything is applied")
        return text

    # ------------------------------------------------------------------ controls

    def action_toggle_dry_run(self) -> None:
        if self.kind != "phase1" and self.state == "ready":
            switch = self.query_one("#run-dry", Switch)
            switch.value = not switch.value

    @on(Input.Submitted, "#run-path")
    def _add_path(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        if not raw:
            return
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = self.app.ws.root / path  # type: ignore[attr-defined]
        if not path.is_file():
            self.notify(f"{raw}: no such file", severity="error")
            return
        self.query_one("#run-logs", SelectionList).add_option((f"{'path':<11} {raw}", str(path), True))
        event.input.value = ""

    def action_start(self) -> None:
        if self.state != "ready":
            return
        self.state = "running"
        if self.kind == "phase1":
            logs = [Path(p) for p in self.query_one("#run-logs", SelectionList).selected]
            if not logs:
                self.state = "ready"
                self.notify("Check at least one session log (space), or add one by path.", severity="warning")
                return
            self.worker = self._phase1_worker(logs)
        else:
            self.worker = self._writer_worker(self.query_one("#run-dry", Switch).value)

    def action_cancel(self) -> None:
        if self.state == "running" and self.worker is not None:
            self.state = "cancelling"
            self.worker.cancel()
            self._log("cancelling… (stops at the next step; nothing is applied)")
            return
        if self.state == "cancelling":
            return
        self.dismiss(None)

    # ------------------------------------------------------------------ workers (no widgets touched)

    def _progress_fn(self) -> Any:
        worker = get_current_worker()

        def progress(step: Progress) -> None:
            if worker.is_cancelled:
                raise RunCancelled("cancelled by you; nothing was applied")
            self.post_message(RunProgress(step))

        return progress

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _writer_worker(self, dry_run: bool) -> None:
        ws = self.app.ws  # type: ignore[attr-defined]
        progress = self._progress_fn()
        model = getattr(self.app, "llm_model", None)
        now = getattr(self.app, "fixed_now", None)
        try:
            if self.kind == "phase2":
                from ..core.phase2.runner import prepare_round

                prepared = prepare_round(ws, flush=True, dry_run=dry_run, model=model, progress=progress, now=now,
                                         keepalive=ws.config.phase2.engine == "llm")
                changes = prepared.report.changeset.changes if prepared.report.changeset else []
            else:
                from ..core.gc.runner import prepare_gc

                prepared = prepare_gc(ws, dry_run=dry_run, model=model, progress=progress, now=now,
                                      keepalive=ws.config.gc.engine == "llm")
                changes = prepared.report.changeset.changes if prepared.report.changeset else []
        except RunCancelled as exc:
            self.post_message(RunEnded(self.kind, "cancelled", exc.message))
            return
        except YoiError as exc:  # LockBusy names the holder; an engine abort says why
            from ..core.runs.consolidation_lock import LockBusy

            self.post_message(RunEnded(self.kind, "busy" if isinstance(exc, LockBusy) else "failed", exc.message))
            return
        except Exception as exc:  # a bug or an OS error: said in one line, the screen does not hang
            self.post_message(RunEnded(self.kind, "failed", f"{type(exc).__name__}: {exc}"))
            return
        if get_current_worker().is_cancelled:
            prepared.release()
            self.post_message(RunEnded(self.kind, "cancelled", "cancelled by you; nothing was applied"))
            return
        if not changes and not getattr(prepared.report, "operations", None):
            prepared.release()
            self.post_message(RunEnded(self.kind, "nothing", prepared.report.message or "nothing to change"))
            return
        self.post_message(RunPrepared(self.kind, prepared))

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _phase1_worker(self, logs: list[Path]) -> None:
        from ..core.phase1.runner import make_engine, run_session

        ws = self.app.ws  # type: ignore[attr-defined]
        worker = get_current_worker()
        lines: list[str] = []
        staged = 0
        try:
            engine = make_engine(ws)
        except YoiError as exc:
            self.post_message(RunEnded(self.kind, "failed", exc.message))
            return
        for number, log in enumerate(logs):
            if worker.is_cancelled:
                self.post_message(RunEnded(self.kind, "cancelled", f"cancelled after {number} of {len(logs)} log(s)",
                                           lines))
                return
            self.post_message(RunProgress(Progress("log", number, len(logs), log.name, f"reading {log.name}")))
            result = run_session(ws, log, engine, force=True)
            staged += len(result.staging)
            lines.append(f"{log.name}: {result.status} — {result.message}")
            self.post_message(RunProgress(Progress("log", number + 1, len(logs), log.name, lines[-1])))
        self.post_message(RunEnded(self.kind, "done", f"{len(logs)} log(s) read, {staged} staging file(s) written; "
                                   "they wait for Phase 2", lines))

    # ------------------------------------------------------------------ messages from the worker

    def _log(self, line: str) -> None:
        self.lines.append(line)
        self.query_one("#run-log", RichLog).write(line)

    @on(RunProgress)
    def _progress(self, message: RunProgress) -> None:
        step = message.progress
        self.query_one("#run-bar", ProgressBar).update(total=step.total, progress=step.done)
        current = f"{step.phase}" + (f" · {step.current}" if step.current else "")
        self.query_one("#run-current", Static).update(Text(current, style="bold"))
        if step.line:
            self._log(step.line)

    @on(RunEnded)
    def _ended(self, message: RunEnded) -> None:
        self.state = "ended"
        for line in message.lines:
            if line not in self.lines:  # each shown once: most came with a progress message already
                self._log(line)
        severity = {"busy": "error", "failed": "error", "cancelled": "warning"}.get(message.status, "information")
        self._log(f"{message.status}: {message.message}")
        self.query_one("#run-current", Static).update(Text(f"{message.status}: {message.message}",
                                                          style="bold red" if severity == "error" else "bold"))
        self.notify(message.message, severity=severity)  # type: ignore[arg-type]
        if message.status == "done":
            self.app.rescan()  # type: ignore[attr-defined]

    @on(RunPrepared)
    def _prepared(self, message: RunPrepared) -> None:
        from .review import ReviewScreen

        self.state = "ended"
        self.app.switch_screen(ReviewScreen(message.kind, prepared=message.prepared))
