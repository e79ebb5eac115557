# Wraps hail's flake for outputs-test.nix; scripts/nix-check copies it to a
# directory of its own as flake.nix, with hail's nixpkgs input overridden by
# the stand-in of stub-nixpkgs.nix.
{
  description = "hail flake outputs test (stand-in nixpkgs, not nixpkgs)";

  inputs.hail.url = "path:./hail";

  outputs =
    { self, hail }:
    {
      failures = import ./outputs-test.nix { inherit hail; };
    };
}
