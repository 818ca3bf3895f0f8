//! The router and the layout every page shares: header, navigation and main area.

use leptos::prelude::*;
use leptos_router::components::{A, Outlet, ParentRoute, Redirect, Route, Router, Routes};
use leptos_router::hooks::{use_location, use_navigate};
use leptos_router::path;

use crate::components::ThemeToggle;
use crate::format::group_thousands;
use crate::pages::{ActionsPage, NotFoundPage, SignInPage, WorkspacePage};
use crate::session::{Session, sign_in_path, use_session};
use crate::shared_state::{SharedState, use_shared_state};

#[component]
pub fn App() -> impl IntoView {
    provide_context(Session::restored());
    provide_context(SharedState::for_session());
    view! {
        <Router>
            <AppHeader />
            <main id="main" class="main">
                <Routes fallback=NotFoundPage>
                    <Route path=path!("/sign-in") view=SignInPage />
                    <ParentRoute path=path!("") view=RequireSession>
                        <Route path=path!("") view=|| view! { <Redirect path="/workspace" /> } />
                        <Route path=path!("workspace") view=WorkspacePage />
                        <Route path=path!("actions") view=ActionsPage />
                    </ParentRoute>
                </Routes>
            </main>
        </Router>
    }
}

/// Renders its child routes only when signed in; otherwise goes to sign-in, keeping the way back.
#[component]
fn RequireSession() -> impl IntoView {
    let session = use_session();
    let location = use_location();
    move || {
        if session.is_signed_in() {
            view! { <Outlet /> }.into_any()
        } else {
            let here = format!(
                "{}{}",
                location.pathname.get_untracked(),
                location.search.get_untracked()
            );
            view! { <Redirect path=sign_in_path(&here) /> }.into_any()
        }
    }
}

#[component]
fn AppHeader() -> impl IntoView {
    let session = use_session();
    let navigate = use_navigate();
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <header class="app-header">
            <a class="brand" href="/workspace">
                <span class="brand-mark" aria-hidden="true">"▦"</span>
                " Extraction Console"
            </a>
            <Show when=move || session.is_signed_in()>
                <nav class="app-nav" aria-label="Main">
                    <A href="/workspace">"Workspace"</A>
                    <A href="/actions">"Actions"</A>
                </nav>
                <HeaderCredits />
            </Show>
            <div class="header-end">
                <Show when=move || session.is_signed_in()>
                    <span class="credential" title=move || session.base_url().unwrap_or_default()>
                        {move || session.kind().map(|k| k.label())}
                    </span>
                    <button type="button" class="button secondary" on:click={
                        let navigate = navigate.clone();
                        // Pages outside the session guard (not-found) would otherwise stay put.
                        move |_| {
                            session.sign_out();
                            navigate("/sign-in", Default::default());
                        }
                    }>
                        "Sign out"
                    </button>
                </Show>
                <ThemeToggle />
            </div>
        </header>
    }
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
