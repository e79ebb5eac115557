"""Every limit and timeout hail uses, each with the reason for its value. docs/limits.md lists them
with the section of docs/ that describes where each applies.
"""

from __future__ import annotations

#: The five kinds, in the order hail lists them everywhere.
KINDS = ("ask", "fyi", "announce", "hold", "release")
#: Typed in full, never folded, no body, filed as already claimed.
CONTROL_KINDS = frozenset({"announce", "hold", "release"})

#: Headline cap in characters when HAIL_ENVELOPE_MAX is unset or unusable.
DEFAULT_ENVELOPE_MAX = 400
#: Smaller caps make envelopes useless; values below it are ignored.
MIN_ENVELOPE_MAX = 20
#: Larger caps are lowered to this: a headline rides in every frame start line and brief line, and
#: each hook call has DELIVER_MAX_BYTES for all of it; a longer headline folds into the body.
MAX_ENVELOPE_MAX = 1000
#: A frame shows any other header value (from, re, scope, …) up to this many characters: stored
#: files written by older versions or by hand are read too, and the hook's budget must hold.
FRAME_VALUE_MAX = 300
#: Brief lines may run this much past the cap before they are clipped.
BRIEF_CLIP_SLACK = 80
#: --scope is a triage label, not a body.
SCOPE_MAX = 200

#: An idle pipe may be a body that is still coming; a file or /dev/null answers at once.
STDIN_PIPE_WAIT = 2.0
STDIN_FILE_WAIT = 0.010
#: A body that keeps flowing must still end; an agent's tool runner must never hang.
STDIN_TOTAL = 30.0
STDIN_MAX_MIB = 16
STDIN_MAX_BYTES = STDIN_MAX_MIB * 1024 * 1024

#: Attempts at drawing an unused id suffix within one second.
ID_ATTEMPTS = 256

#: A hold lapses after this unless --for says otherwise; --for is capped.
HOLD_DEFAULT_HOURS = 8
HOLD_DEFAULT_SECONDS = HOLD_DEFAULT_HOURS * 3600
HOLD_MAX_DAYS = 7
HOLD_MAX_SECONDS = HOLD_MAX_DAYS * 86400
#: Older `block` records without `expires` lapsed after a week.
OLD_BLOCK_SECONDS = 7 * 86400

#: An fyi to a mailbox whose hooks ran this recently is not typed: it rides the next hook.
HOOKED_FRESH_DAYS = 7
HOOKED_FRESH_SECONDS = HOOKED_FRESH_DAYS * 86400


def hooked_lately(mark: float | None, now: float) -> bool:
    """A hook mark within HOOKED_FRESH_SECONDS of `now`, the boundary included: that agent's
    hooks will carry mail sent now. The one rule the send, doctor and watch judge by."""
    return mark is not None and now - mark <= HOOKED_FRESH_SECONDS


#: A send without receipt shows in the sender's brief after this.
LATE_SEND_SECONDS = 120
#: ... and lapses (reported once) after this.
PENDING_LAPSE_DAYS = 7
PENDING_LAPSE_SECONDS = PENDING_LAPSE_DAYS * 86400
#: Lines per brief section without --all.
BRIEF_SECTION_LINES = 5

#: Per hook call: Claude Code replaces hook context over 10,000 characters with a preview.
DELIVER_MAX_MESSAGES = 5
DELIVER_MAX_BYTES = 8192
#: `hail inbox` prints about this much at most: Claude Code keeps 30,000 characters of a command's
#: output and cuts the middle, Codex keeps less; what is not printed stays unread for the next call.
INBOX_MAX_KIB = 16
INBOX_MAX_BYTES = INBOX_MAX_KIB * 1024
#: The harness's JSON payload is read up to this much. A harness writes it right after starting the
#: hook, which on a loaded machine can get to stdin first: a pipe gets this long to bring it (a
#: harness never takes that long; a pipe nobody writes costs a hook no more).
HOOK_STDIN_MAX = 64 * 1024
HOOK_PAYLOAD_WAIT = 0.5
#: The Stop hook makes an agent go on with mail it just claimed at most this many times in a row;
#: the next Stop lets the turn end and the mail waits for the next prompt or tool call. Codex has
#: no cap of its own, and a peer that sends every second must not keep a session busy for good.
STOP_BLOCKS_MAX = 3
#: The waiter (`hail listen`, Claude Code's asyncRewake hook) ends itself after this long without
#: a wake, a minute before the `timeout` its hook entry gives Claude Code (WAITER_HOOK_TIMEOUT):
#: one waiter serves a session left idle for a day, and the next turn's Stop starts another.
WAITER_HOOK_TIMEOUT = 86400
WAITER_LIFE_SECONDS = WAITER_HOOK_TIMEOUT - 60
#: A waiter sleeps in sigwait: a send's signal wakes it at once; without one it looks this
#: often whether its Claude Code process is still there (a SIGKILLed client cannot end its hooks),
#: whether a newer waiter took its place, and whether a wake was asked for while no signal came.
WAITER_CHECK_SECONDS = 1.0
#: A waiter that fired has woken its session, whose prompt hook claims what is unread: a send in the
#: moment before that hook ran is carried by the same wake, for at most this long.
WAKE_GRACE_SECONDS = 10.0
#: Codex's daemon answered within 45 ms and `codex queue` within 0.2 s on the pinned Codex; past
#: this (the whole conversation with the daemon, or the command) the send types instead, or, once
#: the daemon was asked to queue, exits 5 with nothing typed.
CODEX_QUEUE_TIMEOUT = 10.0
#: Qwen Code's receipt for a message on its cross-session socket came 0.03–0.22 s after the send on
#: the pinned Qwen Code: past this (the connection, the send and the receipt together) the send
#: gives the message back to the hooks and exits 5, typing nothing, since Qwen may have it queued.
DOOR_RECEIPT_TIMEOUT = 5.0
#: hook-errors.log is rotated once past this size.
HOOK_LOG_MAX = 1024 * 1024
#: One entry of hook-errors.log (an unexpected error's line and its traceback) is cut to this: the
#: end of a traceback (the innermost frames and the error) is kept, so no one error fills the log.
HOOK_LOG_ENTRY_MAX_KIB = 16
HOOK_LOG_ENTRY_MAX = HOOK_LOG_ENTRY_MAX_KIB * 1024

#: Frame token: 8 hex characters, redrawn when a delivery happens to contain it.
TOKEN_BYTES = 4
TOKEN_ATTEMPTS = 16

#: Transport: polling the pane for the typed id, the time allowed to see it, and the pause between
#: text and Enter (Codex 0.171 needs ~300 ms for 400 characters, ~500 ms for 800 before an Enter
#: stops counting as part of a paste).
TYPE_POLL_SECONDS = 0.025
TYPE_SEEN_TIMEOUT = 10.0
SUBMIT_PAUSE_MIN = 0.300
SUBMIT_PAUSE_PER_CHAR = 0.0007
#: After Enter, the envelope must leave the composer within this, or the send is not complete
#: (a client that turned busy meanwhile may keep it there).
SUBMIT_VERIFY_TIMEOUT = 2.0
#: A client draws its idle composer only after its Stop hook let the turn end (Claude Code 2.1.332:
#: up to 0.2 s later on a loaded machine): a send that finds the screen still busy then waits this
#: long for it to settle, so a message filed after the Stop hook looked is typed, not left unread.
TURN_END_WAIT = 2.0
#: Dialog and composer checks look at the last lines of the screen only.
SCREEN_TAIL_LINES = 8
#: A send, nudge or inbox run from `hail watch` ends within this: a send waits at most a few
#: seconds on a screen, and its verb is never left running behind the view.
WATCH_ACTION_SECONDS = 60.0
#: A dialog answered from `hail watch` is shown, and compared before its key is sent, by this many
#: of the screen's last non-blank lines: each client's dialog (its question, command and options)
#: fits in them.
DIALOG_TEXT_LINES = 14
#: The one `ps` call of a pane survey; past this the process tree counts as unknown.
PS_TIMEOUT = 10.0
#: `hail read` default and `type` probe length.
READ_DEFAULT_LINES = 50
TYPE_PROBE_CHARS = 40

#: await polls the filesystem at this interval.
AWAIT_POLL_SECONDS = 0.1
#: An agent runs `await` and `ask --wait` as a tool call, and a wait must end before the tool call
#: does, so it can say that the answer still arrives by the hooks. Claude Code's Bash tool stops a
#: command after 120 s unless the model asks for more; 90 s leaves room for the send before an
#: `ask --wait` (typing waits up to 10 s to see the envelope) and for a slow start.
AWAIT_DEFAULT_TIMEOUT = 90.0
#: Codex's exec_command hands the turn back to the model after `yield_time_ms` (10 s unless the
#: model asks for up to 30 s) and leaves the command running: a reply claimed after that reaches
#: the model only if it polls the session. So under Codex the default wait ends inside 10 s, and
#: a later reply wakes the agent the usual way (typed when it is idle, or with its next tool call).
AWAIT_DEFAULT_TIMEOUT_CODEX = 8.0
#: A waiting process refreshes its record in `waits/` this often; a record not refreshed for
#: WAIT_STALE_SECONDS (or touched that far ahead of now) belongs to a process that is stopped, or
#: to none: a wait that is gone lets go of its record's lock at once.
WAIT_HEARTBEAT_SECONDS = 1.0
WAIT_STALE_SECONDS = 5.0
#: A wait holds `waits/.lock` for one write and one listing (well under a millisecond); a holder
#: that keeps it this long is stopped, and a new wait goes on without it (docs/conversations.md
#: "Crossing waits": then both of two crossing waits may give way, never neither).
WAIT_LOCK_SECONDS = 2.0
#: Replies in a row (a `--re` of a `--re` …) with no person's prompt in either pane in between,
#: before hail stops waking anyone: two agents must not answer each other's answers forever,
#: and a real exchange rarely needs more than a few rounds before its person looks in.
REPLY_CHAIN_MAX = 8

#: A send moves its file out of tmp/ within seconds (its body is read within STDIN_TOTAL); a file
#: older than this was left by a killed send or a full disk, and gc removes it.
TMP_STALE_SECONDS = 3600
#: gc archives what is older than this many days by default.
GC_DEFAULT_DAYS = 90
#: doctor flags a mailbox keeping more read messages than this.
DOCTOR_CUR_MAX = 5000
#: doctor reports hook errors of this recent past, each clipped to this many characters.
DOCTOR_HOOK_LOG_SECONDS = 7 * 86400
DOCTOR_LOG_LINE_MAX = 160
#: doctor lists at most this many mailboxes with unread mail nobody sees.
DOCTOR_UNREAD_LINES = 8
#: ... and at most this many files in the state that are not regular files (a FIFO, say).
DOCTOR_SPECIAL_LINES = 8
#: doctor runs each hook's program (`<program> --version`) for at most this long.
DOCTOR_HOOK_RUN_TIMEOUT = 10.0
#: Claude Code runs SessionStart within a second or two of starting: an agent older than this
#: whose seat has had no hook since it started runs none.
DOCTOR_AGENT_GRACE_SECONDS = 10.0
#: Unknown seat suggestions.
SUGGEST_MAX = 8
SUGGEST_PREFIX = 3

#: `hail watch` stats the state's directories this often to see whether anything changed: a send,
#: a receipt or a hold shows within a second, and a sweep of a few stats costs nothing.
WATCH_POLL_SECONDS = 0.25
#: A sweep of many mailboxes (six stats each) runs less often, so that it takes at most this share
#: of the time between sweeps: 1 000 seats stay cheap to watch.
WATCH_SWEEP_SHARE = 0.05
#: The agents' screens change without a file changing (busy, idle, a dialog): watch looks at the
#: panes this often, with one `list-panes` and one capture call for all agent panes.
WATCH_PANES_SECONDS = 2.0
#: Messages watch keeps, newest first: what a screen can show; older ones are counted.
WATCH_MESSAGES = 200
#: Watch reads this much of a message file for its headers; the body is read only when opened.
WATCH_HEAD_BYTES = 8192

#: Other machines over ssh [docs/seats.md "Other machines"]. An unreachable host must be told
#: within a tool call: ssh gives up connecting after this many seconds (ConnectTimeout).
SSH_CONNECT_TIMEOUT = 5
#: One connection per host is kept this long after its last use (ControlPersist): the next send
#: to that host skips the handshake, and no master outlives its use for long.
SSH_PERSIST_SECONDS = 60
#: A whole call (connect, the far side's send with its wake, the answer) ends within this: a far
#: send types for at most TYPE_SEEN_TIMEOUT plus its pauses. A call made for a wait, `inbox` or
#: `sent` gets less: what is left of the wait, or REMOTE_LOOK_SECONDS.
SSH_CALL_TIMEOUT = 60.0
#: A connection that stops answering (a dead link under a shared connection) is given up after
#: this many unanswered keep-alives this many seconds apart (ServerAliveInterval and
#: ServerAliveCountMax): within seconds, where TCP alone would wait for minutes.
SSH_ALIVE_SECONDS = 2
SSH_ALIVE_COUNT = 2
#: A call whose connection dropped before the far side answered is tried again once with the same
#: id: the far side refuses a second copy, so the retry tells whether the first one landed.
SSH_ATTEMPTS = 2
#: A request or an answer is a message and its headers: the far side reads at most this much.
PEER_MAX_BYTES = STDIN_MAX_BYTES + 65536
#: What a far shell may print before hail's answer (a `.bashrc` that echoes, a banner): the near
#: side reads at most PEER_MAX_BYTES and this much, and more is a protocol error.
PEER_NOISE_BYTES = 65536
#: ssh's stderr is kept up to its last this many bytes: its last line says why a call failed.
SSH_STDERR_BYTES = 65536
#: A wait for replies from another machine asks it for replies kept there (its machine could not
#: reach this one) this often.
REMOTE_FETCH_SECONDS = 2.0
#: A fetch files at most this many replies to one ask from the machine it went to: a seat answers
#: an ask once or a few times (a correction, a follow-up question); more kept for one ask is a
#: flood, and each would wake the asker.
REMOTE_REPLIES_PER_ASK = 10
#: `inbox` and `sent` ask another machine within this: the connect timeout and a far hail's
#: answer from its files (well under a second), with room. An agent runs `inbox` every turn, so a
#: far hail that hangs must not hold it for a minute.
REMOTE_LOOK_SECONDS = 8.0
#: `inbox` and `sent` fetch kept replies only for asks to other machines younger than this.
REMOTE_OPEN_SECONDS = 86400
#: A host `inbox` could not reach is not tried again by `inbox` for this long, so an agent's every
#: `inbox` does not wait out SSH_CONNECT_TIMEOUT (a wait, `sent` and a send still try at once).
REMOTE_RETRY_SECONDS = 60.0
#: The longest Unix socket path every system takes, NUL included: `sun_path` is 104 bytes on
#: macOS and the BSDs (108 on Linux). The demo keeps its tmux socket shorter.
SOCKET_PATH_MAX = 104

#: The context gauge [docs/gauge.md "Reading"] reads a client's file backward from its end, this
#: much at a time: the newest usage line sat within the last 64 KiB of most measured transcripts
#: (Claude Code writes it before the tool results and attachments that follow it).
GAUGE_READ_STEP_KIB = 64
GAUGE_READ_STEP = GAUGE_READ_STEP_KIB * 1024
#: ... and at most this much in all: room for several large tool results after the newest usage
#: line, while 30 agents whose files hold none cost at most 30 MiB per refresh. A file no longer
#: than this is read whole, and only then are a session's calls summed from it.
GAUGE_READ_MAX_KIB = 1024
GAUGE_READ_MAX = GAUGE_READ_MAX_KIB * 1024
#: hail's opencode plugin writes its gauge record in a few hundred bytes; more is nothing it wrote.
GAUGE_RECORD_MAX = 4096
#: A task line (what an agent is on, from its last prompt) is clipped to this many characters: a
#: column of `hail seats` and a line of `hail watch`, not the prompt.
TASK_LINE_MAX = 120
#: An agent record [docs/gauge.md "The agent record"] names the file the gauge reads: a path
#: longer than Linux's PATH_MAX is nothing a client wrote, and is not recorded.
AGENT_FILE_MAX = 4096
#: ... and the model its payload named: a model's name is a short identifier (a Bedrock ARN
#: included), so a longer value is nothing a client named, and is not recorded rather than cut
#: into another name.
AGENT_MODEL_MAX = 200
#: An agent record no hook wrote for this long (its session had no prompt for a week, or ended in
#: a pane that closed) is removed by the next new session's record: as old as a hook mark that no
#: longer counts as live (HOOKED_FRESH_DAYS).
AGENT_RECORD_DAYS = HOOKED_FRESH_DAYS
#: A record written up to this long before its agent's process started still counts as that
#: agent's: the start is known to the second (`/proc`'s boot time, `ps`), and Claude Code's waiter
#: records its SessionStart within a second of the start.
AGENT_START_SLACK_SECONDS = 1.0

# --- When each client compacts its context [docs/gauge.md "Compaction"] ---------------------------
#: Claude Code 2.1.332 compacts once a call's tokens reach the window less the model's output
#: reserve (its max output, at most 20,000) and a 13,000-token buffer; it warns 20,000 before.
CLAUDE_COMPACT_RESERVE = 33_000
#: Codex compacts at 9/10 of the model's whole window, of which its rollout reports 95% as
#: `model_context_window` (gpt-5.5: 244,800 of 272,000; 258,400 reported): 90/95 of that.
CODEX_COMPACT_SHARE = 90 / 95
#: Gemini CLI 0.61.0 compresses its history once the last prompt reaches half of the model's window
#: (`DEFAULT_COMPRESSION_TOKEN_THRESHOLD`, unless the person's `model.compressionThreshold` says
#: otherwise).
GEMINI_COMPRESS_SHARE = 0.5
#: opencode 1.18.33 compacts once a reply's tokens reach the window less the model's output
#: limit, at most 32,000 (`OUTPUT_TOKEN_MAX`): the largest reserve, so a warning never comes late.
OPENCODE_COMPACT_RESERVE = 32_000
#: An agent within this many tokens of its client's compaction point is about to compact (a
#: trouble of `hail watch` and doctor): Claude Code's own warning starts this far before it.
COMPACT_SOON_TOKENS = 20_000
#: `hail watch` colours a gauge once its context passes this share of the compaction point.
GAUGE_NEAR_SHARE = 0.75

# --- The person [docs/seats.md "The person"] --------------------------------------------------------
#: How long tmux shows a message for the person on each attached client's message line: tmux's
#: own `display-time` (750 ms) is gone before a person looking at another pane notices it.
PERSON_MESSAGE_MILLIS = 15_000
#: The longest a send waits on a desktop notifier (notify-send, osascript): each returns at once
#: when its desktop answers; a notifier that hangs never holds the sender's tool call.
NOTIFY_SECONDS = 2.0
