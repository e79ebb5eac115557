"""The reference cannot drift from the code: every verb and option of the verb table is in
docs/commands.md and in `hail help`, every help topic and the words that reach it are in
docs/commands.md "help", every limit of policy.py is in docs/limits.md, and every message header,
record field and state path hail writes is in docs/files.md. Each list is read from the code (the
verb table, click's commands, policy's constants, the store's paths), never written out here."""

from __future__ import annotations

import re

import pytest

from hail import argv, message, policy
from hail import help as pages
from hail.hooks import stop
from hail.store import conversation, fs, records, waits
from hail.store.maildir import Mailbox
from hail.store.store import Store
from tests.support.docs import documented, documents_header, files_section, names, page, sections

# --- verbs and options ---------------------------------------------------------------------------


def options_of(verb: str) -> list[str]:
    """The options a verb's parser takes, and those it refuses by name, from the verb table."""
    spec = argv.VERB[verb]
    return [*(o.name for o in spec.opts), *spec.refused]


def choices_of(verb: str, option: str) -> list[str]:
    """The values an option accepts when its rule is a choice of words."""
    opt = argv.VERB[verb].opt(option)
    return list(opt.rule) if opt is not None and isinstance(opt.rule, tuple) else []


def verb_section(verb: str) -> str:
    """The `## <verb>` section of commands.md (`## read, type, keys` holds three)."""
    for heading, text in sections(page("commands.md")).items():
        if verb in re.split(r",\s*|\s+and\s+", heading):
            return text
    raise AssertionError(f"the commands page has no section for {verb}")


def help_text(verb: str) -> str:
    """What `hail help` shows for a verb: the map and the page its name reaches."""
    return pages.MAP + (pages.page(verb) or "")


VERBS = list(argv.VERB)
OPTIONS = [(verb, option) for verb in VERBS for option in options_of(verb)]
CHOICES = [(verb, option, value) for verb, option in OPTIONS for value in choices_of(verb, option)]


def test_the_table_gives_options_and_choices_to_find() -> None:
    assert len(OPTIONS) > 20 and ("deliver", "--event", "Stop") in CHOICES


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_its_section_in_the_commands_page(verb: str) -> None:
    assert verb_section(verb)


def test_the_dispatch_section_lists_every_verb() -> None:
    dispatch = " ".join(sections(page("commands.md"))["Dispatch"].split())
    listed = re.search(r"The verbs: `([^`]+)`", dispatch)
    assert listed, "the Dispatch section lists the verbs"
    assert sorted(listed.group(1).split()) == sorted(VERBS)


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_is_in_the_help_map_and_reaches_a_page(verb: str) -> None:
    commands = [line.split()[0] for line in pages.MAP.splitlines() if line.startswith("  ")]
    if verb == "send":  # the implied verb: `hail <seat> <kind>`, spelled out on its page
        assert "hail" in commands and "hail send <seat>" in (pages.page("send") or "")
    else:
        assert verb in commands, f"hail help lists no '{verb}'"
    assert pages.page(verb) is not None, f"hail help {verb} reaches no page"


@pytest.mark.parametrize(("verb", "option"), OPTIONS)
def test_every_option_is_in_its_verbs_section_and_in_hail_help(verb: str, option: str) -> None:
    assert names(verb_section(verb), option), f"the commands page's {verb} section lacks {option}"
    assert names(help_text(verb), option), f"hail help {verb} lacks {option}"


@pytest.mark.parametrize(("verb", "option", "value"), CHOICES)
def test_every_value_of_a_choice_is_in_its_verbs_section_and_in_hail_help(
    verb: str, option: str, value: str
) -> None:
    assert names(verb_section(verb), value), (
        f"the commands page's {verb} section lacks {option} {value}"
    )
    assert names(help_text(verb), value), f"hail help {verb} lacks {option} {value}"


# --- help topics ---------------------------------------------------------------------------------


def test_the_help_section_lists_every_topic_and_the_words_that_reach_it() -> None:
    text = " ".join(sections(page("commands.md"))["help"].split())
    documented = {
        topic: set(words.split()) for topic, words in re.findall(r"`([a-z]+)` \(`([^`]*)`\)", text)
    }
    reached = {topic: {w for w, t in pages.ALIASES.items() if t == topic} for topic in pages.TOPICS}
    assert documented == {t: words for t, words in reached.items() if words}
    assert all(names(text, f"`{topic}`") for topic in pages.TOPICS)
    unknown = re.search(r"Topics: ([a-z ]+)`", text)
    assert unknown and unknown.group(1).split() == list(pages.TOPICS)


def test_the_help_map_lists_every_topic() -> None:
    line = next(ln for ln in pages.MAP.splitlines() if ln.split()[:2] == ["help", "[topic]"])
    assert line.split("topics:", 1)[1].split() == list(pages.TOPICS)


# --- limits --------------------------------------------------------------------------------------

LIMITS = [
    name
    for name, value in vars(policy).items()
    if name.isupper() and isinstance(value, int | float) and not isinstance(value, bool)
]


@pytest.mark.parametrize("name", LIMITS)
def test_every_limit_is_on_the_limits_page(name: str) -> None:
    assert f"`{name}`" in page("limits.md"), f"docs/limits.md lacks {name}"


def test_the_limits_page_names_only_limits_that_exist() -> None:
    named = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", page("limits.md")))
    assert named and named <= set(LIMITS), sorted(named - set(LIMITS))


# --- files: headers, records, paths ----------------------------------------------------------------


@pytest.mark.parametrize("key", [*message.HEADER_ORDER, conversation.CHAIN_HEADER])
def test_every_message_header_is_on_the_files_page(key: str) -> None:
    assert documents_header(key), f"the files page's message file lacks {key}:"


def record_fields() -> list[tuple[str, str]]:
    """(record, field) of every record hail writes, from the functions that write them."""
    hold = records.hold_text(
        msg_id="i", issuer="a", to="b", scope="s", time="t", re="r", expires="e", headline="h"
    )
    pending = records.pending_text("i", "ask", "b", 0.0, "h")
    wait = waits.Wait("a", ["i"], ["b"], any_=False, deadline=0.0).text()
    return [
        (record, field)
        for record, text in (("hold", hold), ("pending", pending), ("wait", wait))
        for field in fs.parse_record(text)
    ]


@pytest.mark.parametrize(("record", "field"), record_fields())
def test_every_record_field_is_on_the_files_page(record: str, field: str) -> None:
    bullet = next(
        (b for b in files_section("Records").split("\n- ") if b.lower().startswith(f"**{record}")),
        None,
    )
    assert bullet is not None, f"the files page's records have no {record} record"
    assert f"`{field}`" in bullet, f"the files page's {record} record lacks {field}"


ROOT = "/state-root"


def state_paths() -> list[str]:
    """Every file and directory the store names, relative to the state root, from the code."""
    store = Store(ROOT)
    box = store.mailbox("<mailbox>")
    found = [v for k, v in vars(store).items() if k != "root" and isinstance(v, str)]
    found += [getattr(box, slot) for slot in Mailbox.__slots__ if slot != "name"]
    found += [
        store.root_file("<seat>"),
        store.id_path("<id>"),
        store.hook_log + ".1",  # its one rotation (hooks/protocol.py)
        conversation.replies_dir(store, "<id>"),
        waits.waits_dir(store),
        f"{box.path}/{stop.DIR}/<session>",
    ]
    return sorted({p.removeprefix(ROOT + "/") for p in found})


def test_the_store_names_the_paths_it_writes() -> None:
    assert {"seats/<mailbox>/new", "holds/lapsed", "hook-errors.log"} <= set(state_paths())


@pytest.mark.parametrize("path", state_paths())
def test_every_state_path_the_store_names_is_in_the_layout(path: str) -> None:
    assert documented(path), f"the files page's layout lacks {path}"
