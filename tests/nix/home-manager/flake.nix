# Home Manager and nixpkgs for tests/nix/test_home_manager.py where the offline snapshots are not
# at hand (GitHub CI): scripts/nix-check evaluates `sources` with hail's flake as the `hail` input,
# so nixpkgs is the one hail's flake.lock pins, and Home Manager the commit of the snapshot.
{
  description = "sources for hail's Home Manager module tests";

  inputs.hail.url = "path:./hail";
  inputs.nixpkgs.follows = "hail/nixpkgs";
  inputs.home-manager = {
    url = "github:nix-community/home-manager/ec1a8fdf74ed3f276148ee106299a2ba0e65d51f";
    inputs.nixpkgs.follows = "nixpkgs";
  };

  outputs =
    { nixpkgs, home-manager, ... }:
    {
      sources = {
        nixpkgs = nixpkgs.outPath;
        homeManager = home-manager.outPath;
      };
    };
}
