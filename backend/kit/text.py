"""Free text that people write (talk, reports, statements, names), cleaned one way everywhere.

Below every package (``pyproject.toml``, ``[tool.importlinter]``): any of them may import
it, and it imports nothing of ours. A cleaned text holds no control or format character
(category ``C``: terminal escapes, bidi overrides and isolates, the Arabic letter mark,
zero-width spaces and joiners, the byte order mark, soft hyphens, the tag characters
U+E0000..U+E007F that can carry a hidden sentence, unassigned and private-use code points)
and no filler that shows as nothing (Hangul fillers, the combining grapheme joiner, Khmer
inherent vowels). Emoji keep their skin tones and variation selectors; a zero-width
joiner goes (a joined emoji shows as its parts).
"""

from __future__ import annotations

import unicodedata

# Default-ignorable code points outside category C: they render as nothing, so they too can
# hide text or make two names look the same.
_BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")


def _kept(ch: str) -> bool:
    return ch not in _BLANK and unicodedata.category(ch)[0] != "C"


def clean_text(text: str, *, lines: bool = False) -> str:
    """``text`` without control, format, unassigned, private-use or blank characters.

    One line (the default): every whitespace run, line breaks included, becomes one space,
    and the ends are trimmed. ``lines=True`` (a statement of several paragraphs): line
    breaks of any kind (``\\r\\n``, U+2028, U+2029, ...) become ``\\n`` and tabs are kept;
    the ends are trimmed."""
    if not lines:
        kept = "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or _kept(ch))
        return " ".join(kept.split())
    return "\n".join(
        "".join(ch for ch in line if ch == "\t" or _kept(ch)) for line in text.splitlines()
    ).strip()
