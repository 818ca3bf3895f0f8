//! The console's own URLs: typed builders for links and redirects, and the sign-in rules.
//!
//! `leptos_router` matches these paths (see `app.rs`); building them here keeps every
//! parameter escaped by one encoder, so an id can never escape its path segment or query value.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986's unreserved characters is escaped.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A path inside the console as a query value: `/` may stay, as RFC 3986 allows in a query,
/// which keeps `?next=/runs/…` readable.
const PATH_IN_QUERY: &AsciiSet = &COMPONENT.remove(b'/');

/// Escapes `value` for a path segment or a query value.
pub fn encode(value: &str) -> String {
    utf8_percent_encode(value, COMPONENT).to_string()
}

/// `/runs/{id}`.
pub fn run_path(id: &str) -> String {
    format!("/runs/{}", encode(id))
}

/// `/chains?chain={id}`: a kept chain, shown where it stands without going on.
pub fn chain_path(id: &str) -> String {
    format!("/chains?chain={}", encode(id))
}

/// `/actions/{id}`: an action's submit form.
pub fn action_form_path(id: &str) -> String {
    format!("/actions/{}", encode(id))
}

/// An action's form with fields prefilled from the query, e.g. `?identifier=ACoAA…`.
pub fn action_form_prefilled(id: &str, prefill: &[(&str, &str)]) -> String {
    let query: Vec<String> = prefill
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect();
    if query.is_empty() {
        action_form_path(id)
    } else {
        format!("{}?{}", action_form_path(id), query.join("&"))
    }
}

/// Where to go after sign-in: only a path inside the console, never another site.
pub fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.starts_with("/\\")
                && !path.starts_with("/sign-in") =>
        {
            path.to_owned()
        }
        _ => "/workspace".to_owned(),
    }
}

/// The sign-in page's URL that comes back to `next` (a path with its query) afterwards.
pub fn sign_in_path(next: &str) -> String {
    if next == "/" || next.starts_with("/sign-in") {
        "/sign-in".to_owned()
    } else {
        format!("/sign-in?next={}", utf8_percent_encode(next, PATH_IN_QUERY))
    }
}

/// Normalises what a person typed as the API base URL. Empty means `default_origin`.
/// A trailing `/` or `/v1` is dropped, since every path the console sends starts with `/v1`.
pub fn normalize_base_url(input: &str, default_origin: &str) -> Result<String, String> {
    let input = input.trim();
    let url = if input.is_empty() {
        default_origin
    } else {
        input
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| {
            "Enter an http:// or https:// URL, e.g. https://api.example.com".to_owned()
        })?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err("The URL needs a host, e.g. https://api.example.com".to_owned());
    }
    if url.chars().any(char::is_whitespace) || url.contains(['?', '#']) {
        return Err("The base URL may not contain spaces, '?' or '#'".to_owned());
    }
    let trimmed = url.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix("/v1").unwrap_or(trimmed);
    Ok(trimmed.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_escape_their_path_segment() {
        assert_eq!(run_path("0b7c8a4e-2f59"), "/runs/0b7c8a4e-2f59");
        assert_eq!(run_path("../keys?x#y"), "/runs/..%2Fkeys%3Fx%23y");
        assert_eq!(action_form_path("a b/c"), "/actions/a%20b%2Fc");
        assert_eq!(chain_path("0123abcd"), "/chains?chain=0123abcd");
        assert_eq!(chain_path("x&y=z#w"), "/chains?chain=x%26y%3Dz%23w");
        assert_eq!(encode("ünï"), "%C3%BCn%C3%AF");
    }

    #[test]
    fn prefilled_forms_escape_names_and_values() {
        assert_eq!(
            action_form_prefilled(
                "network-extract-post-likers",
                &[("social_id", "urn:x:1&a=b")]
            ),
            "/actions/network-extract-post-likers?social_id=urn%3Ax%3A1%26a%3Db"
        );
        assert_eq!(action_form_prefilled("x", &[]), "/actions/x");
    }

    #[test]
    fn base_urls_are_normalised() {
        let origin = "http://127.0.0.1:8787";
        assert_eq!(normalize_base_url("", origin).unwrap(), origin);
        assert_eq!(normalize_base_url("  ", origin).unwrap(), origin);
        assert_eq!(
            normalize_base_url("https://api.example.com/v1/", origin).unwrap(),
            "https://api.example.com"
        );
        assert_eq!(
            normalize_base_url("https://example.com/extract/", origin).unwrap(),
            "https://example.com/extract"
        );
        assert!(normalize_base_url("api.example.com", origin).is_err());
        assert!(normalize_base_url("ftp://x", origin).is_err());
        assert!(normalize_base_url("https://", origin).is_err());
        assert!(normalize_base_url("https://a b", origin).is_err());
        assert!(normalize_base_url("https://a/?x", origin).is_err());
    }

    #[test]
    fn next_stays_inside_the_console() {
        assert_eq!(safe_next(Some("/actions?q=x")), "/actions?q=x");
        assert_eq!(safe_next(Some("//evil.example")), "/workspace");
        assert_eq!(safe_next(Some("/\\evil.example")), "/workspace");
        assert_eq!(safe_next(Some("https://evil.example")), "/workspace");
        assert_eq!(safe_next(Some("/sign-in")), "/workspace");
        assert_eq!(safe_next(None), "/workspace");
    }

    #[test]
    fn sign_in_path_encodes_next() {
        assert_eq!(sign_in_path("/actions"), "/sign-in?next=/actions");
        assert_eq!(
            sign_in_path("/runs?status=failed&action=a b"),
            "/sign-in?next=/runs%3Fstatus%3Dfailed%26action%3Da%20b"
        );
        assert_eq!(sign_in_path("/"), "/sign-in");
        assert_eq!(sign_in_path("/sign-in?next=%2Fx"), "/sign-in");
    }
}
