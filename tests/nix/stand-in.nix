# The module test against the stand-in lib (stub-lib.nix and its evaluator
# eval-module.nix), NOT nixpkgs: run by scripts/nix-check where nixpkgs
# cannot be fetched. The package is a stand-in too: a derivation-shaped set
# with a fixed store path.
let
  system = "x86_64-linux";
  hail = {
    type = "derivation";
    name = "hail-stand-in";
    outPath = "/nix/store/00000000000000000000000000000000-hail-stand-in";
  };
in
import ./module-test.nix {
  lib = import ./stub-lib.nix;
  self.packages.${system}.default = hail;
  pkgs.stdenv.hostPlatform.system = system;
}
