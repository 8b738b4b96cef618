"""The history on git's own refs (issue 37, being built): lines of snapshots as commits.

``git.py`` alone speaks to the git library; ``layout.py`` names the refs and the trees;
``writing.py`` appends a snapshot (a milestone) to a line and ``reading.py`` reads a
line back, refusing crafted data; ``store.py`` is the store behind the seam (the SQLite
index a cache, each write's snapshots appended to their ref before it commits), with
``edits.py`` and ``catchup.py``; ``explain.py`` says whether a commit's files are a
recorded state or git's clean merge of states (``combine.py``, ``catalog.py``,
``trees.py``, ``disk.py``, ``objects.py``). Not yet what ``record`` writes
(``opening`` does not choose it yet): docs/format.md, "The refs layout".
"""

__all__: list[str] = []
