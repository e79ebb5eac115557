"""hail's interpreter shaped like macOS's, on Linux (`just macos-shaped`, docs/real-clients.md
"macOS-shaped runs").

Imported at startup by a `.pth` file of the test venv `.venv-macos` (`scripts/macos-shaped-venv`),
so every interpreter that venv starts is shaped: pytest's, the installed `hail` the tests run, and
the hooks and waiters the real clients start, whatever environment those are given. Only Python is
shaped: tmux, `ps` and the clients see the machine as it is.

- **No /proc for hail.** `open`, `os.open`, `os.listdir`, `os.scandir`, `os.stat`, `os.lstat`,
  `os.readlink`, `os.access`, `os.chdir` and `os.path.exists` (and its kin) raise
  FileNotFoundError, or say False, for a path under /proc when a module of hail's is on the
  stack, as on a Mac. The test code's own reads (the process tree it reaps) pass.
- **No Linux-only calls.** `signal.sigtimedwait`, `signal.sigwaitinfo`, `select.epoll`,
  `os.pidfd_open`, `time.CLOCK_BOOTTIME` and a few more are deleted, so using one fails as on a
  Mac; `getattr(m, name, default)` and `hasattr` see them missing, as a capability check must.
- **Loud.** Each reach by hail (a /proc path, or a removed name used directly) is appended to the
  file `HAIL_MACOS_REACHES` names, else `macos-reaches.log` in the venv; the pytest plugin
  (`tests/support/macos.py`) fails the test that made one.

Lean: at startup it imports nothing beyond what the interpreter has loaded; a module whose names
it removes is patched once imported (the waiter's import list is checked by a test).
"""

from __future__ import annotations

import builtins
import io
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from importlib.machinery import ModuleSpec
    from types import FrameType, ModuleType
    from typing import Any

    Fn = Callable[..., Any]

#: Names a Mac's Python lacks, by module (a name ending in `*` stands for every name so begun).
REMOVED = {
    "signal": ("sigtimedwait", "sigwaitinfo", "SIGRTMIN", "SIGRTMAX"),
    "select": ("epoll", "EPOLL*"),
    "os": ("pidfd_open", "pipe2", "memfd_create", "eventfd", "sched_getaffinity", "O_PATH"),
    "time": ("CLOCK_BOOTTIME", "CLOCK_TAI"),
}
#: The one module of hail's that may look whether there is a /proc: it picks the process backend
#: by what the system can do (its look fails here, as on a Mac, and the portable backend answers).
PROBES = ("hail.process.choose",)
#: Opcodes of a call: a removed name looked up by `getattr`/`hasattr` is a capability check.
_CALLS = ("CALL", "PRECALL", "CALL_FUNCTION", "CALL_KW", "CALL_FUNCTION_EX")
_open, _os_open, _write, _close = builtins.open, os.open, os.write, os.close
_removed: dict[str, dict[str, object]] = {}
_NO_PATH = object()


def _hail_frame(depth: int) -> tuple[str, int, str] | None:
    """The nearest frame of a hail module on the caller's stack: (module, line, the hail frames
    that led there, innermost first)."""
    frame: FrameType | None = sys._getframe(depth + 1)
    found: list[tuple[str, int]] = []
    while frame is not None and len(found) < 8:
        name = frame.f_globals.get("__name__", "")
        if name == "hail" or name.startswith("hail."):
            found.append((name, frame.f_lineno))
        frame = frame.f_back
    if not found:
        return None
    return found[0][0], found[0][1], " < ".join(f"{n}:{line}" for n, line in found)


def _record(what: str, where: tuple[str, int, str]) -> None:
    path = os.environ.get("HAIL_MACOS_REACHES") or os.path.join(sys.prefix, "macos-reaches.log")
    line = f"{os.getpid()} {what} at {where[2]} argv={sys.argv!r}\n"
    try:
        fd = _os_open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return  # a sandbox that keeps the venv read-only: the reach still fails as on a Mac
    try:
        _write(fd, line.encode("utf-8", "replace"))
    finally:
        _close(fd)


def _under_proc(path: object) -> str | None:
    """The path, when it names something under /proc."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return None  # a file descriptor
    text = os.fsdecode(path)
    if not text.startswith("/"):
        try:
            text = os.path.join(os.getcwd(), text)
        except OSError:
            return None
    full = os.path.normpath("/" + text.lstrip("/"))
    return text if full == "/proc" or full.startswith("/proc/") else None


def _hidden(name: str, path: object) -> bool:
    """Whether hail asks for a /proc path (recorded if so, unless it asks whether there is one)."""
    text = _under_proc(path)
    if text is None:
        return False
    where = _hail_frame(2)
    if where is None:
        return False
    if not any(f"{probe}:" in where[2] for probe in PROBES):
        _record(f"{name}({text!r})", where)
    return True


def _raising(name: str, real: Fn) -> Fn:
    def shaped(path: object = _NO_PATH, *args: Any, **kwargs: Any) -> Any:
        if path is _NO_PATH:  # os.listdir() and os.scandir(): the working directory
            return real(*args, **kwargs)
        if _hidden(name, path):
            raise FileNotFoundError(2, "No such file or directory (macOS-shaped)", path)
        return real(path, *args, **kwargs)

    shaped.__name__ = shaped.__qualname__ = getattr(real, "__name__", name)
    shaped.__doc__ = real.__doc__
    return shaped


def _false(name: str, real: Fn) -> Fn:
    def shaped(path: object) -> Any:
        return False if _hidden(name, path) else real(path)

    shaped.__name__ = shaped.__qualname__ = real.__name__
    shaped.__doc__ = real.__doc__
    return shaped


def _hide_proc() -> None:
    shaped_open = _raising("open", builtins.open)
    builtins.open = io.open = shaped_open
    for name in ("open", "stat", "lstat", "readlink", "access", "chdir", "listdir", "scandir"):
        setattr(os, name, _raising(f"os.{name}", getattr(os, name)))
    for name in ("exists", "lexists", "isfile", "isdir", "islink"):
        setattr(os.path, name, _false(f"os.path.{name}", getattr(os.path, name)))


def _probing(frame: FrameType) -> bool:
    """Whether the frame is calling a function (getattr, hasattr) rather than naming an attribute."""
    import opcode

    code = frame.f_code.co_code
    at = frame.f_lasti
    return 0 <= at < len(code) and opcode.opname[code[at]] in _CALLS


def _remove(module: ModuleType) -> None:
    names = REMOVED[module.__name__]
    gone = _removed.setdefault(module.__name__, {})
    for name in list(vars(module)):
        if any(name == n or (n.endswith("*") and name.startswith(n[:-1])) for n in names):
            gone[name] = vars(module).pop(name)
    previous = vars(module).get("__getattr__")

    def __getattr__(name: str) -> object:
        if name in gone:
            caller = sys._getframe(1)
            where = _hail_frame(1)
            by_hail = where is not None and where[0] == caller.f_globals.get("__name__")
            if by_hail and where is not None and not _probing(caller):
                _record(f"{module.__name__}.{name}", where)
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    vars(module)["__getattr__"] = __getattr__


class _Loader:
    """A module's own loader, and the names a Mac lacks removed once it ran."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        made: ModuleType | None = self.real.create_module(spec)
        return made

    def exec_module(self, module: ModuleType) -> None:
        self.real.exec_module(module)
        _remove(module)


class _Finder:
    """Finds the modules `REMOVED` names with the other finders, and wraps their loader."""

    @classmethod
    def find_spec(
        cls, name: str, path: Any = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name not in REMOVED:
            return None
        for finder in sys.meta_path:
            if finder is cls or not hasattr(finder, "find_spec"):
                continue
            spec: ModuleSpec | None = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader)  # type: ignore[assignment]
                return spec
        return None


def shape() -> None:
    _hide_proc()
    for name in REMOVED:
        if name in sys.modules:
            _remove(sys.modules[name])
    sys.meta_path.insert(0, _Finder)


shape()
