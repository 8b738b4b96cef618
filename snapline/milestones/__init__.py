"""Milestones: continuous, append-only ranges of snapshots (see docs/library.md)."""
