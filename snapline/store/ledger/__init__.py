"""The ledger: the committed, append-only history beside the local index (issue 13)."""
