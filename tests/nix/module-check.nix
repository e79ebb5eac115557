# checks.<system>.module: the module cases of cases.nix against the real
# nixpkgs lib and lib.evalModules, with Home Manager's options still the
# stand-ins of hm-options.nix. A failing case fails the build and its log
# lists every case.
{
  pkgs,
  self,
}:

let
  inherit (pkgs) lib;
  test = import ./module-test.nix { inherit lib self pkgs; };
  lines = lib.mapAttrsToList (
    name: result: "${if result.ok then "ok  " else "FAIL"}  ${name}: ${result.detail}"
  ) test.results;
  failed = lib.count (result: !result.ok) (builtins.attrValues test.results);
in
pkgs.runCommand "hail-module-test"
  {
    # The report names the package's store path; the test needs it as text,
    # not the package built.
    report = builtins.unsafeDiscardStringContext (lib.concatStringsSep "\n" lines);
    inherit failed;
  }
  ''
    echo "module test (nixpkgs lib, Home Manager option stand-ins)"
    printf '%s\n' "$report"
    if [ "$failed" -ne 0 ]; then
      echo "$failed module case(s) failed" >&2
      exit 1
    fi
    touch "$out"
  ''
