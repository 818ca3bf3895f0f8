//! The header's list of this tab's sign-ins: which one is in use (its credential's kind is the
//! button's label), the others to switch to, each named by its workspace and environment, and
//! the way to sign in to one more without signing out.

use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate};

use wasm_bindgen::JsCast;

use crate::model::sign_ins::{SignInId, path_after_switch};
use crate::model::urls::sign_in_path;
use crate::nav::replace;
use crate::state::bulk::use_bulk;
use crate::state::environment::use_environment;
use crate::state::presenter::use_presenter;
use crate::state::session::{SignInSummary, use_session};

#[component]
pub fn WorkspaceSwitcher() -> impl IntoView {
    let session = use_session();
    let location = use_location();
    let open = RwSignal::new(false);
    // In presenter mode the kind alone: a key's prefix and a session's subject are hidden.
    let presenter = use_presenter();
    let credential = move || {
        session
            .kind()
            .map(|k| k.label_shown(presenter.is_on()))
            .unwrap_or_default()
    };
    // Any navigation closes the list.
    Effect::new(move |_| {
        location.pathname.track();
        open.set(false);
    });
    let add_path = move || sign_in_path(&path_after_switch(&location.pathname.get()));
    let toggle = NodeRef::<leptos::html::Button>::new();
    // Escape closes the list and gives focus back to its button.
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" && open.get_untracked() {
            open.set(false);
            if let Some(button) = toggle.get_untracked() {
                let _ = button.focus();
            }
        }
    };
    view! {
        <div class="switcher" on:keydown=on_keydown>
            <button type="button" class="button secondary switcher-toggle" data-field="switcher" node_ref=toggle
                aria-expanded=move || open.get().to_string() aria-controls="switcher-menu"
                title=move || format!("Signed in with {} at {}", credential(), session.base_url().unwrap_or_default())
                on:click=move |_| open.update(|o| *o = !*o)>
                // Said to screen readers, which the short label alone would leave guessing.
                <span class="sr-only">"Workspaces in this tab, signed in with "</span>
                <span class="credential">{credential}</span>
                <span class="switcher-short" aria-hidden="true">"Workspaces"</span>
                <span aria-hidden="true">" ▾"</span>
            </button>
            <div id="switcher-menu" class="header-menu" role="group" aria-label="Workspaces signed in to in this tab"
                hidden=move || !open.get()>
                <p>"Signed in, in this tab. Each keeps its own runs, log, batches and drafts; a batch keeps running when you switch."</p>
                <SignInList open />
                <a class="button secondary" data-field="add-sign-in" href=add_path on:click=move |_| open.set(false)>
                    "Sign in to another workspace"
                </a>
            </div>
        </div>
    }
}

/// This tab's sign-ins, each with a switch to it (the header's list, and sign-in's).
#[component]
pub fn SignInList(
    /// Closed when the person switches (the header's list).
    #[prop(optional)]
    open: Option<RwSignal<bool>>,
    /// Where a switch goes; by default the same kind of page as this one.
    #[prop(optional, into)]
    next: Option<String>,
) -> impl IntoView {
    let session = use_session();
    let next = StoredValue::new(next);
    view! {
        // At most `SIGN_INS_AT_MOST` items: drawn again whole when one changes.
        <ul class="switcher-list" data-field="sign-ins">
            {move || session.summaries().into_iter().map(|summary| view! {
                <SignInItem summary open next=next.get_value() />
            }).collect_view()}
        </ul>
    }
}

/// One sign-in of the list: its workspace (or host, before its workspace answered), its
/// environment and credential, a batch of its workspace running in this tab, and a switch.
#[component]
fn SignInItem(
    summary: SignInSummary,
    open: Option<RwSignal<bool>>,
    next: Option<String>,
) -> impl IntoView {
    let session = use_session();
    let location = use_location();
    let navigate = use_navigate();
    let switch = move |id: SignInId| {
        if let Some(open) = open {
            open.set(false);
        }
        session.switch_to(id);
        // What the page's URL names belongs to the workspace left: Back does not return to it.
        let next = next
            .clone()
            .unwrap_or_else(|| path_after_switch(&location.pathname.get_untracked()));
        navigate(&next, replace());
        // The list and its button are gone or hidden: the person goes on from the page.
        if let Some(main) = document().get_element_by_id("main")
            && let Ok(main) = main.dyn_into::<web_sys::HtmlElement>()
        {
            let _ = main.focus();
        }
    };
    let environment = use_environment().of_base_url(&summary.base_url);
    let presenter = use_presenter();
    let bulk = use_bulk();
    let workspace_id = summary.workspace.as_ref().map(|w| w.id.clone());
    let batch_running = move || {
        workspace_id
            .as_deref()
            .is_some_and(|id| bulk.runs_for_workspace(id))
    };
    let name = summary
        .workspace
        .as_ref()
        .map_or_else(|| environment.name.clone(), |w| w.name.clone());
    let kind = if environment.is_live() {
        "live"
    } else {
        "no real credits"
    };
    let id = summary.id;
    let name_for_label = name.clone();
    view! {
        <li class="switcher-item" data-sign-in=id.0 data-in-use=summary.in_use.to_string()>
            <span class="switcher-name">{name}</span>
            <span class="switcher-detail">
                {move || format!("{} ({kind}) · {}", environment.name, summary.kind.label_shown(presenter.is_on()))}
                {move || batch_running().then_some(" · bulk batch running")}
            </span>
            {if summary.in_use {
                view! { <span class="switcher-in-use">"In use"</span> }.into_any()
            } else {
                view! {
                    <button type="button" class="button secondary" data-field="switch-to"
                        aria-label=format!("Switch to {name_for_label}") on:click=move |_| switch(id)>"Switch"</button>
                }.into_any()
            }}
        </li>
    }
}
