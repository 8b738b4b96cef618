"""What the git layer of the refs store raises (:mod:`snapline.store.refs.git`).

Also the context managers that turn the library's errors into these: a ref it cannot
parse (exit 3), a write the operating system refused (a file-size limit, a full disk,
read-only files: exit 1, with the reason the library leaves out), a repository of
another user that git's owner check refuses (exit 1, with git's ``safe.directory``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.store.errors import StoreAccessError, StoreCorruptError, access_problem

_Errors = type[BaseException] | tuple[type[BaseException], ...]
"""What the git library raises, handed in: only :mod:`.git` imports it."""

__all__ = [
    "DamagedRefError",
    "GitWriteRefusedError",
    "MissingObjectError",
    "NotAGitRepositoryError",
    "NotOwnedRepositoryError",
    "RefConflictError",
    "named_refusal",
    "ownership_refusal",
    "ref_damage",
]


class DamagedRefError(StoreCorruptError):
    """A ref git cannot read (a loose ref file of bytes git never writes): exit 3.

    Attributes:
        ref: The ref's name.
    """

    def __init__(self, ref: str, detail: str) -> None:
        self.ref = self.path = ref
        self.detail = detail
        found = f"snapline's ref {ref} is damaged or crafted ({detail}); nothing was written."
        repair = (
            f"set back to the line's tip that another clone holds with `git update-ref {ref} ID`"
        )
        SnaplineError.__init__(
            self, f"{found} Run `snapline verify` for what else is; the ref can be {repair}"
        )
        self.in_verify = f"{found} The ref can be {repair}"


class NotAGitRepositoryError(SnaplineError):
    """No git repository holds the directory.

    Attributes:
        path: The directory looked from.
    """

    path: str

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))

    def _message(self) -> str:
        return f"{self.path} is not inside a git repository"


class MissingObjectError(LookupError):
    """An object a commit, tree or ref names is absent or of another type.

    Also one git finds damaged (its bytes do not hash to its id).

    Attributes:
        id: The object's id.
        expected: The type it should have had (``blob``, ``tree``, ``commit``).
    """

    def __init__(self, id_: str, expected: str, damage: str | None = None) -> None:
        self.id = id_
        self.expected = expected
        if damage is None:
            super().__init__(f"no {expected} {id_} in the repository")
        else:
            super().__init__(f"the {expected} {id_} in the repository is damaged: {damage}")


class RefConflictError(SnaplineError):
    """A ref moved by another writer: the compare of compare-and-swap failed.

    Nothing was lost: the commit this writer made stays in the object store, and the
    ref keeps the other writer's snapshot.

    Attributes:
        ref: The ref's name.
        expected: The value this writer read before it wrote (``None``: no ref).
        actual: The value found under the lock (``None``: no ref; also when the lock
            itself was held by another writer).
    """

    ref: str
    expected: str | None
    actual: str | None

    def _message(self) -> str:
        found = "someone else holding its lock" if self.actual is None else self.actual[:12]
        wanted = "no ref" if self.expected is None else self.expected[:12]
        return (
            f"{self.ref} moved while this snapshot was written (expected {wanted}, found "
            f"{found}); nothing was lost: read the line again and record on its new tip"
        )


class GitWriteRefusedError(StoreAccessError):
    """The operating system refused a write into the repository's objects or refs: exit 1.

    libgit2 says so without the reason (``no error`` for a file-size limit), so the
    reason is the OS's own answer to the same request, made again by
    :func:`named_refusal`. The history is as it was: the index transaction rolls back,
    no ref moved, and an object written before the refusal is one git's ``gc`` prunes.

    Attributes:
        path: The directory written into (``.git/objects``, a folder of ``refs/``).
        errno: What the operating system said (``EFBIG``, ``ENOSPC``, ``EACCES``...).
        size: The bytes that were to be written there.
    """

    def __init__(self, path: Path, error: OSError, size: int) -> None:
        self.path = str(path)
        self.errno = error.errno or 0
        self.size = size
        self.problem = access_problem(error)
        self.detail = os.strerror(self.errno)
        SnaplineError.__init__(
            self,
            f"cannot write snapline's history into {path} ({self.detail}): "
            f"{_advice(self.errno, size, path)}; the history is as it was, and the same "
            "command works once that is fixed",
        )


def _advice(number: int, size: int, path: Path) -> str:
    if number == errno.EFBIG:
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        return (
            f"a file-size limit ({limit} bytes, `ulimit -f`) is below the {size} bytes of "
            "an object git must write; raise the limit"
        )
    if number in (errno.ENOSPC, errno.EDQUOT):
        return "the disk (or this user's quota) is full; free some space"
    if number == errno.EROFS:
        return "the file system is mounted read-only; remount it writable"
    if number in (errno.EACCES, errno.EPERM):
        return f"give this user write access to {path} and what is in it"
    return "check the disk and the file system"


@contextlib.contextmanager
def named_refusal(
    errors: _Errors,
    directories: Callable[[], Sequence[Path]],
    size: int,
) -> Iterator[None]:
    """A write to the repository that ``errors`` refused, as the OS's reason, named (exit 1).

    Args:
        errors: What the git library raises when a write fails.
        directories: Where the write went (called only on a failure).
        size: The bytes written (the object's, before git compresses them).

    Raises:
        GitWriteRefusedError: If the operating system refuses the same write in one of
            the ``directories``; else the library's error goes on as it was (a bug).
    """
    try:
        yield
    except errors:
        for directory in directories():
            refused = _refusal(directory, size)
            if refused is not None:
                raise refused from None
        raise


def _refusal(directory: Path, size: int) -> GitWriteRefusedError | None:
    """The OS's answer when a file of ``size`` bytes is made in ``directory`` (``None``: made).

    Made as git makes its own (``tmp_`` in ``objects/``, which ``git gc`` prunes if a kill
    leaves it; ``.lock`` in ``refs/``, which no reader takes for a ref), then removed.
    """
    while not directory.is_dir() and directory != directory.parent:
        directory = directory.parent  # a folder git would have made
    objects = directory.name == "objects"
    import tempfile  # here: it loads shutil and lzma, and only a refused write asks

    try:
        fd, name = tempfile.mkstemp(
            prefix="tmp_snapline_probe_" if objects else "snapline-probe-",
            suffix="" if objects else ".lock",
            dir=directory,
        )
    except OSError as error:
        return GitWriteRefusedError(directory, error, size)
    try:
        # zlib's worst case beside the bytes: 5 per 16 KiB block, and the header.
        os.posix_fallocate(fd, 0, size + size // 3000 + 64)
    except OSError as error:
        return GitWriteRefusedError(directory, error, size)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)
    return None


class NotOwnedRepositoryError(SnaplineError):
    """git refuses a repository another user owns ("detected dubious ownership"): exit 1.

    Attributes:
        path: The work tree (or bare repository) to name in ``safe.directory``.
        owner: The uid owning it (or its git directory).
    """

    exit_code = 1
    path: str
    owner: int

    def __init__(self, path: Path, owner: int) -> None:
        super().__init__(str(path), owner)

    def _message(self) -> str:
        return (
            f"git refuses the repository at {self.path}: it belongs to another user (uid "
            f"{self.owner}), and git opens only this user's repositories (\"detected dubious "
            'ownership"); if you trust it, run `git config --global --add safe.directory '
            f"{self.path}` and try again"
        )


@contextlib.contextmanager
def ownership_refusal(errors: _Errors, git_dir: Path) -> Iterator[None]:
    """The library's refusal to open ``git_dir`` as git's owner check, named (exit 1).

    libgit2 checks, as git does, that this user owns the work tree and the git
    directory (``safe.directory`` lifts it); its message is the only sign, so the
    owners are read here instead.

    Raises:
        NotOwnedRepositoryError: If the work tree or ``git_dir`` belongs to another
            user; else the library's error goes on as it was.
    """
    try:
        yield
    except errors:
        top = _work_tree(git_dir)
        for path in (top, git_dir):
            with contextlib.suppress(OSError):
                owner = path.stat().st_uid
                if owner != os.geteuid():
                    raise NotOwnedRepositoryError(top, owner) from None
        raise


def _work_tree(git_dir: Path) -> Path:
    """The work tree whose git directory is ``git_dir`` (itself for a bare repository)."""
    git_dir = git_dir.resolve()
    if git_dir.name == ".git":
        return git_dir.parent
    with contextlib.suppress(OSError):  # a linked work tree's: .git/worktrees/NAME/gitdir
        return Path((git_dir / "gitdir").read_text().strip()).resolve().parent
    return git_dir


@contextlib.contextmanager
def ref_damage(errors: _Errors, name: str) -> Iterator[None]:
    """The library's error over a ref file it cannot parse, as that ref's damage (exit 3)."""
    try:
        yield
    except errors as error:
        # libgit2 names the ref on both sides of its own words; the message names it once.
        detail = str(error).removeprefix(f"{name}: ").removesuffix(f": {name}")
        raise DamagedRefError(name, detail) from None
