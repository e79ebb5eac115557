# Evaluates nix/home-manager.nix once per case in cases.nix with the `lib` it
# is given: the stand-in (stand-in.nix, run by scripts/nix-check) or nixpkgs
# (module-check.nix, run by `nix flake check`). Home Manager itself is the
# option stand-ins of hm-options.nix in both.
{
  lib,
  self,
  pkgs,
}:

let
  hail = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
  other = {
    type = "derivation";
    name = "hail-other";
    outPath = "/nix/store/0000000000000000000000000000000a-hail-other";
  };
  cases = import ./cases.nix { inherit hail other; };

  # The parts of the home configuration the module may touch.
  evaluate =
    settings:
    let
      inherit
        (lib.evalModules {
          modules = [
            ./hm-options.nix
            (import ../../nix/home-manager.nix { inherit self; })
            { programs.hail = settings; }
          ];
          specialArgs = { inherit pkgs; };
        })
        config
        ;
    in
    {
      packages = map toString config.home.packages;
      inherit (config.home) sessionVariables;
      files = builtins.mapAttrs (_: file: file.source) config.home.file;
      failedAssertions = map (a: a.message) (builtins.filter (a: !a.assertion) config.assertions);
    };

  check =
    case:
    if case ? rejected then
      let
        attempt = builtins.tryEval (builtins.deepSeq (evaluate case.settings) true);
      in
      {
        ok = !attempt.success;
        detail = if attempt.success then "accepted; expected: ${case.rejected}" else "rejected";
      }
    else
      let
        actual = evaluate case.settings;
      in
      {
        ok = actual == case.expect;
        detail =
          if actual == case.expect then
            "as expected"
          else
            "got ${builtins.toJSON actual}, expected ${builtins.toJSON case.expect}";
      };
in
{
  names = builtins.attrNames cases;
  results = builtins.mapAttrs (_: check) cases;
  # Raw evaluation, so that a rejected case's error text can be read.
  evaluated = builtins.mapAttrs (_: case: evaluate case.settings) cases;
  rejected = builtins.mapAttrs (_: case: case.rejected or null) cases;
}
