//! Short import names for the console's main module.
//!
//! wasm-bindgen names each function the module imports from its glue like
//! `__wbg_appendChild_dbf7ad2f48413560`, once in the module's import section and once as a key
//! of the glue's import object, and the hashes do not compress. Both are renamed to short names
//! (`a`, `b`, …, `ba`, …) and the import module to `m` (measured in docs/performance.md). The
//! module is read with wasmparser and its import section written again with wasm-encoder; every
//! other section is copied as it is. In the glue, each name must occur exactly once, and that
//! as a key (`name:`), or nothing is renamed and the step fails: a glue that changed shape stops the
//! build instead of breaking the console.

use wasm_encoder::{EntityType, ImportSection, Module, RawSection};
use wasmparser::{Parser, Payload, TypeRef};

/// The module the split chunks' loader is imported as (wasm_split_cli_support's default). Its
/// imports keep their names (the loader is not the glue); the module becomes `s`.
pub const SPLIT_LOADER: &str = "./__wasm_split.js";

/// The module and its glue with the short names.
#[derive(Debug)]
pub struct Renamed {
    pub wasm: Vec<u8>,
    pub js: String,
    /// How many imports were renamed.
    pub count: usize,
}

/// The `index`th short name: `a` to `z`, `A` to `Z`, then two letters.
pub fn short_name(index: usize) -> String {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let last = LETTERS[index % LETTERS.len()] as char;
    match index / LETTERS.len() {
        0 => last.to_string(),
        first => format!("{}{last}", LETTERS[first - 1] as char),
    }
}

/// Renames the module's function imports and the matching keys of the glue (see the module's
/// documentation).
pub fn shorten(wasm: &[u8], js: &str) -> Result<Renamed, String> {
    let mut module = Module::new();
    let mut js = js.to_owned();
    let mut glue_module: Option<String> = None;
    let mut count = 0;
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload.map_err(|e| format!("the module does not parse: {e}"))?;
        if let Payload::ImportSection(reader) = &payload {
            let mut section = ImportSection::new();
            for import in reader.clone().into_imports() {
                let import = import.map_err(|e| format!("the import section: {e}"))?;
                let TypeRef::Func(type_index) = import.ty else {
                    return Err(format!(
                        "import {}.{} is not a function",
                        import.module, import.name
                    ));
                };
                let function = EntityType::Function(type_index);
                if import.module == SPLIT_LOADER {
                    section.import("s", import.name, function);
                    continue;
                }
                match &glue_module {
                    None => glue_module = Some(import.module.to_owned()),
                    Some(known) if known != import.module => {
                        return Err(format!(
                            "expected one import module, found {known} and {}",
                            import.module
                        ));
                    }
                    Some(_) => {}
                }
                // Anywhere else in the glue, the old name would be left behind by the rename.
                let uses = js.matches(import.name).count();
                if uses != 1 {
                    return Err(format!(
                        "import {} is in the glue {uses} times, not once as its key",
                        import.name
                    ));
                }
                let renamed = short_name(count);
                js = replace_once(&js, &format!("{}:", import.name), &format!("{renamed}:"))
                    .map_err(|e| format!("import {}: {e}", import.name))?;
                section.import("m", &renamed, function);
                count += 1;
            }
            module.section(&section);
            continue;
        }
        if let Some((id, range)) = payload.as_section() {
            let range = range.start as usize..range.end as usize;
            module.section(&RawSection {
                id,
                data: &wasm[range],
            });
        }
    }
    let Some(glue_module) = glue_module else {
        return Err("the module imports nothing from its glue".to_owned());
    };
    js = replace_once(&js, &format!("\"{glue_module}\""), "\"m\"")
        .map_err(|e| format!("the module name {glue_module}: {e}"))?;
    let loader_key = format!("\"{SPLIT_LOADER}\":");
    if js.contains(&loader_key) {
        js = replace_once(&js, &loader_key, "s:")
            .map_err(|e| format!("the module name {SPLIT_LOADER}: {e}"))?;
    }
    Ok(Renamed {
        wasm: module.finish(),
        js,
        count,
    })
}

/// `text` with `from`, which must occur in it exactly once, replaced by `to`.
pub fn replace_once(text: &str, from: &str, to: &str) -> Result<String, String> {
    match text.matches(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        0 => Err(format!("{from} is not in the text")),
        n => Err(format!("{from} is there {n} times, not once")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_encoder::{
        CodeSection, ExportKind, ExportSection, Function, FunctionSection, Instruction,
        TypeSection, ValType,
    };

    /// A small module as wasm-bindgen leaves it: two imports from the glue's module, one from
    /// the split loader, a function that calls them, a custom section.
    fn module() -> Vec<u8> {
        let mut types = TypeSection::new();
        types.ty().function([ValType::I32], []);
        types.ty().function([], []);
        let mut imports = ImportSection::new();
        imports.import(
            "./console_bg.js",
            "__wbg_log_0123456789abcdef",
            EntityType::Function(0),
        );
        imports.import(
            SPLIT_LOADER,
            "__wasm_split_load_pages",
            EntityType::Function(1),
        );
        imports.import(
            "./console_bg.js",
            "__wbg_alert_fedcba9876543210",
            EntityType::Function(0),
        );
        let mut functions = FunctionSection::new();
        functions.function(1);
        let mut exports = ExportSection::new();
        exports.export("run", ExportKind::Func, 3);
        let mut body = Function::new([]);
        body.instruction(&Instruction::I32Const(7));
        body.instruction(&Instruction::Call(0));
        body.instruction(&Instruction::Call(1));
        body.instruction(&Instruction::I32Const(8));
        body.instruction(&Instruction::Call(2));
        body.instruction(&Instruction::End);
        let mut code = CodeSection::new();
        code.function(&body);
        let mut module = Module::new();
        module
            .section(&types)
            .section(&imports)
            .section(&functions)
            .section(&exports)
            .section(&code)
            .section(&wasm_encoder::CustomSection {
                name: "producers".into(),
                data: b"kept as is".as_slice().into(),
            });
        module.finish()
    }

    const GLUE: &str = r#"const i={"./console_bg.js":{__wbg_log_0123456789abcdef:function(a){console.log(a)},__wbg_alert_fedcba9876543210:function(a){alert(a)}},"./__wasm_split.js":w};"#;

    fn imports_of(wasm: &[u8]) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for payload in Parser::new(0).parse_all(wasm) {
            if let Payload::ImportSection(reader) = payload.unwrap() {
                for import in reader.into_imports() {
                    let import = import.unwrap();
                    found.push((import.module.to_owned(), import.name.to_owned()));
                }
            }
        }
        found
    }

    #[test]
    fn imports_and_glue_keys_get_the_same_short_names() {
        let renamed = shorten(&module(), GLUE).unwrap();
        assert_eq!(renamed.count, 2);
        assert_eq!(
            imports_of(&renamed.wasm),
            [
                ("m".to_owned(), "a".to_owned()),
                ("s".to_owned(), "__wasm_split_load_pages".to_owned()),
                ("m".to_owned(), "b".to_owned()),
            ]
        );
        assert_eq!(
            renamed.js,
            r#"const i={"m":{a:function(a){console.log(a)},b:function(a){alert(a)}},s:w};"#
        );
        // Everything else is as it was: the module still validates, the custom section is kept.
        wasmparser::Validator::new()
            .validate_all(&renamed.wasm)
            .unwrap();
        let before = module();
        assert!(renamed.wasm.len() < before.len());
        assert!(renamed.wasm.windows(10).any(|w| w == b"kept as is"));
    }

    #[test]
    fn a_name_the_glue_does_not_hold_exactly_once_stops_the_step() {
        let twice = GLUE.replace("console.log(a)", "__wbg_log_0123456789abcdef:1");
        let error = shorten(&module(), &twice).unwrap_err();
        assert!(error.contains("2 times"), "{error}");
        // Used elsewhere than as its key: renaming the key alone would break the glue.
        let used = GLUE.replace("console.log(a)", "i.__wbg_log_0123456789abcdef(a)");
        let error = shorten(&module(), &used).unwrap_err();
        assert!(error.contains("2 times"), "{error}");
        let missing = GLUE.replace("__wbg_alert_fedcba9876543210", "__wbg_alert_changed");
        let error = shorten(&module(), &missing).unwrap_err();
        assert!(error.contains("0 times"), "{error}");
    }

    #[test]
    fn short_names_run_through_both_cases_then_two_letters() {
        let names: Vec<String> = [0, 25, 26, 51, 52, 53, 104].map(short_name).into();
        assert_eq!(names, ["a", "z", "A", "Z", "aa", "ab", "ba"]);
    }
}
