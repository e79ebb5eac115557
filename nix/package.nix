# The hail CLI, built from this tree with the pyproject build backend.
{
  lib,
  python3Packages,
}:

let
  # src/hail/__init__.py is the one source of the version (pyproject.toml reads it too).
  version = import ./version.nix;
in
python3Packages.buildPythonApplication {
  pname = "hail";
  inherit version;
  pyproject = true;

  # Only what the build and the tests read, so that editing CI or Nix files
  # does not rebuild the package.
  src = lib.fileset.toSource {
    root = ../.;
    fileset = lib.fileset.unions [
      ../pyproject.toml
      ../README.md
      # Read by the unit tests: the reference, the layer list, the changelog's version.
      ../docs
      ../DESIGN.md
      ../CHANGELOG.md
      (lib.fileset.maybeMissing ../LICENSE)
      ../bin
      ../src
      ../skills
      ../tests
    ];
  };

  build-system = [ python3Packages.hatchling ];

  # tmux is deliberately neither a dependency nor wrapped onto PATH: a tmux
  # client of another version than the user's running server can fail to talk
  # to it, so hail uses the tmux already on the user's PATH.
  dependencies = with python3Packages; [
    click
    libtmux
    platformdirs
    textual
    tomlkit
  ];

  nativeCheckInputs = with python3Packages; [
    pytestCheckHook
    hypothesis
  ];

  # The unit and CLI tests need no tmux server. The scenarios drive one, the
  # stress tests are long and timing-bound, and the real-client tests need
  # Claude Code and Codex, so none of those run in the sandbox.
  enabledTestPaths = [
    "tests/unit"
    "tests/cli"
  ];
  disabledTestMarks = [
    "tmux"
    "stress"
    "real_clients"
  ];
  # The benchmark drives the development tree's scripts/bench.py, which is not part of the package.
  disabledTestPaths = [ "tests/unit/test_bench_smoke.py" ];

  # pytest runs after the install, so the CLI tests call the installed entry
  # point. HOME is otherwise the sandbox's unwritable placeholder.
  preCheck = ''
    export PATH="$out/bin:$PATH"
    export HOME="$(mktemp -d)"
  '';

  pythonImportsCheck = [ "hail" ];

  # On the installed, wrapped program: what users run, not the source tree.
  postInstallCheck = ''
    actual="$("$out/bin/hail" --version)"
    if [ "$actual" != "hail ${version}" ]; then
      echo "hail --version printed '$actual', expected 'hail ${version}'" >&2
      exit 1
    fi
    "$out/bin/hail" --help >/dev/null
  '';

  meta = {
    description = "Messages between coding agents and the person who runs them, on one tmux server or across machines over OpenSSH";
    license = lib.licenses.mit;
    mainProgram = "hail";
    platforms = lib.platforms.unix;
  };
}
