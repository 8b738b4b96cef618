"""Restoring: rollback (to an earlier state) and revert (undo one snapshot)."""
