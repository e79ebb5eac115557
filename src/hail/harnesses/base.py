"""The record each harness module fills in: what hail must know of one harness, as plain data.

A harness's module (`harnesses/claude.py`, …) holds one `Harness`; everything else in hail asks
the registry (`harnesses/registry.py`) for it by name. The class is a plain `__slots__` class,
not a dataclass: a hook loads its harness's record, and the hook path imports no `dataclasses`.
"""

from __future__ import annotations

#: Hook output shapes: the harness's hook JSON (`hookSpecificOutput`), the same text as a
#: top-level `additionalContext` (Copilot CLI reads only that), or the text as it is (opencode's
#: plugin adds it itself).
HOOK_JSON = "json"
TOP_CONTEXT = "top"
PLAIN = "plain"


class ConfigPlace:
    """Where one of a harness's config files lives, and the format hail edits it in, by name.

    The name is resolved by `install/formats/registry.py`: a harness module is loaded on the hook
    path, so it names its format and imports nothing of `install/`. The folder is `folder` in
    `parent` under the home, unless a variable moves it: `parent_variable` names that parent
    instead (Gemini CLI's `GEMINI_CLI_HOME`, `XDG_CONFIG_HOME`), `variable` names the folder itself
    instead (`CODEX_HOME`), and `also_variable` names a second folder handled as well
    (`CLAUDE_CONFIG_DIR`). The harness counts as installed when its folder exists.
    """

    __slots__ = (
        "also_variable",
        "file",
        "folder",
        "format",
        "parent",
        "parent_variable",
        "variable",
    )

    def __init__(
        self,
        *,
        format: str,
        folder: str,
        file: str,
        parent: str = "",
        parent_variable: str = "",
        variable: str = "",
        also_variable: str = "",
    ) -> None:
        #: The name of its format: a module of `install/formats`.
        self.format = format
        #: The harness's config folder, in its parent.
        self.folder = folder
        #: The file's path in the folder.
        self.file = file
        #: The folder's parent, relative to the home ("": the home itself).
        self.parent = parent
        #: A variable naming the folder's parent instead.
        self.parent_variable = parent_variable
        #: A variable naming the folder itself instead.
        self.variable = variable
        #: A variable naming a second folder, handled beside the one in the home.
        self.also_variable = also_variable

    def __repr__(self) -> str:
        return f"ConfigPlace({self.format!r}, {self.folder!r}, {self.file!r})"


class PayloadFields:
    """Where a harness's hook payload names what hail reads of it [docs/gauge.md "The agent
    record", docs/hooks.md "What deliver reads"]: the keys of its session, of the file its figures
    are in (the gauge reads it, never the hook), of its model, of the session's directory, and of
    a tool call's tool; "" for a field its payloads never carry."""

    __slots__ = ("cwd", "file", "file_event", "model", "session", "shell", "tool")

    def __init__(
        self,
        *,
        session: str = "",
        file: str = "",
        file_event: str = "UserPromptSubmit",
        model: str = "",
        cwd: str = "",
        tool: str = "",
        shell: str = "",
    ) -> None:
        #: The session's id: the record's name, so it must be there for anything to be recorded.
        self.session = session
        #: The file the gauge reads (a transcript, a rollout, a session file, a plugin's record).
        self.file = file
        #: The hail event whose payload names that file, where the agent record takes it: the
        #: prompt's, unless only another's does (Copilot CLI's agentStop); a hook of another event
        #: never loads the record.
        self.file_event = file_event
        #: The model, where a payload names it (Claude Code's only at SessionStart).
        self.model = model
        #: The session's working directory, for a harness that runs its hooks in another one
        #: (Copilot CLI: in the git root): its hooks take their seat from it, never from their own
        #: directory, and take none when a payload does not name it. "": the hook's own directory
        #: is the session's.
        self.cwd = cwd
        #: A tool call's tool name, and the name of the harness's shell tool (whose `command` a
        #: PreToolUse hook may allow when it is hail's own).
        self.tool = tool
        self.shell = shell


class Screen:
    """The literals of a harness's screen, as its TUI draws them [docs/transport.md "Screen
    classes"]: the reader `transport/screen` applies to them is named by `shape`."""

    __slots__ = (
        "busy",
        "dialogs",
        "extra",
        "placeholders",
        "prompt",
        "queued",
        "shape",
    )

    def __init__(
        self,
        *,
        shape: str,
        prompt: str,
        dialogs: tuple[str, ...] = (),
        busy: tuple[str, ...] = (),
        queued: tuple[str, ...] = (),
        placeholders: tuple[str, ...] = (),
        extra: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        #: Which of `transport/screen`'s composer readers finds this harness's composer.
        self.shape = shape
        #: What opens the composer's input line.
        self.prompt = prompt
        #: Texts only a dialog that replaced the composer shows.
        self.dialogs = dialogs
        #: Texts of a turn in progress.
        self.busy = busy
        #: Texts of a typed message waiting for the turn.
        self.queued = queued
        #: Dim texts of an empty composer (only a capture without attributes needs them).
        self.placeholders = placeholders
        #: The reader's other literals, by name (a footer, a box's corner, a spinner's range).
        self.extra = extra or {}


class Harness:
    """One harness: its id (the `--format` word, the pane's agent name), how its process is found,
    its hooks' events and output, its wake route (by name), its screen, its config files, and
    setup's and doctor's texts."""

    __slots__ = (
        "brief_as_hook_json",
        "configs",
        "event_names",
        "first_hook_at_prompt",
        "hooks_record",
        "markers",
        "name",
        "next_step",
        "output",
        "payload",
        "receive_help",
        "route",
        "screen",
        "scripts",
        "shared_daemon",
        "shared_events",
        "silent_fix",
        "title",
    )

    #: The id: `--format`'s word, the key of its hooks in `data/harness_hooks.json`, the agent
    #: name `hail seats` shows, and the name its process runs under (a pane's command).
    name: str
    #: Its name in sentences ("Claude Code").
    title: str
    #: The scripts a JavaScript runtime (`process/base.RUNTIMES`) runs as this agent.
    scripts: tuple[str, ...]
    #: The route a send takes to it between its turns, by the name of its module in
    #: `transport/routes` (`waiter`, `queue`, `plugin`, or `composer`: only typing).
    route: str
    #: Its hooks' output: HOOK_JSON, TOP_CONTEXT or PLAIN.
    output: str
    #: hail's event names (`UserPromptSubmit`, …) → its own, where they differ.
    event_names: dict[str, str]
    #: The SessionStart brief goes out as hook JSON (else as plain text).
    brief_as_hook_json: bool
    #: Its hooks have hail's own event names, listed together in setup's summary.
    shared_events: bool
    #: Its commands run from one shared process whose TMUX_PANE is another pane's, so its
    #: hooks read only the seat's mailbox, never a pane's sub-seat.
    shared_daemon: bool
    #: What to do after setup wrote its config [docs/commands.md "setup"].
    next_step: str
    #: Its screen's literals.
    screen: Screen
    #: The config files setup writes and doctor checks for it, in the order they report them.
    configs: tuple[ConfigPlace, ...]
    #: Its first hook runs at its first prompt, not as it starts: a session that ran none may
    #: only be new and unprompted (doctor and watch word its silence so).
    first_hook_at_prompt: bool
    #: The fix doctor and watch give for a session of it that ran no hook since it started,
    #: where it differs from rerunning setup and restarting the agent.
    silent_fix: str
    #: What `hail help receive` says of its hooks, where it says more than their events.
    receive_help: str
    #: The keys of its hook payloads that name its session, its figures' file and its model.
    payload: PayloadFields
    #: Variables it sets (non-empty) in the commands its model runs: one of them present means a
    #: process is its tool call, which may never speak as the person [docs/seats.md
    #: "Trust boundary"].
    markers: tuple[str, ...]
    #: Its hooks record its session for its route (`store/presence/registry.RECORDED_BY_HOOKS`,
    #: a test holds the two equal): the hook path loads that record keeping only for these.
    hooks_record: bool

    def __init__(
        self,
        *,
        name: str,
        title: str,
        scripts: tuple[str, ...] = (),
        route: str,
        output: str = HOOK_JSON,
        event_names: dict[str, str] | None = None,
        brief_as_hook_json: bool = False,
        shared_events: bool = False,
        shared_daemon: bool = False,
        next_step: str,
        screen: Screen,
        configs: tuple[ConfigPlace, ...] = (),
        first_hook_at_prompt: bool = False,
        silent_fix: str = "",
        receive_help: str = "",
        payload: PayloadFields | None = None,
        markers: tuple[str, ...] = (),
        hooks_record: bool = False,
    ) -> None:
        self.name = name
        self.title = title
        self.scripts = scripts
        self.route = route
        self.output = output
        self.event_names = event_names or {}
        self.brief_as_hook_json = brief_as_hook_json
        self.shared_events = shared_events
        self.shared_daemon = shared_daemon
        self.next_step = next_step
        self.screen = screen
        self.configs = configs
        self.first_hook_at_prompt = first_hook_at_prompt
        self.silent_fix = silent_fix
        self.receive_help = receive_help
        self.payload = payload or PayloadFields()
        self.markers = markers
        self.hooks_record = hooks_record

    def __repr__(self) -> str:
        return f"Harness({self.name!r})"

    def event_name(self, event: str) -> str:
        """hail's event under this harness's own name."""
        return self.event_names.get(event, event)
