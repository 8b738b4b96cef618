"""A mutation run's verdicts travel in the repository; a run on another machine goes on from them.

mutmut keeps a package's verdicts in a ``.meta`` file beside each mutated module; a run
outlasts a session, and the next session may be on a machine without them.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "mutation_verdicts.py"
_spec = importlib.util.spec_from_file_location("mutation_verdicts", _SCRIPT)
assert _spec is not None and _spec.loader is not None
verdicts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(verdicts)

TABLE = '[tool.mutmut]\nonly_mutate = ["snapline/scanning/*"]\n'
WALK = "snapline/scanning/walk.py"
MONITOR = "snapline/scanning/monitor/inotify.py"


def _meta(mutants: Path, source: str, codes: dict[str, int | None], hashes: dict[str, str]) -> Path:
    """A ``.meta`` file as mutmut 3.8.1 writes it (mutmut/mutation/data.py's ``save``)."""
    meta = mutants / f"{source}.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(
        json.dumps(
            {
                "exit_code_by_key": codes,
                "hash_by_function_name": hashes,
                "type_check_error_by_key": {},
                "durations_by_key": {key: 1.5 for key, code in codes.items() if code is not None},
                "estimated_durations_by_key": {key: 2.0 for key in codes},
            },
            indent=4,
        )
    )
    return meta


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    """One machine's mutants: a run part way, with a survivor, a kill and one not checked."""
    mutants = tmp_path / "one" / "mutants"
    _meta(
        mutants,
        WALK,
        {
            "snapline.scanning.walk.x_walk__mutmut_1": 1,
            "snapline.scanning.walk.x_walk__mutmut_2": 0,
            "snapline.scanning.walk.x_walk__mutmut_3": None,
        },
        {"x_walk": "a1"},
    )
    drain = {"snapline.scanning.monitor.inotify.x_drain__mutmut_1": 36}
    _meta(mutants, MONITOR, drain, {"x_drain": "b2"})
    return mutants


@pytest.fixture
def kept(machine: Path, tmp_path: Path) -> Path:
    """The repository's file of ``machine``'s verdicts."""
    kept = tmp_path / "scanning.json"
    verdicts.keep(machine, TABLE, kept)
    return kept


def test_another_machine_goes_on_from_the_verdicts_one_kept(machine: Path, tmp_path: Path) -> None:
    kept = tmp_path / "repository" / "scanning.json"
    assert verdicts.keep(machine, TABLE, kept) == 3

    other = tmp_path / "two" / "mutants"
    assert verdicts.seed(other, TABLE, kept) == 3
    for source in (WALK, MONITOR):
        written = json.loads((other / f"{source}.meta").read_text())
        found = json.loads((machine / f"{source}.meta").read_text())
        # What mutmut reads to keep a verdict: the code, and the hash of its function.
        assert written["exit_code_by_key"] == found["exit_code_by_key"]
        assert written["hash_by_function_name"] == found["hash_by_function_name"]
        assert set(written) == set(found)  # mutmut's `load` refuses any other key
    assert verdicts.results(kept, TABLE) == {
        "snapline.scanning.walk.x_walk__mutmut_1": 1,
        "snapline.scanning.walk.x_walk__mutmut_2": 0,
        "snapline.scanning.walk.x_walk__mutmut_3": None,
        "snapline.scanning.monitor.inotify.x_drain__mutmut_1": 36,
    }


def test_verdicts_of_another_table_are_given_to_no_run(kept: Path, tmp_path: Path) -> None:
    other = tmp_path / "two" / "mutants"
    another = TABLE + 'pytest_add_cli_args_test_selection = ["tests/scanning"]\n'

    assert verdicts.seed(other, another, kept) == 0
    assert not other.exists()
    assert verdicts.results(kept, another) == {}
    # A setting that changes no verdict (how mutmut starts its workers) keeps them all.
    assert verdicts.seed(other, TABLE + 'forkserver_warmup = "none"\n', kept) == 3


def test_a_timeout_setting_changed_voids_the_timeouts_alone(kept: Path, tmp_path: Path) -> None:
    # As mutmut does: a timeout found with another limit is checked again, the rest kept.
    other = tmp_path / "two" / "mutants"
    shorter = TABLE + "timeout_multiplier = 3.0\n"

    assert verdicts.seed(other, shorter, kept) == 2
    drain = json.loads((other / f"{MONITOR}.meta").read_text())["exit_code_by_key"]
    assert drain == {"snapline.scanning.monitor.inotify.x_drain__mutmut_1": None}
    assert verdicts.results(kept, shorter)["snapline.scanning.walk.x_walk__mutmut_2"] == 0


def test_a_machine_s_own_verdicts_are_never_overwritten(machine: Path, kept: Path) -> None:
    walk = machine / f"{WALK}.meta"
    newer = json.loads(walk.read_text())
    newer["exit_code_by_key"]["snapline.scanning.walk.x_walk__mutmut_3"] = 1
    walk.write_text(json.dumps(newer))

    assert verdicts.seed(machine, TABLE, kept) == 0
    assert json.loads(walk.read_text()) == newer


def test_a_machine_with_no_results_keeps_the_file_as_it_was(kept: Path, tmp_path: Path) -> None:
    before = kept.read_bytes()

    assert verdicts.keep(tmp_path / "empty" / "mutants", TABLE, kept) == 0
    assert kept.read_bytes() == before
    assert verdicts.results(tmp_path / "none.json", TABLE) == {}


def test_a_meta_file_caught_half_written_is_read_whole(
    machine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A summary beside a running mutmut: it rewrites each .meta in place after a mutant.
    walk = machine / f"{WALK}.meta"
    whole = walk.read_text()
    walk.write_text(whole[: len(whole) // 2])
    waited: list[float] = []

    def sleep(seconds: float) -> None:  # mutmut finishes its write meanwhile
        waited.append(seconds)
        walk.write_text(whole)

    monkeypatch.setattr(verdicts.time, "sleep", sleep)
    kept = tmp_path / "scanning.json"
    assert verdicts.keep(machine, TABLE, kept) == 3
    assert len(waited) == 1
    assert verdicts.results(kept, TABLE)["snapline.scanning.walk.x_walk__mutmut_2"] == 0
