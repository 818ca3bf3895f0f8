//! The Content-Security-Policy for the served console, derived from the built `index.html`.
//!
//! trunk's loader is an inline module script, so the policy allows exactly that script by its
//! SHA-256 hash (recomputed from the file being served, so it always matches the build) plus
//! scripts from the console's own origin and wasm compilation. Workers (the bulk worker) come
//! from the console's own origin only.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// `'sha256-…'` sources for every inline `<script>` in `html`.
pub fn inline_script_hashes(html: &str) -> Vec<String> {
    let mut hashes = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let after_tag = &rest[start..];
        let Some(open_end) = after_tag.find('>') else {
            break;
        };
        let tag = &after_tag[..open_end];
        let body_start = open_end + 1;
        let Some(close) = after_tag[body_start..].find("</script>") else {
            break;
        };
        let body = &after_tag[body_start..body_start + close];
        if !tag.contains(" src=") && !body.trim().is_empty() {
            hashes.push(format!(
                "'sha256-{}'",
                STANDARD.encode(Sha256::digest(body.as_bytes()))
            ));
        }
        rest = &after_tag[body_start + close..];
    }
    hashes
}

/// The policy: scripts from self, wasm, and the loader's hash; requests to self and the given
/// API origins; workers from self; no framing, no `<base>`, no plugins.
pub fn content_security_policy(index_html: &str, connect_src: &[String]) -> String {
    let scripts = inline_script_hashes(index_html).join(" ");
    let connect = std::iter::once("'self'".to_owned())
        .chain(connect_src.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {scripts}; style-src 'self'; \
         img-src 'self' data:; connect-src {connect}; worker-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
         object-src 'none'; form-action 'self'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_inline_scripts_only() {
        let html = r#"<head><script type=module>import init from '/a.js';</script><script src="/x.js"></script></head>"#;
        let hashes = inline_script_hashes(html);
        assert_eq!(hashes.len(), 1);
        let expected = STANDARD.encode(Sha256::digest(b"import init from '/a.js';"));
        assert_eq!(hashes[0], format!("'sha256-{expected}'"));
    }

    #[test]
    fn the_policy_has_every_directive_the_console_needs() {
        let csp =
            content_security_policy("<script>x</script>", &["https://api.example.com".into()]);
        for directive in [
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-",
            "connect-src 'self' https://api.example.com",
            // The bulk worker (src/runner.rs), from the console's own files only.
            "worker-src 'self';",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "object-src 'none'",
        ] {
            assert!(csp.contains(directive), "{directive} in {csp}");
        }
        assert!(!csp.contains("unsafe-inline"));
    }
}
