"""A survivor's reason holds only for the version of its function it was written for.

scripts/mutation_reasons.toml names mutants by mutmut's numbers, and an edit renumbers a
function's later mutants: the report must not show a reason beside a change it was not
written for.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import tomllib

_SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(_SCRIPTS))
import mutation  # noqa: E402
import mutation_reasons  # noqa: E402

WALK = "snapline.scanning.walk.x_walk"
DRAIN = "snapline.scanning.monitor.inotify.x_drain"
REASONS = f"""# Why each mutant survives.

# --- scanning/walk.py ---

[[survivor]]
mutants = "{WALK}__mutmut_[27]"
reason = "Equivalent: the walk."

[[survivor]]
mutants = [
    "{DRAIN}__mutmut_4",
    "{WALK}__mutmut_9",
]
reason = "Equivalent: both."

# --- milestones/ (another package) ---

[[survivor]]
mutants = "snapline.milestones.read.x_get__mutmut_3"
reason = "Equivalent: another package's."
"""


@pytest.fixture
def reasons(tmp_path: Path) -> Path:
    path = tmp_path / "mutation_reasons.toml"
    path.write_text(REASONS, encoding="utf-8")
    return path


KEYS = [f"{WALK}__mutmut_{n}" for n in (1, 2, 7, 9)] + [f"{DRAIN}__mutmut_4"]
HASHES = {WALK: "a1a1a1a1a1a1", DRAIN: "b2b2b2b2b2b2"}


def test_a_stamped_reason_explains_its_survivors_only_while_their_function_is_unchanged(
    reasons: Path,
) -> None:
    assert mutation_reasons.stamp(reasons, KEYS, HASHES) == 2
    loaded = mutation_reasons.load(reasons)
    walk_7 = f"{WALK}__mutmut_7"
    assert mutation_reasons.explain(walk_7, loaded, HASHES, "scanning") == "Equivalent: the walk."
    edited = {**HASHES, WALK: "c3c3c3c3c3c3"}
    stale = mutation_reasons.explain(walk_7, loaded, edited, "scanning")
    assert stale == mutation_reasons.STALE.format(function=WALK, package="scanning")
    # The entry for two functions still holds for the one not edited.
    drain_4 = f"{DRAIN}__mutmut_4"
    assert mutation_reasons.explain(drain_4, loaded, edited, "scanning") == "Equivalent: both."
    assert mutation_reasons.explain(f"{WALK}__mutmut_9", loaded, edited, "scanning") == stale
    assert mutation_reasons.explain(f"{WALK}__mutmut_1", loaded, HASHES, "scanning") == (
        mutation_reasons.MISSING
    )


def test_a_reason_never_stamped_is_not_trusted(reasons: Path) -> None:
    loaded = mutation_reasons.load(reasons)
    found = mutation_reasons.explain(f"{WALK}__mutmut_2", loaded, HASHES, "scanning")
    assert found == mutation_reasons.STALE.format(function=WALK, package="scanning")


def test_stamping_writes_each_entry_once_and_leaves_the_rest_of_the_file_as_it_was(
    reasons: Path,
) -> None:
    mutation_reasons.stamp(reasons, KEYS, HASHES)
    text = reasons.read_text(encoding="utf-8")
    entries = tomllib.loads(text)["survivor"]
    assert entries[0]["written_for"] == {WALK: HASHES[WALK]}
    assert entries[1]["written_for"] == {DRAIN: HASHES[DRAIN], WALK: HASHES[WALK]}
    assert "written_for" not in entries[2]  # another package's functions: not these verdicts'
    without = "".join(line for line in text.splitlines(True) if not line.startswith("written_for"))
    assert without == REASONS
    assert mutation_reasons.stamp(reasons, KEYS, {WALK: "c3c3c3c3c3c3", DRAIN: "d4"}) == 0
    assert reasons.read_text(encoding="utf-8") == text  # a stamp is renewed by hand, on reading


def test_the_report_lists_a_survivor_of_an_edited_function_as_one_without_its_reason(
    reasons: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mutation_reasons.stamp(reasons, KEYS, HASHES)
    verdicts = tmp_path / "verdicts"
    verdicts.mkdir()
    table = mutation._table("scanning")
    edited = {"x_walk": "c3c3c3c3c3c3"}
    codes = {key: 0 for key in KEYS if key.startswith(WALK)}
    modules = {
        "snapline/scanning/walk.py": {"hash_by_function_name": edited, "exit_code_by_key": codes}
    }
    kept = {"format": 1, "settings": mutation.mutation_verdicts.settings(table), "modules": modules}
    (verdicts / "scanning.json").write_text(json.dumps(kept), encoding="utf-8")
    monkeypatch.setattr(mutation, "REASONS", reasons)
    monkeypatch.setattr(mutation, "VERDICTS", verdicts)
    report = mutation._summary("scanning", dict.fromkeys(codes, "survived"))
    stale = mutation_reasons.STALE.format(function=WALK, package="scanning")
    assert f"#### {stale}" in report
    assert "Equivalent: the walk." not in report
