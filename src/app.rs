//! The router and the layout every page shares: header, navigation and main area.

use leptos::prelude::*;

use crate::components::ThemeToggle;
use crate::format::group_thousands;
use crate::navigation::{Navigation, use_navigation};
use crate::pages::{
    ActionFormPage, ActionsPage, NotFoundPage, RunDetailPage, RunsPage, SignInPage, WorkspacePage,
};
use crate::routes::Route;
use crate::session::{Session, sign_in_path, use_session};
use crate::shared_state::{SharedState, use_shared_state};

#[component]
pub fn App() -> impl IntoView {
    provide_context(Session::restored());
    provide_context(SharedState::for_session());
    Navigation::start();
    view! {
        <AppHeader />
        <main id="main" class="main">
            <Pages />
        </main>
    }
}

/// The page for the current path. Pages behind the session guard go to sign-in when signed out,
/// keeping the way back. A page is rebuilt when its route changes, not when only the query does.
#[component]
fn Pages() -> impl IntoView {
    let session = use_session();
    let nav = use_navigation();
    let route = Memo::new(move |_| Route::parse(&nav.path()));
    move || {
        let route = route.get();
        if route.needs_session() && !session.is_signed_in() {
            let here = format!("{}{}", nav.path_untracked(), nav.search_untracked());
            return view! { <Redirect to=sign_in_path(&here) /> }.into_any();
        }
        match route {
            Route::SignIn => view! { <SignInPage /> }.into_any(),
            Route::Home => view! { <Redirect to="/workspace".to_owned() /> }.into_any(),
            Route::Workspace => view! { <WorkspacePage /> }.into_any(),
            Route::Actions => view! { <ActionsPage /> }.into_any(),
            Route::ActionForm(id) => view! { <ActionFormPage id /> }.into_any(),
            Route::RunDetail(id) => view! { <RunDetailPage id /> }.into_any(),
            Route::Runs => view! { <RunsPage /> }.into_any(),
            Route::Keys | Route::NotFound => view! { <NotFoundPage /> }.into_any(),
        }
    }
}

/// Replaces the current history entry with `to` once rendered (Back skips the redirect).
#[component]
fn Redirect(to: String) -> impl IntoView {
    let nav = use_navigation();
    Effect::new(move |_| nav.redirect(&to));
}

#[component]
fn AppHeader() -> impl IntoView {
    let session = use_session();
    let shared = use_shared_state();
    let nav = use_navigation();
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <header class="app-header">
            <a class="brand" href="/workspace">
                <span class="brand-mark" aria-hidden="true">"▦"</span>
                " Extraction Console"
            </a>
            {move || session.is_signed_in().then(|| view! {
                <nav class="app-nav" aria-label="Main">
                    <NavLink href="/workspace" label="Workspace" />
                    <NavLink href="/actions" label="Actions" />
                    <NavLink href="/runs" label="Runs" />
                </nav>
                <HeaderCredits />
            })}
            <div class="header-end">
                {move || session.is_signed_in().then(|| view! {
                    <span class="credential" title=session.base_url().unwrap_or_default()>
                        {move || session.kind().map(|k| k.label()).unwrap_or_default()}
                    </span>
                    <button type="button" class="button secondary" on:click=move |_| {
                        session.sign_out();
                        // Drafts survive an expired session (to finish after signing in again),
                        // not a sign-out.
                        shared.forget_drafts();
                        // Pages outside the session guard (not-found) would otherwise stay put.
                        nav.navigate("/sign-in");
                    }>
                        "Sign out"
                    </button>
                })}
                <ThemeToggle />
            </div>
        </header>
    }
}

/// A link of the main navigation, marked as the current page under its path. A plain anchor:
/// `<Router>` turns clicks on any same-origin link into client-side navigation, and this costs
/// less of the bundle than `leptos_router`'s `<A>`.
#[component]
fn NavLink(href: &'static str, label: &'static str) -> impl IntoView {
    let nav = use_navigation();
    let current = move || {
        let path = nav.path();
        let here = path == href
            || path
                .strip_prefix(href)
                .is_some_and(|rest| rest.starts_with('/'));
        // "false" rather than no attribute: one attribute type less in the bundle.
        if here { "page" } else { "false" }
    };
    view! { <a href=href aria-current=current>{label}</a> }
}

/// The workspace in one line: its name and the credits a new run can still reserve.
#[component]
fn HeaderCredits() -> impl IntoView {
    let workspace = use_shared_state().workspace();
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
