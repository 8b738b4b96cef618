"""The pre-push hooks older snapline wrote, recognised by their exact text to be upgraded.

snapline 0.3's first hook (commits a312519 to 0a5ee76 of ``snapline/travel/hook.py``)
ran the history's push with ``|| true``: a history that did not go never stopped the
user's push. Today's hook stops it (:data:`snapline.travel.pre_push.STOPPED`). A hook is
only ever rewritten when its text is, byte for byte, one that snapline wrote, for
whatever interpreter it named: a hook the user wrote or edited is never touched.
"""

from __future__ import annotations

import re

__all__ = ["is_old_hook"]

_PYTHON = re.compile(r"^if \[ -x (.+) \]; then$", re.MULTILINE)
"""The line that names the interpreter the hook was written for (``shlex.quote``d)."""


def _first(python: str) -> str:
    """The hook text of snapline a312519..0a5ee76 for ``python`` (already shell-quoted)."""
    return f"""#!/bin/sh
# snapline pre-push hook: a branch pushed also carries the history (refs/snapline/*) to the
# same remote. Installed by `snapline push --install-hook`; `snapline push
# --uninstall-hook` removes it and puts back the hook it chains (pre-push.snapline-chained).
# It never fails a push because of snapline: only the chained hook can.
snapline_chained="$(dirname "$0")/pre-push.snapline-chained"
if ! snapline_lines=$(mktemp "${{TMPDIR:-/tmp}}/snapline-pre-push.XXXXXX"); then
    # Without a place to keep git's ref lines for two readers, the chained hook gets them.
    if [ -x "$snapline_chained" ]; then exec "$snapline_chained" "$@"; fi
    exit 0
fi
trap 'rm -f "$snapline_lines"' EXIT
cat >"$snapline_lines"
if [ -x "$snapline_chained" ]; then
    "$snapline_chained" "$@" <"$snapline_lines" || exit $?
fi
if [ -x {python} ]; then
    {python} -m snapline push --pre-push "$1" <"$snapline_lines" || true
elif command -v snapline >/dev/null 2>&1; then
    snapline push --pre-push "$1" <"$snapline_lines" || true
else
    echo "snapline: not found; the history (refs/snapline/*) was not pushed to $1" >&2
fi
exit 0
"""


_OLD_TEXTS = (_first,)
"""Every hook text an older snapline wrote, newest last, each given its interpreter."""


def is_old_hook(text: str) -> bool:
    """Whether ``text`` is exactly a pre-push hook that an older snapline wrote.

    Args:
        text: A hook file's whole text.

    Returns:
        ``True`` only for a byte-for-byte match of an old text (for the interpreter it
        names); a hook anyone edited, even by one character, is not one.
    """
    named = _PYTHON.findall(text)  # the chained hook's test comes first: try each
    return any(old(python) == text for python in named for old in _OLD_TEXTS)
