"""opencode [docs/hooks.md "opencode"]: hail's plugin in its plugin folder runs hail's hooks and
watches the mailbox, so it is never typed into: a send leaves the wake mark its plugin watches
for. Its composer is a box of `┃` lines closed by a `╹▀…` line (opencode 1.18)."""

from __future__ import annotations

from hail.harnesses.base import PLAIN, ConfigPlace, Harness, PayloadFields, Screen

HARNESS = Harness(
    name="opencode",
    # It sets OPENCODE=1 in its own environment, which its bash tool passes on.
    markers=("OPENCODE",),
    title="opencode",
    route="plugin",
    hooks_record=True,
    # hail's plugin names the session and the record of figures it writes (`gauge_path`); the
    # record names the model.
    payload=PayloadFields(session="session_id", file="gauge_path"),
    output=PLAIN,
    next_step="opencode loads it when it next starts",
    receive_help=(
        "opencode runs them from hail's plugin (--format opencode), which also wakes its idle"
        " session itself."
    ),
    screen=Screen(
        # The box's last line names the agent and model; its first may hold the placeholder. This
        # only tells `hail seats` and the look before a send what the pane shows.
        shape="bar_box",
        prompt="┃",
        busy=("esc interrupt",),
        placeholders=("Ask anything",),
        extra={"end": ("╹▀",)},
    ),
    # hail's plugin in the `plugins` folder of its config folder, in `$XDG_CONFIG_HOME`, else in
    # `~/.config`: where opencode loads a user's plugins from.
    configs=(
        ConfigPlace(
            format="opencode_plugin",
            folder="opencode",
            file="plugins/hail.js",
            parent=".config",
            parent_variable="XDG_CONFIG_HOME",
        ),
    ),
)
