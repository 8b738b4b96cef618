"""Guarding: the workspace methods that check the latest snapshot and read the outcomes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from snapline.workspace.restoring import Restoring

if TYPE_CHECKING:
    from snapline.guard import CheckOutcome, CheckOutput, GuardResult
    from snapline.guard.outcome import ForeignSnapshot
    from snapline.snapshots.results import RollbackResult

    Confirm = Callable[[tuple[ForeignSnapshot, ...], RollbackResult], bool]
    """Asked whether to roll back past these snapshots, shown the rollback's dry run."""

__all__ = ["Guarding"]


class Guarding(Restoring):
    """The ``guard`` and ``check_outcomes`` methods of :class:`~snapline.workspace.Workspace`."""

    def guard(
        self,
        command: Sequence[str],
        *,
        rollback: bool = False,
        session: str | None = None,
        output: CheckOutput | None = None,
        force: bool = False,
        confirm: Confirm | None = None,
    ) -> GuardResult:
        """Run a check (the tests, say) at the root on the latest snapshot and keep its outcome.

        The check runs on the files of the latest snapshot: it is refused when the
        workspace differs from it, and other writers wait while it runs (as for
        :meth:`run`). Nothing the check itself writes is recorded. Its outcome (pass
        when it exits 0, else fail; the exit code, the command, when) is written to the
        ledger as a record of its own, beside the snapshot files (docs/format.md, "Check
        records"), and shown per snapshot by ``log``, ``show`` and the review page.

        With ``rollback``, a failure rolls the workspace back to the latest earlier
        snapshot whose latest run of the same check (the same command line) passed,
        through :meth:`rollback` (tool ``guard``): the rollback is a snapshot like any
        other, and :meth:`undo` brings the failing change back. When no earlier
        snapshot ever passed it, nothing is rolled back (``last_pass`` is ``None``).
        When the snapshots it would take out include a person's edit (``resync``, an
        outside change) or another session's work (a session other than ``session``,
        or the failing snapshot's when ``session`` is not given), it is rolled back
        only when ``force`` is set or ``confirm`` (shown them and the rollback's own dry
        run) says yes; otherwise nothing is rolled back and ``held`` names them.

        Args:
            command: The check and its arguments (no shell is involved).
            rollback: After a failure, roll back to the last snapshot that passed.
            session: The agent session or person running it, kept with the outcome.
            output: Where the check's output goes (default: straight through).
            force: Roll back past a person's edit or another session's work too.
            confirm: Asked, with those snapshots and the rollback's dry run, whether to
                roll back past them (a person at a terminal); called with the writer
                lock held, so nothing changes between the question and the rollback.

        Returns:
            The outcome, and the rollback when one was made.

        Raises:
            StateMismatchError: If the workspace differs from the latest snapshot.
            CommandError: If the check cannot be started (exit code 127 or 126);
                nothing is recorded.
            StoreVanishedError: If the check deleted or replaced the store.
            RollbackConflictError: If the check changed tracked files, so that the
                rollback would overwrite them; the outcome is recorded, nothing rolled back.
        """
        from snapline.guard import CheckOutput, GuardResult, last_passing, outcomes
        from snapline.guard.check import check_latest
        from snapline.guard.foreign import foreign_work

        with self._recorder.writing():
            check, text = check_latest(
                self._recorder, command, self.root, output or CheckOutput.INHERIT, session
            )
            number, code = check.snapshot, check.exit_code
            if check.passed or not rollback:
                return GuardResult(check=check, output=text)
            with self._store.read():
                target = last_passing(outcomes(self._store, command), number)
                row = self._store.snapshots.get(number)
                ours = session if session is not None or row is None else row.session
                held = [] if target is None else foreign_work(self._store, target + 1, number, ours)
            if target is None:
                return GuardResult(check=check, output=text)
            if held and not force:
                preview = None if confirm is None else self.rollback(target, dry_run=True)
                if preview is None or confirm is None or not confirm(tuple(held), preview):
                    return GuardResult(check=check, last_pass=target, held=tuple(held), output=text)
            restored = self.rollback(
                target,
                tool="guard",
                description=f"guard: snapshot {number} failed its check (exit {code}); "
                f"back to snapshot {target}, the last that passed it",
                session=session,
                metadata={"guard": {"failed": number, "record": check.record}},
            )
            return GuardResult(check=check, last_pass=target, rollback=restored, output=text)

    def check_outcomes(self) -> dict[int, CheckOutcome]:
        """The latest check of every main-line snapshot that was checked, by number.

        Raises:
            StoreCorruptError: If a check record in the ledger is damaged; it is named.
        """
        from snapline.guard import outcomes

        with self._store.read():
            return outcomes(self._store)
