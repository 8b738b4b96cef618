"""The forget command: remove the stored content of files recorded by mistake."""

from __future__ import annotations

from typing import Annotated

import typer

from snapline.cli.context import JsonOption, paths_argument, user_paths, workspace
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.render import model_json

__all__ = ["forget"]


def forget(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None,
        paths_argument("The file (several when the same content was recorded under each)."),
    ] = None,
    reason: Annotated[
        str | None,
        typer.Option("-m", "--message", metavar="REASON", help="Why (recorded with the act)."),
    ] = None,
    snapshot: Annotated[
        str | None,
        typer.Option(
            "--snapshot",
            metavar="N",
            help="Only the content PATH had after snapshot N (a number, latest or latest~N).",
        ),
    ] = None,
    publish: Annotated[
        str | None,
        typer.Option(
            "--publish",
            metavar="REMOTE",
            help="Push the recorded forgets and the lines they rewrote to REMOTE "
            "(a history on git's refs), each under a lease; no PATH.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Remove the stored content of a file recorded by mistake (a secret) from the history.

    Every stored version of PATH, or with --snapshot only the content it had after
    snapshot N, leaves the history (.snapline/ledger, or snapline's refs) and the
    local index; tombstones keep the hashes, so `snapline verify` still passes, and
    rebuilding a forgotten version says it was forgotten. The act is recorded in the
    history. The file in the workspace is not touched. Commit .snapline/ afterwards;
    content already in git history needs git's own tools (git filter-repo). On
    git's refs only snapline's refs are rewritten; `snapline forget --publish
    REMOTE` then pushes the rewrite.
    """
    if publish is not None:
        if paths:
            raise typer.BadParameter("--publish takes no PATH: it pushes the forgets made")
        with workspace(ctx) as ws:
            pushed = ws.publish_forgets(publish)
        if as_json:
            echo_json({"remote": publish, "pushed": pushed})
            return
        echo(("published ", "green"), f"{plural(len(pushed), 'ref')} to {publish}")
        for ref in pushed:
            echo(f"  {ref}")
        return
    if not paths or reason is None:
        raise typer.BadParameter("name the files to forget and say why (-m REASON)")
    from snapline.state_dir import private_repo

    with workspace(ctx) as ws:
        rels = user_paths(ws, paths)
        if rels is None:
            raise typer.BadParameter("name the files to forget, not the workspace root")
        result = ws.forget(rels, snapshot=snapshot, reason=reason)
        private = private_repo(ws.root) is not None
    if as_json:
        echo_json(model_json(result))
        return
    numbers = sorted({v.number for v in result.forgotten})
    echo(
        ("forgot ", "green"),
        f"{plural(len(result.forgotten), 'version')} of {', '.join(result.paths)} "
        f"(snapshot{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))})",
    )
    for version in result.kept:
        echo(f"  kept {version.path} after snapshot {version.number} whole, so it still rebuilds")
    if result.record.startswith("refs/"):
        echo(f"  recorded on {result.record}; only snapline's refs were rewritten")
        for path in result.still_on_disk:
            echo(
                ("  note: ", "yellow"),
                f"{path} still holds this content on disk; forget changes the history only",
            )
        if private:
            # No remote: .snapline/repo is the workspace's own, pruned by the forget.
            echo("  its old objects were deleted from .snapline/repo")
        else:
            echo("  publish it with `snapline forget --publish REMOTE`")
        return
    echo(f"  recorded in .snapline/ledger/forgotten/{result.record}")
    for path in result.still_on_disk:
        echo(
            ("  note: ", "yellow"),
            f"{path} still holds this content on disk; forget changes the history only",
        )
    echo("  commit .snapline/ now; content already committed to git needs git filter-repo")
