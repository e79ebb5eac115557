# One home configuration evaluated inside the real Home Manager module set (every module of
# `homeManager`/modules, option checks on) with the real nixpkgs `lib`, plus hail's module. Only
# the package set is a stand-in (pkgs.nix). `nixpkgs` is a directory holding nixpkgs' `lib/` and
# `nixos/modules/misc/{assertions,meta}.nix` (nixpkgs itself, or the snapshot of its lib with the
# stand-ins beside this file: scripts/nix-check assembles it).
#
# Returns what a test reads: every home.file entry (with the parsed content of the agents'
# configuration files), hail's activation step, packages, session variables and failed
# assertions. tests/nix/test_home_manager.py runs it.
{
  nixpkgs,
  homeManager,
  # What a user writes: a module.
  configuration ? { },
  # hail's package: a directory (`bin/hail` in it to run the activation step), else a stand-in.
  packagePath ? "/nix/store/00000000000000000000000000000000-hail-0.7.0",
  homeDirectory ? "/home/alice",
}:

let
  lib = import (nixpkgs + "/lib");
  hmLib = import (homeManager + "/modules/lib/stdlib-extended.nix") lib;
  pkgs = import ./pkgs.nix {
    inherit lib;
    path = nixpkgs;
  };

  package = {
    type = "derivation";
    name = "hail-0.7.0";
    pname = "hail";
    version = "0.7.0";
    outPath = packagePath;
  };
  hail = import ../../../nix/home-manager.nix {
    self.packages.${pkgs.system}.default = package;
  };

  # As Home Manager's NixOS and nix-darwin modules evaluate it with the system's pkgs.
  evaluated = hmLib.evalModules {
    modules = [
      {
        home.username = "alice";
        home.homeDirectory = homeDirectory;
        home.stateVersion = "25.11";
        # The manual is built from docs/, which the offline snapshot leaves out.
        manual.manpages.enable = false;
      }
      hail
      configuration
    ]
    ++ import (homeManager + "/modules/modules.nix") {
      inherit pkgs;
      lib = hmLib;
      check = true;
      useNixpkgsModule = false;
    };
    class = "homeManager";
    specialArgs.modulesPath = toString (homeManager + "/modules");
  };
  inherit (evaluated) config;

  # A file's text: its `text`, the store file of its source, or a file a stand-in derivation's
  # script installs (`install -D… <file> "$out/<name>"`, as programs.claude-code writes
  # settings.json).
  contentOf =
    file:
    let
      source = toString file.source;
      script = builtins.readFile (dirOf source);
      name = builtins.unsafeDiscardStringContext (baseNameOf source);
      installed = builtins.match ''.*install -D[a-z0-9]* ([^ ]+) "\$out/${name}".*'' script;
    in
    if file.text != null then
      file.text
    else if builtins.pathExists source then
      builtins.readFile source
    else if installed != null then
      builtins.readFile (builtins.head installed)
    else
      throw "cannot read ${source}";

  # The agents' configuration files, rules and opencode's plugin: the ones a test reads.
  isConfig =
    target:
    builtins.any (suffix: lib.hasSuffix suffix target) [
      ".json"
      ".toml"
      ".rules"
    ]
    && builtins.any (dir: lib.hasPrefix dir (lib.removePrefix "/" target)) [
      ".claude/"
      ".codex/"
      ".config/codex/"
    ]
    || lib.hasPrefix ".config/opencode/plugins/" (lib.removePrefix "/" target);

  fileView =
    file:
    {
      inherit (file) target;
      source = toString file.source;
      recursive = file.recursive;
    }
    // lib.optionalAttrs (isConfig file.target) (
      let
        content = contentOf file;
      in
      {
        inherit content;
      }
      // lib.optionalAttrs (!lib.hasSuffix ".rules" file.target && !lib.hasSuffix ".js" file.target) {
        # JSON whatever the format (pkgs.nix).
        value = builtins.fromJSON content;
      }
    );
in
{
  files = lib.mapAttrs' (_: file: lib.nameValuePair file.target (fileView file)) config.home.file;
  activation = lib.mapAttrs (_: entry: { inherit (entry) after before data; }) (
    lib.filterAttrs (name: _: lib.hasPrefix "hail" name) config.home.activation
  );
  activationOrder = map (entry: entry.name) (
    (hmLib.hm.dag.topoSort config.home.activation).result or [ ]
  );
  packages = map (p: p.name) config.home.packages;
  sessionVariables = config.home.sessionVariables;
  failedAssertions = map (a: a.message) (builtins.filter (a: !a.assertion) config.assertions);
}
