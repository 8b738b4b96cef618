"""Commands that create a store or record snapshots: init, record, run, resync, merge."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from snapline.cli.context import JsonOption, state, user_paths, workspace
from snapline.cli.fast import echo_recorded, record_command
from snapline.cli.output import ProgressBar, echo, echo_json, plural
from snapline.cli.quoting import quote_text
from snapline.cli.render import model_json
from snapline.sizes import format_bytes

if TYPE_CHECKING:
    from snapline import Workspace

__all__ = ["init", "merge", "record", "resync", "run"]

# Below this many files init is quick enough that a progress bar would only flicker.
_PROGRESS_MIN_FILES = 500

PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[PATH]...",
        help="Files or directories (default: the whole workspace).",
        show_default=False,
    ),
]
ToolOption = Annotated[
    str, typer.Option("--tool", metavar="NAME", help="Name of the tool that made the change.")
]
MessageOption = Annotated[
    str, typer.Option("-m", "--message", metavar="TEXT", help="Description of the change.")
]
SessionOption = Annotated[
    str | None,
    typer.Option("--session", metavar="ID", help="Id of the agent session or person recording."),
]


def init(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Argument(
            metavar="DIRECTORY",
            help="Directory to snapshot (default: --root, else the current directory).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Allow the filesystem root or your home directory.")
    ] = False,
    large_file_limit: Annotated[
        int | None,
        typer.Option(
            "--large-file-limit",
            metavar="BYTES",
            min=0,
            help="Track files larger than this by hash only (default 64 MiB).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Create the store; the workspace as it is becomes snapshot 0.

    At the top of a git work tree the history goes onto git's refs
    (refs/snapline/) and nothing is written into the work tree; elsewhere onto
    the same refs of a private bare repository, DIRECTORY/.snapline/repo/, with
    the local state in DIRECTORY/.snapline/. Ignored files (.gitignore,
    .snaplineignore) are left out; files above the large-file limit are tracked
    by hash only.
    """
    from snapline import Workspace
    from snapline.state_dir import private_repo

    options = state(ctx)
    root = directory or options.root or Path.cwd()
    progress = ProgressBar("capturing the baseline", minimum=_PROGRESS_MIN_FILES)
    try:
        ws = Workspace.init(
            root,
            force=force,
            large_file_limit=large_file_limit,
            timeout=options.timeout,
            progress=progress,
        )
    finally:
        progress.close()
    with ws:
        summary = _baseline_summary(ws)
    on_git = private_repo(ws.root) is None
    summary["push_hook"] = _push_hook(ws.root) if on_git else None
    if as_json:
        echo_json(summary)
        return
    extra = []
    if summary["hash_only"]:
        extra.append(f"{summary['hash_only']} tracked by hash only")
    if summary["unreadable"]:
        extra.append(f"{summary['unreadable']} unreadable")
    echo(
        ("initialised", "green"),
        f" {quote_text(summary['store'])}: snapshot 0 holds {plural(summary['files'], 'file')} "
        f"({format_bytes(summary['bytes'])}), {summary['ignored']} ignored",
        *([", " + ", ".join(extra)] if extra else []),
    )
    if summary["push_hook"]:
        echo(f"the history is on {summary['refs']}; `git push` of a branch carries it")


def _push_hook(root: Path) -> str | None:
    """Install the pre-push hook that makes a plain ``git push`` carry the history.

    Returns:
        The hook's path, or ``None`` when it could not be installed (said on stderr:
        the history is made, and ``snapline push`` carries it).
    """
    from snapline.errors import SnaplineError
    from snapline.travel import install_push_hook

    try:
        return str(install_push_hook(root).path)
    except (SnaplineError, OSError) as error:
        echo(
            f"snapline: warning: no pre-push hook ({error}); `snapline push` carries the "
            "history, and `snapline push --install-hook` tries again",
            err=True,
        )
        return None


def _baseline_summary(ws: Workspace) -> dict[str, Any]:
    from snapline.scanning.reasons import SkipReason
    from snapline.state_dir import state_dir
    from snapline.workspace.rows import baseline_id, baseline_totals

    files, size, skipped = baseline_totals(ws)
    reasons = [reason for _, reason in skipped]
    return {
        "root": str(ws.root),
        "store": str(state_dir(ws.root)),
        "refs": f"refs/snapline/lines/{baseline_id(ws)}",
        "snapshot": 0,
        "files": files,
        "bytes": size,
        "ignored": reasons.count(SkipReason.IGNORED),
        "hash_only": reasons.count(SkipReason.HASH_ONLY),
        "unreadable": sum(
            reason
            in (SkipReason.UNREADABLE, SkipReason.UNREADABLE_DIRECTORY, SkipReason.UNREACHABLE)
            for reason in reasons
        ),
        "skipped": [{"path": path, "reason": reason} for path, reason in skipped],
    }


def record(
    ctx: typer.Context,
    paths: PathsArgument = None,
    tool: ToolOption = "record",
    message: MessageOption = "",
    session: SessionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record what changed on disk as one snapshot.

    Looks under PATHS only, or at the whole workspace, and files every change there
    under --tool, -m and --session: it cannot tell who made a change, so name the paths
    your tool changed (a person's edit elsewhere stays drift, for `snapline resync`).
    Prints the new snapshot number, or "nothing changed" (exit 0).
    """
    # The same as the lean path a plain `snapline record` takes (cli/fast.py).
    options = state(ctx)
    record_command(
        options.root,
        options.timeout,
        paths,
        tool=tool,
        message=message,
        session=session,
        as_json=as_json,
    )


def run(
    ctx: typer.Context,
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="CMD", help="The command and its arguments (after --).", show_default=False
        ),
    ],
    tool: ToolOption = "shell",
    message: Annotated[
        str | None,
        typer.Option(
            "-m", "--message", metavar="TEXT", help="Description (default: the command line)."
        ),
    ] = None,
    session: SessionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run a command and record its side effects.

    Give the command after --. Exits with the command's own exit code. Refuses to
    start when the workspace has drifted from its history: the snapshot must hold
    exactly what the command did.
    """
    with workspace(ctx) as ws:
        result = ws.run(command, tool=tool, description=message, session=session)
    if as_json:
        echo_json(
            {
                "exit_code": result.exit_code,
                "snapshot": model_json(result.snapshot),
                "lines": result.lines,
            }
        )
    elif result.lines > 1:
        echo(
            f"snapline: nothing recorded: the history now has {result.lines} lines (the "
            "command merged branches that both recorded); run `snapline merge` to join them",
            err=True,
        )
    elif result.snapshot is None:
        echo("snapline: the command changed nothing", err=True)
    else:
        files = plural(len(result.snapshot.files), "file")
        echo(
            "snapline: recorded snapshot ",
            (str(result.snapshot.number), "bold yellow"),
            f" ({files})",
            err=True,
        )
    # A command killed by a signal exits like it would from a shell: 128 + signal.
    code = result.exit_code if result.exit_code >= 0 else 128 - result.exit_code
    if code:
        raise typer.Exit(code)


def resync(
    ctx: typer.Context,
    message: Annotated[
        str,
        typer.Option(
            "-m", "--message", metavar="TEXT", help="Why the files changed outside snapline."
        ),
    ],
    paths: PathsArgument = None,
    session: SessionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record changes made outside snapline.

    They become their own snapshot, so recording (and `run`) can go on.
    """
    with workspace(ctx) as ws:
        snapshot = ws.resync(description=message, paths=user_paths(ws, paths), session=session)
    echo_recorded(snapshot, as_json)


def merge(
    ctx: typer.Context,
    message: Annotated[
        str,
        typer.Option("-m", "--message", metavar="TEXT", help="Description (default: the lines)."),
    ] = "",
    session: SessionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Join the lines of history that a git merge of two recording branches left.

    Records a merge snapshot whose result is the workspace as it is (the merged tree).
    Run it after `git merge` when `snapline verify` says the history has two lines.
    """
    with workspace(ctx) as ws:
        snapshot = ws.merge(description=message, session=session)
    if snapshot is None and not as_json:
        echo("nothing to merge: the history has one line")
        return
    echo_recorded(snapshot, as_json)
