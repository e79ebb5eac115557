# A stand-in for nixpkgs' nixos/modules/misc/assertions.nix, NOT nixpkgs' file, for evaluating Home Manager
# with the snapshot of nixpkgs' lib alone: it declares `assertions` and `warnings`, which every Home Manager module may define.
{ lib, ... }:
{
  options = {
    assertions = lib.mkOption {
      type = lib.types.listOf lib.types.unspecified;
      internal = true;
      default = [ ];
    };
    warnings = lib.mkOption {
      internal = true;
      default = [ ];
      type = lib.types.listOf lib.types.str;
    };
  };
}
