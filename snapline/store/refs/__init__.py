"""The history on git's own refs (issue 37, being built): lines of snapshots as commits.

``git.py`` alone speaks to the git library; ``layout.py`` names the refs and the trees;
``writing.py`` appends a snapshot to a line and ``reading.py`` reads a line back,
refusing crafted data. Not yet what ``record`` writes: docs/format.md, "The refs layout".
"""

__all__: list[str] = []
