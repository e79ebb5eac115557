{ lib, ... }:
{
  options.meta = {
    maintainers = lib.mkOption { type = lib.types.listOf lib.types.raw; default = [ ]; };
    teams = lib.mkOption { type = lib.types.listOf lib.types.raw; default = [ ]; };
    doc = lib.mkOption { type = lib.types.raw; default = null; };
    buildDocsInSandbox = lib.mkOption { type = lib.types.bool; default = true; };
  };
}
