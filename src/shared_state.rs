//! State pages share across navigation: form drafts (so a detour through sign-in loses no
//! input) and the one workspace loader that every view of the credits reads, so the header and
//! the workspace page never fetch it twice.

use std::collections::HashMap;

use leptos::prelude::*;

use api_contract::Workspace;

use crate::form_model::Values;
use crate::loading::{Loaded, load_api};

/// What a person had typed into an action's form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    pub values: Values,
    pub max_results: String,
    pub max_credits: String,
    pub live: bool,
}

#[derive(Clone, Copy)]
pub struct SharedState {
    drafts: StoredValue<HashMap<String, Draft>>,
    workspace_tick: RwSignal<u32>,
    workspace: Loaded<Workspace>,
    workspace_in_flight: StoredValue<bool>,
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
            drafts: StoredValue::new(HashMap::new()),
            workspace_tick,
            workspace,
            workspace_in_flight,
        }
    }

    pub fn draft(&self, action: &str) -> Option<Draft> {
        self.drafts.with_value(|d| d.get(action).cloned())
    }

    pub fn save_draft(&self, action: &str, draft: Draft) {
        self.drafts.update_value(|d| {
            d.insert(action.to_owned(), draft);
        });
    }

    pub fn forget_drafts(&self) {
        self.drafts.update_value(HashMap::clear);
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
