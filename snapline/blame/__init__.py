"""``snapline blame``: who wrote each line, from the history alone, as ``git blame`` would.

``file.py`` answers one file (``walk.py`` the recorded lines, ``lines.py`` the line diff
that is git's), ``origins.py`` says who each snapshot was, ``summary.py`` counts lines
by who wrote them, ``markdown.py`` writes a pull request's summary.
"""

from snapline.blame.file import BinaryFileError, NotAFileError, NotBlamableError, blame_file
from snapline.blame.model import BlameLine, FileBlame, LineKind, Origin

__all__ = [
    "BinaryFileError",
    "BlameLine",
    "FileBlame",
    "LineKind",
    "NotAFileError",
    "NotBlamableError",
    "Origin",
    "blame_file",
]
