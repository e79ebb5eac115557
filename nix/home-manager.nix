# Home Manager module for hail. Curried over the flake so that `package`
# defaults to this flake's build for the host system. It installs hail,
# exports HAIL_ENVELOPE_MAX and links the agent skill; it never edits agent
# configurations (that is `hail setup`'s job, run by the user).
{ self }:
{
  config,
  lib,
  pkgs,
  ...
}:

let
  cfg = config.programs.hail;

  skillSource = "${cfg.package}/share/hail/skills/hail";

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

    skill = {
      enable = lib.mkEnableOption "links to hail's agent skill";

      targets = lib.mkOption {
        type = lib.types.listOf lib.types.str;
        default = [ ".agents/skills/hail" ];
        example = [
          ".agents/skills/hail"
          ".claude/skills/hail"
        ];
        description = ''
          Paths relative to the home directory where the skill directory
          (share/hail/skills/hail of the package) is linked.
        '';
      };
    };
  };

  config = lib.mkMerge [
    (lib.mkIf cfg.enable { home.packages = [ cfg.package ]; })

    (lib.mkIf (cfg.enable && cfg.envelopeMax != null) {
      home.sessionVariables.HAIL_ENVELOPE_MAX = toString cfg.envelopeMax;
    })

    (lib.mkIf (cfg.enable && cfg.skill.enable) {
      home.file = lib.genAttrs cfg.skill.targets (_: {
        source = skillSource;
      });
    })

    # Every check concerns the skill, so they apply only when it is enabled.
    (lib.mkIf cfg.skill.enable {
      assertions = [
        {
          assertion = cfg.enable;
          message = "programs.hail.skill.enable requires programs.hail.enable = true";
        }
        {
          assertion = cfg.skill.targets != [ ];
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
  ];
}
