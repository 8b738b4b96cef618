"""Finding what is on disk: ignore rules, the walk, and file fingerprints."""

from snapline.scanning.fingerprint import (
    MODE_EXECUTABLE,
    MODE_FILE,
    MODE_SYMLINK,
    DiskFile,
    FileChangingError,
    git_mode,
    read_disk_file,
)
from snapline.scanning.ignore import IgnoreRules
from snapline.scanning.walk import Scan, Skipped, scan

__all__ = [
    "MODE_EXECUTABLE",
    "MODE_FILE",
    "MODE_SYMLINK",
    "DiskFile",
    "FileChangingError",
    "IgnoreRules",
    "Scan",
    "Skipped",
    "git_mode",
    "read_disk_file",
    "scan",
]
