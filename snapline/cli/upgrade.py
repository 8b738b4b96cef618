"""The upgrade command: an in-tree history moved onto git's refs, in one commit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from snapline.cli.context import JsonOption, state
from snapline.cli.output import echo, echo_json, plural

__all__ = ["upgrade"]


def upgrade(
    ctx: typer.Context,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Say what would be moved and committed; change nothing."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Move the history kept in .snapline/ onto git's refs and remove .snapline/ in one commit.

    For a git work tree whose checkout carries an in-tree store (a 0.2 ledger, or a
    0.1 store.db, brought to the ledger first): every snapshot of every line, with its
    record unchanged, and the milestones go onto refs/snapline/ (a snapshot already
    there is never written twice; an old branch's snapshots that diverge from the refs
    go onto a line of their own); the local index moves under git's directory; then
    one commit on the current branch removes .snapline/ and holds nothing else. It
    refuses to start while git's index holds other staged changes. Run it again after
    an interruption: it finishes what is left.
    """
    from snapline.moving import upgrade_to_refs, work_tree_top

    options = state(ctx)
    root = options.root.resolve() if options.root else work_tree_top(Path.cwd())
    done = upgrade_to_refs(root, dry_run=dry_run, timeout=options.timeout)
    if as_json:
        echo_json(
            {
                "dry_run": done.dry_run,
                "found": done.found,
                "written": done.written,
                "present": done.present,
                "lines": done.lines,
                "main_line": done.main_line,
                "milestones": done.milestones,
                "placeholders": [{"snapshot": n, "path": p} for n, p in done.placeholders],
                "forgotten": [{"snapshot": n, "path": p} for n, p in done.forgotten],
                "index": done.index,
                "index_made": done.index_made,
                "commit": done.commit,
                "joined": done.joined,
            }
        )
        return
    if done.found == "none":
        if done.commit:
            echo(f"committed the removal of .snapline/ an interrupted upgrade left: {done.commit}")
        elif not done.joined:
            echo("nothing to upgrade: the work tree holds no in-tree history (.snapline/)")
        _say_joined(done.joined, dry_run=False)
        return
    from snapline.state_dir import git_dir, private_repo

    # Outside git the history goes to the refs of the workspace's private repository.
    private = git_dir(root) is None or private_repo(root) is not None
    target = "the refs of .snapline/repo/" if private else "git's refs"
    verb = "would move" if done.dry_run else "moved"
    source = {
        "0.1": "the in-tree snapline 0.1 store",
        "merged": "the ledger of the merged branch",
    }.get(done.found, "the in-tree ledger")
    echo(
        f"{verb} {source} onto {target}: "
        f"{plural(done.written, 'snapshot')} written, {done.present} already there"
    )
    for ref, count in sorted(done.lines.items()):
        main = " (main line)" if ref == done.main_line else ""
        echo(f"  {ref}{main}: {plural(count, 'snapshot')}")
    if done.milestones:
        echo(f"  milestones {', '.join(map(str, done.milestones))}")
    for number, path in done.forgotten:
        echo(f"  snapshot {number} {path}: forgotten; its state holds its tombstone")
    for number, path in done.placeholders:
        echo(
            f"  snapshot {number} {path}: no content kept (forgotten, or its hash only); "
            "its state holds a placeholder"
        )
    if done.dry_run:
        then = "the ledger from .snapline/" if private else ".snapline/ from the tree in one commit"
        _say_joined(done.joined, dry_run=True)
        echo(f"then would remove {then}; nothing was changed")
        return
    where = "made from the ledger's" if done.index_made else "kept"
    echo(f"  local index {done.index} ({where})")
    if private:
        echo("removed the ledger from .snapline/; the history is in the private repository")
    elif done.commit:
        echo(f"removed .snapline/ from the tree in commit {done.commit[:12]}")
    else:
        echo(
            "removed .snapline/ from the tree; the removal is staged: finish the merge "
            "with `git commit`"
        )
    _say_joined(done.joined, dry_run=False)


def _say_joined(joined: list[str], *, dry_run: bool) -> None:
    # git's refs hold one milestone of each number on a line: those the ledger held
    # beside the main line's are joined as `snapline merge` would (moving_join.py).
    if joined:
        verb = "would join" if dry_run else "joined"
        echo(
            f"{verb} the milestones closed on another branch beside the main line's, as "
            "`snapline merge` does (a merge snapshot, and one milestone that closes it):"
        )
        for milestone in joined:
            echo(f"  milestone {milestone}")
