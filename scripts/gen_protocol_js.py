"""Write backend/web/protocol.js from backend/protocol/messages.py (the messages, defined once).

uv run python scripts/gen_protocol_js.py          # write it
uv run python scripts/gen_protocol_js.py --check  # exit 1 if the committed file is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from backend.protocol.messages import render_js  # noqa: E402

TARGET = REPO / "backend" / "web" / "protocol.js"


def main() -> int:
    text = render_js()
    if "--check" in sys.argv[1:]:
        if not TARGET.exists() or TARGET.read_text() != text:
            print(f"{TARGET.relative_to(REPO)} is stale: run scripts/gen_protocol_js.py")
            return 1
        print(f"{TARGET.relative_to(REPO)} is fresh")
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(REPO)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
