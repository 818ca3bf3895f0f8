//! The root: shared state as context, the router with every page's route, and the layout every
//! page shares (header, navigation, main area).

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::{A, FlatRoutes, Redirect, Route, Router};
use leptos_router::hooks::use_navigate;
use leptos_router::path;

use crate::components::{
    PreferenceNotKeptNotice, PresenterBand, PresenterToggle, RequireSession, ThemeToggle,
    WorkspaceSwitcher,
};
use crate::model::format::{counted, group_thousands};
use crate::model::sign_ins::SignInId;
use crate::nav::replace;
use crate::pages::lazy::{WithLazyRoutes, keep_log, keep_reading, schedule_preload};
use crate::pages::{NotFoundPage, SignInPage, WorkspacePage};
use crate::state::bulk::{Bulk, use_bulk};
use crate::state::chains::Chains;
use crate::state::drafts::{Drafts, use_drafts};
use crate::state::environment::{Environment, use_environment};
use crate::state::expiry::OutputExpiry;
use crate::state::preferences::Preferences;
use crate::state::presenter::Presenter;
use crate::state::refusals::StoreRefusals;
use crate::state::registry::Registry;
use crate::state::safeguards::{SpendingSafeguards, use_safeguards};
use crate::state::session::{LogKeeping, Session, use_session};
use crate::state::workspace::{SharedWorkspace, use_workspace};

#[component]
pub fn App(
    /// What the console's own server said it is in front of, asked before mounting.
    served_environment: Option<api_contract::ConsoleEnvironment>,
) -> impl IntoView {
    // The request log and the balance readings are kept by the pages' chunk (pages::lazy):
    // handed down, so state/ never names a page.
    // Background writes' refusals are told in the pages (`StoreRefusalNotice`).
    let refusals = StoreRefusals::provide();
    let session = Session::provide(LogKeeping {
        keeper: keep_log,
        refusals,
    });
    let presenter = Presenter::provide(Preferences::provide());
    Environment::provide(session, served_environment);
    SharedWorkspace::provide(session, keep_reading, refusals);
    Registry::provide(session);
    Drafts::provide(session);
    SpendingSafeguards::provide(use_workspace());
    Bulk::provide(session, use_workspace(), refusals);
    Chains::provide(use_bulk(), use_workspace());
    OutputExpiry::provide(refusals);
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
            <SandboxBand />
            <PresenterBand />
            <PreferenceNotKeptNotice />
            <main id="main" class="main" tabindex="-1" aria-busy=move || routing.get().to_string()>
                // Made again when another sign-in is put in use: a page of the workspace left
                // (its resources, its inputs) never shows while the next one loads. And when
                // presenter mode changes: each page masks values as it is built (drafts, the
                // batch and the log live above the pages, so nothing typed or running is lost).
                {move || { session.current_id(); presenter.is_on(); view! {
                <FlatRoutes fallback=NotFoundPage>
                    // App's own routes (the first screen), then every page of the pages'
                    // chunk (pages::lazy's table).
                    <WithLazyRoutes>
                        <Route path=path!("/sign-in") view=SignInPage />
                        <Route path=path!("/") view=|| view! { <Redirect path="/workspace" options=replace() /> } />
                        <Route path=path!("/workspace") view=|| view! { <RequireSession><WorkspacePage /></RequireSession> } />
                    </WithLazyRoutes>
                </FlatRoutes>
                } }}
            </main>
        </Router>
    }
}

#[component]
fn AppHeader() -> impl IntoView {
    let session = use_session();
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
                    <A href="/log">"Log"</A>
                </nav>
                <LiveEnvironment />
                <HeaderCredits />
            })}
            <div class="header-end">
                {move || session.is_signed_in().then(|| view! {
                    <WorkspaceSwitcher />
                    <SignOut />
                })}
                <PresenterToggle />
                <ThemeToggle />
            </div>
        </header>
    }
}

/// The live environment's name in the header, so a screenshot says where the credits went.
#[component]
fn LiveEnvironment() -> impl IntoView {
    let environment = use_environment();
    move || {
        Some(environment.current())
            .filter(|env| env.is_live())
            .map(|env| {
                view! {
                    <span class="environment-live" data-field="environment"
                        title="Live: runs here spend this workspace's real credits">
                        {env.name}
                    </span>
                }
            })
    }
}

/// The sandbox's band under the header, on every page; and the tab's title, which names the
/// environment (a live one's name, or "Sandbox") so a row of tabs tells them apart.
#[component]
fn SandboxBand() -> impl IntoView {
    let environment = use_environment();
    Effect::new(move |_| {
        let title = format!("{} · Extraction Console", environment.current().name);
        document().set_title(&title);
    });
    move || {
        Some(environment.current())
            .filter(|env| !env.is_live())
            .map(|env| {
                view! {
                    <div class="sandbox-band" role="note" data-field="environment">
                        <strong>{env.name}</strong>": nothing here spends real credits."
                    </div>
                }
            })
    }
}

/// "Sign out…": signing out, or signing out and forgetting what this browser keeps for the
/// workspace (a shared computer), in one step and saying what it deleted.
#[component]
fn SignOut() -> impl IntoView {
    let session = use_session();
    let drafts = use_drafts();
    let workspace = use_workspace();
    let bulk = use_bulk();
    let navigate = use_navigate();
    let open = RwSignal::new(false);
    let forgetting = RwSignal::new(false);
    let forget_failed = RwSignal::new(None::<String>);
    // Signs out of `sign_in`, the sign-in in use when the person asked (they may have switched
    // while its data was being forgotten).
    let leave = move |sign_in: Option<SignInId>, notice: Option<String>| {
        if let Some(sign_in) = sign_in {
            // Drafts survive an expired session (to finish after signing in again), not a
            // sign-out.
            drafts.forget_for(sign_in);
            session.sign_out_of(sign_in, notice);
        }
        // Pages outside the guard (not-found) would otherwise stay on screen.
        navigate("/sign-in", Default::default());
    };
    let leave_now = leave.clone();
    let leave_and_forget = move |_| {
        let leave = leave.clone();
        let sign_in = session.current_id_untracked();
        let Some(id) = workspace.id_untracked() else {
            leave(sign_in, None);
            return;
        };
        forgetting.set(true);
        forget_failed.set(None);
        // Nothing of this session is logged from now on: a write after the forget would leave
        // the workspace in this browser again.
        session.close_log();
        // The workspace's batch, if this tab shows it, stops; its copy in the store goes with
        // the rest (a batch of another workspace this tab is signed in to goes on).
        if untrack(|| bulk.in_view()) {
            bulk.let_go_of_shown();
        }
        spawn_local(async move {
            session.log_settled().await;
            match crate::pages::lazy::forget_workspace(id.clone()).await {
                Ok(gone) => leave(
                    sign_in,
                    Some(format!(
                        "Signed out. This browser no longer keeps anything of workspace {id}: {} of its run history, {}, {} and {} deleted.",
                        counted(u64::from(gone.runs), "run", "runs"),
                        counted(gone.batches as u64, "bulk batch", "bulk batches"),
                        counted(gone.submissions as u64, "submission", "submissions"),
                        counted(
                            u64::from(gone.requests),
                            "logged request",
                            "logged requests"
                        ),
                    )),
                ),
                Err(reason) => forget_failed.set(Some(reason)),
            }
            forgetting.set(false);
        });
    };
    view! {
        <div class="sign-out" on:keydown=move |ev| if ev.key() == "Escape" { open.set(false) }>
            <button type="button" class="button secondary" aria-expanded=move || open.get().to_string()
                aria-controls="sign-out-menu" on:click=move |_| open.update(|o| *o = !*o)>
                "Sign out…"
            </button>
            <div id="sign-out-menu" class="sign-out-menu" role="group" aria-label="Sign out" hidden=move || !open.get()>
                <p>"This browser keeps the workspace's run history, its bulk batches, the inputs sent from here and a log of requests, for the next sign-in (never the credential). On a shared computer, forget them."</p>
                <button type="button" class="button secondary" on:click=move |_| leave_now(session.current_id_untracked(), None)>"Sign out"</button>
                <button type="button" class="button danger" disabled=forgetting on:click=leave_and_forget>
                    {move || if forgetting.get() { "Forgetting…" } else { "Sign out and forget this workspace's data in this browser" }}
                </button>
                <p class="field-error" role="alert">{move || forget_failed.get().map(|reason| format!(
                    "Nothing was deleted, and you are still signed in. {reason}"
                ))}</p>
                <p class="help"><a href="/storage" on:click=move |_| open.set(false)>"What this browser keeps"</a></p>
            </div>
        </div>
    }
}

/// The workspace in one line: its name and the credits a new run can still reserve, marked
/// low below the person's threshold (`/safeguards`). Shows the last answer while a newer one
/// loads, and nothing until the first.
#[component]
fn HeaderCredits() -> impl IntoView {
    let workspace = use_workspace();
    let safeguards = use_safeguards();
    move || {
        workspace.get().and_then(Result::ok).map(|ws| {
            let available = ws.credits_available();
            let low = safeguards.get().low_balance(available);
            let title = low.map_or_else(
                || "Credits available: balance minus reserved".to_owned(),
                |low| low.sentence(),
            );
            view! {
                <a class="header-credits" class:low=low.is_some() href="/workspace" title=title>
                    {ws.name.clone()} " · "
                    <span data-field="header-available">{group_thousands(available)}</span>
                    " credits"
                    // Said on wide screens; narrower ones keep the header on one line.
                    <span class="wide-only">" available"</span>
                    {low.map(|_| view! {
                        <span class="low-balance" data-field="low-balance">" · low"</span>
                    })}
                </a>
            }
        })
    }
}
