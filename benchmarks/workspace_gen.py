"""Deterministic synthetic workspaces: source-like trees that look like a real repository.

A workspace of ``files`` tracked files is spread over a few thousand nested directories
(one per ~16 files). Text is drawn from a pool of generated source lines (Python-,
TypeScript- and Markdown-like), so it compresses and diffs like code; most files are
1-20 KB, some are larger, a few are binary. A root ``.gitignore`` with typical patterns and
a nested one are written, and the folders they ignore (``node_modules/``, ``build/``,
``__pycache__/``…) hold files too, so ignore handling is part of every measurement.

Everything comes from one seeded :class:`random.Random`: the same seed always gives the
same tree, byte for byte (see :func:`tree_hash`).
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BIG_FILE",
    "DEFAULT_SEED",
    "HISTORY_FILES",
    "Layout",
    "block_edit",
    "generate",
    "history_versions",
    "one_line_edit",
    "scattered_edit",
    "source_text",
    "tree_hash",
]

DEFAULT_SEED = 20240611
BIG_FILE = "src/core/engine/big_module.py"
"""The 10k-line file every one-line-edit measurement edits."""
HISTORY_FILES = 100
"""How many small files a long synthetic history cycles through."""

ROOT_GITIGNORE = """\
# dependencies and build output
node_modules/
build/
dist/
.venv/
coverage/
# caches and compiled files
__pycache__/
*.pyc
*.o
*.log
.DS_Store
.cache/
"""
NESTED_GITIGNORE = """\
*.map
generated/
!keep.map
"""

_WORD_TEXT = (
    "account adapter agent alpha api app archive asset auth backend batch beta billing "
    "buffer builder cache catalog channel checkout client cluster codec common config core "
    "crypto data debug delta device diff disk dispatch docs driver edge engine event "
    "export feature fetch filter format frame gateway graph handler hash header helpers "
    "http image index input ingest io job kernel layout ledger lexer loader locale log "
    "mailer manager media memory metrics model module monitor network node notify order "
    "parser patch payment pipeline plugin policy pool portal preview profile proto proxy "
    "queue reader record registry render report request router runtime sandbox scheduler "
    "schema search server service session shared signal snapshot socket source stats "
    "storage stream sync task template tensor theme token tools tracker transform tree "
    "ui update upload user util validate vector view widget worker writer"
)
_WORDS = tuple(_WORD_TEXT.split())
_TOP_DIRS = ("src", "lib", "packages", "services", "tests", "docs", "tools", "web", "assets")
_TEXT_KINDS = (
    (".py", "py", 30),
    (".ts", "ts", 18),
    (".js", "ts", 10),
    (".go", "py", 6),
    (".md", "md", 8),
    (".json", "json", 6),
    (".yaml", "json", 4),
    (".rs", "ts", 6),
    (".c", "ts", 4),
    (".h", "ts", 3),
    (".txt", "md", 3),
)
_BINARY_KINDS = (".png", ".woff2", ".bin", ".jpg")


@dataclass(frozen=True)
class Layout:
    """What :func:`generate` wrote.

    Attributes:
        root: The workspace root.
        tracked_files: Files not covered by any ignore rule (what both tools track).
        ignored_files: Files inside ignored folders or matching ignored patterns.
        directories: Directories holding tracked files.
        tracked_bytes: Total size of the tracked files.
        big_file: Relative path of the 10k-line text file.
        history_files: Small tracked text files a long history cycles through.
    """

    root: Path
    tracked_files: int
    ignored_files: int
    directories: int
    tracked_bytes: int
    big_file: str
    history_files: tuple[str, ...]


def generate(
    root: Path, files: int, *, seed: int = DEFAULT_SEED, big_file_lines: int = 10_000
) -> Layout:
    """Write a synthetic workspace of ``files`` tracked files under ``root``.

    Args:
        root: An empty or missing directory.
        files: How many tracked files (the big file and the ignore files included).
        seed: The RNG seed; the same seed always writes the same tree.
        big_file_lines: Lines of :data:`BIG_FILE`.

    Returns:
        A :class:`Layout` describing the tree.
    """
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    pools = {kind: _line_pool(rng, kind, 6000) for kind in ("py", "ts", "md", "json")}
    directories = _directories(rng, max(8, files // 16))
    writer = _Writer(root)
    writer.text(".gitignore", ROOT_GITIGNORE)
    writer.text("web/.gitignore", NESTED_GITIGNORE)
    writer.text(BIG_FILE, source_text(big_file_lines, seed=seed + 1))
    small: list[str] = []
    weights = [w for _, _, w in _TEXT_KINDS]
    # Leave room for the two ignore files, the big file, two symlinks and keep.map.
    for index in range(files - 6):
        directory = directories[int(len(directories) * rng.random() ** 1.3)]
        roll = rng.random()
        if roll < 0.02:
            ext = rng.choice(_BINARY_KINDS)
            name = f"{directory}/{rng.choice(_WORDS)}_{index}{ext}"
            writer.binary(name, _binary(rng, int(_log_uniform(rng, 1_000, 200_000))))
            continue
        ext, kind, _ = rng.choices(_TEXT_KINDS, weights)[0]
        if roll < 0.07:
            size = int(rng.uniform(50, 1_000))
        elif roll < 0.13:
            size = int(_log_uniform(rng, 20_000, 120_000))
        else:
            size = int(min(20_000, max(1_000, rng.lognormvariate(8.4, 0.6))))
        name = f"{directory}/{rng.choice(_WORDS)}_{index}{ext}"
        executable = ext == ".py" and rng.random() < 0.03
        writer.text(name, _slice(rng, pools[kind], size, name), executable=executable)
        if 1_000 <= size <= 4_000 and ext in (".py", ".ts", ".md") and len(small) < 400:
            small.append(name)
    writer.symlink("docs/LATEST", "../" + BIG_FILE)
    writer.symlink("tools/engine.py", "../" + BIG_FILE)
    _ignored_content(rng, writer, directories, pools, files)
    history = tuple(sorted(rng.sample(small, min(HISTORY_FILES, len(small)))))
    return Layout(
        root=root,
        tracked_files=writer.tracked,
        ignored_files=writer.ignored,
        directories=len({name.rpartition("/")[0] for name in writer.tracked_names}),
        tracked_bytes=writer.tracked_bytes,
        big_file=BIG_FILE,
        history_files=history,
    )


def source_text(lines: int, *, seed: int) -> str:
    """``lines`` lines of Python-like source, every line ending in a newline."""
    rng = random.Random(seed)
    return "".join(_source_line(rng, "py") + "\n" for _ in range(lines))


def one_line_edit(text: str, index: int) -> str:
    """Replace one line of ``text``, chosen by ``index``, with a line naming ``index``.

    The same ``(text, index)`` always gives the same result, so snapline and git replay
    identical edit sequences.
    """
    lines = text.split("\n")
    usable = max(1, len(lines) - 1)
    target = (index * 7919 + 13) % usable
    lines[target] = f"    edited_value_{index} = compute_delta({index}, {target})  # edit"
    return "\n".join(lines)


def scattered_edit(text: str, fraction: float, *, seed: int) -> str:
    """Replace ``fraction`` of the lines of ``text`` at random positions with new lines."""
    rng = random.Random(seed)
    lines = text.split("\n")
    usable = max(1, len(lines) - 1)
    for target in rng.sample(range(usable), int(usable * fraction)):
        lines[target] = _source_line(rng, "py") + f"  # v{seed}"
    return "\n".join(lines)


def block_edit(text: str, changed: int, *, seed: int) -> str:
    """Change ``changed`` lines of ``text`` in many scattered blocks of 1 to 12 lines.

    Most blocks replace their lines with new ones; about one in eight deletes its lines
    and one in eight inserts new lines after them, so the change has the shape of a
    large refactoring commit rather than of isolated one-line edits. The same
    ``(text, changed, seed)`` always gives the same result.
    """
    rng = random.Random(seed)
    lines = text.split("\n")
    usable = max(1, len(lines) - 1)
    taken: set[int] = set()
    blocks: list[tuple[int, int, str]] = []
    budget = min(changed, usable)
    while budget > 0:
        size = min(budget, rng.randint(1, 12))
        start = rng.randrange(usable - size + 1)
        span = range(start, start + size)
        if taken.intersection(range(start - 1, start + size + 1)):
            continue  # blocks stay apart, so each is a block of its own in the diff
        taken.update(span)
        roll = rng.random()
        blocks.append((start, size, "delete" if roll < 0.125 else "insert" if roll < 0.25 else ""))
        budget -= size
    # From the end backwards, so earlier positions stay valid.
    for start, size, kind in sorted(blocks, reverse=True):
        fresh = [_source_line(rng, "py") + f"  # b{seed}" for _ in range(size)]
        if kind == "delete":
            del lines[start : start + size]
        elif kind == "insert":
            lines[start + size : start + size] = fresh
        else:
            lines[start : start + size] = fresh
    return "\n".join(lines)


def history_versions(
    root: Path, paths: Sequence[str], count: int, *, start: int = 0
) -> Iterator[tuple[str, bytes]]:
    """A synthetic history: ``count`` one-line edits cycling through ``paths``.

    Yields ``(path, new content)`` pairs; reads the starting contents from ``root``.
    Edit ``start + k`` is the ``k``-th one yielded, so a history can be replayed in parts.
    """
    current = {p: (root / p).read_text(encoding="utf-8") for p in paths}
    for number in range(start):
        path = paths[number % len(paths)]
        current[path] = one_line_edit(current[path], number)
    for number in range(start, start + count):
        path = paths[number % len(paths)]
        current[path] = one_line_edit(current[path], number)
        yield path, current[path].encode("utf-8")


def tree_hash(root: Path) -> str:
    """SHA-256 over every entry under ``root`` (paths, kinds, modes, contents), sorted.

    ``.git`` and ``.snapline`` are left out, so the hash describes the generated tree only.
    """
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", ".snapline"))
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(Path(dirpath, d))]):
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                body = b"link:" + os.fsencode(os.readlink(path))
            else:
                body = path.read_bytes()
            executable = bool(info.st_mode & stat.S_IXUSR) and not stat.S_ISLNK(info.st_mode)
            digest.update(f"{rel}\0{int(executable)}\0{len(body)}\0".encode())
            digest.update(body)
    return digest.hexdigest()


class _Writer:
    """Writes files under a root, creating directories once, and keeps counts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tracked = 0
        self.ignored = 0
        self.tracked_bytes = 0
        self.tracked_names: list[str] = []
        self._made: set[str] = set()

    def text(
        self, name: str, content: str, *, executable: bool = False, ignored: bool = False
    ) -> None:
        self.binary(name, content.encode("utf-8"), ignored=ignored)
        if executable:
            os.chmod(self.root / name, 0o755)

    def binary(self, name: str, data: bytes, *, ignored: bool = False) -> None:
        self._parent(name)
        with open(self.root / name, "wb") as handle:
            handle.write(data)
        self._count(name, len(data), ignored)

    def symlink(self, name: str, target: str) -> None:
        self._parent(name)
        os.symlink(target, self.root / name)
        self._count(name, len(target), ignored=False)

    def _count(self, name: str, size: int, ignored: bool) -> None:
        if ignored:
            self.ignored += 1
            return
        self.tracked += 1
        self.tracked_bytes += size
        self.tracked_names.append(name)

    def _parent(self, name: str) -> None:
        parent = name.rpartition("/")[0]
        if parent and parent not in self._made:
            (self.root / parent).mkdir(parents=True, exist_ok=True)
            self._made.add(parent)


def _directories(rng: random.Random, count: int) -> list[str]:
    """A random tree of ``count`` directories, at most 8 deep, shallow ones first."""
    tree = list(_TOP_DIRS)
    depth = dict.fromkeys(tree, 1)
    while len(tree) < count:
        parent = tree[int(len(tree) * rng.random() ** 0.7)]
        if depth[parent] >= 8:
            continue
        child = f"{parent}/{rng.choice(_WORDS)}"
        if child in depth:
            child = f"{child}_{len(tree)}"
        tree.append(child)
        depth[child] = depth[parent] + 1
    # The big file's directory (and its parents) must exist in the listing order too.
    return tree


def _ignored_content(
    rng: random.Random,
    writer: _Writer,
    directories: list[str],
    pools: dict[str, list[str]],
    files: int,
) -> None:
    """Files in ignored places: dependency and build folders, caches, logs."""
    packages = max(20, files // 100)
    for index in range(packages):
        package = f"node_modules/{rng.choice(_WORDS)}-{index}"
        for member in range(rng.randint(3, 30)):
            name = f"{package}/{'lib/' if member % 3 else ''}{rng.choice(_WORDS)}_{member}.js"
            writer.text(name, _slice(rng, pools["ts"], rng.randint(300, 6_000), name), ignored=True)
    for index in range(max(20, files // 50)):
        directory = rng.choice(directories)
        name = f"build/{directory}/{rng.choice(_WORDS)}_{index}.o"
        writer.binary(name, _binary(rng, rng.randint(500, 20_000)), ignored=True)
    for index in range(max(20, files // 40)):
        directory = rng.choice([d for d in directories[:400] if not d.startswith("web")])
        stem = f"{rng.choice(_WORDS)}_{index}"
        writer.binary(
            f"{directory}/__pycache__/{stem}.cpython-311.pyc", _binary(rng, 2_000), ignored=True
        )
        writer.binary(f"{directory}/{stem}.pyc", _binary(rng, 1_500), ignored=True)
    for index in range(10):
        writer.text(f"logs/run_{index}.log", _slice(rng, pools["md"], 8_000, "log"), ignored=True)
        writer.text(f"web/app_{index}.js.map", "{}" * 500, ignored=True)
        writer.text(
            f"web/generated/out_{index}.ts", _slice(rng, pools["ts"], 3_000, "g"), ignored=True
        )
    writer.text("web/keep.map", '{"version": 3}\n')


def _line_pool(rng: random.Random, kind: str, count: int) -> list[str]:
    return [_source_line(rng, kind) for _ in range(count)]


def _slice(rng: random.Random, pool: list[str], size: int, name: str) -> str:
    """About ``size`` bytes of consecutive pool lines, headed by a line naming the file."""
    out = [f"# {name}\n"]
    total = len(out[0])
    position = rng.randrange(len(pool))
    while total < size:
        line = pool[position]
        out.append(line)
        out.append("\n")
        total += len(line) + 1
        position = (position + 1) % len(pool)
    return "".join(out)


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return low * float((high / low) ** rng.random())


def _binary(rng: random.Random, size: int) -> bytes:
    # Half random (incompressible, like image data), half zeros: a NUL marks it binary.
    noise = rng.randbytes(size // 2)
    return b"\x89BIN\x00" + noise + bytes(size - len(noise))


def _source_line(rng: random.Random, kind: str) -> str:
    a, b, c = rng.choice(_WORDS), rng.choice(_WORDS), rng.choice(_WORDS)
    roll = rng.random()
    if kind == "md":
        if roll < 0.15:
            return ""
        if roll < 0.25:
            return f"## {a.title()} {b} {c}"
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(5, 14)))
        return words.capitalize() + "."
    if kind == "json":
        indent = "  " * rng.randint(1, 4)
        if roll < 0.5:
            return f'{indent}"{a}_{b}": "{c}-{rng.randint(0, 999)}",'
        if roll < 0.8:
            return f'{indent}"{a}": {rng.randint(0, 100_000)},'
        return indent + ("}," if roll < 0.9 else f'"{a}": {{')
    indent = "    " * rng.randint(0, 3)
    if roll < 0.12:
        return ""
    if kind == "ts":
        if roll < 0.3:
            return f"{indent}const {a}{b.title()} = await {c}.{a}({b}, {rng.randint(0, 99)});"
        if roll < 0.45:
            return f"{indent}if ({a}.{b} !== {c}) {{"
        if roll < 0.55:
            return f"{indent}}}"
        if roll < 0.7:
            return f"{indent}// {a} {b} {c}: keep the {rng.choice(_WORDS)} in sync"
        if roll < 0.85:
            return f"{indent}export function {a}{b.title()}({c}: {a.title()}): {b.title()} {{"
        return f"{indent}return {a}.{b}({c}, {rng.randint(0, 9999)});"
    if roll < 0.3:
        return f"{indent}{a}_{b} = {c}.{a}({b}, {rng.randint(0, 99)})"
    if roll < 0.42:
        return f"{indent}if {a}.{b} is not None and {c} > {rng.randint(0, 999)}:"
    if roll < 0.55:
        return f"{indent}# {a} {b} {c}: the {rng.choice(_WORDS)} must stay sorted"
    if roll < 0.68:
        return f"{indent}def {a}_{b}(self, {c}: {a.title()}) -> {b.title()}:"
    if roll < 0.78:
        return f"{indent}return {a}_{b}({c}, key={rng.choice(_WORDS)!r})"
    if roll < 0.88:
        return f"{indent}for {a} in self.{b}_{c}:"
    return f'{indent}log.debug("{a} %s {b}", {c})'
