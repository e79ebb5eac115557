"""The pure merges of `hail setup` (docs/hooks.md "Merge rule"): other tools survive, old hail lines
are replaced in place, comments stay byte for byte, and merging a merged text changes nothing."""

from __future__ import annotations

import difflib
import hashlib
import json

import pytest
import tomlkit

from hail.install.claude_json import merge_claude
from hail.install.codex_hooks_json import HooksElsewhere, codex_json_holds_hail, merge_codex_json
from hail.install.codex_toml import codex_untrusted, merge_codex
from hail.install.codex_trust import codex_trust_hash, codex_trust_key
from hail.install.hook_table import hook_groups, wanted_hooks
from hail.install.merge_rule import MergeError, error_text
from hail.install.recognise import is_hail_command

OLD_LINE_CLAUDE = '[ -n "$TMUX_PANE" ] || exit 0; hail deliver --format claude'
CONFIG = "/home/u/.codex/config.toml"


def _claude(hooks: dict[str, object], **top: object) -> str:
    return json.dumps({**top, "hooks": hooks}, indent=2) + "\n"


def _commands(groups: list[dict[str, object]]) -> list[list[str]]:
    return [[str(h["command"]) for h in g["hooks"]] for g in groups]  # type: ignore[attr-defined]


def _toml(text: str) -> dict[str, object]:
    return tomlkit.parse(text).unwrap()


# --- shared vocabulary ----------------------------------------------------------------------------


def test_wanted_hooks_are_the_four_of_the_table() -> None:
    assert wanted_hooks("claude") == {
        "SessionStart": "hail brief --hook",
        "UserPromptSubmit": "hail deliver --format claude",
        "PostToolUse": "hail deliver --format claude --event PostToolUse",
        "Stop": "hail deliver --format claude --event Stop",
    }
    assert wanted_hooks("codex")["PostToolUse"] == "hail deliver --format codex --event PostToolUse"


@pytest.mark.parametrize(
    ("cmd", "ours"),
    [
        ("hail deliver --format claude", True),
        ('[ -n "$TMUX_PANE" ] || exit 0; hail deliver --format codex', True),
        ("hail brief", True),
        ("/usr/bin/tmux-bridge deliver", True),
        ("/nix/store/0000-hail-0.7.0/bin/hail deliver --format codex --event Stop", True),
        ("'/home/u/my checkout/.venv/bin/hail' brief --hook", True),
        ("other-tool --hail", False),
        ("hail inbox", False),
        ("", False),
        ("echo hail deliver", False),
        ("/opt/other/hailstorm deliver", False),
        ("notify --about 'hail brief'", False),
        ("tmux-bridge brief", False),
        ("hail 'deliver", False),
    ],
)
def test_a_hail_command_is_recognised_in_every_older_form(cmd: str, ours: bool) -> None:
    assert is_hail_command(cmd) is ours


def test_a_program_of_any_name_is_hails_where_it_runs_one_of_hails_hooks_exactly() -> None:
    """`--program /opt/dev/hail-dev` wrote these: a later setup must recognise them as hail's."""
    text = _claude(
        {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "/opt/dev/h brief --hook"}]}
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "/opt/dev/h deliver"}]},
                {"hooks": [{"type": "command", "command": "/opt/other/h2 deliver"}]},
            ],
        }
    )
    hooks = json.loads(merge_claude(text, program="/usr/bin/hail"))["hooks"]
    assert _commands(hooks["SessionStart"]) == [
        ["/usr/bin/hail brief --hook"],
        ["/usr/bin/hail listen --format claude"],  # the waiter, beside the brief
    ]
    # /opt/dev/h ran hail's SessionStart hook, so its older deliver line is hail's too.
    assert _commands(hooks["UserPromptSubmit"]) == [
        ["/usr/bin/hail deliver --format claude"],
        ["/opt/other/h2 deliver"],
    ]


# --- Claude Code ----------------------------------------------------------------------------------


def claude_settings_with_an_old_hail_line() -> str:
    return _claude(
        {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "other-tool"}]},
                {"hooks": [{"type": "command", "command": OLD_LINE_CLAUDE, "timeout": 5}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "fmt-on-save"}]},
            ],
            "Notification": [{"hooks": [{"type": "command", "command": "notify-me"}]}],
        },
        model="opus",
        permissions={"allow": ["Bash(ls)"]},
    )


def test_claude_old_line_is_replaced_at_its_position_with_its_timeout() -> None:
    out = json.loads(merge_claude(claude_settings_with_an_old_hail_line()))
    groups = out["hooks"]["UserPromptSubmit"]
    assert _commands(groups) == [["other-tool"], ["hail deliver --format claude"], ["fmt-on-save"]]
    assert groups[1]["hooks"][0] == {
        "type": "command",
        "command": "hail deliver --format claude",
        "timeout": 5,
    }
    assert groups[2]["matcher"] == "Bash"
    assert "TMUX_PANE" not in json.dumps(out)


def test_claude_keeps_other_tools_unknown_keys_and_key_order() -> None:
    out = json.loads(merge_claude(claude_settings_with_an_old_hail_line()))
    assert list(out) == ["model", "permissions", "hooks"]
    assert out["permissions"] == {"allow": ["Bash(ls)"]}
    assert _commands(out["hooks"]["Notification"]) == [["notify-me"]]
    assert list(out["hooks"]) == [
        "UserPromptSubmit", "Notification", "SessionStart", "PostToolUse", "Stop",
    ]  # fmt: skip


def test_claude_gets_all_three_hooks_as_new_groups_without_matcher() -> None:
    out = json.loads(merge_claude(claude_settings_with_an_old_hail_line()))
    assert out["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": "hail brief --hook"}]},
        {"hooks": [WAITER]},
    ]
    assert out["hooks"]["PostToolUse"] == [
        {
            "hooks": [
                {"type": "command", "command": "hail deliver --format claude --event PostToolUse"}
            ]
        }
    ]


def test_claude_output_is_two_space_json_with_raw_non_ascii_and_a_newline() -> None:
    out = merge_claude(_claude({}, note="café"))
    assert out.endswith("}\n")
    assert '\n  "note": "café"' in out


@pytest.mark.parametrize(
    "text", ["", "{}", "{}\n", claude_settings_with_an_old_hail_line(), '{"hooks": {}}']
)
def test_claude_merge_is_idempotent(text: str) -> None:
    once = merge_claude(text)
    assert merge_claude(once) == once
    assert merge_claude(text) != text  # none of these held hail's hooks yet


def test_claude_current_file_comes_back_byte_for_byte_in_its_own_formatting() -> None:
    text = json.dumps({"hooks": hook_groups("claude")}, indent=4)  # 4 spaces, no final newline
    assert merge_claude(text) == text


#: The waiter's handler as the table gives it (`data/harness_hooks.json`).
WAITER = {
    "type": "command",
    "command": "hail listen --format claude",
    "asyncRewake": True,
    "timeout": 86400,
    "rewakeMessage": "hail:",
    "rewakeSummary": "hail: new mail",
}


def test_settings_that_predate_the_waiter_get_it_beside_the_brief_and_the_stop_hook() -> None:
    wanted = wanted_hooks("claude")
    hooks = {e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in wanted.items()}
    out = json.loads(merge_claude(json.dumps({"hooks": hooks})))["hooks"]
    assert _commands(out["SessionStart"]) == [["hail brief --hook"], [WAITER["command"]]]
    assert _commands(out["Stop"]) == [
        ["hail deliver --format claude --event Stop"],
        [WAITER["command"]],
    ]
    assert out["Stop"][1]["hooks"][0] == WAITER
    assert _commands(out["UserPromptSubmit"]) == [["hail deliver --format claude"]]


def test_a_waiter_is_fixed_in_place_its_other_keys_kept_and_a_second_one_dropped() -> None:
    mine = {**WAITER, "command": "/old/bin/hail listen --format claude", "timeout": 600}
    mine |= {"asyncRewake": False, "statusMessage": "mine"}
    text = _claude(
        {
            "Stop": [
                {"matcher": "m", "hooks": [{"type": "command", "command": "other"}, mine]},
                {"hooks": [{"type": "command", "command": "hail listen --format claude"}]},
            ]
        }
    )
    stop = json.loads(merge_claude(text))["hooks"]["Stop"]
    assert _commands(stop) == [
        ["other", WAITER["command"]],
        ["hail deliver --format claude --event Stop"],
    ]
    assert stop[0]["matcher"] == "m"
    assert stop[0]["hooks"][1] == {**WAITER, "statusMessage": "mine"}
    assert merge_claude(merge_claude(text)) == merge_claude(text)


def test_claude_extra_hail_lines_are_removed_and_emptied_groups_dropped() -> None:
    text = _claude(
        {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "hail deliver --format claude"}]},
                {"hooks": [{"type": "command", "command": "tmux-bridge deliver"}]},
                {
                    "matcher": "x",
                    "hooks": [
                        {"type": "command", "command": "keep"},
                        {"type": "command", "command": "hail deliver"},
                    ],
                },
            ]
        }
    )
    groups = json.loads(merge_claude(text))["hooks"]["UserPromptSubmit"]
    assert _commands(groups) == [["hail deliver --format claude"], ["keep"]]
    assert groups[1]["matcher"] == "x"


def test_claude_event_that_is_not_an_array_is_replaced() -> None:
    out = json.loads(merge_claude(_claude({"SessionStart": "nonsense"})))
    assert _commands(out["hooks"]["SessionStart"]) == [["hail brief --hook"], [WAITER["command"]]]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "Expecting property name"),
        ("[1, 2]", "the top level is an array"),
        ('"x"', "the top level is a string"),
        ('{"hooks": []}', '"hooks" is an array, not an object'),
        ('{"hooks": "x"}', '"hooks" is a string, not an object'),
    ],
)
def test_claude_invalid_json_or_hooks_not_an_object_is_refused(text: str, why: str) -> None:
    with pytest.raises(MergeError) as caught:
        merge_claude(text)
    assert why in caught.value.why
    message = error_text("claude", "/h/.claude/settings.json", caught.value)
    assert message.startswith("/h/.claude/settings.json is not a JSON object (")
    assert message.endswith("); fix it, then rerun hail setup")


# --- Codex ----------------------------------------------------------------------------------------

OLD_CODEX = """model = "gpt-5"
# my own comment
[features]
hooks = true

[[hooks.Notification]]
hooks = [{ type = "command", command = "notify-me" }]

# hail: agent messaging (an older hail wrote this)
[[hooks.UserPromptSubmit]]
hooks = [{ type = "command", command = "OLD_DELIVER", timeout = 5 }]

[[hooks.SessionStart]]
hooks = [{ type = "command", command = "[ -n \\"$TMUX_PANE\\" ] || exit 0; hail brief" }]

[[hooks.PostToolUse]]
matcher = "Bash"   # formatter
[[hooks.PostToolUse.hooks]]
type = "command"
command = "fmt"

[tui]
theme = "dark"  # trailing comment
""".replace("OLD_DELIVER", '[ -n \\"$TMUX_PANE\\" ] || exit 0; hail deliver --format codex')


def test_codex_fresh_file_has_features_and_four_commented_groups() -> None:
    out = merge_codex("", CONFIG, trust=False)
    assert out == (
        "[features]\n"
        "hooks = true\n"
        "\n"
        "# hail: the brief at session start\n"
        "[[hooks.SessionStart]]\n"
        "[[hooks.SessionStart.hooks]]\n"
        'type = "command"\n'
        'command = "hail brief --hook"\n'
        "\n"
        "# hail: message bodies at prompt submit\n"
        "[[hooks.UserPromptSubmit]]\n"
        "[[hooks.UserPromptSubmit.hooks]]\n"
        'type = "command"\n'
        'command = "hail deliver --format codex"\n'
        "\n"
        "# hail: message bodies after each tool call\n"
        "[[hooks.PostToolUse]]\n"
        'matcher = ".*"\n'
        "\n"
        "[[hooks.PostToolUse.hooks]]\n"
        'type = "command"\n'
        'command = "hail deliver --format codex --event PostToolUse"\n'
        "\n"
        "# hail: message bodies when a turn ends\n"
        "[[hooks.Stop]]\n"
        "[[hooks.Stop.hooks]]\n"
        'type = "command"\n'
        'command = "hail deliver --format codex --event Stop"\n'
    )
    assert "[hooks]" not in out


def test_codex_file_without_hooks_is_kept_byte_for_byte_and_appended_to() -> None:
    text = '# keep me\nmodel = "x"\n\n[tui]\nx = 1 # mine\n'
    out = merge_codex(text, CONFIG, trust=False)
    assert out.startswith(text)
    assert "\n\n[features]\nhooks = true\n\n# hail: the brief at session start\n" in out


def test_codex_old_inline_lines_are_replaced_in_place_and_nothing_else_changes() -> None:
    out = merge_codex(OLD_CODEX, CONFIG, trust=False)
    removed = [
        line[1:]
        for line in difflib.ndiff(OLD_CODEX.splitlines(), out.splitlines())
        if line.startswith("- ")
    ]
    # Only the two old hail lines left; every comment and other line is still there, in order.
    assert removed == [
        ' hooks = [{ type = "command", command = "[ -n \\"$TMUX_PANE\\" ] || exit 0; '
        'hail deliver --format codex", timeout = 5 }]',
        ' hooks = [{ type = "command", command = "[ -n \\"$TMUX_PANE\\" ] || exit 0; '
        'hail brief" }]',
    ]
    assert (
        'hooks = [{ type = "command", command = "hail deliver --format codex", timeout = 5 }]'
        in out
    )
    assert 'hooks = [{ type = "command", command = "hail brief --hook" }]' in out
    assert "TMUX_PANE" not in out


def test_codex_keeps_other_tools_and_matcher_groups() -> None:
    doc = _toml(merge_codex(OLD_CODEX, CONFIG, trust=False))
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["Notification"] == [{"hooks": [{"type": "command", "command": "notify-me"}]}]
    assert hooks["PostToolUse"] == [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "fmt"}]},
        {
            "matcher": ".*",
            "hooks": [
                {"type": "command", "command": "hail deliver --format codex --event PostToolUse"}
            ],
        },
    ]
    assert doc["tui"] == {"theme": "dark"}


@pytest.mark.parametrize("trust", [False, True])
@pytest.mark.parametrize(
    "text",
    ["", "\n", '# keep me\nmodel = "x"\n', OLD_CODEX, "[features]\nhooks = false\n", "a = 1"],
)
def test_codex_merge_is_idempotent(text: str, trust: bool) -> None:
    once = merge_codex(text, CONFIG, trust=trust)
    assert merge_codex(once, CONFIG, trust=trust) == once
    tomlkit.parse(once)  # still TOML


def test_an_older_hail_codex_config_changes_once_then_never() -> None:
    once = merge_codex(OLD_CODEX, CONFIG, trust=False)
    assert once != OLD_CODEX
    assert merge_codex(once, CONFIG, trust=False) == once


def test_codex_features_hooks_is_switched_on() -> None:
    doc = _toml(merge_codex("[features]\nhooks = false\nother = 1\n", CONFIG, trust=False))
    assert doc["features"] == {"hooks": True, "other": 1}


def test_codex_extra_hail_handlers_are_removed_and_emptied_groups_dropped() -> None:
    text = (
        "[[hooks.SessionStart]]\n"
        '[[hooks.SessionStart.hooks]]\ntype = "command"\ncommand = "hail brief"\n'
        '[[hooks.SessionStart.hooks]]\ntype = "command"\ncommand = "keep"\n'
        "[[hooks.SessionStart]]\n"
        '[[hooks.SessionStart.hooks]]\ntype = "command"\ncommand = "hail brief --hook"\n'
    )
    doc = _toml(merge_codex(text, CONFIG, trust=False))
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    assert _commands(hooks["SessionStart"]) == [["hail brief --hook", "keep"]]


def test_codex_inline_array_of_groups_is_read_and_its_groups_survive() -> None:
    text = '[hooks]\nSessionStart = [{ hooks = [{ type = "command", command = "other" }] }]\n'
    doc = _toml(merge_codex(text, CONFIG, trust=False))
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    assert _commands(hooks["SessionStart"]) == [["other"], ["hail brief --hook"]]


@pytest.mark.parametrize(
    ("text", "parse", "why"),
    [
        ("model = ", True, ""),
        ("[features\n", True, ""),
        ("hooks = 3\n", False, "hooks is not a table"),
        ('features = "on"\n', False, "features is not a table"),
        (
            "[hooks]\nstate = 1\n[[hooks.SessionStart]]\n"
            'hooks = [{ command = "hail brief --hook" }]\n',
            False,
            "hooks.state is not a table",
        ),
    ],
)
def test_codex_invalid_toml_or_hooks_not_a_table_is_refused(
    text: str, parse: bool, why: str
) -> None:
    with pytest.raises(MergeError) as caught:
        merge_codex(text, CONFIG, trust=True)
    assert caught.value.parse is parse
    assert why in caught.value.why
    message = error_text("codex", "/h/.codex/config.toml", caught.value)
    assert message.startswith("/h/.codex/config.toml ")
    assert message.endswith("; fix it, then rerun hail setup")


# --- Codex trust ----------------------------------------------------------------------------------


def test_codex_trust_hash_is_pinned_to_the_observed_formula() -> None:
    # docs/hooks.md "Codex trust": sha256 of the compact sorted-key JSON, written out by hand here.
    literal = (
        '{"event_name":"post_tool_use","hooks":[{"async":false,'
        '"command":"hail deliver --format codex --event PostToolUse","timeout":600,'
        '"type":"command"}],"matcher":".*"}'
    )
    expected = "sha256:" + hashlib.sha256(literal.encode()).hexdigest()
    assert expected == ("sha256:c358822d7796c1d054341cd20ddf14ca4384faa313e89aa9064290e5d85862d1")
    got = codex_trust_hash(
        "PostToolUse", "hail deliver --format codex --event PostToolUse", matcher=".*"
    )
    assert got == expected


def test_codex_trust_hash_without_matcher_omits_the_key() -> None:
    literal = (
        '{"event_name":"session_start","hooks":[{"async":false,"command":"hail brief --hook",'
        '"timeout":600,"type":"command"}]}'
    )
    assert codex_trust_hash("SessionStart", "hail brief --hook") == (
        "sha256:" + hashlib.sha256(literal.encode()).hexdigest()
    )
    assert codex_trust_key("/c/config.toml", "UserPromptSubmit", 2, 0) == (
        "/c/config.toml:user_prompt_submit:2:0"
    )


def test_trust_records_hail_hooks_at_their_positions() -> None:
    out = merge_codex(OLD_CODEX, CONFIG, trust=True)
    hooks = _toml(out)["hooks"]
    assert isinstance(hooks, dict)
    state = hooks["state"]
    assert state == {
        f"{CONFIG}:session_start:0:0": {
            "trusted_hash": codex_trust_hash("SessionStart", "hail brief --hook")
        },
        f"{CONFIG}:user_prompt_submit:0:0": {
            # The replaced line kept its timeout, and Codex hashes the timeout it will use.
            "trusted_hash": codex_trust_hash(
                "UserPromptSubmit", "hail deliver --format codex", timeout=5
            )
        },
        f"{CONFIG}:post_tool_use:1:0": {
            "trusted_hash": codex_trust_hash(
                "PostToolUse", "hail deliver --format codex --event PostToolUse", matcher=".*"
            )
        },
        f"{CONFIG}:stop:0:0": {
            "trusted_hash": codex_trust_hash("Stop", "hail deliver --format codex --event Stop")
        },
    }
    assert f'[hooks.state."{CONFIG}:post_tool_use:1:0"]\ntrusted_hash = "sha256:' in out


def test_trust_updates_a_stale_hash_and_keeps_other_state() -> None:
    text = merge_codex("", CONFIG, trust=False) + (
        f'\n[hooks.state."{CONFIG}:session_start:0:0"]\n'
        'trusted_hash = "sha256:old"\nenabled = true\n'
        '\n[hooks.state."/other:stop:0:0"]\ntrusted_hash = "sha256:theirs"\n'
    )
    assert codex_untrusted(text, CONFIG) == [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
    ]
    out = merge_codex(text, CONFIG, trust=True)
    hooks = _toml(out)["hooks"]
    assert isinstance(hooks, dict)
    state = hooks["state"]
    assert isinstance(state, dict)
    assert state[f"{CONFIG}:session_start:0:0"] == {
        "trusted_hash": codex_trust_hash("SessionStart", "hail brief --hook"),
        "enabled": True,
    }
    assert state["/other:stop:0:0"] == {"trusted_hash": "sha256:theirs"}
    assert codex_untrusted(out, CONFIG) == []


def test_without_trust_nothing_is_trusted() -> None:
    out = merge_codex("", CONFIG, trust=False)
    assert "hooks.state" not in out
    assert codex_untrusted(out, CONFIG) == [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
    ]
    assert codex_untrusted("", CONFIG) == []


# --- Codex: hail's hooks in hooks.json ------------------------------------------------------------

HOOKS_JSON = "/home/u/.codex/hooks.json"


def _hooks_json_text(program: str = "hail") -> str:
    hooks = {e: [g] for e, [g] in hook_groups("codex", program).items()}
    hooks["Stop"].insert(0, {"hooks": [{"type": "command", "command": "notify-me"}]})
    return json.dumps({"hooks": hooks}, indent=2) + "\n"


def test_codex_json_holds_hail_by_the_shape_of_its_hooks() -> None:
    assert codex_json_holds_hail(_hooks_json_text())
    assert codex_json_holds_hail(_hooks_json_text("/nix/store/0000-hail-0.7.0/bin/hail"))
    assert not codex_json_holds_hail("")
    assert not codex_json_holds_hail(
        '{"hooks": {"Stop": [{"hooks": [{"command": "echo hail deliver"}]}]}}'
    )
    with pytest.raises(MergeError):
        codex_json_holds_hail("{")


def test_merge_codex_json_keeps_the_users_hooks_and_is_idempotent() -> None:
    text = _hooks_json_text("/opt/old/hail")
    once = merge_codex_json(text)
    assert merge_codex_json(once) == once
    hooks = json.loads(once)["hooks"]
    assert _commands(hooks["Stop"]) == [["notify-me"], ["hail deliver --format codex --event Stop"]]
    assert hooks["PostToolUse"][0]["matcher"] == ".*"
    assert merge_codex_json(_hooks_json_text()) == _hooks_json_text()


def test_with_hooks_elsewhere_config_toml_loses_hails_hooks_and_keeps_everything_else() -> None:
    text = merge_codex(OLD_CODEX, CONFIG, trust=False)
    elsewhere = HooksElsewhere(_hooks_json_text(), HOOKS_JSON)
    out = merge_codex(text, CONFIG, trust=False, elsewhere=elsewhere)
    assert merge_codex(out, CONFIG, trust=False, elsewhere=elsewhere) == out
    assert "hail" not in out
    assert "# my own comment" in out and "# formatter" in out and "# trailing comment" in out
    doc = _toml(out)
    assert doc["features"] == {"hooks": True}
    hooks = doc["hooks"]
    assert isinstance(hooks, dict)
    assert sorted(hooks) == ["Notification", "PostToolUse"]
    assert _commands(hooks["PostToolUse"]) == [["fmt"]]


def test_with_hooks_elsewhere_trust_is_keyed_by_hooks_json() -> None:
    elsewhere = HooksElsewhere(_hooks_json_text(), HOOKS_JSON)
    out = merge_codex('model = "x"\n', CONFIG, trust=True, elsewhere=elsewhere)
    hooks = _toml(out)["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["state"][f"{HOOKS_JSON}:stop:1:0"] == {  # after the user's Stop group
        "trusted_hash": codex_trust_hash("Stop", "hail deliver --format codex --event Stop")
    }
    assert len(hooks["state"]) == 4
    assert codex_untrusted(out, CONFIG, elsewhere=elsewhere) == []
    assert codex_untrusted('model = "x"\n', CONFIG, elsewhere=elsewhere) == [
        "SessionStart", "UserPromptSubmit", "PostToolUse", "Stop",
    ]  # fmt: skip
