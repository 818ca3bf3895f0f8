//! Precompressed siblings: `name.br` (brotli quality 11) and `name.gz` (gzip level 9) beside every
//! text asset, for servers that send them by `Accept-Encoding` (the sandbox's `--dist`, nginx's
//! `brotli_static`/`gzip_static`): the best ratio at no cost per request.

use std::fs;
use std::io::Write;
use std::path::Path;

use brotli::enc::BrotliEncoderParams;
use brotli::enc::backward_references::BrotliEncoderMode;
use flate2::Compression;
use flate2::write::GzEncoder;

/// The extensions of the files that get siblings.
const TEXT: [&str; 11] = [
    "wasm",
    "js",
    "mjs",
    "css",
    "html",
    "svg",
    "json",
    "txt",
    "xml",
    "map",
    "webmanifest",
];

/// Writes `name.br` and `name.gz` beside every text asset under `dir`, and removes siblings whose
/// asset is gone. A sibling is written only when smaller than the asset, since a server sends it
/// whenever it exists. Compressed files are never compressed again, so a rerun is harmless.
/// Returns how many siblings it wrote.
pub fn precompress(dir: &Path) -> Result<usize, String> {
    let mut written = 0;
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            written += precompress(&path)?;
            continue;
        }
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if extension == "br" || extension == "gz" {
            if !path.with_extension("").exists() {
                fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            continue;
        }
        if !TEXT.contains(&extension) {
            continue;
        }
        let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let siblings = [
            ("br", brotli(&bytes, extension == "wasm")),
            ("gz", gzip(&bytes)),
        ];
        for (suffix, packed) in siblings {
            let mut sibling = path.clone().into_os_string();
            sibling.push(format!(".{suffix}"));
            if packed.len() < bytes.len() {
                fs::write(&sibling, packed).map_err(|e| format!("{sibling:?}: {e}"))?;
                written += 1;
            } else if Path::new(&sibling).exists() {
                fs::remove_file(&sibling).map_err(|e| format!("{sibling:?}: {e}"))?;
            }
        }
    }
    Ok(written)
}

fn brotli(bytes: &[u8], binary: bool) -> Vec<u8> {
    let params = BrotliEncoderParams {
        quality: 11,
        size_hint: bytes.len(),
        mode: if binary {
            BrotliEncoderMode::BROTLI_MODE_GENERIC
        } else {
            BrotliEncoderMode::BROTLI_MODE_TEXT
        },
        ..BrotliEncoderParams::default()
    };
    let mut packed = Vec::new();
    // Reading from and writing to memory cannot fail.
    brotli::BrotliCompress(&mut &bytes[..], &mut packed, &params).expect("brotli in memory");
    packed
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("nested")).unwrap();
        dir
    }

    #[test]
    fn text_assets_get_siblings_that_decode_to_them() {
        let dir = scratch("precompress");
        let script = "function hello(){return 'hello, world'}\n".repeat(200);
        fs::write(dir.join("app.js"), &script).unwrap();
        fs::write(dir.join("nested/style.css"), "a{color:red}\n".repeat(100)).unwrap();
        fs::write(dir.join("tiny.json"), "1").unwrap();
        fs::write(dir.join("photo.png"), vec![7u8; 4000]).unwrap();
        fs::write(dir.join("gone.js.br"), b"stale").unwrap();

        assert_eq!(precompress(&dir).unwrap(), 4);

        let mut unpacked = Vec::new();
        brotli::BrotliDecompress(
            &mut &fs::read(dir.join("app.js.br")).unwrap()[..],
            &mut unpacked,
        )
        .unwrap();
        assert_eq!(unpacked, script.as_bytes());
        let mut text = String::new();
        flate2::read::GzDecoder::new(&fs::read(dir.join("app.js.gz")).unwrap()[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, script);
        assert!(dir.join("nested/style.css.br").exists());
        assert!(
            !dir.join("tiny.json.br").exists(),
            "not smaller, so not written"
        );
        assert!(!dir.join("photo.png.br").exists(), "not a text asset");
        assert!(!dir.join("gone.js.br").exists(), "its asset is gone");

        // A rerun writes the same siblings and compresses none of them again.
        assert_eq!(precompress(&dir).unwrap(), 4);
        assert!(!dir.join("app.js.br.br").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
