//! State pages share across navigation: form drafts (so a detour through sign-in loses no
//! input) and the one workspace loader that every view of the credits reads, so the header and
//! the workspace page never fetch it twice.

use leptos::prelude::*;

use api_contract::{ActionList, Workspace};

use crate::form_model::Values;
use crate::loading::{Loaded, load_api};

/// What a person had typed into an action's form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// Input fields and the limits, by name.
    pub values: Values,
    pub live: bool,
}

#[derive(Clone, Copy)]
pub struct SharedState {
    /// By action id; a few entries at most, so a list (no hasher in the bundle).
    drafts: StoredValue<Vec<(String, Draft)>>,
    workspace_tick: RwSignal<u32>,
    workspace: Loaded<Workspace>,
    workspace_in_flight: StoredValue<bool>,
    /// The action registry, loaded on first use and kept for the session.
    actions: StoredValue<Option<Loaded<ActionList>>>,
    /// The app's owner, so a loader started from a page outlives the page.
    owner: StoredValue<Owner>,
}

impl SharedState {
    /// Needs the `Session` context: the workspace loader follows the signed-in session.
    pub fn for_session() -> Self {
        let workspace_tick = RwSignal::new(0u32);
        let workspace_in_flight = StoredValue::new(false);
        let workspace = load_api(move |client| {
            workspace_tick.track();
            workspace_in_flight.set_value(true);
            async move {
                let answer = client.workspace().await;
                workspace_in_flight.try_set_value(false);
                answer
            }
        });
        SharedState {
            drafts: StoredValue::new(Vec::new()),
            workspace_tick,
            workspace,
            workspace_in_flight,
            actions: StoredValue::new(None),
            owner: StoredValue::new(
                Owner::current().expect("SharedState is created under the app"),
            ),
        }
    }

    /// The action registry (`GET /v1/actions`), fetched once per session on first use: the
    /// catalog and every form read the same answer.
    pub fn actions(&self) -> Loaded<ActionList> {
        if let Some(loaded) = self.actions.get_value() {
            return loaded;
        }
        let loaded = self.owner.with_value(|owner| {
            owner.with(|| load_api(|client| async move { client.actions().await }))
        });
        self.actions.set_value(Some(loaded));
        loaded
    }

    pub fn draft(&self, action: &str) -> Option<Draft> {
        self.drafts
            .with_value(|d| d.iter().find(|(a, _)| a == action).map(|(_, v)| v.clone()))
    }

    pub fn save_draft(&self, action: &str, draft: Draft) {
        self.drafts
            .update_value(|d| match d.iter_mut().find(|(a, _)| a == action) {
                Some((_, kept)) => *kept = draft,
                None => d.push((action.to_owned(), draft)),
            });
    }

    pub fn forget_drafts(&self) {
        self.drafts.update_value(Vec::clear);
    }

    /// The latest workspace answer, shared by every view that shows credits.
    pub fn workspace(&self) -> Loaded<Workspace> {
        self.workspace
    }

    /// Refetches the workspace unless a request for it is already under way: opening the
    /// workspace page shows fresh numbers without doubling the load that sign-in started.
    pub fn refresh_workspace(&self) {
        if !self.workspace_in_flight.get_value() {
            self.workspace_changed();
        }
    }

    /// Refetches the workspace (after a submission, a cancel, or the page's interval).
    pub fn workspace_changed(&self) {
        self.workspace_tick.update(|t| *t += 1);
    }
}

pub fn use_shared_state() -> SharedState {
    expect_context::<SharedState>()
}
