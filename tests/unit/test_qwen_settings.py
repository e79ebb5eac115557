"""Qwen Code's settings.json (src/hail/install/formats/qwen_settings.py; docs/hooks.md "Qwen
Code"): hail's rule joins the person's own permission rules once, and a `permissions` of another
shape is refused, never replaced."""

from __future__ import annotations

import json

import pytest

from hail.install.formats.qwen_settings import ALLOW_RULE, allow_hail
from hail.install.merge_rule import MergeError


def test_the_rule_joins_the_persons_rules_once_and_numbers_stay_as_written() -> None:
    text = '{"permissions": {"allow": ["Bash(git *)"], "deny": []}, "ui": {"x": 1.50}}\n'
    merged = allow_hail(text)
    assert json.loads(merged)["permissions"] == {"allow": ["Bash(git *)", ALLOW_RULE], "deny": []}
    assert "1.50" in merged
    assert allow_hail(merged) == merged, "merged once"


def test_an_empty_file_gets_the_rule() -> None:
    assert json.loads(allow_hail(""))["permissions"]["allow"] == [ALLOW_RULE]


@pytest.mark.parametrize(
    "text", ['{"permissions": ["Bash(hail *)"]}', '{"permissions": {"allow": "Bash(hail *)"}}']
)
def test_permissions_of_another_shape_are_refused(text: str) -> None:
    with pytest.raises(MergeError):
        allow_hail(text)
