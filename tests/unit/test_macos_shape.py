"""The macOS-shaped interpreter itself (tests/macos/hail_macos_shape.py): what it hides from hail,
what it leaves to the test code, and that each reach of hail's is recorded, so a shaped run
(`just macos-shaped`) fails loudly rather than pass on /proc. Each case runs in a fresh interpreter
that imports the shape as the `.pth` of `.venv-macos` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.macos import run_shaped as shaped

#: Code run as if it were a module of hail's (its globals name it so, as a stack frame shows it).
AS_HAIL = "exec(compile({src!r}, 'hail-probe', 'exec'), {{'__name__': 'hail.probe'}})"


def as_hail(src: str) -> str:
    return AS_HAIL.format(src=src)


def test_a_hail_module_that_opens_proc_is_refused_and_recorded(tmp_path: Path) -> None:
    out, reaches = shaped(tmp_path, as_hail(
        "try:\n open('/proc/self/stat')\nexcept FileNotFoundError:\n print('refused')"
    ))  # fmt: skip
    assert out == "refused\n"
    assert "open('/proc/self/stat') at hail.probe:2" in reaches


@pytest.mark.parametrize(
    "call",
    [
        "os.listdir('/proc')",
        "os.stat('/proc/1')",
        "os.readlink('/proc/self/exe')",
        "os.open('/proc/self/environ', os.O_RDONLY)",
        "list(os.scandir('/proc/self'))",
        "pathlib.Path('/proc/self/cwd').resolve(strict=True)",
    ],
)
def test_every_way_to_proc_is_closed_to_hail(tmp_path: Path, call: str) -> None:
    out, reaches = shaped(tmp_path, "import os, pathlib\n" + as_hail(
        f"import os, pathlib\ntry:\n {call}\nexcept FileNotFoundError:\n print('refused')"
    ))  # fmt: skip
    assert out == "refused\n" and "/proc" in reaches and "hail.probe" in reaches


def test_proc_looks_absent_to_hail_through_the_path_checks(tmp_path: Path) -> None:
    out, reaches = shaped(tmp_path, as_hail(
        "import os\nprint(os.path.exists('/proc/self'), os.path.isdir('/proc'))"
    ))  # fmt: skip
    assert out == "False False\n" and "os.path.exists('/proc/self')" in reaches


def test_hails_own_reader_is_caught(tmp_path: Path) -> None:
    out, reaches = shaped(
        tmp_path, "from hail.store import fs\nprint(fs.read_text('/proc/self/stat'))"
    )
    assert out == "None\n"
    assert "'/proc/self/stat') at hail.store.fs:" in reaches


def test_the_test_codes_own_reads_of_proc_pass_unrecorded(tmp_path: Path) -> None:
    out, reaches = shaped(tmp_path, "print(open('/proc/self/stat').read().split()[0].isdigit())")
    assert (out, reaches) == ("True\n", "")


def test_linux_only_calls_are_gone_and_a_capability_check_is_no_reach(tmp_path: Path) -> None:
    out, reaches = shaped(tmp_path, as_hail(
        "import os, select, signal, time\n"
        "print(hasattr(signal, 'sigtimedwait'), hasattr(signal, 'sigwaitinfo'),"
        " hasattr(select, 'epoll'), hasattr(os, 'pidfd_open'),"
        " getattr(time, 'CLOCK_BOOTTIME', None), hasattr(signal, 'sigwait'))"
    ))  # fmt: skip
    assert out == "False False False False None True\n"
    assert reaches == "", "asking whether a call exists is what portable code does"


@pytest.mark.parametrize(
    "use",
    [
        "signal.sigtimedwait({signal.SIGUSR1}, 1)",
        "select.epoll()",
        "os.pidfd_open(os.getpid())",
        "time.clock_gettime(time.CLOCK_BOOTTIME)",
    ],
)
def test_a_linux_only_call_by_hail_fails_and_is_recorded(tmp_path: Path, use: str) -> None:
    out, reaches = shaped(tmp_path, as_hail(
        f"import os, select, signal, time\ntry:\n {use}\nexcept AttributeError:\n print('gone')"
    ))  # fmt: skip
    assert out == "gone\n"
    assert use.split("(")[0].replace("time.clock_gettime", "time.CLOCK_BOOTTIME") in reaches


def test_the_shape_loads_nothing_at_startup(tmp_path: Path) -> None:
    """The waiter's and the hooks' import lists are checked by tests: the shape adds none."""
    out, _ = shaped(tmp_path, "print(sorted(m for m in ('select', 'signal', 'opcode', 're',"
                              " 'json', 'contextlib', 'subprocess') if m in sys.modules))")  # fmt: skip
    assert out == "[]\n"


def test_every_test_skipped_on_macos_is_listed_with_its_reason() -> None:
    """docs/real-clients.md "macOS-shaped runs" names every test `not_on_macos` skips."""
    import re

    from tests.support.docs import page, sections

    listed = sections(page("real-clients.md"))["macOS-shaped runs"]
    skipped = []
    for path in sorted(Path(__file__).parents[1].rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        for use in re.finditer(r"not_on_macos\(", text):
            test = re.compile(r"^def (test_\w+)", re.M).search(text, use.end())
            assert test is not None, path
            skipped.append(test.group(1))
    assert skipped, "the skip this check reads is in use"
    assert [name for name in skipped if name not in listed] == []


def test_the_backend_choice_may_look_for_proc_and_finds_none(tmp_path: Path) -> None:
    out, reaches = shaped(
        tmp_path, "from hail.process.choose import backend\nprint(backend({}).name)"
    )
    assert (out, reaches) == ("portable\n", "")
