# The module test cases. `settings` is what a user writes under
# programs.hail; `expect` is the home configuration the module must produce
# from it, or `rejected` is the start of the error its evaluation must raise.
{
  # The package the module defaults to.
  hail,
  # A package the user chooses instead.
  other,
}:

let
  skillOf = package: "${package}/share/hail/skills/hail";

  nothing = {
    packages = [ ];
    sessionVariables = { };
    files = { };
    failedAssertions = [ ];
  };

  installed = nothing // {
    packages = [ "${hail}" ];
  };
in
{
  disabled = {
    settings = { };
    expect = nothing;
  };

  enabled = {
    settings.enable = true;
    expect = installed;
  };

  package-override = {
    settings = {
      enable = true;
      package = other;
      skill.enable = true;
    };
    expect = nothing // {
      packages = [ "${other}" ];
      files.".agents/skills/hail" = skillOf other;
    };
  };

  envelope-max-set = {
    settings = {
      enable = true;
      envelopeMax = 400;
    };
    expect = installed // {
      sessionVariables.HAIL_ENVELOPE_MAX = "400";
    };
  };

  # The smallest accepted value, so that rejecting 0 is about the bound.
  envelope-max-one = {
    settings = {
      enable = true;
      envelopeMax = 1;
    };
    expect = installed // {
      sessionVariables.HAIL_ENVELOPE_MAX = "1";
    };
  };

  envelope-max-unset = {
    settings = {
      enable = true;
      envelopeMax = null;
    };
    expect = installed;
  };

  envelope-max-without-enable = {
    settings.envelopeMax = 400;
    expect = nothing;
  };

  envelope-max-zero-rejected = {
    settings = {
      enable = true;
      envelopeMax = 0;
    };
    rejected = "A definition for option `programs.hail.envelopeMax' is not of type `null or positive integer, meaning >0'";
  };

  skill-off = {
    settings = {
      enable = true;
      skill.enable = false;
    };
    expect = installed;
  };

  skill-on = {
    settings = {
      enable = true;
      skill.enable = true;
    };
    expect = installed // {
      files.".agents/skills/hail" = skillOf hail;
    };
  };

  skill-custom-targets = {
    settings = {
      enable = true;
      skill = {
        enable = true;
        targets = [
          ".claude/skills/hail"
          ".codex/skills/hail"
        ];
      };
    };
    expect = installed // {
      files = {
        ".claude/skills/hail" = skillOf hail;
        ".codex/skills/hail" = skillOf hail;
      };
    };
  };

  skill-absolute-target-rejected = {
    settings = {
      enable = true;
      skill = {
        enable = true;
        targets = [
          ".agents/skills/hail"
          "/etc/skills/hail"
        ];
      };
    };
    expect = installed // {
      files = {
        ".agents/skills/hail" = skillOf hail;
        "/etc/skills/hail" = skillOf hail;
      };
      failedAssertions = [
        ''programs.hail.skill.targets must be relative to the home directory: ["/etc/skills/hail"]''
      ];
    };
  };

  skill-empty-target-rejected = {
    settings = {
      enable = true;
      skill = {
        enable = true;
        targets = [ "" ];
      };
    };
    expect = installed // {
      files."" = skillOf hail;
      failedAssertions = [
        ''programs.hail.skill.targets must be relative to the home directory: [""]''
      ];
    };
  };

  skill-no-targets-rejected = {
    settings = {
      enable = true;
      skill = {
        enable = true;
        targets = [ ];
      };
    };
    expect = installed // {
      failedAssertions = [ "programs.hail.skill.targets must not be empty" ];
    };
  };

  skill-duplicate-targets-rejected = {
    settings = {
      enable = true;
      skill = {
        enable = true;
        targets = [
          ".agents/skills/hail"
          ".claude/skills/hail"
          ".agents/skills/hail"
        ];
      };
    };
    expect = installed // {
      files = {
        ".agents/skills/hail" = skillOf hail;
        ".claude/skills/hail" = skillOf hail;
      };
      failedAssertions = [
        ''programs.hail.skill.targets must not repeat a path: [".agents/skills/hail"]''
      ];
    };
  };

  skill-without-enable-rejected = {
    settings.skill.enable = true;
    expect = nothing // {
      failedAssertions = [ "programs.hail.skill.enable requires programs.hail.enable = true" ];
    };
  };
}
