"""The refusal of a path that matches nothing: a typo, never "nothing changed"."""

from __future__ import annotations

from snapline.errors import SnaplineError

__all__ = ["UnknownPathError"]


class UnknownPathError(SnaplineError):
    """A path named for recording or restoring matches nothing there: most likely a typo.

    Recording a path neither on disk nor tracked, or rolling back one the history never
    had, would silently find "nothing changed", so it is refused (exit 2, a usage error,
    as git refuses a pathspec that matches nothing).

    Attributes:
        path: The workspace-relative path.
        doing: What was asked of it (``record``, ``roll back``).
    """

    exit_code = 2

    def __init__(self, path: str, doing: str = "record") -> None:
        self.path = path
        self.doing = doing
        if doing in ("record", "blame"):
            where = "is neither on disk nor tracked"
            hint = "`snapline status` shows what changed"
        else:
            where = "was never in the history"
            hint = "`snapline log --file PATH` lists the snapshots that changed a path"
        super().__init__(
            f"{path} {where}, so there is nothing to {doing} there; check the path ({hint})"
        )
