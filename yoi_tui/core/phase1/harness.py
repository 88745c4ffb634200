"""What of a tool call's result is the harness at work, not the work: the rules extractor's lexicon of
tool mechanics and harness refusals.

Owns the texts that say no attempt was made or that the harness, not the project, stopped a call:
- the agent's own tool mechanics (``MECHANICS_RE``: an edit before a read, a stale read, a kill of a
  shell that already ended, an edit of a file not made yet; a read too large for one call is not one:
  the labels keep it, read again in parts, as a story fixed);
- the client refusing or never running the call (``HARNESS_NOISE_RE``: an MCP server still
  connecting, a permission nobody could grant, a denied command, an interrupt, a project hook's
  refusal, the warm-up agent's "Warmup" replies);
- a poll of a background task the harness no longer knows (``GONE_TASK_RE``);
- Codex's sandbox refusing a command (``sandbox_refused``), the agent asking to run it outside the
  sandbox (``escalated``), and the stderr inside a newer build's debug print of a refusal
  (``denied_stderr``).
Every pattern is tried on a failing call's result only, at its start where the harness writes it.
"""

from __future__ import annotations

import re

from ..sessions.model import Entry
from .calls import Call

# Tool errors that are the agent's mechanics, not something tried: it fixes them without learning
# anything about the project (edit before read, stale read, a bad tool argument, a kill of a shell that
# already ended).
MECHANICS_RE = re.compile(r"has not been read yet|has been modified since read|string to replace not found|"
                           r"found \d+ matches of the string|inputvalidationerror|invalid tool parameters|"
                           r"file has been unexpectedly modified|no changes to make|tool_use_error>Error: No such tool|"
                           r"sibling tool call errored|tool_use_error>cancelled|cancelled: parallel tool call|"
                           r"failed to find (?:expected lines|context)|apply_patch verification failed|invalid patch|"
                           r"invalid hunk|shell \S+ is not running|no shell found with id",
                           re.IGNORECASE)
# Tool errors the client itself returns, the tool never ran (issue 23): an MCP server still starting
# (Claude Code: "Still connecting (try again or proceed without)"; Codex: "unsupported call: <tool>"),
# a permission the harness denied with nobody to ask (claude -p: "This command requires approval",
# "Claude requested permissions to ... but you haven't granted it yet", "Permission to use Bash with
# command … has been denied", "cd to … was blocked. For security, …"; Codex: "rejected by user"), a
# call cut off by an interrupt (Codex writes "aborted"). Nothing was tried, so nothing is learned.
HARNESS_NOISE_RE = re.compile(r"still connecting \(try again or proceed without\)|^\s*unsupported call: |"
                               r"this command requires approval|requested permissions to .{0,400}?but you haven't "
                               r"granted it yet|rejected by user|^\s*aborted(?: by user)?\s*$|"
                               r"the user doesn't want to take this action right now|"
                               r"sandbox error: command was killed by a signal|"
                               r"permission to use \S+ (?:with command .{0,300}?)?has been denied|"
                               r"was blocked\. for security, claude code may only|"
                               # a project's PreToolUse hook refusing the call (Claude Code: "Read operation
                               # blocked by hook:"), and the harness's warm-up agent, every call of which
                               # comes back "Warmup" (Claude Code 2.x subagent files): nothing ran
                               r"^\s*\w+ operation blocked by hook:|^\s*warmup\s*$",
                               re.IGNORECASE | re.DOTALL)
# An edit tool aimed at a file not made yet: a slip of the tool (the agent writes it whole instead).
EDIT_MISSING_RE = re.compile(r"file does not exist|no such file or directory|enoent", re.IGNORECASE)
# A poll (``TaskOutput``/``BashOutput``) of a task or shell the harness no longer knows.
GONE_TASK_RE = re.compile(r"\bno (?:task|shell|agent|background (?:task|shell)) found\b", re.IGNORECASE)

# Codex >= 0.11x wraps a refused command's output in a Rust debug print; its stderr is what failed.
_DENIED_STDERR_RE = re.compile(r'stderr: StreamOutput \{ text: \\"(?P<text>(?:[^"\\]|\\[^"])*)\\"')


def denied_stderr(text: str) -> str:
    """The stderr of a Codex >= 0.11x refusal ("exec_command failed: CreateProcess { … stderr: … }"),
    "" when the text is no such print."""
    if not text.startswith("exec_command failed: CreateProcess"):
        return ""
    denied = _DENIED_STDERR_RE.search(text[:4000])
    return denied.group("text").replace("\\\\", "\\") if denied else ""


# Codex's sandbox refusing a command: "failed in sandbox: …" (0.4x), "failed in sandbox MacosSeatbelt
# with execution error: sandbox denied exec error, …" (0.3x), "exec_command failed: CreateProcess {
# message: "Codex(Sandbox(Denied { …" (>= 0.11x). Anchored at the output's start: a plain prefix test.
_SANDBOX_PREFIXES = ("failed in sandbox", "exec_command failed: createprocess")


def sandbox_refused(result: Entry) -> bool:
    """The harness's sandbox refused (or broke) the command: what failed was the sandbox, not the work."""
    head = result.text.lstrip()[:160].lower()
    return head.startswith(_SANDBOX_PREFIXES) and ("sandbox" in head)


def escalated(call: Call) -> bool:
    """The agent asked to run the call outside the sandbox (Codex's ``with_escalated_permissions`` /
    ``sandbox_permissions: require_escalated``): the user's approval, not a change, lets it through."""
    data = call.entry.tool_input
    if not isinstance(data, dict):
        return False
    value = data.get("sandbox_permissions")
    return data.get("with_escalated_permissions") is True or (isinstance(value, str) and "escalat" in value)
