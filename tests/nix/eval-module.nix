# A minimal module-system evaluator for the stand-in lib (stub-lib.nix); it is
# NOT nixpkgs' lib.evalModules. It covers what one Home Manager module needs:
# modules as paths, functions or attribute sets; `options`/`config` or the
# config shorthand; options nested in attribute sets; mkIf and mkMerge at any
# depth; defaults; type checks; definitions of undeclared options rejected.
# It throws on what it does not cover (imports, priorities, submodules), so a
# module that needs more fails here instead of passing untested.
{ lib }:
{
  modules,
  specialArgs ? { },
}:

let
  inherit (builtins)
    attrNames
    concatMap
    filter
    head
    isAttrs
    length
    tail
    ;

  isOption = value: isAttrs value && (value._type or null) == "option";
  isProperty = kind: value: isAttrs value && (value._type or null) == kind;

  unsupported =
    what: throw "stand-in evalModules (tests/nix/eval-module.nix) does not support ${what}";

  # Priorities and ordering would need the real merge algorithm.
  rejectPriorities =
    value:
    if isProperty "override" value || isProperty "order" value then
      unsupported "mkOverride/mkDefault/mkOrder"
    else
      value;

  # --- loading ---

  moduleArgs = {
    inherit lib options;
    config = internalConfig;
  }
  // specialArgs;

  load =
    module:
    let
      fromPath = if builtins.isPath module then import module else module;
      raw = if builtins.isFunction fromPath then fromPath moduleArgs else fromPath;
      extra = filter (name: name != "options" && name != "config") (attrNames raw);
    in
    if raw ? imports then
      unsupported "imports"
    else if raw ? options || raw ? config then
      if extra != [ ] then
        unsupported "module attributes ${builtins.toJSON extra}"
      else
        {
          options = raw.options or { };
          config = raw.config or { };
        }
    else
      {
        options = { };
        config = raw;
      };

  loaded = map load modules;
  configs = map (module: module.config) loaded;

  # --- declarations ---

  mergeDeclarations =
    path: trees:
    builtins.zipAttrsWith (
      name: nodes:
      let
        loc = path ++ [ name ];
      in
      if builtins.any isOption nodes then
        if length nodes == 1 then
          head nodes
        else
          unsupported "declaring `${lib.showOption loc}' more than once"
      else
        mergeDeclarations loc nodes
    ) trees;

  options = mergeDeclarations [ ] (map (module: module.options) loaded);

  # --- definitions ---

  # The definitions one config value makes for the option at `path`. mkIf and
  # mkMerge are looked through by attribute name first, and a condition is
  # read only when its content defines `path`: options read by conditions
  # (programs.hail.enable) do not then depend on those conditions.
  definitionsAt =
    path: value:
    let
      checked = rejectPriorities value;
    in
    if isProperty "merge" checked then
      concatMap (definitionsAt path) checked.contents
    else if isProperty "if" checked then
      let
        inner = definitionsAt path checked.content;
      in
      if length inner == 0 then
        [ ]
      else if checked.condition then
        inner
      else
        [ ]
    else if path == [ ] then
      [ checked ]
    else if isAttrs checked && checked ? ${head path} then
      definitionsAt (tail path) checked.${head path}
    else
      [ ];

  showValues =
    defs:
    builtins.concatStringsSep ", " (
      map (
        def:
        if isAttrs def.value || builtins.isFunction def.value then
          "<${builtins.typeOf def.value}>"
        else
          builtins.toJSON def.value
      ) defs
    );

  evalOption =
    path: option:
    let
      defs = map (value: { inherit value; }) (concatMap (definitionsAt path) configs);
      type = option.type or (unsupported "an option without a type (`${lib.showOption path}')");
      invalid = filter (def: !type.check def.value) defs;
    in
    if defs == [ ] then
      option.default or (throw "The option `${lib.showOption path}' is used but not defined.")
    else if invalid != [ ] then
      throw "A definition for option `${lib.showOption path}' is not of type `${type.description}'. Definition values: ${showValues invalid}"
    else
      type.merge path defs;

  buildConfig =
    path: declarations:
    builtins.mapAttrs (
      name: node:
      let
        loc = path ++ [ name ];
      in
      if isOption node then evalOption loc node else buildConfig loc node
    ) declarations;

  internalConfig = buildConfig [ ] options;

  # --- undeclared options ---

  keysOf =
    value:
    if isProperty "merge" value then
      lib.unique (concatMap keysOf value.contents)
    else if isProperty "if" value then
      keysOf value.content
    else if isAttrs value then
      attrNames value
    else
      [ ];

  childrenOf =
    name: value:
    if isProperty "merge" value then
      concatMap (childrenOf name) value.contents
    else if isProperty "if" value then
      childrenOf name value.content
    else if isAttrs value && value ? ${name} then
      [ value.${name} ]
    else
      [ ];

  undeclared =
    path: declarations: values:
    concatMap (
      name:
      let
        loc = path ++ [ name ];
      in
      if !(declarations ? ${name}) then
        [ (lib.showOption loc) ]
      else if isOption declarations.${name} then
        [ ]
      else
        undeclared loc declarations.${name} (concatMap (childrenOf name) values)
    ) (lib.unique (concatMap keysOf values));

  unknown = undeclared [ ] options configs;
in
{
  inherit options;
  config =
    if unknown == [ ] then
      internalConfig
    else
      throw "The option `${head unknown}' does not exist (stand-in evalModules).";
}
