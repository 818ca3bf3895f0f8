//! Who is signed in, and the `ApiClient` for them: a context provided at the root of the app.
//!
//! The credential lives in memory. Only when the person opts in ("keep me signed in in this
//! tab") is it also kept in this tab's sessionStorage, until sign-out or until the API refuses
//! it. It is never written to localStorage, a cookie, a URL or a log.

use leptos::prelude::*;

use crate::api::ApiClient;
use crate::model::credential::{CredentialKind, classify};
use crate::model::request_log::Origin;
use crate::request_log::RequestLogger;

/// A signed-in person's API base URL and bearer credential.
#[derive(Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// Without a trailing slash or `/v1`.
    pub base_url: String,
    bearer: String,
    pub kind: CredentialKind,
    /// The request log of this credential's requests.
    log: RequestLogger,
}

impl std::fmt::Debug for SignedIn {
    // The bearer is a secret: it never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedIn")
            .field("base_url", &self.base_url)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl SignedIn {
    pub fn new(base_url: String, bearer: String) -> Self {
        let kind = classify(&bearer);
        SignedIn {
            base_url,
            bearer,
            kind,
            log: RequestLogger::new(Origin::Page, crate::pages::lazy::keep_log),
        }
    }

    /// A client whose requests go to the request log and that only reports its errors: for
    /// checking a credential before signing in.
    pub fn client(&self) -> ApiClient {
        ApiClient::new(self.base_url.clone(), self.bearer.clone()).on_exchange(self.log.observer())
    }
}

/// The session. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Session {
    current: RwSignal<Option<SignedIn>>,
    /// Whether anyone is signed in: pages and guards follow this, not every session change.
    signed_in: Memo<bool>,
    /// Why the last session ended, shown once on the sign-in page.
    notice: RwSignal<Option<String>>,
}

/// The sessionStorage key of an opted-in credential.
const TAB_STORAGE_KEY: &str = "console.session";

fn tab_storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

/// `base_url` and bearer, one per line, as kept in the tab's storage.
fn encode_kept(base_url: &str, bearer: &str) -> String {
    format!("{base_url}\n{bearer}")
}

/// The opted-in sign-in kept by [`encode_kept`], unless it is damaged.
fn decode_kept(kept: &str) -> Option<SignedIn> {
    let (base_url, bearer) = kept.split_once('\n')?;
    (!base_url.is_empty() && !bearer.is_empty() && !bearer.contains('\n'))
        .then(|| SignedIn::new(base_url.to_owned(), bearer.to_owned()))
}

fn forget_kept() {
    if let Some(storage) = tab_storage() {
        let _ = storage.remove_item(TAB_STORAGE_KEY);
    }
}

impl Session {
    /// The session restored from this tab's storage if the person opted in before a reload,
    /// provided as context.
    pub fn provide() -> Session {
        let kept = tab_storage()
            .and_then(|s| s.get_item(TAB_STORAGE_KEY).ok().flatten())
            .and_then(|kept| decode_kept(&kept));
        let current = RwSignal::new(kept);
        let session = Session {
            current,
            signed_in: Memo::new(move |_| current.with(Option::is_some)),
            notice: RwSignal::new(None),
        };
        provide_context(session);
        session
    }

    /// Whether anyone is signed in; tracked.
    pub fn is_signed_in(&self) -> bool {
        self.signed_in.get()
    }

    /// A client for the signed-in credential whose 401s end this session; tracked, so a
    /// resource that calls it reloads when the session changes.
    pub fn client(&self) -> Option<ApiClient> {
        let session = *self;
        self.current.with(|s| {
            s.as_ref().map(|s| {
                s.client()
                    .on_unauthorized(move |error| session.expire(error.message()))
            })
        })
    }

    /// The credential, for the bulk worker (it reaches the worker by message, and is kept
    /// nowhere); tracked.
    pub fn credential_for_runner(&self) -> Option<crate::runner::Credential> {
        self.current.with(|s| {
            s.as_ref().map(|s| crate::runner::Credential {
                base_url: s.base_url.clone(),
                bearer: s.bearer.clone(),
            })
        })
    }

    /// Like [`Session::client`], without tracking: for event handlers and actions.
    pub fn client_untracked(&self) -> Option<ApiClient> {
        untrack(|| self.client())
    }

    /// Whether the credential in use is the API key with this `prefix` (its secret starts with
    /// it), without the secret leaving the session; untracked.
    pub fn uses_key_with_prefix(&self, prefix: &str) -> bool {
        !prefix.is_empty()
            && self.current.with_untracked(|s| {
                s.as_ref()
                    .is_some_and(|s| !s.kind.is_session() && s.bearer.starts_with(prefix))
            })
    }

    /// The credential's kind (API key or session, with the JWT's claims); tracked.
    pub fn kind(&self) -> Option<CredentialKind> {
        self.current.with(|s| s.as_ref().map(|s| s.kind.clone()))
    }

    /// The API's base URL; tracked.
    pub fn base_url(&self) -> Option<String> {
        self.current
            .with(|s| s.as_ref().map(|s| s.base_url.clone()))
    }

    /// Signs in; with `keep_in_tab` the credential survives a reload of this tab.
    pub fn sign_in(&self, signed_in: SignedIn, keep_in_tab: bool) {
        self.notice.set(None);
        self.close_log();
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
        self.close_log();
        self.current.set(None);
    }

    /// The request log keeps nothing more of this session (not even what waits to be written):
    /// at sign-out, and before forgetting the workspace, so nothing is written after it.
    pub fn close_log(&self) {
        self.current
            .with_untracked(|s| s.as_ref().map(|s| s.log.close()));
    }

    /// Resolves once the request log has finished the writes it had started (after
    /// [`Session::close_log`], before forgetting the workspace).
    pub async fn log_settled(&self) {
        let log = self
            .current
            .with_untracked(|s| s.as_ref().map(|s| s.log.clone()));
        if let Some(log) = log {
            log.settled().await;
        }
    }

    /// Signs out, with a sentence for sign-in to show (what was forgotten).
    pub fn sign_out_saying(&self, notice: String) {
        self.notice.set(Some(notice));
        self.sign_out();
    }

    /// Ends the session because the API refused the credential; sign-in explains why.
    pub fn expire(&self, reason: String) {
        if self.current.with_untracked(Option::is_some) {
            forget_kept();
            self.close_log();
            self.notice.set(Some(reason));
            self.current.set(None);
        }
    }

    /// Why the last session ended, if it was refused or its data forgotten; tracked.
    pub fn notice(&self) -> Option<String> {
        self.notice.get()
    }
}

pub fn use_session() -> Session {
    expect_context::<Session>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_credentials_round_trip_and_reject_damage() {
        let kept = encode_kept("http://127.0.0.1:8787", "sk_sandbox_x");
        let restored = decode_kept(&kept).expect("kept");
        assert_eq!(restored.base_url, "http://127.0.0.1:8787");
        assert_eq!(restored.bearer, "sk_sandbox_x");
        for damaged in ["no newline", "\nsk", "http://x\n", "http://x\na\nb"] {
            assert!(decode_kept(damaged).is_none(), "{damaged:?}");
        }
    }

    #[test]
    fn only_the_api_key_in_use_has_its_prefix() {
        let with = |bearer: &str| {
            let current = RwSignal::new(Some(SignedIn::new("http://x".into(), bearer.into())));
            Session {
                current,
                signed_in: Memo::new(move |_| current.with(Option::is_some)),
                notice: RwSignal::new(None),
            }
        };
        let key = with("sk_sandbox_547cc6d1534c4f87dadf5b42");
        assert!(key.uses_key_with_prefix("sk_sandbox_547cc"));
        assert!(!key.uses_key_with_prefix("sk_sandbox_547cd"));
        assert!(!key.uses_key_with_prefix(""));
        let jwt = with("eyJhbGciOiJub25lIn0.e30.sig");
        assert!(
            !jwt.uses_key_with_prefix("eyJhbGci"),
            "a session is not a key"
        );
    }

    #[test]
    fn debug_output_never_shows_the_bearer() {
        let signed_in = SignedIn::new("http://x".into(), "sk_secret_value".into());
        assert!(!format!("{signed_in:?}").contains("sk_secret_value"));
    }
}
