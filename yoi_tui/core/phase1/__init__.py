"""Phase 1: extract what happened in an agent session (decisions, discussions, attempts, requests)
from its raw log into staging JSON (SPEC 8)."""
