# Stand-ins for the Home Manager options that nix/home-manager.nix writes to,
# so the module can be evaluated without Home Manager. The types are Home
# Manager's, narrowed: a home.file entry is a plain attribute set here, and a
# session variable must already be a string.
{ lib, ... }:
{
  options = {
    assertions = lib.mkOption {
      type = lib.types.listOf lib.types.attrs;
      default = [ ];
    };

    home.packages = lib.mkOption {
      type = lib.types.listOf lib.types.package;
      default = [ ];
    };

    home.sessionVariables = lib.mkOption {
      type = lib.types.attrsOf lib.types.str;
      default = { };
    };

    home.file = lib.mkOption {
      type = lib.types.attrsOf lib.types.attrs;
      default = { };
    };
  };
}
