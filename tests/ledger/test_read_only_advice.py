"""On an old branch's checkout, the advice of status and verify names ``snapline upgrade`` first.

The history of such a checkout is the 0.2 in-tree ledger, which refuses every write
(tests/ledger/test_in_tree_read_only.py): advice to ``resync``, ``rollback``, ``merge``
or ``milestone create`` alone would send the user to a refusal. The ledger is
``tests/fixtures/ledger-2.bundle``'s ``main``, with one file edited outside snapline.
"""

from __future__ import annotations

import json

import pytest

from tests.history_refs.gitrepo import Repo
from tests.history_refs.upgrading import clone_fixture

UPGRADE_FIRST = (
    "run `snapline upgrade` to move this checkout's history (its in-tree ledger, which is "
    "only read) onto git's refs, then "
)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A fresh clone of ledger-2 on ``main``, ``src/app.py`` edited outside snapline."""
    repo = clone_fixture("ledger-2", tmp_path_factory.mktemp("advice") / "repo")
    assert (repo.path / ".snapline" / "ledger" / "FORMAT").is_file()
    (repo.path / "src" / "app.py").write_text("def main():\n    return 42\n")
    return repo


def test_status_names_the_upgrade_before_each_write(checkout: Repo) -> None:
    done = checkout.snap("status")
    assert done.returncode == 0, done
    drift = (
        UPGRADE_FIRST[0].upper() + UPGRADE_FIRST[1:] + "keep the outside change with "
        "`snapline resync -m TEXT`, or drop it with `snapline rollback --force --to latest "
        "PATH...`, which records it first."
    )
    assert drift in done.stdout.splitlines(), done.stdout
    assert f"{UPGRADE_FIRST}close them with `snapline milestone create`)" in done.stdout
    assert done.stdout.count("`snapline upgrade`") == 2, done.stdout


def test_verify_names_the_upgrade_before_the_resync(checkout: Repo) -> None:
    done = checkout.snap("verify", "--json")
    assert done.returncode == 1, done
    problems = json.loads(done.stdout)["problems"]
    assert [p["path"] for p in problems] == ["src/app.py"]
    assert problems[0]["message"] == (
        f"src/app.py is modified on disk compared with the history; {UPGRADE_FIRST}keep it "
        "with `snapline resync -m TEXT src/app.py`, or drop it with `snapline rollback "
        "--force --to latest src/app.py` (which records it first)"
    )
    text = checkout.snap("verify")
    assert f"{UPGRADE_FIRST}keep it with `snapline resync" in text.stdout, text.stdout
