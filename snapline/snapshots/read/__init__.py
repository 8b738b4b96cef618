"""Reading the history: queries, rebuilding content, and unified diffs."""
