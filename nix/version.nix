# hail's version, read from src/hail/__init__.py, the one place it is written. Builtins only, so
# the package, the flake checks and tests/unit/test_version.py can all import it.
let
  lines = builtins.filter builtins.isString (
    builtins.split "\n" (builtins.readFile ../src/hail/__init__.py)
  );
  found = builtins.concatMap (
    line:
    let
      m = builtins.match "__version__ = \"([^\"]+)\"" line;
    in
    if m == null then [ ] else m
  ) lines;
in
if builtins.length found == 1 then
  builtins.head found
else
  throw "src/hail/__init__.py must assign __version__ exactly once, as __version__ = \"x.y.z\""
