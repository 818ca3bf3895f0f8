//! Navigation helpers that pages and components share: the route's `:id`, and the two ways a
//! navigation may leave the history (replacing the entry; replacing it without scrolling). Below
//! `pages/` and `components/`, beside `app.rs` rather than in it, so neither imports the root.

use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::use_params;
use leptos_router::params::Params;

/// The `:id` of `/actions/:id` and `/runs/:id`.
#[derive(Params, Clone, Debug, PartialEq)]
struct IdParams {
    id: Option<String>,
}

/// The current route's `:id`, decoded; empty if the route has none.
pub fn use_id_param() -> Memo<String> {
    let params = use_params::<IdParams>();
    Memo::new(move |_| {
        params.with(|p| {
            p.as_ref()
                .ok()
                .and_then(|p| p.id.clone())
                .unwrap_or_default()
        })
    })
}

/// Navigation that replaces the current history entry, so Back skips it (redirects).
pub fn replace() -> NavigateOptions {
    NavigateOptions {
        replace: true,
        ..NavigateOptions::default()
    }
}

/// A new state of the same page (its filters in the URL): replaces the history entry, and the
/// page stays where it is scrolled to while one types.
pub fn in_place() -> NavigateOptions {
    NavigateOptions {
        replace: true,
        scroll: false,
        ..NavigateOptions::default()
    }
}
