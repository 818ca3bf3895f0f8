//! The linker of the console's release build (scripts/build-console.sh passes it to rustc with
//! `-C linker=`). It runs the linker with rustc's arguments, as rustc would, and then, when
//! `CONSOLE_SPLIT_DIR` is set and the linked module has split points (src/pages/lazy.rs), cuts
//! the module with `wasm_split_cli_support` (the splitter behind cargo-leptos's `--split`):
//!
//! - the main module replaces the linked file, so trunk hands it to wasm-bindgen as usual;
//! - the chunks and their loader, `__wasm_split.js`, go to `CONSOLE_SPLIT_DIR`, with a copy of
//!   the main module (`main.wasm`) by which `cargo xtask finish-dist` (crates/xtask) checks that the chunks
//!   belong to the module trunk bound, before it puts them into dist/.
//!
//! The split has to happen here, between the link and wasm-bindgen: it needs the relocations
//! the link keeps (`-C link-arg=--emit-relocs`), which wasm-bindgen would drop.
//!
//! Only the console's own module is split. The crate's other binary, the bulk worker
//! (`src/bin/bulk-worker.rs`), links the same library, whose split points are exported symbols;
//! exports are roots for the linker, so they would keep every page in the worker. Linking any
//! module but the console's ([`SPLIT_BINARY`]), those exports are dropped from the arguments, and
//! the linker leaves the pages out; so is `--emit-relocs`, whose sections only the split reads
//! (they would more than double the worker's module).
//!
//! One change to the main module: the chunks call into it through its function table, which
//! the loader takes from the main module's exports, but wasm-bindgen removes the exports LLD
//! makes (`__indirect_function_table` among them) unless told `--keep-lld-exports`, which trunk
//! cannot pass. The table is exported under [`TABLE_EXPORT`] instead, a name wasm-bindgen
//! keeps, and the loader reads it from there (`xtask finish-dist` rewrites that line).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::{env, fs};

use wasm_encoder::reencode::{Reencode, RoundtripReencoder};

/// The name the main module exports its function table under.
pub const TABLE_EXPORT: &str = "__wasm_split_table";
/// The binary whose module is split (rustc names its output `console-{hash}.wasm`).
const SPLIT_BINARY: &str = "console";
/// The prefixes of the symbols the split points export (wasm_split's macro and marker).
const SPLIT_EXPORTS: [&str; 2] = ["__wasm_split_00", "_WASM_SPLIT_MARKER"];

/// The module name the loader imports the glue's `initSync` from; `xtask finish-dist` rewrites it.
const GLUE: &str = "./console.js";

fn main() -> ExitCode {
    let mut args: Vec<OsString> = env::args_os().skip(1).collect();
    let splits = output_path(&args).is_some_and(|output| is_split_binary(&output));
    if !splits {
        args = without_split_exports(&args);
    }
    if let Err(code) = link(&args) {
        return code;
    }
    if !splits {
        return ExitCode::SUCCESS;
    }
    let Some(split_dir) = env::var_os("CONSOLE_SPLIT_DIR").map(PathBuf::from) else {
        return ExitCode::SUCCESS;
    };
    let Some(output) = output_path(&args) else {
        return ExitCode::SUCCESS;
    };
    if output.extension().is_none_or(|ext| ext != "wasm") {
        return ExitCode::SUCCESS;
    }
    match split(&output, &split_dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("wasm-split-link: {}: {message}", output.display());
            ExitCode::FAILURE
        }
    }
}

/// Runs the linker rustc would: `rust-lld` (rustc puts its own on the PATH it gives the
/// linker), else LLVM's `wasm-ld` (Debian's `lld-22`), which takes the same arguments but for
/// the `-flavor wasm` that selects it in `rust-lld`. `CONSOLE_SPLIT_LINKER` names another.
fn link(args: &[OsString]) -> Result<(), ExitCode> {
    let candidates: Vec<(OsString, Vec<OsString>)> = match env::var_os("CONSOLE_SPLIT_LINKER") {
        Some(linker) => vec![(linker, args.to_vec())],
        None => vec![
            ("rust-lld".into(), args.to_vec()),
            ("wasm-ld".into(), without_flavor(args)),
            ("wasm-ld-22".into(), without_flavor(args)),
        ],
    };
    for (linker, linker_args) in &candidates {
        match Command::new(linker).args(linker_args).status() {
            Ok(status) if status.success() => return Ok(()),
            Ok(status) => {
                return Err(ExitCode::from(
                    status.code().unwrap_or(1).clamp(1, 255) as u8
                ));
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => {
                eprintln!(
                    "wasm-split-link: cannot run {}: {err}",
                    linker.to_string_lossy()
                );
                return Err(ExitCode::FAILURE);
            }
        }
    }
    let tried: Vec<_> = candidates
        .iter()
        .map(|(l, _)| l.to_string_lossy())
        .collect();
    eprintln!(
        "wasm-split-link: no linker found (tried {})",
        tried.join(", ")
    );
    Err(ExitCode::FAILURE)
}

/// rustc's arguments for `rust-lld`, without the `-flavor wasm` that only `rust-lld` takes.
fn without_flavor(args: &[OsString]) -> Vec<OsString> {
    let mut rest = args.to_vec();
    if let Some(at) = rest
        .windows(2)
        .position(|w| w[0] == "-flavor" && w[1] == "wasm")
    {
        rest.drain(at..at + 2);
    }
    rest
}

/// Whether `output` is the console's module (`deps/console-{hash}.wasm`), the one split.
fn is_split_binary(output: &Path) -> bool {
    output
        .file_stem()
        .and_then(|stem| stem.to_str())
        .is_some_and(|stem| stem.split_once('-').map_or(stem, |(name, _)| name) == SPLIT_BINARY)
}

/// rustc's arguments for a module that is not split: without the exports of split points
/// (`--export NAME` or `--export=NAME`) and without `--emit-relocs`.
fn without_split_exports(args: &[OsString]) -> Vec<OsString> {
    let is_split_export = |name: &str| SPLIT_EXPORTS.iter().any(|p| name.starts_with(p));
    let mut kept = Vec::with_capacity(args.len());
    let mut iter = args.iter().peekable();
    while let Some(arg) = iter.next() {
        let text = arg.to_string_lossy();
        if text == "--export"
            && iter
                .peek()
                .is_some_and(|name| is_split_export(&name.to_string_lossy()))
        {
            iter.next();
            continue;
        }
        if text == "--emit-relocs" || text.strip_prefix("--export=").is_some_and(is_split_export) {
            continue;
        }
        kept.push(arg.clone());
    }
    kept
}

/// The file after `-o`.
fn output_path(args: &[OsString]) -> Option<PathBuf> {
    let at = args.iter().position(|arg| arg == "-o")?;
    args.get(at + 1).map(PathBuf::from)
}

/// Cuts `linked` at its split points, if it has any (a module without them is left as linked).
fn split(linked: &Path, split_dir: &Path) -> Result<(), String> {
    let input = fs::read(linked).map_err(|e| format!("cannot read: {e}"))?;
    if !input.windows(15).any(|w| w == b"__wasm_split_00") {
        return Ok(());
    }
    let work = linked.with_extension("split");
    let _ = fs::remove_dir_all(&work);
    let main_path = work.join("main.wasm");
    let mut options = wasm_split_cli_support::Options::new(&input);
    options.output_dir = &work;
    options.main_out_path = &main_path;
    options.main_module = GLUE;
    options.target.web();
    let result = wasm_split_cli_support::transform(options).map_err(|e| format!("split: {e:?}"))?;
    if result.split_modules.is_empty() {
        return Err("split points found but no chunk written".into());
    }

    let main = fs::read(&main_path).map_err(|e| format!("cannot read the main module: {e}"))?;
    let main = rename_export(&main, "__indirect_function_table", TABLE_EXPORT)?;
    fs::write(&main_path, &main).map_err(|e| format!("cannot write the main module: {e}"))?;
    let loader = work.join("__wasm_split.js");
    let js = fs::read_to_string(&loader).map_err(|e| format!("cannot read the loader: {e}"))?;
    if !js.contains(&format!("from \"{GLUE}\"")) {
        return Err(format!("the loader does not import {GLUE}"));
    }

    // The chunks replace the last split whole, never half of it.
    if split_dir.exists() {
        fs::remove_dir_all(split_dir)
            .map_err(|e| format!("cannot clear {}: {e}", split_dir.display()))?;
    }
    if let Some(parent) = split_dir.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    fs::write(linked, &main).map_err(|e| format!("cannot write: {e}"))?;
    fs::rename(&work, split_dir)
        .map_err(|e| format!("cannot move the chunks to {}: {e}", split_dir.display()))?;
    Ok(())
}

/// `module` with the export named `from` renamed to `to`; exactly one must exist.
fn rename_export(module: &[u8], from: &str, to: &str) -> Result<Vec<u8>, String> {
    let mut out = wasm_encoder::Module::new();
    let mut renamed = 0;
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload.map_err(|e| format!("invalid module: {e}"))?;
        if let wasmparser::Payload::ExportSection(reader) = &payload {
            let mut exports = wasm_encoder::ExportSection::new();
            for export in reader.clone() {
                let export = export.map_err(|e| format!("invalid export: {e}"))?;
                let name = if export.name == from {
                    renamed += 1;
                    to
                } else {
                    export.name
                };
                exports.export(
                    name,
                    RoundtripReencoder
                        .export_kind(export.kind)
                        .map_err(|e| format!("{e:?}"))?,
                    export.index,
                );
            }
            out.section(&exports);
        } else if let Some((id, range)) = payload.as_section() {
            let range = range.start as usize..range.end as usize;
            out.section(&wasm_encoder::RawSection {
                id,
                data: &module[range],
            });
        }
    }
    match renamed {
        1 => Ok(out.finish()),
        n => Err(format!("expected one export {from}, found {n}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with a table, a memory and a function, each exported.
    fn module() -> Vec<u8> {
        let mut m = wasm_encoder::Module::new();
        let mut types = wasm_encoder::TypeSection::new();
        types.ty().function([], []);
        m.section(&types);
        let mut funcs = wasm_encoder::FunctionSection::new();
        funcs.function(0);
        m.section(&funcs);
        let mut tables = wasm_encoder::TableSection::new();
        tables.table(wasm_encoder::TableType {
            element_type: wasm_encoder::RefType::FUNCREF,
            minimum: 1,
            maximum: None,
            table64: false,
            shared: false,
        });
        m.section(&tables);
        let mut memories = wasm_encoder::MemorySection::new();
        memories.memory(wasm_encoder::MemoryType {
            minimum: 1,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        m.section(&memories);
        let mut exports = wasm_encoder::ExportSection::new();
        exports.export(
            "__indirect_function_table",
            wasm_encoder::ExportKind::Table,
            0,
        );
        exports.export("memory", wasm_encoder::ExportKind::Memory, 0);
        exports.export("run", wasm_encoder::ExportKind::Func, 0);
        m.section(&exports);
        let mut code = wasm_encoder::CodeSection::new();
        let mut body = wasm_encoder::Function::new([]);
        body.instructions().end();
        code.function(&body);
        m.section(&code);
        m.section(&wasm_encoder::CustomSection {
            name: "note".into(),
            data: b"kept".into(),
        });
        m.finish()
    }

    fn exports(module: &[u8]) -> Vec<(String, wasmparser::ExternalKind)> {
        wasmparser::validate(module).expect("a valid module");
        let mut names = vec![];
        for payload in wasmparser::Parser::new(0).parse_all(module) {
            if let wasmparser::Payload::ExportSection(reader) = payload.unwrap() {
                for export in reader {
                    let export = export.unwrap();
                    names.push((export.name.to_string(), export.kind));
                }
            }
        }
        names
    }

    #[test]
    fn renames_the_table_export_and_keeps_everything_else() {
        let before = module();
        let after = rename_export(&before, "__indirect_function_table", TABLE_EXPORT).unwrap();
        use wasmparser::ExternalKind::*;
        assert_eq!(
            exports(&after),
            [
                (TABLE_EXPORT.to_string(), Table),
                ("memory".to_string(), Memory),
                ("run".to_string(), Func)
            ]
        );
        assert!(
            after.windows(4).any(|w| w == b"kept"),
            "custom sections stay"
        );
        assert_eq!(
            after.len(),
            before.len() + TABLE_EXPORT.len() - "__indirect_function_table".len()
        );
    }

    #[test]
    fn refuses_a_module_without_the_export() {
        let renamed = rename_export(&module(), "__indirect_function_table", TABLE_EXPORT).unwrap();
        let err = rename_export(&renamed, "__indirect_function_table", TABLE_EXPORT).unwrap_err();
        assert!(err.contains("found 0"), "{err}");
    }

    #[test]
    fn finds_the_output_and_the_arguments_for_wasm_ld() {
        let args: Vec<OsString> = [
            "-flavor",
            "wasm",
            "x.o",
            "-o",
            "out/console.wasm",
            "--gc-sections",
        ]
        .map(OsString::from)
        .into();
        assert_eq!(output_path(&args), Some(PathBuf::from("out/console.wasm")));
        assert_eq!(output_path(&[OsString::from("-o")]), None);
        let for_wasm_ld: Vec<OsString> = ["x.o", "-o", "out/console.wasm", "--gc-sections"]
            .map(OsString::from)
            .into();
        assert_eq!(without_flavor(&args), for_wasm_ld);
        assert_eq!(without_flavor(&for_wasm_ld), for_wasm_ld);
    }

    #[test]
    fn only_the_consoles_module_keeps_the_split_exports() {
        assert!(is_split_binary(Path::new(
            "deps/console-c14314f7d39c4f12.wasm"
        )));
        assert!(is_split_binary(Path::new("release/console.wasm")));
        assert!(!is_split_binary(Path::new(
            "deps/bulk_worker-c14314f7d39c4f12.wasm"
        )));
        let args: Vec<OsString> = [
            "--export",
            "main",
            "--export",
            "__wasm_split_00pages00_export_d645_build_page",
            "--export=_WASM_SPLIT_MARKER_732eversion",
            "--export=__heap_base",
            "-o",
            "deps/bulk_worker-1.wasm",
            "--emit-relocs",
        ]
        .map(OsString::from)
        .into();
        let kept: Vec<OsString> = [
            "--export",
            "main",
            "--export=__heap_base",
            "-o",
            "deps/bulk_worker-1.wasm",
        ]
        .map(OsString::from)
        .into();
        assert_eq!(without_split_exports(&args), kept);
    }
}
