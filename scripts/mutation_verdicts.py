"""A mutation run's verdicts, kept in the repository so the next machine goes on from them.

A package's run takes hours, longer than one working session, and a session may start
on a machine that has never seen the last one's `mutation-work/` (mutmut keeps its
verdicts there, in a ``.meta`` file beside each mutated module). So `make mutation`
copies them into ``scripts/mutation-verdicts/NAME.json`` (committed) and, before a run
on a machine whose `mutants/` has no ``.meta`` for a module, writes that module's
``.meta`` back from it.

A verdict carried this way means what mutmut's own cache means, and no more: mutmut
keeps a mutant's verdict while the hash of its function's source is the one it was
found with, and forgets it when the function changes (``hash_by_function_name`` is
carried for that), and it starts again from nothing when a setting that can change a
verdict changes (its ``config_fingerprint``: the tests selected, the pytest options, the
timeouts, a type checker). So the file names those settings of the ``[tool.mutmut]``
table the verdicts were found with, and a run with others is given none of them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import tomllib

_FORMAT = 1
# The settings mutmut 3.8.1's `Config.config_fingerprint` hashes (its others only say
# which mutants exist, or how to start): a change to one of the first resets every verdict,
# to a timeout setting only the timeouts (`_apply_config_change_invalidation`).
_ALL_VERDICTS = ("pytest_add_cli_args", "pytest_add_cli_args_test_selection", "type_check_command")
_TIMEOUTS = ("timeout_multiplier", "timeout_constant")
_VERDICT_SETTINGS = (*_ALL_VERDICTS, *_TIMEOUTS)
# mutmut's exit codes of a timeout (mutmut/stats.py's status_by_exit_code).
TIMEOUT_CODES = frozenset({36, 24, -24, 152, 255})


def settings(table: str) -> dict[str, object]:
    """The settings of a ``[tool.mutmut]`` table that a verdict depends on."""
    found = tomllib.loads(table).get("tool", {}).get("mutmut", {})
    return {name: found.get(name) for name in _VERDICT_SETTINGS}


def keep(mutants: Path, table: str, verdicts: Path) -> int:
    """Copy the verdicts of every module under ``mutants`` into ``verdicts``; how many.

    Every mutant is listed, the ones not checked yet as ``null``, so that the file alone
    tells how far the run went. Nothing is written when ``mutants`` holds no results.
    """
    modules: dict[str, dict[str, dict[str, object]]] = {}
    for meta in sorted(mutants.glob("snapline/**/*.py.meta")):
        data = _meta(meta)
        source = meta.relative_to(mutants).as_posix().removesuffix(".meta")
        modules[source] = {
            "hash_by_function_name": dict(sorted(data["hash_by_function_name"].items())),
            "exit_code_by_key": dict(sorted(data["exit_code_by_key"].items())),
        }
    if not modules:
        return 0
    kept = {"format": _FORMAT, "settings": settings(table), "modules": modules}
    verdicts.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(kept, indent=1, ensure_ascii=False) + "\n"
    partial = verdicts.with_name(verdicts.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(verdicts)
    return sum(_decided(module) for module in modules.values())


def seed(mutants: Path, table: str, verdicts: Path) -> int:
    """Write the ``.meta`` of each module ``mutants`` has none for; how many verdicts.

    Those mutmut would keep itself with ``table``'s settings (:func:`valid`).
    """
    carried = 0
    for source, module in valid(verdicts, table).items():
        meta = mutants / f"{source}.meta"
        if meta.exists():  # this machine's own run: newer than the file, or the same
            continue
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(
            json.dumps(
                {
                    **module,
                    "type_check_error_by_key": {},
                    "durations_by_key": {},
                    "estimated_durations_by_key": {},
                },
                indent=4,
            ),
            encoding="utf-8",
        )
        carried += _decided(module)
    return carried


def results(verdicts: Path, table: str) -> dict[str, int | None]:
    """Every mutant's exit code in ``verdicts`` (``None``: not checked), for the summary.

    As :func:`valid` keeps them; none (the report keeps that package's section as its
    last run wrote it) when a run with ``table`` would start again from nothing.
    """
    return {
        key: code
        for module in valid(verdicts, table).values()
        for key, code in module["exit_code_by_key"].items()
    }


def functions(verdicts: Path, table: str) -> dict[str, str]:
    """The hash of each mutated function the kept verdicts were found with.

    Keyed as :func:`mutation_reasons.function_of` names a mutant's function: its
    module's dotted path, then mutmut's name for it (``snapline.scanning.walk.x_walk``).
    """
    return {
        f"{source.removesuffix('.py').replace('/', '.')}.{name}": digest
        for source, module in valid(verdicts, table).items()
        for name, digest in module["hash_by_function_name"].items()
    }


def valid(verdicts: Path, table: str) -> dict[str, dict[str, dict[str, object]]]:
    """The kept modules, with the verdicts a run with ``table``'s settings keeps.

    As mutmut does when its settings change: none after a change of the tests or how they
    run; every one but the timeouts (``None``: to check again) after a timeout's change.
    """
    kept = read(verdicts)
    now = settings(table)
    if kept is None or any(kept["settings"][name] != now[name] for name in _ALL_VERDICTS):
        return {}
    if all(kept["settings"][name] == now[name] for name in _TIMEOUTS):
        return kept["modules"]
    return {
        source: {
            **module,
            "exit_code_by_key": {
                key: None if code in TIMEOUT_CODES else code
                for key, code in module["exit_code_by_key"].items()
            },
        }
        for source, module in kept["modules"].items()
    }


def read(verdicts: Path) -> dict | None:
    """The kept verdicts, or None where there are none in a format this script writes."""
    try:
        kept = json.loads(verdicts.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return kept if kept.get("format") == _FORMAT else None


def _meta(path: Path) -> dict:
    """A ``.meta`` file mutmut may be writing now (a summary beside a run): read it whole.

    mutmut rewrites it in place after each mutant, so a read can catch it half written;
    the next read, a moment later, finds it whole.
    """
    for _ in range(50):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            time.sleep(0.1)
    raise SystemExit(f"{path}: not a whole .meta file after 5 s; is mutmut stuck writing it?")


def _decided(module: dict[str, dict[str, object]]) -> int:
    return sum(code is not None for code in module["exit_code_by_key"].values())
