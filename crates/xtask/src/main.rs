//! The workspace's build tasks, run as `cargo xtask <task>` (the alias is in
//! `.cargo/config.toml`) or as `target/debug/xtask <task>` once built.
//!
//! `finish-dist [DIST] [--split DIR --linked FILE]` finishes a release `dist/` after
//! `trunk build --release` (scripts/build-console.sh runs it); see [`finish_dist`].

use std::path::PathBuf;
use std::process::ExitCode;

use xtask::finish_dist::{self, Options};

const USAGE: &str = "usage: xtask finish-dist [DIST] [--split DIR --linked FILE]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("finish-dist") => options(&args[1..]).and_then(|o| finish_dist::run(&o)),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut dist = None;
    let mut split = None;
    let mut linked = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .map(PathBuf::from)
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "--split" => split = Some(value("--split")?),
            "--linked" => linked = Some(value("--linked")?),
            other if other.starts_with("--") => {
                return Err(format!("unknown option {other}\n{USAGE}"));
            }
            other if dist.is_none() => dist = Some(PathBuf::from(other)),
            other => return Err(format!("unexpected argument {other}\n{USAGE}")),
        }
    }
    let split = match (split, linked) {
        (Some(chunks), Some(linked)) => Some(finish_dist::Split { chunks, linked }),
        (None, None) => None,
        _ => return Err("--split and --linked go together".to_owned()),
    };
    Ok(Options {
        dist: dist.unwrap_or_else(|| PathBuf::from("dist")),
        split,
    })
}
