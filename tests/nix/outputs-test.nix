# Checks the shape of hail's flake outputs, evaluated with the stand-in
# nixpkgs of stub-nixpkgs.nix (NOT nixpkgs): what each output is made of,
# not whether it builds. Returns the list of problems; empty means all good.
{ hail }:

let
  systems = [
    "aarch64-darwin"
    "x86_64-darwin"
    "aarch64-linux"
    "x86_64-linux"
  ];
  version = import "${hail}/nix/version.nix";

  expect = what: ok: if ok then [ ] else [ what ];
  names = map (p: p.pname or p.name);
  sort = builtins.sort builtins.lessThan;
  hasAll = wanted: list: builtins.all (x: builtins.elem x list) wanted;

  forSystem =
    system:
    let
      at = what: "${system}: ${what}";
      package = hail.packages.${system}.default;
      args = package.args;
      app = hail.apps.${system}.default;
      shell = hail.devShells.${system}.default.args;
      shellNames = names shell.packages;
      python = builtins.head (builtins.filter (p: p.name == "python3-env") shell.packages);
      checks = hail.checks.${system};
      installCheck = builtins.replaceStrings [ "\n" ] [ " " ] args.postInstallCheck;
    in
    expect (at "packages.hail is packages.default") (hail.packages.${system}.hail == package)
    ++ expect (at "package pname is hail") (args.pname == "hail")
    ++ expect (at "package version is src/hail/__init__.py's ${version}") (args.version == version)
    # Forces the file set, so that a listed file that does not exist fails.
    ++ expect (at "package src is the repository root") (toString args.src == hail.outPath)
    ++ expect (at "package is built with pyproject = true") (args.pyproject or false)
    ++ expect (at "build-system is hatchling") (names args.build-system == [ "hatchling" ])
    ++ expect (at "dependencies are click, libtmux, platformdirs, textual, tomlkit") (
      sort (names args.dependencies) == [
        "click"
        "libtmux"
        "platformdirs"
        "textual"
        "tomlkit"
      ]
    )
    ++ expect (at "tmux is not a dependency nor wrapped") (
      !(builtins.elem "tmux" (names (args.dependencies ++ args.propagatedBuildInputs or [ ])))
      && (args.makeWrapperArgs or [ ]) == [ ]
    )
    ++ expect (at "tests use pytestCheckHook and hypothesis") (
      hasAll [ "pytestCheckHook" "hypothesis" ] (names args.nativeCheckInputs)
    )
    ++ expect (at "tests are tests/unit and tests/cli") (
      args.enabledTestPaths == [
        "tests/unit"
        "tests/cli"
      ]
    )
    ++ expect (at "tmux, stress and real-client tests are deselected") (
      hasAll [ "tmux" "stress" "real_clients" ] args.disabledTestMarks
    )
    ++ expect (at "preCheck puts $out/bin on PATH") (
      builtins.match ".*PATH=\"\\$out/bin:.*" args.preCheck != null
    )
    ++ expect (at "install check runs hail --version and --help") (
      builtins.match ".*--version.*--help.*" installCheck != null
    )
    ++ expect (at "meta.mainProgram is hail") (args.meta.mainProgram == "hail")
    ++ expect (at "apps.default runs <package>/bin/hail") (
      app.type == "app" && app.program == "${package}/bin/hail"
    )
    ++ expect (at "apps.hail is apps.default") (hail.apps.${system}.hail == app)
    ++ expect (at "devShell has ruff, tmux, just, jq") (
      hasAll [ "ruff" "tmux" "just" "jq" ] shellNames
    )
    ++ expect (at "devShell python has the dependencies, pytest with xdist, hypothesis, mypy") (
      hasAll [
        "click"
        "libtmux"
        "platformdirs"
        "textual"
        "tomlkit"
        "pytest"
        "pytest-xdist"
        "hypothesis"
        "mypy"
      ] (names python.packages)
    )
    ++ expect (at "checks.package is the package") (checks.package == package);
in
builtins.concatMap forSystem systems
++ expect "packages cover exactly the four systems" (
  sort (builtins.attrNames hail.packages) == sort systems
)
# Functions do not compare equal in Nix, so both are checked for being one.
++ expect "homeManagerModules.hail and .default are modules" (
  builtins.isFunction hail.homeManagerModules.hail
  && builtins.isFunction hail.homeManagerModules.default
)
++ expect "skillsDir is <flake>/skills" (hail.skillsDir == "${hail}/skills")
