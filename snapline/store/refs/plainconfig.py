"""Whether git's config lets snapline write a repository's files itself (:mod:`.filedb`).

A config that sets nothing changing how objects and refs are written (no include, no
unknown extension, no shared modes, no reflog of every ref) is plain; any other
repository is written through the library.
"""

from __future__ import annotations

import os

__all__ = ["global_configs", "plain"]

# Repository extensions that change nothing a record reads or writes; any other
# (objectFormat sha256, partialClone's promised objects, refStorage) is the library's.
_HARMLESS = frozenset(("worktreeconfig", "noop", "preciousobjects"))


def plain(config: str) -> bool:
    """Whether a config's text sets nothing that changes how objects and refs are written.

    Read line by line (a regular expression compiled per process costs more than the
    whole read): sections, ``key = value``; anything unsure is the library's.
    """
    section = ""
    for line in config.splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].split('"', 1)[0].strip()
            if section.startswith("include"):
                return False  # what an included file sets is not read here
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip().strip('"')
        if _unplain(section, key, value):
            return False
    return True


def _unplain(section: str, key: str, value: str) -> bool:
    if section == "extensions":
        return key not in _HARMLESS
    if section != "core":
        return False
    if key == "repositoryformatversion":
        return value not in ("0", "1")
    # Group-writable modes, a reflog of every ref: the library writes them.
    return key == "sharedrepository" or (key == "logallrefupdates" and value == "always")


def global_configs() -> list[str]:
    """The text of the user's and the system's git config, as libgit2 reads them."""
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    texts = []
    for path in (os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")):
        try:
            with open(path, encoding="utf-8", errors="replace") as file:
                texts.append(file.read().lower())
        except OSError:
            continue
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        try:
            with open("/etc/gitconfig", encoding="utf-8", errors="replace") as file:
                texts.append(file.read().lower())
        except OSError:
            pass
    return texts
