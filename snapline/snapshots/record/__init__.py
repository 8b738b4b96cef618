"""Recording: detecting what changed, building deltas, and committing snapshots.

The writer lock and recovery (``recorder``), what differs from the known state
(``detect``), deltas and stored content (``build``), the append itself (``commit``),
the baseline (``baseline``), journaled workspace writes (``journal``, ``plan``), and the
edits and commands that produce snapshots (``edits``, ``command``).
"""
