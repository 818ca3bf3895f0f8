//! What people typed into action forms, kept across navigation: a detour through sign-in (an
//! expired session) loses no input; signing out forgets it all.

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
pub struct Drafts(StoredValue<Vec<(String, Draft)>>);

impl Drafts {
    pub fn provide() {
        provide_context(Drafts(StoredValue::new(Vec::new())));
    }

    pub fn get(&self, action: &str) -> Option<Draft> {
        self.0
            .with_value(|d| d.iter().find(|(a, _)| a == action).map(|(_, v)| v.clone()))
    }

    pub fn save(&self, action: &str, draft: Draft) {
        self.0
            .update_value(|d| match d.iter_mut().find(|(a, _)| a == action) {
                Some((_, kept)) => *kept = draft,
                None => d.push((action.to_owned(), draft)),
            });
    }

    pub fn forget_all(&self) {
        self.0.update_value(Vec::clear);
    }
}

pub fn use_drafts() -> Drafts {
    expect_context::<Drafts>()
}
