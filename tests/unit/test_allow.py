"""The PreToolUse answer's one question (docs/hooks.md "Copilot CLI"): whether a shell command is a
plain `hail …` invocation that can run nothing else, and only that."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hail.hooks.allow import NOT_ALLOWED, allow_json, is_hails_own

ALLOWED = [
    "hail inbox",
    "hail boss fyi done",
    "  hail boss fyi done  ",
    "hail boss ask 'is the parser ok? (y/n); sure & | > $(x) `x`'",
    'hail boss fyi "plain words, no expansion"',
    "hail boss fyi --re 1207T030000-ab12 'GO for it'",
    "hail worker@%3 fyi x",
    "hail sent 1207T030000-ab12",
    "hail boss ask <<'EOF'\nthe headline\n\nbody with $(id), `id` and a ; too\nEOF",
    "hail boss ask << 'EOF'\nheadline\nEOF\n",
    'hail boss ask <<"END"\nheadline\nEND',
]

REFUSED = [
    "hail boss fyi x; rm -rf ~",
    "hail boss fyi x && ls",
    "hail boss fyi x || ls",
    "hail boss fyi x & ls",
    "hail boss fyi x | sh",
    "echo x | hail boss fyi",
    "hail boss fyi $(id)",
    'hail boss fyi "$(id)"',
    'hail boss fyi "`id`"',
    "hail boss fyi `id`",
    "hail boss fyi x > /etc/passwd",
    "hail boss fyi < /etc/passwd",
    "hail boss fyi x\nrm -rf ~",
    "hail boss fyi 'x\nrm -rf ~'",
    "hail boss ask <<EOF\n$(id)\nEOF",
    "hail boss ask <<'EOF'\nbody\nEOF\nrm -rf ~",
    "hail boss ask <<'EOF'\nbody without its end",
    "hail boss ask <<'EOF' ; rm x\nbody\nEOF",
    "hail boss fyi '<<EOF'\nrm -rf ~\nEOF",
    "hail boss fyi ~/x",
    "hail boss fyi *",
    "hail boss fyi 'unclosed",
    "HAIL=1 hail inbox",
    "sudo hail inbox",
    "/tmp/hail inbox",
    "hailx inbox",
    "bash -c 'hail inbox'",
    "",
    *(f"hail {verb} %3" for verb in sorted(NOT_ALLOWED)),
]


@pytest.mark.parametrize("command", ALLOWED)
def test_a_plain_hail_command_is_allowed(command: str) -> None:
    assert is_hails_own(command)


@pytest.mark.parametrize("command", REFUSED)
def test_anything_that_could_run_another_command_is_not(command: str) -> None:
    assert not is_hails_own(command)


@given(st.text(alphabet=";&|`$()<>\\", min_size=1), st.text(max_size=20))
def test_a_shell_metacharacter_outside_quotes_is_never_allowed(meta: str, tail: str) -> None:
    assert not is_hails_own(f"hail boss fyi x{meta}{tail}")


def test_the_answer_is_top_level_for_copilot_and_claudes_shape_otherwise() -> None:
    assert allow_json("copilot").startswith('{"permissionDecision":"allow",')
    assert allow_json("claude").startswith(
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",'
    )
