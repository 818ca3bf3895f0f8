//! What people typed into action forms, kept across navigation, per workspace: a detour through
//! sign-in (an expired session) or through another workspace loses no input; signing out of a
//! workspace forgets its drafts.

use std::collections::HashMap;

use leptos::prelude::*;

use super::session::Session;
use crate::model::form::Values;
use crate::model::sign_ins::SignInId;

/// One action's unfinished form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// Input fields and the two limits, by name.
    pub values: Values,
    pub live: bool,
    /// The prefill of the form's URL the draft started from (a chained action's link), if
    /// any: the same URL opens the draft again rather than the prefill (presenter mode builds
    /// the page again, and a Back to the page), another prefill starts afresh.
    pub started_from: Values,
}

/// Whose drafts: a workspace's, or, before the sign-in's workspace is known, the sign-in's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum DraftOwner {
    Workspace(String),
    SignIn(SignInId),
}

/// One action's draft of one owner.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct DraftKey {
    owner: DraftOwner,
    action: String,
}

/// Drafts by workspace and action id, provided as context at the root.
#[derive(Clone, Copy)]
pub struct Drafts {
    drafts: StoredValue<HashMap<DraftKey, Draft>>,
    session: Session,
}

impl Drafts {
    pub fn provide(session: Session) {
        provide_context(Drafts {
            drafts: StoredValue::new(HashMap::new()),
            session,
        });
    }

    /// Whose drafts the sign-in `id`'s are: its workspace's once known; untracked.
    fn owner(&self, id: SignInId) -> DraftOwner {
        match untrack(|| self.session.workspace_of(id)) {
            Some(workspace) => DraftOwner::Workspace(workspace.id),
            None => DraftOwner::SignIn(id),
        }
    }

    /// The draft of `action` for the sign-in in use, if any is.
    fn key(&self, action: &str) -> Option<DraftKey> {
        let id = self.session.current_id_untracked()?;
        Some(DraftKey {
            owner: self.owner(id),
            action: action.to_owned(),
        })
    }

    pub fn get(&self, action: &str) -> Option<Draft> {
        let key = self.key(action)?;
        self.drafts.with_value(|drafts| drafts.get(&key).cloned())
    }

    pub fn save(&self, action: &str, draft: Draft) {
        if let Some(key) = self.key(action) {
            self.drafts.update_value(|drafts| {
                drafts.insert(key, draft);
            });
        }
    }

    /// Forgets the drafts of the sign-in `id`'s workspace, and those it kept before its
    /// workspace was known: at its sign-out, before the sign-in is gone.
    pub fn forget_for(&self, id: SignInId) {
        let owners = [self.owner(id), DraftOwner::SignIn(id)];
        self.drafts
            .update_value(|drafts| drafts.retain(|key, _| !owners.contains(&key.owner)));
    }
}

pub fn use_drafts() -> Drafts {
    expect_context::<Drafts>()
}
