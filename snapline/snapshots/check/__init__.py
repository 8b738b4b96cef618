"""Checking the history: the sequence, the links, the chain hashes and the content."""
