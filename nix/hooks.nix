# hail's hooks as Claude Code and Codex read them, and hail's opencode plugin, built from src/hail/data/harness_hooks.json:
# the table `hail setup` reads too (tests/unit/test_hook_table.py checks that both build the same
# hooks and the same Codex trust hashes). Plain builtins, so that a test can evaluate it without
# nixpkgs.
let
  table = builtins.fromJSON (builtins.readFile ../src/hail/data/harness_hooks.json);

  upper = [ "A" "B" "C" "D" "E" "F" "G" "H" "I" "J" "K" "L" "M" "N" "O" "P" "Q" "R" "S" "T" "U" "V" "W" "X" "Y" "Z" ];
  lower = [ "a" "b" "c" "d" "e" "f" "g" "h" "i" "j" "k" "l" "m" "n" "o" "p" "q" "r" "s" "t" "u" "v" "w" "x" "y" "z" ];

  # PostToolUse -> post_tool_use, the event spelling of Codex's trust keys.
  snakeEvent =
    event:
    let
      spaced = builtins.replaceStrings upper (map (c: "_" + c) lower) event;
    in
    builtins.substring 1 (builtins.stringLength spaced) spaced;

  command = program: spec: builtins.concatStringsSep " " ([ program ] ++ spec.args);

  group =
    program: spec:
    (if spec ? matcher then { inherit (spec) matcher; } else { })
    // {
      hooks = [
        (
          {
            type = "command";
            command = command program spec;
          }
          // (spec.handler or { })
        )
      ];
    };

  indexOf =
    pred: list:
    let
      go = i: if i >= builtins.length list then null else if pred (builtins.elemAt list i) then i else go (i + 1);
    in
    go 0;
  # hail's opencode plugin: the template filled as `hail setup` fills it
  # (src/hail/install/formats/opencode_plugin.py), running `program`.
  pluginTemplate = builtins.readFile ../src/hail/data/opencode/hail.js;
in
rec {
  opencodePlugin =
    program:
    builtins.replaceStrings [ ''"@HAIL_PROGRAM@"'' "@HAIL_HOOKS@" ] [
      (builtins.toJSON program)
      (builtins.toJSON (builtins.listToAttrs (map (spec: { name = spec.event; value = spec.args; }) (specs "opencode"))))
    ] pluginTemplate;

  # hail's hooks for "claude" or "codex", as in its own table.
  specs = harness: table.${harness};

  # The harness's `hooks` value holding hail's hooks alone: event -> [ group ].
  groups =
    harness: program:
    builtins.foldl' (
      acc: spec: acc // { ${spec.event} = (acc.${spec.event} or [ ]) ++ [ (group program spec) ]; }
    ) { } (specs harness);

  # The `trusted_hash` Codex records when a user trusts one command handler: SHA-256 of the
  # compact sorted-key JSON of the event, the handler as Codex normalises it (not async, a 600 s
  # timeout by default) and the group's matcher when it has one. builtins.toJSON sorts keys.
  trustedHash =
    {
      event,
      command,
      matcher ? null,
      timeout ? 600,
    }:
    let
      identity = {
        event_name = snakeEvent event;
        hooks = [
          {
            async = false;
            inherit command timeout;
            type = "command";
          }
        ];
      }
      // (if matcher == null then { } else { inherit matcher; });
    in
    "sha256:" + builtins.hashString "sha256" (builtins.toJSON identity);

  # Codex's trust records for hail's hooks in `hooks` (event -> [ group ], as Codex reads it from
  # the file at `path`): `"<path>:<event>:<group>:<handler>" = { trusted_hash = …; }` for each of
  # hail's handlers found there, the way `hail setup --trust-codex` records them.
  codexTrust =
    {
      path,
      hooks,
      program,
    }:
    builtins.listToAttrs (
      builtins.concatMap (
        spec:
        let
          wanted = command program spec;
          eventGroups = hooks.${spec.event} or [ ];
          isOurs = handler: (handler.command or null) == wanted;
          groupIndex = indexOf (g: builtins.any isOurs (g.hooks or [ ])) eventGroups;
          found = builtins.elemAt eventGroups groupIndex;
          handlerIndex = indexOf isOurs found.hooks;
          handler = builtins.elemAt found.hooks handlerIndex;
        in
        if groupIndex == null then
          [ ]
        else
          [
            {
              name = "${path}:${snakeEvent spec.event}:${toString groupIndex}:${toString handlerIndex}";
              value.trusted_hash = trustedHash {
                inherit (spec) event;
                command = wanted;
                matcher = found.matcher or null;
                timeout = handler.timeout or 600;
              };
            }
          ]
      ) (specs "codex")
    );
}
