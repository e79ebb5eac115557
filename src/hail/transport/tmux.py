"""The one adapter to tmux: socket choice, pane listing, capture, literal typing and keys
[docs/transport.md "Socket"].

Every call is `tmux [-S <socket>] -u …` made through libtmux (imported only when a call is made, never
on the hook path), and every failure becomes a `TmuxError` whose text says what tmux said, so nothing
above this module sees libtmux types or handles its errors. No other module runs the tmux binary.
"""

from __future__ import annotations

import os
import stat

from hail.errors import StateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

#: `list-panes -a -F`: four tab-separated fields, the path last because it may hold anything
#: [docs/seats.md "Agent panes"].
PANE_FORMAT = "\t".join(
    ("#{pane_id}", "#{pane_pid}", "#{pane_current_command}", "#{pane_current_path}")
)


class TmuxError(StateError):
    """tmux failed or could not be run (exit 1 where a verb needs tmux)."""


class SocketError(TmuxError):
    """HAIL_SOCKET names something that is not a tmux socket."""


class PaneRow:
    """One line of `list-panes -a`, as tmux reports it."""

    __slots__ = ("command", "id", "path", "pid")

    def __init__(self, id: str, pid: int, command: str, path: str) -> None:
        self.id = id
        self.pid = pid
        self.command = command
        self.path = path

    def _key(self) -> tuple[str, int, str, str]:
        return (self.id, self.pid, self.command, self.path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PaneRow) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"PaneRow{self._key()!r}"


def default_socket(env: Mapping[str, str]) -> str:
    """Where tmux's default server listens: `$TMUX_TMPDIR` (else /tmp), `tmux-<uid>/default`."""
    base = env.get("TMUX_TMPDIR") or "/tmp"
    return os.path.join(base, f"tmux-{os.getuid()}", "default")


def unreachable_reason(env: Mapping[str, str]) -> str:
    """Why no tmux server answered: a socket this process may not connect to (a sandbox), or none.

    Called only after tmux failed, so the extra connection attempt costs a working send nothing.
    """
    from hail.sandbox import socket_refused

    inherited = env.get("TMUX", "").split(",", 1)[0]
    for path in (env.get("HAIL_SOCKET", ""), inherited, default_socket(env)):
        if path and _is_socket(path):
            return socket_refused(path) or "no tmux server"
    return "no tmux server"


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def escape_last_semicolon(arg: str) -> str:
    """tmux reads an argument ending in a bare `;` as a command separator; `\\;` keeps it literal."""
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


class Tmux:
    """A tmux server, addressed by socket (or tmux's own default), and the calls hail makes to it."""

    def __init__(
        self, socket: str | None, source: str, env: Mapping[str, str], config: str | None = None
    ) -> None:
        self.socket = socket
        self.source = source
        self._path = env.get("PATH")
        self._config = config

    @classmethod
    def scratch(cls, socket: str, env: Mapping[str, str]) -> Tmux:
        """A private server at `socket` that reads no tmux.conf (the demo's); started by its first call."""
        return cls(socket, "scratch", env, config="/dev/null")

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Tmux:
        """HAIL_SOCKET (must be a socket), else $TMUX's socket when it exists, else the default
        [docs/transport.md "Socket"]."""
        forced = env.get("HAIL_SOCKET", "")
        if forced:
            if not _is_socket(forced):
                raise SocketError(
                    f"HAIL_SOCKET={forced} is not a tmux socket; unset it or point it at a live server"
                )
            return cls(forced, "HAIL_SOCKET", env)
        inherited = env.get("TMUX", "").split(",", 1)[0]
        if inherited and _is_socket(inherited):
            return cls(inherited, "$TMUX", env)
        default = default_socket(env)
        if not _is_socket(default):
            # Answered without running tmux (or importing libtmux): nothing listens there.
            raise TmuxError(f"tmux: no server running on {default}")
        return cls(None, "default server", env)

    # --- the one place tmux runs ----------------------------------------------------------------

    def run(self, args: Sequence[str]) -> str:
        """Run one tmux command line through libtmux; its stdout, or TmuxError with tmux's stderr."""
        # libtmux is imported here, not at the top: it costs several interpreter starts, and
        # verbs that find no server (or never need one) must not pay for it.
        try:
            import libtmux
            from libtmux import exc
        except Exception as err:  # not installed, or it failed to load: either way no tmux
            raise TmuxError(f"cannot run tmux: {err}; is libtmux installed?") from None
        import shutil

        tmux_bin = shutil.which("tmux", path=self._path)
        if tmux_bin is None:
            raise TmuxError("cannot run tmux: no tmux on PATH; is it installed and on PATH?")
        server = libtmux.Server(
            socket_path=self.socket, tmux_bin=tmux_bin, config_file=self._config
        )
        # -u: without a UTF-8 locale the client would print a tab as `_` and mangle the screen.
        try:
            result = server.cmd("-u", *args)
        except exc.TmuxCommandNotFound:
            raise TmuxError(
                "cannot run tmux: tmux not found; is it installed and on PATH?"
            ) from None
        except OSError as err:
            reason = err.strerror or str(err)
            raise TmuxError(f"cannot run tmux: {reason}; is it installed and on PATH?") from None
        if result.returncode != 0:
            err_text = " ".join(result.stderr).strip()
            raise TmuxError(f"tmux: {err_text or f'exit status {result.returncode}'}")
        return "\n".join(result.stdout) + "\n" if result.stdout else ""

    # --- reading --------------------------------------------------------------------------------

    def list_panes(self) -> list[PaneRow]:
        """Every pane of the server, from one `list-panes -a`; short or garbled lines are skipped."""
        rows: list[PaneRow] = []
        for line in self.run(["list-panes", "-a", "-F", PANE_FORMAT]).split("\n"):
            fields = line.split("\t", 3)
            if len(fields) < 4:
                continue
            pane_id, pid, command, path = fields
            try:
                pid_n = int(pid)
            except ValueError:
                continue
            rows.append(PaneRow(pane_id, pid_n, command, path))
        return rows

    def resolve(self, target: str) -> str:
        """The `%N` id of any tmux pane target; TmuxError when there is no such pane."""
        found = self.run(["display-message", "-t", target, "-p", "#{pane_id}"]).strip()
        if not found.startswith("%"):
            raise TmuxError(f"tmux: can't find pane: {target}")
        return found

    def in_mode(self, pane: str) -> bool:
        """Whether the pane is in copy or view mode now (keys would go to the mode, not the app)."""
        return self.run(["display-message", "-t", pane, "-p", "#{pane_in_mode}"]).strip() == "1"

    def capture(
        self, pane: str, lines: int | None = None, *, attributes: bool = False
    ) -> list[str]:
        """The visible screen, or with `lines` that much history above it; wrapped lines joined.
        With `attributes`, each line keeps its SGR escapes (dim placeholders, the cursor)."""
        args = ["capture-pane", "-p", "-J", *(["-e"] if attributes else []), "-t", pane]
        if lines is not None:
            args += ["-S", f"-{lines}"]
        text = self.run(args)
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n")

    def capture_screens(self, panes: Sequence[str]) -> dict[str, list[str]]:
        """The visible screen of each pane, attributes kept, from ONE tmux invocation (each capture
        follows a marker line drawn per call, which no screen shows). TmuxError when one of the
        panes is gone: tmux then stops the whole sequence."""
        marker = f"hail-screen-{os.urandom(6).hex()}"
        args: list[str] = []
        for pane in panes:
            args += ["display-message", "-p", marker, ";"]
            args += ["capture-pane", "-p", "-J", "-e", "-t", pane, ";"]
        parts = self.run(args[:-1]).split(marker + "\n")[1:]
        if len(parts) != len(panes):
            raise TmuxError(f"tmux: {len(parts)} screens captured of {len(panes)}")
        return {
            pane: part.removesuffix("\n").split("\n")
            for pane, part in zip(panes, parts, strict=True)
        }

    # --- writing --------------------------------------------------------------------------------

    def clients(self) -> list[str]:
        """The names of the clients attached to this server (a person's terminals)."""
        out = self.run(["list-clients", "-F", "#{client_name}"])
        return [line for line in out.split("\n") if line]

    def show_message(self, client: str, text: str, millis: int) -> None:
        """`text` on `client`'s message line for `millis` ms, shown as it is: `#` is doubled, so
        tmux expands no format in it."""
        literal = escape_last_semicolon(text.replace("#", "##"))
        self.run(["display-message", "-c", client, "-d", str(millis), literal])

    def select(self, pane: str) -> None:
        """Make `pane` the active pane of its window, and that window its session's current one."""
        self.run(["select-window", "-t", pane, ";", "select-pane", "-t", pane])

    def switch_client(self, pane: str) -> None:
        """Show `pane`'s session in the client this process runs in (tmux finds it from $TMUX)."""
        self.run(["switch-client", "-t", pane])

    def type_literal(self, pane: str, text: str, *, cancel_mode: bool) -> None:
        """Type `text` literally in ONE tmux invocation, leaving copy mode first when asked
        [docs/transport.md "Typing"]."""
        args = self._cancel(pane) if cancel_mode else []
        args += ["send-keys", "-t", pane, "-l", "--", escape_last_semicolon(text)]
        self.run(args)

    def send_keys(self, pane: str, keys: list[str], *, cancel_mode: bool) -> None:
        """Send key names (`Enter`, `C-c`, …), leaving copy mode first when asked [docs/commands.md
        "read, type, keys", docs/transport.md "Verification and submit"]."""
        args = self._cancel(pane) if cancel_mode else []
        args += ["send-keys", "-t", pane, "--", *(escape_last_semicolon(k) for k in keys)]
        self.run(args)

    @staticmethod
    def _cancel(pane: str) -> list[str]:
        # A separate `;` argument ends the cancel command inside the same invocation.
        return ["send-keys", "-t", pane, "-X", "cancel", ";"]
