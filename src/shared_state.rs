//! State pages share across navigation: form drafts (so a detour through sign-in loses no
//! input) and a tick that makes every view of the workspace's credits refresh.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::form_model::Values;

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
}

impl SharedState {
    pub fn new() -> Self {
        SharedState {
            drafts: StoredValue::new(HashMap::new()),
            workspace_tick: RwSignal::new(0),
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

    /// Read inside a resource's fetcher so it refetches when credits may have changed.
    pub fn track_workspace(&self) -> u32 {
        self.workspace_tick.get()
    }

    pub fn workspace_changed(&self) {
        self.workspace_tick.update(|t| *t += 1);
    }
}

impl Default for SharedState {
    fn default() -> Self {
        SharedState::new()
    }
}

pub fn use_shared_state() -> SharedState {
    expect_context::<SharedState>()
}
