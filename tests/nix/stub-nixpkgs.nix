# A stand-in for the nixpkgs flake, NOT nixpkgs. scripts/nix-check copies it
# to a directory of its own as flake.nix and puts it in place of hail's
# nixpkgs input, so that flake.nix and nix/package.nix evaluate offline. A package here is a
# derivation-shaped set that keeps the arguments it was made from, for
# outputs-test.nix to read back; nothing can be built from it.
{
  description = "stand-in for nixpkgs (not nixpkgs)";

  outputs =
    { self }:
    let
      systems = [
        "aarch64-darwin"
        "x86_64-darwin"
        "aarch64-linux"
        "x86_64-linux"
      ];

      lib = {
        inherit (builtins) concatStringsSep;

        genAttrs =
          names: f:
          builtins.listToAttrs (
            map (name: {
              inherit name;
              value = f name;
            }) names
          );

        importTOML = path: builtins.fromTOML (builtins.readFile path);

        mapAttrsToList = f: attrs: map (name: f name attrs.${name}) (builtins.attrNames attrs);

        # Like nixpkgs, a listed path that does not exist is an error, unless
        # it is wrapped in maybeMissing.
        fileset = {
          maybeMissing = path: if builtins.pathExists path then path else null;
          unions =
            paths:
            map (
              path:
              if path == null || builtins.pathExists path then
                path
              else
                throw "lib.fileset.unions: ${toString path} does not exist (stand-in nixpkgs)"
            ) paths;
          toSource = { root, fileset }: builtins.seq (builtins.deepSeq fileset null) root;
        };

        licenses.mit.spdxId = "MIT";
        platforms.unix = systems;
      };

      fake =
        name: attrs:
        let
          hash = builtins.substring 0 32 (builtins.hashString "sha256" name);
        in
        attrs
        // {
          type = "derivation";
          inherit name;
          outPath = "/nix/store/${hash}-${name}";
        };

      pythonPackage = pname: fake "python3-${pname}" { inherit pname; };

      pkgsFor =
        system:
        let
          pkgs = {
            inherit lib;
            stdenv.hostPlatform.system = system;

            callPackage =
              path: overrides:
              let
                f = import path;
              in
              f (builtins.intersectAttrs (builtins.functionArgs f) pkgs // overrides);

            python3Packages =
              lib.genAttrs [
                "click"
                "hatchling"
                "hypothesis"
                "libtmux"
                "mypy"
                "platformdirs"
                "pytest"
                "pytest-xdist"
                "pytestCheckHook"
                "textual"
                "tomlkit"
              ] pythonPackage
              // {
                buildPythonApplication =
                  args: fake "${args.pname}-${args.version}" { inherit args; };
              };

            python3.withPackages =
              select: fake "python3-env" { packages = select pkgs.python3Packages; };

            mkShell = args: fake "nix-shell" { inherit args; };

            runCommand =
              name: env: script:
              fake name { inherit env script; };

            ruff = fake "ruff" { };
            tmux = fake "tmux" { };
            just = fake "just" { };
            jq = fake "jq" { };
          };
        in
        pkgs;
    in
    {
      inherit lib;
      legacyPackages = lib.genAttrs systems pkgsFor;
    };
}
