//! Who is signed in, and the `ApiClient` for them: a context provided at the root of the app.
//!
//! A tab may be signed in to several workspaces (or environments) at once
//! (`model::sign_ins`): one is in use, and the pages show and spend in its workspace; the
//! others wait, each with its own credential and request log, and a bulk batch of theirs keeps
//! running with its own credential. The header switches between them.
//!
//! Credentials live in memory. Only when the person opts in ("keep me signed in in this tab") is
//! a sign-in also kept in this tab's sessionStorage, until it is signed out or the API refuses
//! it. A credential is never written to localStorage, a cookie, a URL or a log.

use leptos::prelude::*;

use crate::api::ApiClient;
use crate::model::credential::{CredentialKind, classify};
use crate::model::request_log::Origin;
pub use crate::model::sign_ins::SeenWorkspace;
use crate::model::sign_ins::{Entry, KeptSignIn, KeptSignIns, SignInId, SignIns};
use crate::request_log::{Keeper, LOG_NOT_KEPT, RefusalTeller, RequestLogger};
use crate::state::refusals::StoreRefusals;

/// How each sign-in's exchanges are kept in the request log: the app's keeper (it writes from
/// the pages' chunk, so `state` names no page), and where a refused write is told.
#[derive(Clone, Copy)]
pub struct LogKeeping {
    pub keeper: Keeper,
    pub refusals: StoreRefusals,
}

impl LogKeeping {
    /// Tells each write's outcome as the request log's (`LOG_NOT_KEPT`).
    fn teller(self) -> RefusalTeller {
        let refusals = self.refusals;
        std::sync::Arc::new(move |workspace, kept| {
            refusals.record(workspace, LOG_NOT_KEPT, kept);
        })
    }
}

/// A signed-in person's API base URL and bearer credential.
#[derive(Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// Without a trailing slash or `/v1`.
    pub base_url: String,
    bearer: String,
    pub kind: CredentialKind,
    /// The request log of this credential's requests.
    log: RequestLogger,
    /// Kept in this tab's storage (the person opted in), so a reload keeps it.
    keep_in_tab: bool,
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
    /// A credential for the API at `base_url`, whose exchanges `keep_log` keeps in the request
    /// log (the session's: [`Session::new_sign_in`]).
    fn new(base_url: String, bearer: String, keep_log: LogKeeping) -> Self {
        let kind = classify(&bearer);
        SignedIn {
            base_url,
            bearer,
            kind,
            log: RequestLogger::new(Origin::Page, keep_log.keeper).telling(keep_log.teller()),
            keep_in_tab: false,
        }
    }

    /// A client whose requests go to the request log and that only reports its errors: for
    /// checking a credential before signing in.
    pub fn client(&self) -> ApiClient {
        ApiClient::new(self.base_url.clone(), self.bearer.clone()).on_exchange(self.log.observer())
    }

    /// Whether `other` is the same credential for the same API (signing in with it again).
    fn same_credential(&self, other: &SignedIn) -> bool {
        self.base_url == other.base_url && self.bearer == other.bearer
    }
}

/// The sign-in in use.
#[derive(Clone, Debug, PartialEq)]
struct InUse {
    id: SignInId,
    signed_in: SignedIn,
}

/// One of the tab's sign-ins, as the switcher lists it (no credential).
#[derive(Clone, Debug, PartialEq)]
pub struct SignInSummary {
    pub id: SignInId,
    pub base_url: String,
    pub kind: CredentialKind,
    pub in_use: bool,
    pub workspace: Option<SeenWorkspace>,
}

/// The session. `Copy`, like the signals inside.
#[derive(Clone, Copy)]
pub struct Session {
    sign_ins: RwSignal<SignIns<SignedIn>>,
    /// The sign-in in use: pages follow this, not every change of the other sign-ins (nor the
    /// workspace each reached).
    current: Memo<Option<InUse>>,
    /// Whether anyone is signed in (a sign-in is in use): guards follow this.
    signed_in: Memo<bool>,
    /// Why the last sign-in in use ended, shown once on the sign-in page.
    notice: RwSignal<Option<String>>,
    /// Keeps each sign-in's exchanges in the request log: given by the app (the keeper writes
    /// from the pages' chunk), so `state` names no page.
    keep_log: LogKeeping,
}

/// The sessionStorage key of the opted-in sign-ins.
const TAB_STORAGE_KEY: &str = "console.session";

fn tab_storage() -> Option<web_sys::Storage> {
    // Native tests have no browser, so no tab storage.
    if !cfg!(target_arch = "wasm32") {
        return None;
    }
    window().session_storage().ok().flatten()
}

/// The sign-ins kept in this tab's storage, unless there are none or they are damaged.
fn restore_kept(keep_log: LogKeeping) -> SignIns<SignedIn> {
    let mut sign_ins = SignIns::default();
    let Some(kept) = tab_storage()
        .and_then(|s| s.get_item(TAB_STORAGE_KEY).ok().flatten())
        .and_then(|kept| KeptSignIns::from_kept(&kept))
    else {
        return sign_ins;
    };
    let mut in_use = None;
    for (index, KeptSignIn { base_url, bearer }) in kept.sign_ins.into_iter().enumerate() {
        let mut signed_in = SignedIn::new(base_url, bearer, keep_log);
        signed_in.keep_in_tab = true;
        let probe = signed_in.clone();
        if let Ok(id) = sign_ins.add(signed_in, |s| s.same_credential(&probe))
            && kept.current == Some(index)
        {
            in_use = Some(id);
        }
    }
    match in_use {
        Some(id) => {
            sign_ins.switch_to(id);
        }
        // The one in use was not kept: the person picks one of those that were.
        None => sign_ins.put_all_aside(),
    }
    sign_ins
}

/// Writes the opted-in sign-ins to this tab's storage (or removes the key when there are none).
fn keep_in_tab(sign_ins: &SignIns<SignedIn>) {
    let Some(storage) = tab_storage() else {
        return;
    };
    let kept_entries: Vec<&Entry<SignedIn>> = sign_ins
        .entries()
        .iter()
        .filter(|e| e.value.keep_in_tab)
        .collect();
    if kept_entries.is_empty() {
        let _ = storage.remove_item(TAB_STORAGE_KEY);
        return;
    }
    let kept = KeptSignIns {
        current: kept_entries
            .iter()
            .position(|e| Some(e.id) == sign_ins.current_id()),
        sign_ins: kept_entries
            .iter()
            .map(|e| KeptSignIn {
                base_url: e.value.base_url.clone(),
                bearer: e.value.bearer.clone(),
            })
            .collect(),
    };
    let _ = storage.set_item(TAB_STORAGE_KEY, &kept.to_json());
}

impl Session {
    /// The session restored from this tab's storage if the person opted in before a reload,
    /// provided as context. `keep_log` keeps each sign-in's exchanges in the request log.
    pub fn provide(keep_log: LogKeeping) -> Session {
        let session = Session::from_sign_ins(restore_kept(keep_log), keep_log);
        provide_context(session);
        // As the page goes (a reload, a closed tab, a link away), every sign-in's log writes
        // what it heard and has not written yet. Registered for the page's life.
        if cfg!(target_arch = "wasm32") {
            let sign_ins = session.sign_ins;
            window_event_listener(leptos::ev::pagehide, move |_| {
                sign_ins.with_untracked(|sign_ins| {
                    for entry in sign_ins.entries() {
                        entry.value.log.leaving();
                    }
                });
            });
        }
        session
    }

    fn from_sign_ins(sign_ins: SignIns<SignedIn>, keep_log: LogKeeping) -> Session {
        let sign_ins = RwSignal::new(sign_ins);
        let current = Memo::new(move |_| {
            sign_ins.with(|s| {
                s.current().map(|e| InUse {
                    id: e.id,
                    signed_in: e.value.clone(),
                })
            })
        });
        Session {
            sign_ins,
            current,
            signed_in: Memo::new(move |_| current.with(Option::is_some)),
            notice: RwSignal::new(None),
            keep_log,
        }
    }

    /// A credential for the API at `base_url`, not signed in yet (sign-in checks it first),
    /// whose exchanges go to the request log as every sign-in's do.
    pub fn new_sign_in(&self, base_url: String, bearer: String) -> SignedIn {
        SignedIn::new(base_url, bearer, self.keep_log)
    }

    /// Whether a sign-in is in use; tracked.
    pub fn is_signed_in(&self) -> bool {
        self.signed_in.get()
    }

    /// The sign-in in use; tracked (changes only when another is put in use).
    pub fn current_id(&self) -> Option<SignInId> {
        self.current.with(|c| c.as_ref().map(|e| e.id))
    }

    pub fn current_id_untracked(&self) -> Option<SignInId> {
        untrack(|| self.current_id())
    }

    /// A client for the credential in use whose 401s end that sign-in (and only that one, even
    /// if the person has switched since the request left); tracked, so a resource that calls
    /// it reloads when another sign-in is put in use.
    pub fn client(&self) -> Option<ApiClient> {
        let session = *self;
        self.current.with(|c| {
            c.as_ref().map(|entry| {
                let id = entry.id;
                entry
                    .signed_in
                    .client()
                    .on_unauthorized(move |error| session.expire(id, error.message()))
            })
        })
    }

    /// The credential of the sign-in `id`, for the bulk worker (it reaches the worker by
    /// message, and is kept nowhere); tracked.
    pub fn credential_for_runner(&self, id: SignInId) -> Option<crate::runner::Credential> {
        self.sign_ins.with(|s| {
            s.get(id).map(|s| crate::runner::Credential {
                base_url: s.base_url.clone(),
                bearer: s.bearer.clone(),
                sign_in: id.0,
            })
        })
    }

    /// A sign-in to the workspace `workspace`: `preferred` if it is still one, else the first
    /// that reached it; tracked.
    pub fn sign_in_to(&self, workspace: &str, preferred: Option<SignInId>) -> Option<SignInId> {
        self.sign_ins.with(|s| s.reaching(workspace, preferred))
    }

    /// Like [`Session::client`], without tracking: for event handlers and actions.
    pub fn client_untracked(&self) -> Option<ApiClient> {
        untrack(|| self.client())
    }

    /// Whether the credential in use is the API key with this `prefix` (its secret starts with
    /// it), without the secret leaving the session; untracked.
    pub fn uses_key_with_prefix(&self, prefix: &str) -> bool {
        !prefix.is_empty()
            && self.current.with_untracked(|c| {
                c.as_ref().is_some_and(|e| {
                    !e.signed_in.kind.is_session() && e.signed_in.bearer.starts_with(prefix)
                })
            })
    }

    /// The kind of the credential in use (API key or session, with the JWT's claims); tracked.
    pub fn kind(&self) -> Option<CredentialKind> {
        self.current
            .with(|c| c.as_ref().map(|e| e.signed_in.kind.clone()))
    }

    /// The API's base URL of the sign-in in use; tracked.
    pub fn base_url(&self) -> Option<String> {
        self.current
            .with(|c| c.as_ref().map(|e| e.signed_in.base_url.clone()))
    }

    /// Signs in and puts the new sign-in in use, beside those already there (the same
    /// credential for the same API replaces its earlier sign-in). With `keep_in_tab` it
    /// survives a reload of this tab. `Err` with a sentence when the tab holds too many.
    pub fn sign_in(&self, mut signed_in: SignedIn, keep_in_tab: bool) -> Result<SignInId, String> {
        signed_in.keep_in_tab = keep_in_tab;
        let probe = signed_in.clone();
        // The earlier sign-in with this credential logs nothing more: the new one logs now.
        self.sign_ins.with_untracked(|s| {
            if let Some(earlier) = s.entries().iter().find(|e| e.value.same_credential(&probe)) {
                earlier.value.log.close();
            }
        });
        let mut added = Err(String::new());
        self.sign_ins.update(|s| {
            added = s
                .add(signed_in, |s| s.same_credential(&probe))
                .map_err(|refused| refused.sentence());
            if added.is_ok() {
                self::keep_in_tab(s);
            }
        });
        if added.is_ok() {
            self.notice.set(None);
        }
        added
    }

    /// Puts the sign-in `id` in use.
    pub fn switch_to(&self, id: SignInId) {
        if self.current_id_untracked() == Some(id) {
            return;
        }
        self.sign_ins.update(|s| {
            if s.switch_to(id) {
                keep_in_tab(s);
            }
        });
    }

    /// Signs out of the sign-in `id` (the one in use when the person asked), with a sentence
    /// for sign-in to show if given (what was forgotten); the others stay, for the person to
    /// pick from.
    pub fn sign_out_of(&self, id: SignInId, notice: Option<String>) {
        if notice.is_some() {
            self.notice.set(notice);
        }
        self.remove(id);
    }

    /// Forgets the sign-in `id`: its credential, what the tab keeps of it, and its log.
    fn remove(&self, id: SignInId) {
        self.sign_ins.update(|s| {
            if let Some(gone) = s.remove(id) {
                gone.log.close();
            }
            keep_in_tab(s);
        });
    }

    /// The request log keeps nothing more of the sign-in in use (not even what waits to be
    /// written): before forgetting the workspace, so nothing is written after it.
    pub fn close_log(&self) {
        self.current
            .with_untracked(|c| c.as_ref().map(|e| e.signed_in.log.close()));
    }

    /// Resolves once the request log of the sign-in in use has finished the writes it had
    /// started (after [`Session::close_log`], before forgetting the workspace).
    pub async fn log_settled(&self) {
        let log = self
            .current
            .with_untracked(|c| c.as_ref().map(|e| e.signed_in.log.clone()));
        if let Some(log) = log {
            log.settled().await;
        }
    }

    /// Ends the sign-in `id` because the API refused its credential; when it was in use,
    /// sign-in explains why.
    pub fn expire(&self, id: SignInId, reason: String) {
        let exists = self.sign_ins.with_untracked(|s| s.get(id).is_some());
        if !exists {
            return;
        }
        if self.current_id_untracked() == Some(id) {
            // Named, when the tab holds other sign-ins the person may switch to.
            let named = self.sign_ins.with_untracked(|s| {
                s.workspace_of(id)
                    .filter(|_| s.entries().len() > 1)
                    .map(|w| w.name.clone())
            });
            self.notice.set(Some(match named {
                Some(name) => format!("Signed out of {name}. {reason}"),
                None => reason,
            }));
        }
        self.remove(id);
    }

    /// Why the last sign-in in use ended, if it was refused or its data forgotten; tracked.
    pub fn notice(&self) -> Option<String> {
        self.notice.get()
    }

    /// Notes the workspace the sign-in `id` reached (its `GET /v1/workspace` answered).
    pub fn saw_workspace(&self, id: SignInId, workspace: SeenWorkspace) {
        let changes = self
            .sign_ins
            .with_untracked(|s| s.get(id).is_some() && s.workspace_of(id) != Some(&workspace));
        if changes {
            self.sign_ins.update(|s| {
                s.saw_workspace(id, workspace);
            });
        }
    }

    /// The workspace the sign-in in use reached, once known; tracked.
    pub fn current_workspace(&self) -> Option<SeenWorkspace> {
        self.workspace_of(self.current_id()?)
    }

    /// The workspace the sign-in `id` reached, once known; tracked.
    pub fn workspace_of(&self, id: SignInId) -> Option<SeenWorkspace> {
        self.sign_ins.with(|s| s.workspace_of(id).cloned())
    }

    /// The tab's sign-ins, in the order they were made, without their credentials; tracked.
    pub fn summaries(&self) -> Vec<SignInSummary> {
        self.sign_ins.with(|s| {
            s.entries()
                .iter()
                .map(|e| SignInSummary {
                    id: e.id,
                    base_url: e.value.base_url.clone(),
                    kind: e.value.kind.clone(),
                    in_use: Some(e.id) == s.current_id(),
                    workspace: e.workspace.clone(),
                })
                .collect()
        })
    }
}

pub fn use_session() -> Session {
    expect_context::<Session>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::InChunk;
    use crate::model::log_queue::{LogWrite, WriteFound, WriteMode};
    use crate::store::StoreError;

    fn keep_nothing() -> LogKeeping {
        fn keeper(_: LogWrite, _: Origin, _: WriteMode) -> InChunk<Result<WriteFound, StoreError>> {
            Box::pin(async { Ok(WriteFound::Failed) })
        }
        LogKeeping {
            keeper,
            refusals: StoreRefusals::new(),
        }
    }

    fn session_with(bearers: &[&str]) -> Session {
        let mut sign_ins = SignIns::default();
        for bearer in bearers {
            let signed_in = SignedIn::new("http://x".into(), (*bearer).into(), keep_nothing());
            let probe = signed_in.clone();
            sign_ins
                .add(signed_in, |s| s.same_credential(&probe))
                .unwrap();
        }
        Session::from_sign_ins(sign_ins, keep_nothing())
    }

    #[test]
    fn only_the_api_key_in_use_has_its_prefix() {
        let key = session_with(&["sk_sandbox_547cc6d1534c4f87dadf5b42"]);
        assert!(key.uses_key_with_prefix("sk_sandbox_547cc"));
        assert!(!key.uses_key_with_prefix("sk_sandbox_547cd"));
        assert!(!key.uses_key_with_prefix(""));
        let jwt = session_with(&["eyJhbGciOiJub25lIn0.e30.sig"]);
        assert!(
            !jwt.uses_key_with_prefix("eyJhbGci"),
            "a session is not a key"
        );
        let other_in_use = session_with(&["sk_sandbox_547cc6d1534c4f87dadf5b42", "sk_other"]);
        assert!(!other_in_use.uses_key_with_prefix("sk_sandbox_547cc"));
    }

    #[test]
    fn a_batch_finds_a_sign_in_to_its_workspace_and_prefers_its_own() {
        let session = session_with(&["sk_a", "sk_b", "sk_a2"]);
        let ids: Vec<SignInId> = session.summaries().iter().map(|s| s.id).collect();
        let seen = |name: &str| SeenWorkspace {
            id: format!("ws_{name}"),
            name: name.to_owned(),
        };
        assert_eq!(session.sign_in_to("ws_a", None), None, "nothing seen yet");
        session.saw_workspace(ids[0], seen("a"));
        session.saw_workspace(ids[1], seen("b"));
        session.saw_workspace(ids[2], seen("a"));
        assert_eq!(session.sign_in_to("ws_a", None), Some(ids[0]));
        assert_eq!(session.sign_in_to("ws_a", Some(ids[2])), Some(ids[2]));
        assert_eq!(session.sign_in_to("ws_a", Some(ids[1])), Some(ids[0]));
        session.expire(ids[0], "refused".into());
        assert_eq!(session.sign_in_to("ws_a", Some(ids[0])), Some(ids[2]));
        assert_eq!(
            session.notice(),
            None,
            "not the one in use: nothing to explain"
        );
        session.switch_to(ids[2]);
        session.expire(ids[2], "Refused.".into());
        assert_eq!(
            session.notice().as_deref(),
            Some("Signed out of a. Refused.")
        );
        assert_eq!(session.sign_in_to("ws_a", None), None);
        assert!(!session.is_signed_in(), "the person picks the next one");
        assert_eq!(session.summaries().len(), 1);
    }

    #[test]
    fn debug_output_never_shows_the_bearer() {
        let signed_in = SignedIn::new("http://x".into(), "sk_secret_value".into(), keep_nothing());
        assert!(!format!("{signed_in:?}").contains("sk_secret_value"));
    }
}
