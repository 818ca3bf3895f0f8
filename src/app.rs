//! The root: shared state as context, the router with every page's route, and the layout every
//! page shares (header, navigation, main area).

use leptos::prelude::*;
use leptos_router::Lazy;
use leptos_router::components::{A, FlatRoutes, Redirect, Route, Router};
use leptos_router::hooks::{use_navigate, use_params};
use leptos_router::params::Params;
use leptos_router::{NavigateOptions, path};

use crate::components::{RequireSession, ThemeToggle};
use crate::model::format::group_thousands;
use crate::pages::lazy::{
    ActionFormRoute, ActionsRoute, BulkRoute, KeysRoute, RunDetailRoute, RunsRoute,
    schedule_preload,
};
use crate::pages::{NotFoundPage, SignInPage, WorkspacePage};
use crate::state::bulk::Bulk;
use crate::state::drafts::{Drafts, use_drafts};
use crate::state::registry::Registry;
use crate::state::session::{Session, use_session};
use crate::state::workspace::{SharedWorkspace, use_workspace};

#[component]
pub fn App() -> impl IntoView {
    let session = Session::provide();
    SharedWorkspace::provide(session);
    Registry::provide(session);
    Drafts::provide();
    Bulk::provide(session, use_workspace());
    // The other pages' code, fetched in the background (see pages::lazy).
    schedule_preload(session, use_workspace());
    // True while a navigation waits for its page's code: a bar at the top and `aria-busy` on the
    // main area say so (the current page stays until the next one is ready).
    let (routing, set_routing) = signal(false);
    view! {
        <Router set_is_routing=set_routing>
            // Indeterminate: how much of the chunk has arrived is not known.
            {move || routing.get().then(|| view! {
                <progress class="route-progress" aria-label="Loading the page"></progress>
            })}
            <AppHeader />
            <main id="main" class="main" tabindex="-1" aria-busy=move || routing.get().to_string()>
                <FlatRoutes fallback=NotFoundPage>
                    <Route path=path!("/sign-in") view=SignInPage />
                    <Route path=path!("/") view=|| view! { <Redirect path="/workspace" options=replace() /> } />
                    <Route path=path!("/workspace") view=|| view! { <RequireSession><WorkspacePage /></RequireSession> } />
                    <Route path=path!("/actions") view={Lazy::<ActionsRoute>::new()} />
                    <Route path=path!("/actions/:id") view={Lazy::<ActionFormRoute>::new()} />
                    <Route path=path!("/runs") view={Lazy::<RunsRoute>::new()} />
                    <Route path=path!("/runs/:id") view={Lazy::<RunDetailRoute>::new()} />
                    <Route path=path!("/bulk") view={Lazy::<BulkRoute>::new()} />
                    <Route path=path!("/keys") view={Lazy::<KeysRoute>::new()} />
                </FlatRoutes>
            </main>
        </Router>
    }
}

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

/// Navigation that replaces the current history entry, so Back skips it (redirects, filters).
pub fn replace() -> NavigateOptions {
    NavigateOptions {
        replace: true,
        ..NavigateOptions::default()
    }
}

#[component]
fn AppHeader() -> impl IntoView {
    let session = use_session();
    let drafts = use_drafts();
    let navigate = use_navigate();
    let sign_out = move |_| {
        session.sign_out();
        // Drafts survive an expired session (to finish after signing in again), not a sign-out.
        drafts.forget_all();
        // Pages outside the guard (not-found) would otherwise stay on screen.
        navigate("/sign-in", Default::default());
    };
    let credential = move || session.kind().map(|k| k.label()).unwrap_or_default();
    view! {
        // `rel="external"`: the router leaves it alone, so the browser moves focus to main.
        <a class="skip-link" href="#main" rel="external">"Skip to content"</a>
        <header class="app-header">
            <a class="brand" href="/workspace">
                <span class="brand-mark" aria-hidden="true">"▦"</span>
                " Extraction Console"
            </a>
            {move || session.is_signed_in().then(|| view! {
                <nav class="app-nav" aria-label="Main">
                    <A href="/workspace">"Workspace"</A>
                    <A href="/actions">"Actions"</A>
                    <A href="/runs">"Runs"</A>
                    <A href="/bulk">"Bulk"</A>
                    <A href="/keys">"API keys"</A>
                </nav>
                <HeaderCredits />
            })}
            <div class="header-end">
                {move || session.is_signed_in().then(|| view! {
                    <span class="credential" title=move || format!("{} at {}", credential(), session.base_url().unwrap_or_default())>
                        {credential}
                    </span>
                    <button type="button" class="button secondary" on:click=sign_out.clone()>
                        "Sign out"
                    </button>
                })}
                <ThemeToggle />
            </div>
        </header>
    }
}

/// The workspace in one line: its name and the credits a new run can still reserve. Shows the
/// last answer while a newer one loads, and nothing until the first.
#[component]
fn HeaderCredits() -> impl IntoView {
    let workspace = use_workspace().resource;
    move || {
        workspace.get().and_then(Result::ok).map(|ws| {
            view! {
                <a class="header-credits" href="/workspace" title="Credits available: balance minus reserved">
                    {ws.name.clone()} " · "
                    <span data-field="header-available">{group_thousands(ws.credits_available())}</span>
                    " credits available"
                </a>
            }
        })
    }
}
