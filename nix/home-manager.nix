# Home Manager module for hail. Curried over the flake so that `package`
# defaults to this flake's build for the host system.
#
# It installs hail, exports HAIL_ENVELOPE_MAX, links the agent skill and
# installs hail's hooks:
# - where Home Manager owns an agent's configuration (programs.claude-code,
#   programs.codex, programs.opencode), through those modules' options, since
#   their files are read-only links into the Nix store that nothing else may
#   edit (opencode's plugin: a store link in its plugins folder);
# - elsewhere (Gemini CLI and Copilot CLI always: Home Manager has no module
#   for them), by an activation step running `hail setup --yes`, the same
#   merge a user runs by hand.
# The hooks are the ones of src/hail/data/harness_hooks.json (nix/hooks.nix),
# the table `hail setup` reads, and name the package's own executable.
{ self }:
{
  config,
  lib,
  options,
  pkgs,
  ...
}:

let
  cfg = config.programs.hail;
  hailHooks = import ./hooks.nix;

  program = "${cfg.package}/bin/hail";
  skillSource = "${cfg.package}/share/hail/skills/hail";
  # The rule that lets Codex run `hail` outside its sandbox: the file
  # `hail setup` writes, listing the one path this hail may be run by besides
  # its bare name (Codex would otherwise let out any program named hail, one
  # the model wrote into its workspace too).
  codexRule =
    builtins.replaceStrings [ "@HAIL_PATHS@" ] [ ''"${program}"'' ]
      (builtins.readFile ../src/hail/data/hail.rules);

  # Home Manager releases without these modules still evaluate this one.
  hasClaudeModule = options.programs ? claude-code;
  hasCodexModule = options.programs ? codex;
  hasOpencodeModule = options.programs ? opencode;
  claudeManaged = hasClaudeModule && config.programs.claude-code.enable;
  codexManaged = hasCodexModule && config.programs.codex.enable;
  opencodeManaged = hasOpencodeModule && config.programs.opencode.enable;

  hooksOn = cfg.enable && cfg.hooks.enable;

  # Where Codex reads hooks.json, spelled as Codex spells it in its trust
  # keys: Home Manager's programs.codex puts its files in ~/.codex, or in
  # $XDG_CONFIG_HOME/codex (exported as CODEX_HOME) with preferXdgDirectories.
  codexHome =
    if config.home.preferXdgDirectories then
      "${config.xdg.configHome}/codex"
    else
      "${config.home.homeDirectory}/.codex";

  # What the activation step runs: the merge of `hail setup`, naming this
  # package's executable in the hook commands.
  setupCommand = [
    program
    "setup"
    "--yes"
    "--program"
    program
  ]
  ++ lib.optional cfg.hooks.trustCodex "--trust-codex";

  # hail's groups go after the user's own in each event.
  after = lib.mapAttrs (_: lib.mkAfter);

  isRelative = target: target != "" && !lib.hasPrefix "/" target;
  nonRelativeTargets = builtins.filter (target: !isRelative target) cfg.skill.targets;
  timesListed = target: lib.count (other: other == target) cfg.skill.targets;
  repeatedTargets = lib.unique (builtins.filter (target: timesListed target > 1) cfg.skill.targets);
in
{
  options.programs.hail = {
    enable = lib.mkEnableOption "hail, messages between coding agents over tmux";

    package = lib.mkOption {
      type = lib.types.package;
      default = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
      defaultText = lib.literalExpression "hail.packages.\${system}.default";
      description = "The hail package to install.";
    };

    envelopeMax = lib.mkOption {
      # Positive only: 0 or a negative cap is a mistake worth failing on at
      # evaluation (hail itself treats values under 20 as its default, 400).
      type = lib.types.nullOr lib.types.ints.positive;
      default = null;
      example = 400;
      description = ''
        Headline cap of the envelope typed into a pane, in characters. Sets
        HAIL_ENVELOPE_MAX in the session environment; null leaves hail's
        default.
      '';
    };

    hooks = {
      enable = lib.mkOption {
        type = lib.types.bool;
        default = true;
        example = false;
        description = ''
          Whether to install hail's hooks (SessionStart, UserPromptSubmit,
          PostToolUse and Stop: those `hail setup` installs). With
          {option}`programs.claude-code.enable` they are added to
          {option}`programs.claude-code.settings.hooks`, and with
          {option}`programs.codex.enable` to {option}`programs.codex.hooks`
          (Codex's hooks.json), after the user's own hooks, which are kept.
          Their commands name the package's executable by its store path.
          Agents Home Manager does not manage get them from
          {option}`programs.hail.hooks.activation`.
        '';
      };

      trustCodex = lib.mkOption {
        type = lib.types.bool;
        default = false;
        example = true;
        description = ''
          Whether to record Codex's trust for hail's own hooks, as
          `hail setup --trust-codex` does, so that Codex runs them without a
          review in `/hooks` first. With {option}`programs.codex.enable` the
          records go into {option}`programs.codex.settings` (Codex's
          config.toml, which Home Manager then writes and Codex cannot), since
          Codex cannot record a trust in a read-only config itself.
        '';
      };

      activation = lib.mkOption {
        type = lib.types.bool;
        default = true;
        example = false;
        description = ''
          Whether each activation runs `hail setup --yes` for the agent
          configurations Home Manager does not own (~/.claude/settings.json,
          ~/.codex/config.toml, ~/.gemini/settings.json, opencode's plugin,
          ~/.qwen/settings.json, each where its directory exists; Gemini
          CLI's and Qwen Code's always, as Home Manager has no module for
          them): the merge a user would run by hand, which
          keeps every other hook and setting, backs the file up before
          changing it and changes nothing when the hooks are current. It runs
          after Home Manager wrote its files, prints nothing unless it fails,
          and never fails the activation. On by default so that enabling hail
          installs its hooks whether or not Home Manager manages the agents;
          turn it off to run `hail setup` yourself.
        '';
      };
    };

    skill = {
      enable = lib.mkEnableOption "hail's agent skill";

      targets = lib.mkOption {
        type = lib.types.listOf lib.types.str;
        default = lib.optional (!codexManaged) ".agents/skills/hail";
        defaultText = lib.literalExpression ''[ ".agents/skills/hail" ] unless programs.codex.enable'';
        example = [
          ".agents/skills/hail"
          ".claude/skills/hail"
        ];
        description = ''
          Paths relative to the home directory where the skill directory
          (share/hail/skills/hail of the package) is linked. Besides these,
          the skill goes through {option}`programs.claude-code.skills` and
          {option}`programs.codex.skills` when those modules are enabled.
        '';
      };
    };
  };

  config = lib.mkMerge (
    [
      (lib.mkIf cfg.enable { home.packages = [ cfg.package ]; })

      (lib.mkIf (cfg.enable && cfg.envelopeMax != null) {
        home.sessionVariables.HAIL_ENVELOPE_MAX = toString cfg.envelopeMax;
      })

      (lib.mkIf (cfg.enable && cfg.skill.enable) {
        home.file = lib.genAttrs cfg.skill.targets (_: {
          source = skillSource;
        });
      })

      # Gemini CLI and Copilot CLI have no Home Manager module: only this step installs their hooks, so it runs
      # whichever agents Home Manager owns (setup leaves their store links alone).
      (lib.mkIf (hooksOn && cfg.hooks.activation) {
        # After linkGeneration (itself after writeBoundary): Home Manager's
        # own files are linked, so setup sees which configurations are links
        # into the Nix store and leaves them alone. `run` prints the command
        # instead on a dry run; --quiet keeps the output for failures.
        home.activation.hailHooks = lib.hm.dag.entryAfter [ "writeBoundary" "linkGeneration" ] ''
          if ! run --quiet ${lib.escapeShellArgs setupCommand}; then
            warnEcho "hail: could not install hail's hooks (see above); run hail setup for the details. The activation goes on."
          fi
        '';
      })

      # Every check concerns the skill, so they apply only when it is enabled.
      (lib.mkIf cfg.skill.enable {
        assertions = [
          {
            assertion = cfg.enable;
            message = "programs.hail.skill.enable requires programs.hail.enable = true";
          }
          {
            assertion = cfg.skill.targets != [ ] || claudeManaged || codexManaged;
            message = "programs.hail.skill.targets must not be empty";
          }
          {
            assertion = nonRelativeTargets == [ ];
            message = "programs.hail.skill.targets must be relative to the home directory: ${builtins.toJSON nonRelativeTargets}";
          }
          {
            # genAttrs would silently keep one link per repeated path.
            assertion = repeatedTargets == [ ];
            message = "programs.hail.skill.targets must not repeat a path: ${builtins.toJSON repeatedTargets}";
          }
        ];
      })
    ]
    # Only where Home Manager has these modules: defining an option that does
    # not exist fails the evaluation, even under a false mkIf.
    ++ lib.optional hasClaudeModule (
      lib.mkIf claudeManaged (
        lib.mkMerge [
          (lib.mkIf hooksOn {
            programs.claude-code.settings.hooks = after (hailHooks.groups "claude" program);
          })
          (lib.mkIf (cfg.enable && cfg.skill.enable) {
            programs.claude-code.skills.hail = skillSource;
          })
        ]
      )
    )
    # opencode loads plugins from its plugins folder, which programs.opencode leaves to others:
    # hail's plugin goes there as a store link, the file `hail setup` would write.
    ++ lib.optional hasOpencodeModule (
      lib.mkIf opencodeManaged (
        lib.mkMerge [
          (lib.mkIf hooksOn {
            xdg.configFile."opencode/plugins/hail.js".text = hailHooks.opencodePlugin program;
          })
          (lib.mkIf (cfg.enable && cfg.skill.enable) {
            programs.opencode.skills.hail = skillSource;
          })
        ]
      )
    )
    ++ lib.optional hasCodexModule (
      lib.mkIf codexManaged (
        lib.mkMerge [
          (lib.mkIf hooksOn {
            programs.codex.hooks = after (hailHooks.groups "codex" program);
          })
          (lib.mkIf (hooksOn && cfg.hooks.trustCodex) {
            programs.codex.settings.hooks.state = hailHooks.codexTrust {
              path = "${codexHome}/hooks.json";
              inherit (config.programs.codex) hooks;
              inherit program;
            };
          })
          (lib.mkIf cfg.enable {
            programs.codex.rules.hail = codexRule;
          })
          (lib.mkIf (cfg.enable && cfg.skill.enable) {
            programs.codex.skills.hail = skillSource;
          })
        ]
      )
    )
  );
}
