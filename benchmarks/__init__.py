"""The benchmark harness of issue 6: snapline measured side by side with git.

Run it with ``python -m benchmarks`` (``make bench``) or ``--full`` (``make bench-full``).
Modules: ``workspace_gen`` (deterministic synthetic trees), ``timing`` (the alternating
runner and statistics), ``worker`` (the library side, in its own process), ``cases`` (one
function per goal) and ``report`` (the terminal table and ``docs/benchmarks.md``).
"""

__all__: list[str] = []
