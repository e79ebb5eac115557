{
  description = "hail: messages between coding agents and the person who runs them, on one tmux server or across machines over OpenSSH";

  # No nixConfig substituters: no public binary cache holds this package, so
  # one would only slow every build down and ask users to trust a key.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      inherit (nixpkgs) lib;

      systems = [
        "aarch64-darwin"
        "x86_64-darwin"
        "aarch64-linux"
        "x86_64-linux"
      ];
      forAllSystems = f: lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});

      packageFor = pkgs: self.packages.${pkgs.stdenv.hostPlatform.system}.default;
    in
    {
      packages = forAllSystems (
        pkgs:
        let
          hail = pkgs.callPackage ./nix/package.nix { };
        in
        {
          inherit hail;
          default = hail;
        }
      );

      apps = forAllSystems (
        pkgs:
        let
          hail = {
            type = "app";
            program = "${packageFor pkgs}/bin/hail";
            meta.description = "hail CLI";
          };
        in
        {
          inherit hail;
          default = hail;
        }
      );

      homeManagerModules = {
        hail = import ./nix/home-manager.nix { inherit self; };
        default = self.homeManagerModules.hail;
      };

      # The build runs the unit and CLI tests and the install check. The
      # Home Manager module is tested inside Home Manager by scripts/nix-check.
      checks = forAllSystems (pkgs: {
        package = packageFor pkgs;
      });

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [
            (pkgs.python3.withPackages (ps: [
              ps.click
              ps.libtmux
              ps.platformdirs
              ps.textual
              ps.tomlkit
              ps.pytest
              ps.pytest-xdist
              ps.hypothesis
              ps.mypy
              ps.vulture
            ]))
            pkgs.ruff
            pkgs.tmux
            pkgs.just
            pkgs.jq
          ];
        };
      });

      # The skill's source tree, for configurations that link skills themselves.
      skillsDir = "${self}/skills";
    };
}
