"""``snapline verify``'s work, and its lean path without typer.

CI and hooks run ``snapline verify`` often, and after a first full check most of its time
is the workspace scan: the console script sends a plain ``snapline verify [--full]
[--deep] [--json] [--format text|github]`` here before it builds the typer application.
The lean parser (``cli/lean.py``) reads it by the table's spec of ``verify``; anything
else (help, ``--report``, ``--opt=value``, a repeated ``--format``) goes to the typer
command in ``cli/verify.py``, which calls the same :func:`verify_command`; this module
imports neither typer nor rich.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.cli import lean
from snapline.cli.errors import EXIT_CORRUPT, EXIT_FAILURE
from snapline.cli.workspaces import DEFAULT_TIMEOUT, open_workspace

if TYPE_CHECKING:
    from snapline import Report
    from snapline.snapshots.snapshot import Explained

__all__ = ["fast_verify", "verify_command"]


def fast_verify(args: list[str]) -> int | None:
    """``snapline verify ARGS`` without typer when they are a plain form, else ``None``."""
    return lean.serve("verify", args, _verify)


def _verify(parsed: lean.Parsed) -> int:
    return verify_command(
        None,
        DEFAULT_TIMEOUT,
        as_json="as_json" in parsed.flags,
        github=parsed.values.get("output_format") == "github",
        full="full" in parsed.flags,
        deep="deep" in parsed.flags,
    )


def verify_command(
    root: Path | None,
    timeout: float,
    *,
    as_json: bool,
    github: bool,
    full: bool,
    deep: bool,
    report_path: Path | None = None,
    debug: bool = False,
) -> int:
    """``snapline verify``: check the history and the workspace, say what was found.

    Args:
        root: ``--root``, or ``None`` to find the workspace upwards.
        timeout: ``--timeout``.
        as_json: ``--json``.
        github: ``--format github``.
        full: ``--full``.
        deep: ``--deep``.
        report_path: ``--report``.
        debug: ``--debug``.

    Returns:
        The exit code: 0 when everything holds, 1 for problems, 3 for a corrupt store.

    Raises:
        SnaplineError: When the store cannot be opened and neither JSON nor annotations
            were asked for: the caller reports it as every command does.
    """
    from snapline.cli.output import echo, echo_json, github_annotation
    from snapline.cli.warm.served import watched
    from snapline.errors import SnaplineError
    from snapline.workspace.rows import verify_problems

    try:
        with open_workspace(root, timeout) as ws:
            # Served warm, the server's monitor says what may have changed since the
            # last check; otherwise (and at any doubt, and with --full, which never
            # trusts it) the whole workspace is walked.
            changes = watched(ws.root, trust=not full)
            problems, since, explained = verify_problems(ws, full=full, deep=deep, changes=changes)
            latest = ws.latest
    except SnaplineError as error:
        # A damaged store's error sends the user to `snapline verify`; verify met it before
        # it could check anything else, and says it with the repair only (in_verify).
        said = getattr(error, "in_verify", None)
        if said is not None:
            error.args = (said,)
        if not as_json and not github:
            raise
        return _report_error(error, as_json=as_json, debug=debug)
    if not problems and not as_json and report_path is None:
        # What CI and hooks see on almost every run, said without building the
        # report's model (and loading pydantic for it).
        _echo_ok(since, latest, explained)
        return 0
    from snapline.snapshots.snapshot import Report

    report = Report(problems=tuple(problems), since=since, explained=explained)
    if as_json:
        echo_json(report.to_json())
    elif github:
        for problem in report.problems:
            echo(github_annotation(problem))
        _echo_summary(report, latest, list_problems=False)
    else:
        _echo_summary(report, latest, list_problems=True)
    if report_path is not None:
        _write_page(root, timeout, report_path, report)
    if report.corrupt:
        return EXIT_CORRUPT
    return 0 if report.ok else EXIT_FAILURE


def _report_error(error: Exception, *, as_json: bool, debug: bool) -> int:
    # CI reads the annotations and the JSON: an unreadable store is reported the same
    # way as any other problem, then exits with the error's own code.
    from snapline import Problem
    from snapline.cli.errors import describe, error_json, exit_code_for, kind_of
    from snapline.cli.output import echo, echo_json, github_annotation

    message, code = describe(error)
    exit_code_for(error, debug=debug)
    problem = Problem(
        kind="store", message=str(error), severity="corrupt" if code == EXIT_CORRUPT else "error"
    )
    if as_json:
        # The report's shape, plus what every command prints for an error.
        echo_json(
            {
                "ok": False,
                "problems": [problem.model_dump(mode="json")],
                **error_json(message, kind_of(error), code),
            }
        )
    else:
        echo(github_annotation(problem))
    return code


def _write_page(root: Path | None, timeout: float, path: Path, report: Report) -> None:
    # Outside verify's own error handling: a page that cannot be written is an error of
    # its own, not a problem of the store. The page shows this very result (--deep's
    # too) rather than checking a second time.
    from snapline.cli.output import echo
    from snapline.cli.quoting import quote_text
    from snapline.cli.report import note_untracked, untracked_inside

    with open_workspace(root, timeout) as ws:
        ws.report(path, verification=report)
        untracked = untracked_inside(ws, os.path.abspath(path))
    echo(f"wrote the review page {quote_text(os.path.abspath(path))}", err=True)
    if untracked:
        note_untracked(os.path.abspath(path))


def _echo_summary(report: Report, latest: int, *, list_problems: bool) -> None:
    from snapline.cli.output import echo, plural
    from snapline.cli.render import echo_problems

    if report.ok:
        _echo_ok(report.since, latest, report.explained)
        return
    what = "the store is corrupt" if report.corrupt else "verification failed"
    # With annotations the problems are already on stdout; the headline is for people.
    echo((f"{what}: {plural(len(report.problems), 'problem')}", "bold red"), err=not list_problems)
    if list_problems:
        echo_problems(report.problems)


def _echo_ok(since: int | None, latest: int, explained: Explained | None) -> None:
    from snapline.cli.output import echo

    if since is None:
        checked = f"snapshots 0..{latest} verified"
    else:
        earlier = "all" if since >= latest else f"0..{since}"
        checked = (
            f"snapshots 0..{latest} verified ({earlier} by an earlier check; --full rereads them)"
        )
    # As git says what it decided: a checkout held to a recorded state (or git's clean
    # merge of states) other than the latest snapshot's names them.
    matched = "the workspace matches the latest snapshot"
    if explained is not None:
        matched = explained.describe()
    echo(("ok", "bold green"), f": {checked}, {matched}")
