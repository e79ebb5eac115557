# A stand-in for the nixpkgs package set, NOT nixpkgs: the little of it that Home Manager's module
# set touches when a test reads the files and activation steps of a configuration. Nothing here
# can be built. What the tests read is real text in the Nix store:
# - `formats.<any>.generate name value` writes the JSON of `value` (whatever the format: a test
#   compares values, and Nix can read JSON back), with the type nixpkgs gives JSON values, whose
#   lists concatenate when several modules define them;
# - `writeText`, `writeTextFile` write their text;
# - `runCommand` and `runCommandLocal` stand for a derivation whose output path is the store file
#   holding its build script, so a test can follow a file the script copies (eval.nix).
{
  lib,
  path,
  system ? "x86_64-linux",
}:

let
  fake =
    name: attrs:
    {
      pname = name;
      version = "0";
      meta = { };
      outPath = "/nix/store/${builtins.substring 0 32 (builtins.hashString "sha256" name)}-${name}";
    }
    // attrs
    // {
      type = "derivation";
      inherit name;
    };

  # nixpkgs' JSON value type (pkgs/pkgs-lib/formats.nix).
  jsonValue =
    let
      valueType =
        lib.types.nullOr (
          lib.types.oneOf [
            lib.types.bool
            lib.types.int
            lib.types.float
            lib.types.str
            lib.types.path
            (lib.types.attrsOf valueType)
            (lib.types.listOf valueType)
          ]
        )
        // {
          description = "JSON value";
        };
    in
    valueType;

  format = _settings: {
    type = jsonValue;
    generate = name: value: builtins.toFile name (builtins.toJSON value);
    # What some modules read from a format at declaration time.
    lib = {
      types = lib.genAttrs [ "atom" "value" "section" "primitive" ] (_: jsonValue);
      mkRaw = value: value;
      mkLuaInline = value: value;
    };
  };

  scripted = name: _env: script: fake name { outPath = builtins.toFile name script; };
in
{
  inherit lib path system;
  stdenv = {
    hostPlatform = lib.systems.elaborate system;
    isLinux = true;
    isDarwin = false;
  };

  formats = lib.genAttrs [
    "json"
    "toml"
    "yaml"
    "yaml_1_1"
    "yaml_1_2"
    "ini"
    "iniWithGlobalSection"
    "keyValue"
    "xml"
    "javaProperties"
    "rasi"
  ] (_: format);

  writeText = name: text: builtins.toFile name text;
  writeTextFile =
    {
      name,
      text,
      destination ? "",
      ...
    }:
    if destination == "" then builtins.toFile name text else fake name { inherit text destination; };
  runCommand = scripted;
  runCommandLocal = scripted;

  # The pinned agents (tests/real_clients/versions.json): their modules gate features on versions.
  claude-code = fake "claude-code-2.1.332" {
    pname = "claude-code";
    version = "2.1.332";
  };
  codex = fake "codex-0.171.0" {
    pname = "codex";
    version = "0.171.0";
  };
  opencode = fake "opencode-1.18.33" {
    pname = "opencode";
    version = "1.18.33";
    meta.mainProgram = "opencode";
  };
  glibcLocales = fake "glibc-locales-2.40" { version = "2.40"; };
}
# Packages Home Manager installs by default.
// lib.genAttrs [ "shared-mime-info" "man" ] (name: fake name { })
