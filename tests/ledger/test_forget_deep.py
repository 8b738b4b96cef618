"""``verify --deep`` after an ordinary ``forget``: a tombstone is forgotten, not damage.

``--deep`` rebuilds every recorded version. A forgotten one cannot be rebuilt, on
purpose; calling that "corrupt-content" (exit 3) and advising a backup would bring the
secret back. In the clone that forgot and in a fresh clone of it, ``verify --deep``
exits 0, and the secret is in no file under ``.snapline/``.
"""

from __future__ import annotations

from pathlib import Path

from tests.ledger.conftest import Repo, clone, new_repo, output

SECRET = b"API_KEY=sk-live-0123456789abcdef"


def _files_holding(repo: Repo, needle: bytes) -> list[str]:
    return [
        str(path.relative_to(repo.path))
        for path in sorted((repo.path / ".snapline").rglob("*"))
        if path.is_file() and needle in path.read_bytes()
    ]


def test_verify_deep_after_forget_is_ok_and_never_advises_a_backup(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    repo.write("config.env", "DEBUG=1\n")
    repo.ok("init", "--in-tree")
    repo.write("config.env", "DEBUG=1\n" + SECRET.decode() + "\n")
    repo.ok("record", "-m", "the secret, by mistake")
    repo.write("config.env", "DEBUG=1\nAPI_KEY=from-the-vault\n")
    repo.ok("record", "-m", "the secret out")
    repo.ok("forget", "config.env", "--snapshot", "1", "-m", "a key recorded by mistake")
    repo.commit("history, forgotten")
    assert _files_holding(repo, SECRET) == []

    for checked in (repo, clone(repo, tmp_path / "fresh")):
        result = checked.snap("verify", "--deep")
        text = output(result)
        assert result.returncode == 0, text
        assert "backup" not in text and "corrupt" not in text
        assert _files_holding(checked, SECRET) == []
        shown = checked.snap("show", "1")
        assert shown.returncode == 0, output(shown)
        assert "forgotten" in output(shown).lower()
