# A stand-in for nixpkgs' nixos/modules/misc/meta.nix, NOT nixpkgs' file, for evaluating Home Manager
# with the snapshot of nixpkgs' lib alone: it declares the `meta` options Home Manager's modules define (maintainers, doc).
{ lib, ... }:
{
  options.meta = {
    maintainers = lib.mkOption { type = lib.types.listOf lib.types.raw; default = [ ]; };
    teams = lib.mkOption { type = lib.types.listOf lib.types.raw; default = [ ]; };
    doc = lib.mkOption { type = lib.types.raw; default = null; };
    buildDocsInSandbox = lib.mkOption { type = lib.types.bool; default = true; };
  };
}
