"""A pull request's snapshots, found from its git commits: the lines between base and head.

CI knows a pull request by two commits (``origin/$GITHUB_BASE_REF..HEAD``, or the base
and head SHAs), and with the history on git's refs the agent's snapshots are on the
agent's own line, not on the line a fresh clone follows. Each commit's files (scoped as
a state is: :func:`~snapline.store.refs.disk.scoped_tree`) are explained as ``verify``
explains a checkout (:func:`~snapline.store.refs.explain.explain`: a recorded state, git's
clean merge of states, or the nearest state). The range is then what ``git log
BASE..HEAD`` would be on the lines: on each line whose snapshot explains the head, the
snapshots up to that one that are not behind any snapshot explaining the base (a
snapshot is behind another when it is in that one's chain: its line up to it, and the
lines it forked from up to each fork).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.errors import SnaplineError
from snapline.travel.gitrun import GitFailedError, git, git_line

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Report
    from snapline.store import StoreReader
    from snapline.store.refs.catalog import Catalog, Place
    from snapline.store.refs.explain import Explanation
    from snapline.store.refs.store import RefsStore

__all__ = ["CommitRange", "CommitRangeError", "LineRange", "commit_range", "described", "review"]


class CommitRangeError(SnaplineError):
    """A commit range that cannot be read: a revision git does not know, or no refs history.

    Attributes:
        revision: The revision (or range) at fault.
    """

    exit_code = 1

    def __init__(self, revision: str, reason: str) -> None:
        self.revision = revision
        super().__init__(f"{revision!r}: {reason}")


@dataclass(frozen=True, slots=True)
class LineRange:
    """The snapshots of one line in the range, by the numbers of its own clone.

    Attributes:
        line: The line's id.
        first: The first snapshot in the range.
        last: The last one (the snapshot explaining the head).
    """

    line: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class CommitRange:
    """What a commit range is in the history.

    Attributes:
        base: The base commit's explanation.
        head: The head commit's explanation.
        lines: The snapshots between them, per line.
    """

    base: Explanation
    head: Explanation
    lines: tuple[LineRange, ...]


def commit_range(root: Path, store: RefsStore, base: str, head: str) -> CommitRange:
    """The snapshots, on any line, leading from the state of ``base`` to that of ``head``.

    Args:
        root: The workspace root (git runs there; its ignore rules scope the trees).
        store: The open store, on git's refs.
        base: A git revision (``origin/main``, a SHA).
        head: Another.

    Returns:
        Both explanations and the lines' ranges (see the module's text).

    Raises:
        CommitRangeError: If git does not know a revision.
        DamagedLineError: If a line is damaged or crafted.
    """
    from snapline.store.refs.catalog import Catalog

    catalog = Catalog(store.repo)
    catalog.refresh()
    explained = [_explain(root, store, catalog, revision) for revision in (base, head)]
    chains = catalog.chains()
    behind: set[str] = set()
    for place in _places(explained[0]):
        behind.update(_chain_upto(catalog, place))
    ranges: list[LineRange] = []
    covered: set[str] = set()
    for place in explained[1].snapshots:
        if not place.line or place.line not in chains:
            continue
        upto = [s.commit for s in chains[place.line]]
        upto = upto[: upto.index(place.commit) + 1]
        start = max((i + 1 for i, commit in enumerate(upto) if commit in behind), default=0)
        fresh = upto[start:]
        if not fresh or covered.issuperset(fresh):
            continue
        covered.update(fresh)
        first = chains[place.line][start].record.row.number
        ranges.append(LineRange(place.line, first, place.number))
    return CommitRange(explained[0], explained[1], tuple(ranges))


def review(
    root: Path,
    store: StoreReader,
    base: str,
    head: str,
    verification: Report | None,
    on_disk: Callable[[list[str]], Iterable[tuple[str, bytes | None]]],
) -> str:
    """The Markdown review of the commits ``base..head``: how each is explained, then each line.

    Args:
        root: The workspace root.
        store: The open store (read inside one ``store.read()``).
        base: A git revision.
        head: Another.
        verification: ``verify``'s result, shown first (``None``: not shown).
        on_disk: The bytes on disk (``None``: absent) of the paths given.

    Returns:
        The Markdown text, ending in a newline.

    Raises:
        CommitRangeError: If git does not know a revision, or the history is not on
            git's refs.
        DamagedLineError: If a line is damaged or crafted.
    """
    from snapline.blame.lineviews import LineViews
    from snapline.blame.markdown import cell, range_summary, verdict
    from snapline.guard import outcomes
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore):
        raise CommitRangeError(
            f"{base}..{head}",
            "the history is in the tree (.snapline/), not on git's refs: give "
            "snapshot references (--markdown A..B), or move it with `snapline upgrade`",
        )
    found = commit_range(root, store, base, head)
    out = [f"## snapline: {cell(base)}..{cell(head)}", "", "| | |", "|---|---|"]
    out.append(f"| base | {described(found.base)} |")
    out.append(f"| head | {described(found.head)} |")
    if verification is not None:
        out.append(f"| verify | {verdict(verification)} |")
    out.append("")
    if not found.lines:
        out += ["No snapshot between these commits.", ""]
    views = LineViews(store.repo, store.config())
    try:
        for part in found.lines:
            view = views.get(part.line)
            changes = view.store.changes.paths(part.first, part.last)
            changed = sorted({p for _, path, old in changes for p in (path, old) if p})
            out.append(
                range_summary(
                    view.store,
                    view.reconstructor,
                    part.first,
                    part.last,
                    dict(on_disk(changed)),
                    outcomes(view.store),
                    f"line {part.line[:8]}, snapshots",
                    "not recorded on this line",
                )
            )
    finally:
        views.close()
    return "\n".join(out)


def described(found: Explanation) -> str:
    """One Markdown-safe phrase for an explanation: what the commit's files are."""
    places = ", ".join(f"snapshot {p.number} on line {p.line[:8] or '?'}" for p in found.snapshots)
    if found.explained:
        how = "" if found.verdict.value == "recorded" else "git's merge of "
        return f"{found.verdict.value}: {how}{places}"
    if found.verdict.value == "no-history":
        return "no history"
    return f"unexplained: {len(found.paths)} paths differ from {places}"


def _explain(root: Path, store: RefsStore, catalog: Catalog, revision: str) -> Explanation:
    from snapline.store.refs.disk import scoped_tree
    from snapline.store.refs.explain import explain

    try:
        ran = git(root, "rev-parse", "--verify", "--end-of-options", f"{revision}^{{tree}}")
    except GitFailedError as error:  # its exit code (5) is push's and fetch's alone
        raise CommitRangeError(revision, f"{error}") from None
    if ran.code != 0 or revision.startswith("-"):
        raise CommitRangeError(
            revision,
            f"git knows no such commit ({git_line(ran)}); fetch it first "
            "(actions/checkout with fetch-depth: 0, or git fetch origin BRANCH)",
        )
    scoped = scoped_tree(store.repo, ran.out.strip(), root, catalog.paths())
    return explain(store.repo, scoped.tree, overlay=scoped.overlay, catalog=catalog)


def _places(found: Explanation) -> list[Place]:
    return [*found.snapshots, *([found.base] if found.base else [])]


def _chain_upto(catalog: Catalog, place: Place) -> list[str]:
    """The commits of ``place``'s chain up to it (a fork no line holds: itself)."""
    chain = catalog.chains().get(place.line)
    if not place.line or chain is None:
        return [place.commit]
    commits = [snapshot.commit for snapshot in chain]
    return commits[: commits.index(place.commit) + 1]
