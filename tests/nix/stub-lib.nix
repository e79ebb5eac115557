# A stand-in for the part of nixpkgs `lib` that nix/home-manager.nix and the
# module tests use. It lets the module be evaluated where nixpkgs cannot be
# fetched; it is NOT nixpkgs. Names, signatures and error texts follow nixpkgs
# so that the same module and cases also run against the real `lib` (see
# tests/nix/module-check.nix, run by `nix flake check`). Anything outside this
# subset is missing on purpose: a module using it fails here loudly.
let
  lib = {
    inherit (builtins) elem filter length;

    # --- lists and attribute sets ---

    genAttrs =
      names: f:
      builtins.listToAttrs (
        map (name: {
          inherit name;
          value = f name;
        }) names
      );

    unique = builtins.foldl' (acc: x: if builtins.elem x acc then acc else acc ++ [ x ]) [ ];

    count = pred: list: builtins.length (builtins.filter pred list);

    hasPrefix = prefix: s: builtins.substring 0 (builtins.stringLength prefix) s == prefix;

    # --- module properties ---

    mkIf = condition: content: {
      _type = "if";
      inherit condition content;
    };

    mkMerge = contents: {
      _type = "merge";
      inherit contents;
    };

    literalExpression = text: {
      _type = "literalExpression";
      inherit text;
    };

    # --- options ---

    mkOption =
      attrs:
      attrs
      // {
        _type = "option";
      };

    mkEnableOption =
      name:
      lib.mkOption {
        type = lib.types.bool;
        default = false;
        example = true;
        description = "Whether to enable ${name}.";
      };

    # One definition, or several that agree; what nixpkgs does for scalars.
    mergeEqualOption =
      loc: defs:
      let
        first = builtins.head defs;
      in
      if builtins.all (def: def.value == first.value) defs then
        first.value
      else
        throw "The option `${lib.showOption loc}' has conflicting definition values.";

    showOption = builtins.concatStringsSep ".";

    # --- types: each is { name, description, check, merge } ---

    types =
      let
        mkOptionType =
          {
            name,
            description ? name,
            check,
            merge ? lib.mergeEqualOption,
          }:
          {
            _type = "option-type";
            inherit
              name
              description
              check
              merge
              ;
          };
        types = lib.types;
      in
      {
        inherit mkOptionType;

        bool = mkOptionType {
          name = "bool";
          description = "boolean";
          check = builtins.isBool;
        };

        str = mkOptionType {
          name = "str";
          description = "string";
          check = builtins.isString;
        };

        int = mkOptionType {
          name = "int";
          description = "signed integer";
          check = builtins.isInt;
        };

        ints.positive = types.addCheck types.int (x: x > 0) // {
          name = "positiveInt";
          description = "positive integer, meaning >0";
        };

        attrs = mkOptionType {
          name = "attrs";
          description = "attribute set";
          check = builtins.isAttrs;
          merge = loc: defs: builtins.foldl' (acc: def: acc // def.value) { } defs;
        };

        package = mkOptionType {
          name = "package";
          check = x: builtins.isAttrs x && (x.type or null) == "derivation";
        };

        addCheck =
          elemType: extra:
          elemType
          // {
            check = x: elemType.check x && extra x;
          };

        nullOr =
          elemType:
          mkOptionType {
            name = "nullOr";
            description = "null or ${elemType.description}";
            check = x: x == null || elemType.check x;
            merge =
              loc: defs:
              let
                nulls = builtins.filter (def: def.value == null) defs;
              in
              if builtins.length nulls == builtins.length defs then
                null
              else if nulls == [ ] then
                elemType.merge loc defs
              else
                throw "The option `${lib.showOption loc}' is defined both null and not null.";
          };

        listOf =
          elemType:
          mkOptionType {
            name = "listOf";
            description = "list of ${elemType.description}";
            check = builtins.isList;
            merge =
              loc: defs:
              builtins.concatMap (
                def:
                map (
                  x:
                  if elemType.check x then
                    x
                  else
                    throw "A definition for option `${lib.showOption loc}' has an element that is not of type `${elemType.description}'."
                ) def.value
              ) defs;
          };

        attrsOf =
          elemType:
          mkOptionType {
            name = "attrsOf";
            description = "attribute set of ${elemType.description}";
            check = builtins.isAttrs;
            merge =
              loc: defs:
              builtins.mapAttrs (
                name: values:
                let
                  elemDefs = map (value: { inherit value; }) values;
                  elemLoc = loc ++ [ name ];
                in
                if builtins.all (def: elemType.check def.value) elemDefs then
                  elemType.merge elemLoc elemDefs
                else
                  throw "A definition for option `${lib.showOption elemLoc}' is not of type `${elemType.description}'."
              ) (builtins.zipAttrsWith (_: values: values) (map (def: def.value) defs));
          };
      };

    evalModules = import ./eval-module.nix { inherit lib; };
  };
in
lib
