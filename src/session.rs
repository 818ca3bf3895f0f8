//! Who is signed in, where the API lives, and the rules for sign-in URLs.
//!
//! The credential lives in memory. Only when the person opts in ("keep me signed in in this
//! tab") is it also kept in this tab's sessionStorage, until sign-out or until the API refuses
//! it. It is never written to localStorage, a cookie, a URL or a log.

use leptos::prelude::*;

use crate::credential::{CredentialKind, classify};
use crate::transport::ApiClient;

/// A signed-in person's API base URL and bearer credential.
#[derive(Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// Without a trailing slash or `/v1`.
    pub base_url: String,
    bearer: String,
    pub kind: CredentialKind,
}

impl SignedIn {
    pub fn new(base_url: String, bearer: String) -> Self {
        let kind = classify(&bearer);
        SignedIn {
            base_url,
            bearer,
            kind,
        }
    }
}

/// The session, provided as context at the root of the app. Copy, like the signals inside.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Session {
    current: RwSignal<Option<SignedIn>>,
    /// Why the last session ended, shown once on the sign-in page.
    notice: RwSignal<Option<String>>,
}

/// The sessionStorage key of an opted-in credential.
const TAB_STORAGE_KEY: &str = "console.session";

fn tab_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.session_storage().ok().flatten())
}

/// `base_url` and bearer, one per line, as kept in the tab's storage.
fn encode_kept(base_url: &str, bearer: &str) -> String {
    format!("{base_url}\n{bearer}")
}

fn decode_kept(kept: &str) -> Option<(String, String)> {
    let (base_url, bearer) = kept.split_once('\n')?;
    (!base_url.is_empty() && !bearer.is_empty() && !bearer.contains('\n'))
        .then(|| (base_url.to_owned(), bearer.to_owned()))
}

impl Default for Session {
    fn default() -> Self {
        Session {
            current: RwSignal::new(None),
            notice: RwSignal::new(None),
        }
    }
}

impl Session {
    pub fn is_signed_in(&self) -> bool {
        self.current.with(Option::is_some)
    }

    /// A client for the signed-in credential whose 401s end this session. Tracks the session.
    pub fn client(&self) -> Option<ApiClient> {
        self.current.with(|s| {
            s.as_ref()
                .map(|s| ApiClient::for_session(s.base_url.clone(), s.bearer.clone(), *self))
        })
    }

    /// Like [`Session::client`], without tracking: for tasks that must not restart.
    pub fn client_untracked(&self) -> Option<ApiClient> {
        self.current.with_untracked(|s| {
            s.as_ref()
                .map(|s| ApiClient::for_session(s.base_url.clone(), s.bearer.clone(), *self))
        })
    }

    pub fn kind(&self) -> Option<CredentialKind> {
        self.current.with(|s| s.as_ref().map(|s| s.kind.clone()))
    }

    pub fn base_url(&self) -> Option<String> {
        self.current
            .with(|s| s.as_ref().map(|s| s.base_url.clone()))
    }

    /// A session restored from this tab's storage, if the person opted in before a reload.
    pub fn restored() -> Self {
        let session = Session::default();
        if let Some((base_url, bearer)) = tab_storage()
            .and_then(|s| s.get_item(TAB_STORAGE_KEY).ok().flatten())
            .and_then(|kept| decode_kept(&kept))
        {
            session.current.set(Some(SignedIn::new(base_url, bearer)));
        }
        session
    }

    /// Signs in; with `keep_in_tab` the credential survives a reload of this tab.
    pub fn sign_in(&self, signed_in: SignedIn, keep_in_tab: bool) {
        self.notice.set(None);
        forget_kept();
        if keep_in_tab && let Some(storage) = tab_storage() {
            let _ = storage.set_item(
                TAB_STORAGE_KEY,
                &encode_kept(&signed_in.base_url, &signed_in.bearer),
            );
        }
        self.current.set(Some(signed_in));
    }

    pub fn sign_out(&self) {
        forget_kept();
        self.current.set(None);
    }

    /// Ends the session because the API refused the credential; sign-in explains why.
    pub fn expire(&self, reason: String) {
        if self.current.with_untracked(Option::is_some) {
            forget_kept();
            self.notice.set(Some(reason));
            self.current.set(None);
        }
    }

    pub fn notice(&self) -> Option<String> {
        self.notice.get()
    }
}

fn forget_kept() {
    if let Some(storage) = tab_storage() {
        let _ = storage.remove_item(TAB_STORAGE_KEY);
    }
}

pub fn use_session() -> Session {
    expect_context::<Session>()
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
    if url.chars().any(|c| c.is_whitespace()) || url.contains(['?', '#']) {
        return Err("The base URL may not contain spaces, '?' or '#'".to_owned());
    }
    let trimmed = url.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix("/v1").unwrap_or(trimmed);
    Ok(trimmed.trim_end_matches('/').to_owned())
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

/// The sign-in page's URL that comes back to `next` afterwards.
pub fn sign_in_path(next: &str) -> String {
    if next == "/" || next.starts_with("/sign-in") {
        return "/sign-in".to_owned();
    }
    let mut encoded = String::with_capacity(next.len());
    for b in next.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("/sign-in?next={encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn kept_credentials_round_trip_and_reject_damage() {
        let kept = encode_kept("http://127.0.0.1:8787", "sk_sandbox_x");
        assert_eq!(
            decode_kept(&kept),
            Some(("http://127.0.0.1:8787".into(), "sk_sandbox_x".into()))
        );
        assert_eq!(decode_kept("no newline"), None);
        assert_eq!(decode_kept("\nsk"), None);
        assert_eq!(decode_kept("http://x\n"), None);
        assert_eq!(decode_kept("http://x\na\nb"), None);
    }

    #[test]
    fn sign_in_path_encodes_next() {
        assert_eq!(sign_in_path("/actions"), "/sign-in?next=/actions");
        assert_eq!(
            sign_in_path("/runs?status=failed&action=a b"),
            "/sign-in?next=/runs%3Fstatus%3Dfailed%26action%3Da%20b"
        );
        assert_eq!(sign_in_path("/"), "/sign-in");
    }
}
