//! The sign-ins of one tab: a person may be signed in to several workspaces (or environments)
//! at once and switch between them from the header. One of them, or none, is in use; the others
//! wait, each with its own credential, request log and bulk batch.
//!
//! Generic over what a sign-in holds (`state::session::SignedIn`, with its credential), so the
//! rules are tested here without a browser. [`KeptSignIns`] is what a tab keeps of the sign-ins
//! the person chose to keep in it (sessionStorage, never localStorage).

use serde::{Deserialize, Serialize};

/// How many sign-ins one tab holds: an agency's handful of workspaces, and a bound on memory.
pub const SIGN_INS_AT_MOST: usize = 8;

/// A sign-in's handle in this tab, stable while the tab lives (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SignInId(pub u32);

/// The workspace a sign-in reached, once its `GET /v1/workspace` answered: what the header's
/// list names it by, and what a bulk batch finds its credential by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenWorkspace {
    pub id: String,
    pub name: String,
}

/// One sign-in of the tab.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry<T> {
    pub id: SignInId,
    pub value: T,
    /// Its workspace, once known.
    pub workspace: Option<SeenWorkspace>,
}

/// The tab's sign-ins, in the order they were made, and the one in use.
#[derive(Clone, Debug, PartialEq)]
pub struct SignIns<T> {
    entries: Vec<Entry<T>>,
    current: Option<SignInId>,
    next_id: u32,
}

impl<T> Default for SignIns<T> {
    fn default() -> Self {
        SignIns {
            entries: Vec::new(),
            current: None,
            next_id: 1,
        }
    }
}

/// Why a sign-in was not added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddRefused {
    /// The tab holds [`SIGN_INS_AT_MOST`] already.
    Full,
}

impl AddRefused {
    pub fn sentence(self) -> String {
        match self {
            AddRefused::Full => format!(
                "This tab is signed in to {SIGN_INS_AT_MOST} workspaces already: sign out of one \
                 (Sign out… in the header) before adding another."
            ),
        }
    }
}

impl<T> SignIns<T> {
    /// Adds `value` and puts it in use. A sign-in that `same` recognises (the same credential
    /// for the same API) is replaced rather than listed twice, and keeps its id.
    pub fn add(&mut self, value: T, same: impl Fn(&T) -> bool) -> Result<SignInId, AddRefused> {
        if let Some(entry) = self.entries.iter_mut().find(|e| same(&e.value)) {
            entry.value = value;
            self.current = Some(entry.id);
            return Ok(entry.id);
        }
        if self.entries.len() >= SIGN_INS_AT_MOST {
            return Err(AddRefused::Full);
        }
        let id = SignInId(self.next_id);
        self.next_id += 1;
        self.entries.push(Entry {
            id,
            value,
            workspace: None,
        });
        self.current = Some(id);
        Ok(id)
    }

    /// Puts the sign-in `id` in use; `false` if the tab has no such sign-in.
    pub fn switch_to(&mut self, id: SignInId) -> bool {
        let known = self.get(id).is_some();
        if known {
            self.current = Some(id);
        }
        known
    }

    /// Removes the sign-in `id` (signed out, or refused by the API). When it was in use, none is
    /// in use afterwards: the person chooses the next one, so no page spends in a workspace
    /// they did not pick.
    pub fn remove(&mut self, id: SignInId) -> Option<T> {
        let at = self.entries.iter().position(|e| e.id == id)?;
        if self.current == Some(id) {
            self.current = None;
        }
        Some(self.entries.remove(at).value)
    }

    /// Leaves every sign-in waiting, none in use (a reload whose sign-in in use was not kept).
    pub fn put_all_aside(&mut self) {
        self.current = None;
    }

    pub fn current(&self) -> Option<&Entry<T>> {
        self.current
            .and_then(|id| self.entries.iter().find(|e| e.id == id))
    }

    pub fn current_id(&self) -> Option<SignInId> {
        self.current
    }

    pub fn get(&self, id: SignInId) -> Option<&T> {
        self.entries.iter().find(|e| e.id == id).map(|e| &e.value)
    }

    /// Notes the workspace the sign-in `id` reached; `false` when that changes nothing (known
    /// already, or no such sign-in).
    pub fn saw_workspace(&mut self, id: SignInId, workspace: SeenWorkspace) -> bool {
        match self.entries.iter_mut().find(|e| e.id == id) {
            Some(entry) if entry.workspace.as_ref() != Some(&workspace) => {
                entry.workspace = Some(workspace);
                true
            }
            _ => false,
        }
    }

    pub fn workspace_of(&self, id: SignInId) -> Option<&SeenWorkspace> {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .and_then(|e| e.workspace.as_ref())
    }

    /// A sign-in that reached the workspace `workspace`: `preferred` if it did, else the first.
    pub fn reaching(&self, workspace: &str, preferred: Option<SignInId>) -> Option<SignInId> {
        let reaches = |id: &SignInId| self.workspace_of(*id).is_some_and(|w| w.id == workspace);
        preferred
            .filter(reaches)
            .or_else(|| self.entries.iter().map(|e| e.id).find(reaches))
    }

    /// Every sign-in, in the order they were made.
    pub fn entries(&self) -> &[Entry<T>] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One sign-in kept in the tab's storage: where and with what.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptSignIn {
    pub base_url: String,
    pub bearer: String,
}

impl std::fmt::Debug for KeptSignIn {
    // The bearer is a secret: it never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptSignIn")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

/// The sign-ins the person chose to keep in this tab, and which of them was in use.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptSignIns {
    pub sign_ins: Vec<KeptSignIn>,
    /// Index in `sign_ins` of the one in use, if it was kept.
    pub current: Option<usize>,
}

impl KeptSignIns {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What the tab kept, without damaged entries (an empty URL or bearer, a bearer with a line
    /// break, a current index past the list); `None` when nothing usable is left. Also reads the
    /// one-sign-in form ("base URL, newline, bearer") of tabs kept by earlier versions.
    pub fn from_kept(kept: &str) -> Option<KeptSignIns> {
        let parsed = serde_json::from_str::<KeptSignIns>(kept).ok().or_else(|| {
            let (base_url, bearer) = kept.split_once('\n')?;
            Some(KeptSignIns {
                sign_ins: vec![KeptSignIn {
                    base_url: base_url.to_owned(),
                    bearer: bearer.to_owned(),
                }],
                current: Some(0),
            })
        })?;
        let current = parsed.current.and_then(|i| parsed.sign_ins.get(i)).cloned();
        let sign_ins: Vec<KeptSignIn> = parsed
            .sign_ins
            .into_iter()
            .filter(|s| !s.base_url.is_empty() && !s.bearer.is_empty() && !s.bearer.contains('\n'))
            .take(SIGN_INS_AT_MOST)
            .collect();
        let current = current.and_then(|c| sign_ins.iter().position(|s| *s == c));
        (!sign_ins.is_empty()).then_some(KeptSignIns { sign_ins, current })
    }
}

/// Where a page goes when the person switches workspace: the same kind of page, since what the
/// page's URL names (a run, a log entry, runs to compare) belongs to the workspace left, and a
/// list's filters may too. An action's form stays: the catalog is the API's, not a workspace's.
pub fn path_after_switch(path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let mut parts = path.trim_start_matches('/').split('/');
    let first = parts.next().unwrap_or_default();
    let second = parts.next();
    match (first, second) {
        ("actions", Some(action)) if !action.is_empty() => format!("/actions/{action}"),
        (
            "workspace" | "actions" | "runs" | "bulk" | "keys" | "storage" | "credits" | "log"
            | "safeguards",
            _,
        ) => format!("/{first}"),
        _ => "/workspace".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_text(text: &'static str) -> impl Fn(&&'static str) -> bool {
        move |t| *t == text
    }

    #[test]
    fn adding_puts_in_use_and_the_same_credential_is_listed_once() {
        let mut tab = SignIns::default();
        let a = tab.add("a", same_text("a")).unwrap();
        let b = tab.add("b", same_text("b")).unwrap();
        assert_ne!(a, b);
        assert_eq!(tab.current_id(), Some(b));
        assert_eq!(
            tab.add("a", same_text("a")),
            Ok(a),
            "the same sign-in keeps its id"
        );
        assert_eq!(tab.current().map(|e| e.value), Some("a"));
        assert_eq!(tab.entries().len(), 2);
    }

    #[test]
    fn switching_to_a_sign_in_that_is_gone_changes_nothing() {
        let mut tab = SignIns::default();
        let a = tab.add("a", same_text("a")).unwrap();
        let b = tab.add("b", same_text("b")).unwrap();
        assert!(tab.switch_to(a));
        assert_eq!(tab.current_id(), Some(a));
        assert_eq!(tab.remove(b), Some("b"));
        assert!(!tab.switch_to(b));
        assert_eq!(tab.current_id(), Some(a));
    }

    #[test]
    fn removing_the_one_in_use_leaves_none_in_use_and_ids_are_never_reused() {
        let mut tab = SignIns::default();
        let a = tab.add("a", same_text("a")).unwrap();
        let b = tab.add("b", same_text("b")).unwrap();
        assert_eq!(tab.remove(b), Some("b"));
        assert_eq!(tab.current_id(), None, "the person picks the next one");
        assert_eq!(tab.get(a), Some(&"a"));
        let c = tab.add("b", same_text("b")).unwrap();
        assert!(c != a && c != b);
        assert_eq!(tab.remove(SignInId(99)), None);
        tab.put_all_aside();
        assert_eq!(tab.current(), None);
        assert_eq!(tab.entries().len(), 2);
    }

    #[test]
    fn a_workspace_is_reached_preferably_by_the_sign_in_asked_for() {
        let mut tab = SignIns::default();
        let seen = |id: &str| SeenWorkspace {
            id: id.into(),
            name: id.to_uppercase(),
        };
        let a = tab.add("a", same_text("a")).unwrap();
        let b = tab.add("b", same_text("b")).unwrap();
        let a2 = tab.add("a2", same_text("a2")).unwrap();
        assert_eq!(tab.reaching("ws_a", None), None, "nothing seen yet");
        assert!(tab.saw_workspace(a, seen("ws_a")));
        assert!(!tab.saw_workspace(a, seen("ws_a")), "known already");
        assert!(tab.saw_workspace(b, seen("ws_b")));
        assert!(tab.saw_workspace(a2, seen("ws_a")));
        assert!(!tab.saw_workspace(SignInId(99), seen("ws_a")));
        assert_eq!(tab.reaching("ws_a", None), Some(a));
        assert_eq!(tab.reaching("ws_a", Some(a2)), Some(a2));
        assert_eq!(tab.reaching("ws_a", Some(b)), Some(a));
        tab.remove(a);
        assert_eq!(tab.reaching("ws_a", Some(a)), Some(a2));
        assert_eq!(tab.workspace_of(b).map(|w| w.name.as_str()), Some("WS_B"));
    }

    #[test]
    fn a_full_tab_refuses_one_more_but_still_takes_a_sign_in_it_holds() {
        let mut tab = SignIns::default();
        for i in 0..SIGN_INS_AT_MOST {
            tab.add(i, |v| *v == i).unwrap();
        }
        assert_eq!(tab.add(100, |v| *v == 100), Err(AddRefused::Full));
        assert!(tab.add(3, |v| *v == 3).is_ok());
        assert!(AddRefused::Full.sentence().contains("Sign out"));
    }

    #[test]
    fn kept_sign_ins_round_trip_and_drop_damaged_entries() {
        let kept = KeptSignIns {
            sign_ins: vec![
                KeptSignIn {
                    base_url: "http://a".into(),
                    bearer: "sk_a".into(),
                },
                KeptSignIn {
                    base_url: "http://b".into(),
                    bearer: "sk_b".into(),
                },
            ],
            current: Some(1),
        };
        assert_eq!(KeptSignIns::from_kept(&kept.to_json()), Some(kept));

        let damaged = r#"{"sign_ins":[{"base_url":"","bearer":"x"},{"base_url":"http://b","bearer":"sk_b"}],"current":1}"#;
        let read = KeptSignIns::from_kept(damaged).unwrap();
        assert_eq!(read.sign_ins.len(), 1);
        assert_eq!(read.current, Some(0), "the one in use keeps being in use");

        let past_the_end = r#"{"sign_ins":[{"base_url":"http://b","bearer":"sk_b"}],"current":4}"#;
        assert_eq!(KeptSignIns::from_kept(past_the_end).unwrap().current, None);
        for nothing in [
            "",
            "{}",
            r#"{"sign_ins":[],"current":null}"#,
            "no newline",
            "\nsk",
            "http://x\n",
            "http://x\na\nb",
        ] {
            assert_eq!(KeptSignIns::from_kept(nothing), None, "{nothing:?}");
        }
    }

    #[test]
    fn debug_output_never_shows_a_kept_bearer() {
        let kept = KeptSignIns {
            sign_ins: vec![KeptSignIn {
                base_url: "http://a".into(),
                bearer: "sk_secret_value".into(),
            }],
            current: Some(0),
        };
        assert!(!format!("{kept:?}").contains("sk_secret_value"));
    }

    #[test]
    fn a_tab_kept_by_an_earlier_version_is_read() {
        let read = KeptSignIns::from_kept("http://127.0.0.1:8787\nsk_sandbox_x").unwrap();
        assert_eq!(read.sign_ins[0].base_url, "http://127.0.0.1:8787");
        assert_eq!(read.sign_ins[0].bearer, "sk_sandbox_x");
        assert_eq!(read.current, Some(0));
    }

    #[test]
    fn a_switch_leaves_what_belonged_to_the_other_workspace() {
        for (from, to) in [
            ("/runs/run_123", "/runs"),
            ("/runs?status=failed", "/runs"),
            ("/runs/compare?a=1&b=2", "/runs"),
            ("/log/abc", "/log"),
            ("/credits?range=7d", "/credits"),
            ("/actions/web-extract-page", "/actions/web-extract-page"),
            ("/actions/web-extract-page?x=1", "/actions/web-extract-page"),
            ("/actions", "/actions"),
            ("/bulk", "/bulk"),
            ("/keys", "/keys"),
            ("/workspace", "/workspace"),
            ("/", "/workspace"),
            ("/sign-in?next=/runs", "/workspace"),
            ("/nowhere", "/workspace"),
        ] {
            assert_eq!(path_after_switch(from), to, "{from}");
        }
    }
}
