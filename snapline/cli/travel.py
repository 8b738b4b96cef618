"""The travel commands: ``snapline push`` and ``snapline fetch`` of the history's refs.

Each parses, calls one function of :mod:`snapline.travel`, and renders what it did.
A ref refused (a line is append-only: never forced) is one line on stderr and exit 1;
git unable to push or fetch at all is one line and exit 5 (docs/cli.md).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import JsonOption, state
from snapline.cli.errors import EXIT_FAILURE, error_json
from snapline.cli.output import echo, echo_json, plural

if TYPE_CHECKING:
    from snapline.travel import HookState, Travel

__all__ = ["fetch", "push"]

_REMOTE_HELP = "A remote's name or a URL (default: where git pushes the current branch)."


def push(
    ctx: typer.Context,
    remote: Annotated[
        str | None, typer.Argument(metavar="REMOTE", help=_REMOTE_HELP, show_default=False)
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Ask the remote what would move; move nothing.")
    ] = False,
    install_hook: Annotated[
        bool,
        typer.Option(
            "--install-hook", help="Make a plain `git push` of a branch carry the history too."
        ),
    ] = False,
    uninstall_hook: Annotated[
        bool,
        typer.Option(
            "--uninstall-hook", help="Remove snapline's pre-push hook (a chained one goes back)."
        ),
    ] = False,
    pre_push: Annotated[
        bool,
        typer.Option(
            "--pre-push",
            help="What the hook runs: git's pre-push lines on stdin; push if a branch goes.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Push the history's refs to a remote, fast-forward only.

    Every ref under refs/snapline/ goes to the same name, never forced: a ref the
    remote has more snapshots on, or that diverged, is refused with one line (exit 1)
    and nothing is lost. --install-hook adds a pre-push hook so that a plain `git push`
    of a branch pushes the history to the same remote (an existing hook is kept and run
    first); --uninstall-hook removes it.
    """
    from snapline.travel import (
        Direction,
        default_remote,
        install_push_hook,
        uninstall_push_hook,
        work_tree,
    )
    from snapline.travel import push as run_push

    root = work_tree(state(ctx).root or Path.cwd())
    if install_hook or uninstall_hook:
        if install_hook and uninstall_hook:
            raise typer.BadParameter("pass --install-hook or --uninstall-hook, not both")
        done = install_push_hook(root) if install_hook else uninstall_push_hook(root)
        _render_hook(done, installed=install_hook, as_json=as_json)
        return
    if pre_push:
        _hook_push(root, remote)
        return
    target = remote or default_remote(root, Direction.push)
    _render(run_push(root, target, dry_run=dry_run), as_json=as_json)


def fetch(
    ctx: typer.Context,
    remote: Annotated[
        str | None,
        typer.Argument(
            metavar="REMOTE",
            help="A remote's name or a URL (default: the current branch's upstream remote).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Fetch the history's refs from a remote, fast-forward only.

    Every ref under refs/snapline/ comes to the same name, never rewound: new lines are
    created, lines the remote has more snapshots on move forward, and a line that has
    snapshots here the remote lacks is kept as it is (refused, exit 1, if the remote's
    also has snapshots this one lacks).
    """
    from snapline.travel import Direction, default_remote, work_tree
    from snapline.travel import fetch as run_fetch

    root = work_tree(state(ctx).root or Path.cwd())
    target = remote or default_remote(root, Direction.fetch)
    _render(run_fetch(root, target), as_json=as_json)


def _render(done: Travel, *, as_json: bool) -> None:
    """Print what a push or fetch did; exit 1 when a ref was refused."""
    for refusal in done.refused:
        echo(("snapline: error: ", "red"), refusal.message, err=True)
    if as_json:
        shape = done.as_json()
        if done.refused:
            summary = f"{plural(len(done.refused), 'history ref')} refused"
            shape |= error_json(summary, "RefsRefusedError", EXIT_FAILURE)
        echo_json(shape)
    else:
        echo(_summary(done))
    if done.refused:
        raise typer.Exit(EXIT_FAILURE)


def _summary(done: Travel) -> str:
    verb = {"push": ("pushed", "to"), "fetch": ("fetched", "from")}[done.direction]
    moved = plural(len(done.moved), "history ref")
    if done.dry_run:
        line = f"would have {verb[0]} {moved} {verb[1]} {done.remote} (dry run)"
    else:
        line = f"{verb[0]} {moved} {verb[1]} {done.remote}"
    extra = [f"{done.up_to_date} up to date"] if done.up_to_date else []
    if done.ahead:
        extra.append(f"{len(done.ahead)} ahead here (snapline push {done.remote})")
    if done.refused:
        extra.append(f"{len(done.refused)} refused")
    if not (done.moved or done.up_to_date or done.ahead or done.refused):
        where = "this repository has" if done.direction == "push" else f"{done.remote} has"
        extra.append(f"{where} none: no refs/snapline/")
    return line + (f" ({', '.join(extra)})" if extra else "")


def _render_hook(done: HookState, *, installed: bool, as_json: bool) -> None:
    chained = None if done.chained is None else str(done.chained)
    if as_json:
        echo_json(
            {
                "hook": str(done.path),
                "installed": installed,
                "changed": done.changed,
                "chained": chained,
            }
        )
        return
    if installed:
        state_word = "installed" if done.changed else "already installed"
        tail = f"; it runs {chained} first" if chained else ""
        echo(f"pre-push hook {state_word}: {done.path}{tail}")
    elif done.changed:
        tail = f"; {chained} is back in its place" if chained else ""
        echo(f"removed snapline's pre-push hook {done.path}{tail}")
    else:
        echo(f"no snapline pre-push hook at {done.path}: nothing removed")


def _hook_push(root: Path, remote: str | None) -> None:
    """The hook's run: say on stderr what happened; exit 1 (5) when the history did not go.

    A failing status stops the user's push (git runs the hook before it pushes), unless
    ``git config snapline.prePush warn``: then the push goes on without the history. The
    run that follows git's push (to an empty remote) can stop nothing: it says what to do.
    """
    from snapline.errors import SnaplineError
    from snapline.travel import STOPPED, GitFailedError, history_required, upgrade_old_hook
    from snapline.travel import pre_push as run_pre_push
    from snapline.travel.pre_push import deferred_run

    if remote is None:
        raise typer.BadParameter("--pre-push needs the REMOTE git gives the hook ($1)")
    # A hook an older snapline wrote (its `|| true` lets a push go on without the
    # history) becomes today's as it runs; the push it runs for is not held up by it.
    with contextlib.suppress(OSError, SnaplineError):
        upgrade_old_hook(root)
    after = deferred_run()
    went = f"your push went first; run `snapline push {remote}`"
    try:
        done = run_pre_push(root, remote, sys.stdin.read())
    except GitFailedError as error:
        if after:
            echo(f"snapline: the history was not pushed to {remote}: {error}; {went}", err=True)
            raise typer.Exit(error.exit_code) from None
        if history_required(root):
            echo(f"snapline: the history was not pushed to {remote}: {error}; {STOPPED}", err=True)
            raise typer.Exit(error.exit_code) from None
        echo(
            f"snapline: the history was not pushed to {remote}: {error}; your push goes "
            f"on; run `snapline push {remote}` later",
            err=True,
        )
        return
    if done is None:
        return
    said = [f"snapline: {refusal.message}" for refusal in done.refused]
    if said and (after or history_required(root)):
        said[-1] += f"; {went if after else STOPPED}"
        echo("\n".join(said), err=True)
        raise typer.Exit(EXIT_FAILURE)
    for line in said:
        echo(line, err=True)
    if done.refused:
        echo("snapline: your push goes on without the history refs above", err=True)
    if done.moved:
        echo(f"snapline: {_summary(done)}", err=True)
