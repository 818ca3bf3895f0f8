//! What people typed into action forms, kept across navigation: a detour through sign-in (an
//! expired session) loses no input; signing out forgets it all.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::model::form::Values;

/// One action's unfinished form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// Input fields and the two limits, by name.
    pub values: Values,
    pub live: bool,
}

/// Drafts by action id, provided as context at the root.
#[derive(Clone, Copy)]
pub struct Drafts(StoredValue<HashMap<String, Draft>>);

impl Drafts {
    pub fn provide() {
        provide_context(Drafts(StoredValue::new(HashMap::new())));
    }

    pub fn get(&self, action: &str) -> Option<Draft> {
        self.0.with_value(|drafts| drafts.get(action).cloned())
    }

    pub fn save(&self, action: &str, draft: Draft) {
        self.0.update_value(|drafts| {
            drafts.insert(action.to_owned(), draft);
        });
    }

    pub fn forget_all(&self) {
        self.0.update_value(HashMap::clear);
    }
}

pub fn use_drafts() -> Drafts {
    expect_context::<Drafts>()
}
