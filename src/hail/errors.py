"""hail's errors: each carries its exit code (docs/commands.md "Exit codes") and a message that ends
with its fix.

Only `entry.dispatch` prints `error: …` and chooses the exit status. Any other exception is
unexpected, a bug: its traceback is what diagnoses it (`hook-errors.log`, `HAIL_DEBUG`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: A send that is in the inbox but was not typed or not submitted (docs/commands.md "Send report").
NOT_WOKEN = 5
#: A wait for a reply that would close a cycle of waits: refused at once (code 6).
WAIT_CYCLE = 6
#: `--as person` in a process hail takes for an agent's: refused, nothing read or written (code 7).
NOT_THE_PERSON = 7


class HailError(Exception):
    """Base class: a usage or state error (exit 1)."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(HailError):
    """Bad arguments: unknown flag, missing value, bad kind or id (exit 1)."""


class StateError(HailError):
    """State or environment problem: unknown seat or id, tmux unreachable, timeout (exit 1)."""


class OverCapError(HailError):
    """A control-kind headline over the cap (exit 2)."""

    exit_code = 2


class SeatError(HailError):
    """No seat here, a bad or reserved name, a binding conflict, a shared seat addressed bare (exit 3)."""

    exit_code = 3


class DialogError(HailError):
    """The target pane shows a permission or approval dialog; nothing was written (exit 4)."""

    exit_code = 4


class WaitCycleError(HailError):
    """Waiting for this reply would close a cycle of seats waiting on each other (exit 6)."""

    exit_code = WAIT_CYCLE


class PersonError(HailError):
    """`--as person` refused: the process is an agent's tool call, or has no terminal (exit 7)."""

    exit_code = NOT_THE_PERSON


def is_unexpected(error: BaseException) -> bool:
    """An exception that is not one of hail's own errors: a bug, or a failure no code foresaw."""
    return not isinstance(error, HailError)


def debugging(env: Mapping[str, str]) -> bool:
    """`HAIL_DEBUG` set (to anything but empty or 0): unexpected errors print their traceback
    [docs/commands.md "Output conventions"]."""
    return env.get("HAIL_DEBUG", "") not in ("", "0")


def traceback_of(error: BaseException) -> str:
    """The error's traceback as Python prints it, causes included. Failure paths only: the
    `traceback` module is not imported on a path that works."""
    import traceback

    return "".join(traceback.format_exception(error))
