"""Rows R1-R3: which git layer writes and reads snapline's refs (issue 37, point A).

``record`` runs on every agent edit, so the layer is chosen by the cost of writing ONE
snapshot into a repository whose snapshot state tree has ``files`` files in nested
directories (100 directories of files): the changed file's blob, a small record blob,
the trees on the changed path rebuilt from the parent snapshot's tree (the file's
directory, the state tree, the commit's root tree), a commit whose parent is the previous
snapshot commit, and the line's ref moved with compare-and-swap (the old value checked).
The same in every candidate, timed alternately round by round:

- pygit2 (libgit2): ``TreeBuilder`` along the path, ``create_commit``, a reference
  transaction (lock, compare, set);
- dulwich (pure Python with its C helpers): ``Tree`` objects along the path,
  ``refs.set_if_equals``;
- git plumbing, one process per step: ``hash-object -w`` twice, ``ls-tree`` and
  ``mktree`` per level, ``commit-tree``, ``update-ref REF NEW OLD``;
- git fast-import, one long-lived process: the commit streamed with ``M`` lines,
  ``checkpoint`` (a pack and the ref written) and ``get-mark``; it has no
  compare-and-swap, only a fast-forward check reported on its stderr.

R2 reads a file's blob by path from a snapshot's tree, R3 lists the paths changed
between two snapshots ten records apart. The reference is ``git add F && git commit -q
-m x`` in the same repository (its index: the same 10k files), timed in the same rounds.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.report import Figure, RowResult
from benchmarks.timing import Sample, Series, alternate, ratio

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["GIT_LAYER_ROWS", "row_git_layer"]

GIT_LAYER_ROWS = ("R1", "R2", "R3")
"""R1 one snapshot written; R2 a blob read by path; R3 the changed paths of two trees."""

_DIRS = 100
_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}
_RECORD = b"snapline snapshot 2\nnumber %d\ntool bench\n" + b"x" * 400 + b"\n"


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:

    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        check=True,
        env={**os.environ, **_ENV},
    )
    return done.stdout.decode().strip()


def _make_repo(root: Path, files: int) -> tuple[Path, str]:
    """A repository of ``files`` files in 100 directories, committed; its tree id."""
    repo = root / "git-layer"
    per_dir = max(1, files // _DIRS)
    for d in range(_DIRS):
        folder = repo / f"d{d:03d}"
        folder.mkdir(parents=True)
        for f in range(per_dir):
            text = "".join(f"line {n} of file {d}/{f}\n" for n in range(20))
            (folder / f"f{f:03d}.txt").write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the user's commit")
    return repo, _git(repo, "rev-parse", "HEAD^{tree}")


def _start_line(repo: Path, ref: str, state: str) -> str:
    record = _git(repo, "hash-object", "-w", "--stdin", stdin=_RECORD % 0)
    root = _git(
        repo, "mktree", stdin=f"100644 blob {record}\trecord\n040000 tree {state}\tstate\n".encode()
    )
    commit = _git(repo, "commit-tree", root, "-m", "snapline 0: baseline")
    _git(repo, "update-ref", ref, commit, "")
    return commit


def _edit(number: int, per_dir: int) -> tuple[str, str, bytes]:
    d, f = number % _DIRS, (number * 7) % per_dir
    text = "".join(f"line {n} of file {d}/{f}\n" for n in range(20)) + f"edit {number}\n"
    return f"d{d:03d}", f"f{f:03d}.txt", text.encode()


class _Pygit2:
    def __init__(self, repo: Path, ref: str, tip: str) -> None:
        import pygit2

        self.git = pygit2
        self.repo = pygit2.Repository(str(repo))
        self.ref, self.tip = ref, pygit2.Oid(hex=tip)
        self.sig = pygit2.Signature("bench", "bench@example.invalid", 0, 0)

    def write(self, number: int, folder: str, name: str, data: bytes) -> None:
        git, repo = self.git, self.repo
        blob, record = repo.create_blob(data), repo.create_blob(_RECORD % number)
        root = repo[self.tip].peel(git.Tree)
        state = root["state"].peel(git.Tree)
        builder = repo.TreeBuilder(state[folder].peel(git.Tree))
        builder.insert(name, blob, git.enums.FileMode.BLOB)
        builder, inner = repo.TreeBuilder(state), builder.write()
        builder.insert(folder, inner, git.enums.FileMode.TREE)
        builder, inner = repo.TreeBuilder(root), builder.write()
        builder.insert("state", inner, git.enums.FileMode.TREE)
        builder.insert("record", record, git.enums.FileMode.BLOB)
        message = f"snapline {number}: bench"
        commit = repo.create_commit(None, self.sig, self.sig, message, builder.write(), [self.tip])
        with repo.transaction() as transaction:
            transaction.lock_ref(self.ref)
            if repo.references[self.ref].target != self.tip:
                raise RuntimeError("conflict")
            transaction.set_target(self.ref, commit, message=message)
        self.tip = commit

    def read(self, commit: str, path: str) -> bytes:
        tree = self.repo[commit].peel(self.git.Tree)
        return bytes((tree / path).peel(self.git.Blob).data)

    def changed(self, old: str, new: str) -> list[str]:
        a, b = (self.repo[c].peel(self.git.Tree) for c in (old, new))
        return [delta.new_file.path for delta in a.diff_to_tree(b).deltas]


class _Store:
    """The same write through snapline's own layer (store/refs/git.py, over pygit2)."""

    def __init__(self, repo: Path, ref: str, tip: str) -> None:
        from snapline.store.refs.git import open_repository

        self.repo, self.ref, self.tip = open_repository(repo), ref, tip

    def write(self, number: int, folder: str, name: str, data: bytes) -> None:
        from snapline.store.refs.values import TREE_MODE, Entry

        repo = self.repo
        blob, record = repo.write_blob(data), repo.write_blob(_RECORD % number)
        root = repo.names(repo.read_commit(self.tip).tree)
        state = repo.update_tree(root["state"].id, {f"{folder}/{name}": Entry(blob, 0o100644)})
        tree = repo.tree({"record": Entry(record, 0o100644), "state": Entry(state, TREE_MODE)})
        message = f"snapline {number}: bench"
        commit = repo.write_commit(tree, [self.tip], message, 0)
        repo.set_ref(self.ref, commit, self.tip, message)
        self.tip = commit

    def read(self, commit: str, path: str) -> bytes:
        return self.repo.read_path(self.repo.read_commit(commit).tree, path) or b""

    def changed(self, old: str, new: str) -> list[str]:
        trees = [self.repo.read_commit(c).tree for c in (old, new)]
        return [change.path for change in self.repo.changes(trees[0], trees[1])]


class _Dulwich:
    def __init__(self, repo: Path, ref: str, tip: str) -> None:
        from dulwich.repo import Repo

        self.repo = Repo(str(repo))
        self.store = self.repo.object_store
        self.ref, self.tip = ref.encode(), tip.encode()

    def write(self, number: int, folder: str, name: str, data: bytes) -> None:
        from dulwich.objects import Blob, Commit, Tree

        store = self.store
        blob, record = Blob.from_string(data), Blob.from_string(_RECORD % number)
        root = store[store[self.tip].tree]  # type: ignore[attr-defined]
        state = store[root[b"state"][1]]  # type: ignore[index]
        inner = store[state[folder.encode()][1]]  # type: ignore[index]
        new: list[Any] = [blob, record]
        for tree, key, value in (
            (inner, name.encode(), (0o100644, blob.id)),
            (state, folder.encode(), None),
            (root, b"state", None),
        ):
            copy = Tree()
            for item in tree.items():  # type: ignore[attr-defined]
                copy.add(item.path, item.mode, item.sha)
            copy.add(key, *(value or (0o040000, new[-1].id)))
            if key == b"state":
                copy.add(b"record", 0o100644, record.id)
            new.append(copy)
        commit = Commit()
        commit.tree, commit.parents = new[-1].id, [self.tip]
        commit.author = commit.committer = b"bench <bench@example.invalid>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = f"snapline {number}: bench\n".encode()
        store.add_objects([(o, None) for o in [*new, commit]])
        if not self.repo.refs.set_if_equals(self.ref, self.tip, commit.id):
            raise RuntimeError("conflict")
        self.tip = commit.id

    def read(self, commit: str, path: str) -> bytes:
        from dulwich.object_store import tree_lookup_path

        tree = self.store[commit.encode()].tree  # type: ignore[attr-defined]
        _, sha = tree_lookup_path(self.store.__getitem__, tree, path.encode())
        return bytes(self.store[sha].data)  # type: ignore[attr-defined]

    def changed(self, old: str, new: str) -> list[str]:
        trees = [self.store[c.encode()].tree for c in (old, new)]  # type: ignore[attr-defined]
        changes = self.store.tree_changes(trees[0], trees[1])
        return [(new_ or old_).decode() for (old_, new_), _, _ in changes]


class _Plumbing:
    def __init__(self, repo: Path, ref: str, tip: str) -> None:
        self.path, self.ref, self.tip = repo, ref, tip

    def write(self, number: int, folder: str, name: str, data: bytes) -> None:
        git = self.path
        blob = _git(git, "hash-object", "-w", "--stdin", stdin=data)
        record = _git(git, "hash-object", "-w", "--stdin", stdin=_RECORD % number)
        inner = _mktree(git, f"{self.tip}:state/{folder}", name, f"100644 blob {blob}")
        state = _mktree(git, f"{self.tip}:state", folder, f"040000 tree {inner}")
        root = _git(
            git,
            "mktree",
            stdin=f"100644 blob {record}\trecord\n040000 tree {state}\tstate\n".encode(),
        )
        commit = _git(git, "commit-tree", root, "-p", self.tip, "-m", f"snapline {number}: bench")
        _git(git, "update-ref", self.ref, commit, self.tip)
        self.tip = commit

    def read(self, commit: str, path: str) -> bytes:
        return _git(self.path, "cat-file", "blob", f"{commit}:{path}").encode()

    def changed(self, old: str, new: str) -> list[str]:
        return _git(self.path, "diff-tree", "-r", "--name-only", old, new).splitlines()


def _mktree(repo: Path, tree: str, name: str, entry: str) -> str:
    lines = [
        line for line in _git(repo, "ls-tree", tree).splitlines() if not line.endswith("\t" + name)
    ]
    return _git(repo, "mktree", stdin=("\n".join([*lines, f"{entry}\t{name}"]) + "\n").encode())


class _FastImport:
    def __init__(self, repo: Path, ref: str, tip: str) -> None:

        self.ref, self.tip, self.mark = ref, tip, 0
        self.path = repo
        self.process, self.batch = (
            subprocess.Popen(
                argv,
                cwd=repo,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, **_ENV},
            )
            for argv in (
                ["git", "fast-import", "--quiet", "--done"],
                ["git", "cat-file", "--batch"],
            )
        )

    def write(self, number: int, folder: str, name: str, data: bytes) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        record = _RECORD % number
        message = f"snapline {number}: bench\n".encode()
        self.mark += 1
        stream = (
            b"commit %s\nmark :%d\ncommitter bench <bench@example.invalid> 0 +0000\n"
            % (self.ref.encode(), self.mark)
            + b"data %d\n%s" % (len(message), message)
            + b"from %s\n" % self.tip.encode()
            + b"M 100644 inline state/%s/%s\n" % (folder.encode(), name.encode())
            + b"data %d\n%s\n" % (len(data), data)
            + b"M 100644 inline record\ndata %d\n%s\n" % (len(record), record)
            + b"\ncheckpoint\n\nget-mark :%d\n" % self.mark
        )
        self.process.stdin.write(stream)
        self.process.stdin.flush()
        self.tip = self.process.stdout.readline().decode().strip()

    def read(self, commit: str, path: str) -> bytes:
        assert self.batch.stdin is not None and self.batch.stdout is not None
        self.batch.stdin.write(f"{commit}:{path}\n".encode())
        self.batch.stdin.flush()
        size = int(self.batch.stdout.readline().split()[2])
        return self.batch.stdout.read(size + 1)[:-1]

    def changed(self, old: str, new: str) -> list[str]:
        return _git(self.path, "diff-tree", "-r", "--name-only", old, new).splitlines()

    def close(self) -> None:
        assert self.process.stdin is not None and self.batch.stdin is not None
        self.process.stdin.write(b"done\n")
        for process in (self.process, self.batch):
            assert process.stdin is not None
            process.stdin.close()
            process.wait()


def _timed(action: Callable[[], object]) -> Sample:
    start = time.perf_counter()
    action()
    return Sample(time.perf_counter() - start)


def row_git_layer(bench: Bench) -> list[RowResult]:
    """Rows R1-R3: the candidates side by side with ``git add && git commit``."""
    files = bench.config.files
    per_dir = max(1, files // _DIRS)
    bench.log(f"rows R1-R3: the git layer, {_DIRS} x {per_dir} files")
    repo, state = _make_repo(bench.config.workdir, files)
    layers: dict[str, Any] = {}
    missing = []
    candidates = [("pygit2", _Pygit2), ("store/refs", _Store), ("dulwich", _Dulwich)]
    for name, kind in [*candidates, ("plumbing", _Plumbing)]:
        if name == "dulwich" and importlib.util.find_spec("dulwich") is None:
            # Not a dependency of snapline: compared only where it is installed.
            missing.append("dulwich is not installed here (`pip install dulwich` to compare it)")
            continue
        ref = f"refs/snapline/bench/{name}"
        layers[name] = kind(repo, ref, _start_line(repo, ref, state))
    ref = "refs/snapline/bench/fast-import"
    fast = _FastImport(repo, ref, _start_line(repo, ref, state))
    counter = iter(range(1, 1_000_000))

    def writer(layer: Any) -> Callable[[int], Sample]:
        return lambda _: _timed(lambda: layer.write(n := next(counter), *_edit(n, per_dir)))

    def committer(_: int) -> Sample:
        folder, name, data = _edit(next(counter), per_dir)
        (repo / folder / name).write_bytes(data)
        start = time.perf_counter()
        _git(repo, "add", f"{folder}/{name}")
        _git(repo, "commit", "-q", "-m", "x")
        return Sample(time.perf_counter() - start)

    rounds = bench.rounds(max(bench.config.repeats, 15))
    runners = [(name, writer(layer)) for name, layer in layers.items()]
    written = alternate([*runners, ("fast-import", writer(fast)), ("git", committer)], **rounds)
    layers["cat-file --batch"] = fast
    tips = {"plumbing": layers["plumbing"].tip}
    old = _git(repo, "rev-parse", "refs/snapline/bench/plumbing~10")
    path = "state/" + "/".join(_edit(3, per_dir)[:2])

    def reader(name: str) -> Callable[[int], Sample]:
        return lambda _: _timed(lambda: layers[name].read(tips["plumbing"], path))

    def differ(name: str) -> Callable[[int], Sample]:
        return lambda _: _timed(lambda: layers[name].changed(old, tips["plumbing"]))

    expected = layers["plumbing"].changed(old, tips["plumbing"])
    for name in layers:
        assert sorted(layers[name].changed(old, tips["plumbing"])) == sorted(expected), name
        assert layers[name].read(tips["plumbing"], path).rstrip() == layers["plumbing"].read(
            tips["plumbing"], path
        ), name
    read = alternate([(n, reader(n)) for n in layers], **rounds)
    diffed = alternate([(n, differ(n)) for n in layers if n != "cat-file --batch"], **rounds)
    fast.close()
    reference = written["git"]
    return [
        _row(
            "R1",
            "one snapshot written onto a line (blob, record, trees, commit, CAS ref)",
            written,
            reference,
            "pygit2",
            [
                *missing,
                "fast-import has no compare-and-swap (a non-fast-forward is a warning on its "
                "stderr) and writes one pack per checkpoint, so one per record",
            ],
        ),
        _row("R2", "a file read by path from a snapshot's tree", read, reference, "pygit2", []),
        _row(
            "R3",
            f"changed paths between two snapshot trees ({len(expected)} paths)",
            diffed,
            reference,
            "pygit2",
            ["a long-lived git has no tree diff to ask; `diff-tree` is a process a diff"],
        ),
    ]


def _row(
    number: str,
    title: str,
    series: dict[str, Series],
    git: Series,
    chosen: str,
    notes: list[str],
) -> RowResult:
    others = [name for name in series if name not in (chosen, "git")]
    notes = notes + [
        f"{name}: {ratio(series[name].stats, git.stats):.3f}x git add + commit, "
        f"{ratio(series[name].stats, series[chosen].stats):.1f}x {chosen}"
        for name in others
    ]
    return RowResult(
        number=number,
        title=title,
        goal="the layer: least time (≤ 0.3x git add + commit for R1)",
        snapline=Figure(chosen, stats=series[chosen].stats),
        git=Figure("`git add F && git commit -q -m x`", stats=git.stats),
        ratio=ratio(series[chosen].stats, git.stats),
        ratio_label=f"{chosen} ÷ git add + commit (medians)",
        met=None if number != "R1" else ratio(series[chosen].stats, git.stats) <= 0.3,
        extra=[Figure(name, stats=series[name].stats) for name in others],
        notes=notes,
    )
