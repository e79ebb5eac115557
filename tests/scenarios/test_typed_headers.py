"""What reaches a pane when a headline, scope or `--re` carries control or format characters: the
bytes the recipient's program reads, recorded to a file, hold none of them."""

from __future__ import annotations

import unicodedata

from tests.scenarios.conftest import Scene
from tests.support.procs import wait_until

#: Bidi override, embedding and isolate, zero-width space and joiner, BOM, soft hyphen, line and
#: paragraph separators, an escape sequence and Ctrl-C.
HOSTILE = "\u202e\u202a\u2068\u200b\u200d\ufeff\u00ad\u2028\u2029\x1b[31m\x03"


def test_a_headline_with_bidi_and_format_characters_is_never_typed_raw(scene: Scene) -> None:
    log = scene.root / "typed.bin"
    # `cat` counts as an agent here; it records every byte tmux types into the pane.
    scene.respawn(scene.recv, scene.seat_dir("worker"), f"exec cat > '{log}'")
    assert wait_until(lambda: scene.command(scene.recv) == "cat")
    r = scene.as_pane(
        scene.sender, "worker", "ask", "--scope", f"auth{HOSTILE}", "--", f"evil{HOSTILE}txt"
    )
    assert r.rc in (0, 5), r.err
    assert wait_until(lambda: log.exists() and r.id.encode() in log.read_bytes())
    typed = log.read_bytes().decode("utf-8")
    assert "evil" in typed and "txt" in typed
    bad = [c for c in typed if unicodedata.category(c) in ("Cf", "Zl", "Zp")]
    assert not bad, [hex(ord(c)) for c in bad]
    controls = [c for c in typed if unicodedata.category(c) == "Cc" and c not in "\r\n"]
    assert not controls, [hex(ord(c)) for c in controls]
    assert typed.count("\r") + typed.count("\n") <= 1  # one Enter at most, never a second line
