//! The pages that are not needed for the first screen, loaded when first visited.
//!
//! Their code is the pages' wasm chunk (`crate::chunk`: in release builds [`build_page`] and the
//! other functions written with `in_pages_chunk!` are split points, cut out of the main module by
//! crates/wasm-split-link; dev builds are not split). The first load then carries the shell,
//! sign-in and the workspace; actions, runs, bulk, keys, storage, credits and the request log
//! come after, in the background ([`schedule_preload`]) or on the first visit.
//!
//! The routes are leptos_router's `Lazy` routes: the router keeps the current page on screen
//! while the next one's chunk loads, and `set_is_routing` shows that it is loading. A chunk that
//! fails to load (the network dropped) shows a message with a retry in place of the page,
//! instead of aborting the app; nothing else on the page is lost.

use leptos::prelude::*;
#[cfg(erase_components)]
use leptos::tachys::view::iterators::StaticVec;
use leptos::task::{spawn_local, spawn_local_scoped_with_cancellation};
#[cfg(not(erase_components))]
use leptos_router::MatchNestedRoutes;
#[cfg(erase_components)]
use leptos_router::any_nested_route::AnyNestedRoute;
use leptos_router::components::{Route, RouteChildren};
use leptos_router::location::{BrowserUrl, LocationProvider};
use leptos_router::{Lazy, path};

use crate::archive::KeptCounts;
use crate::chunk::{self, ChunkError, InChunk};
use crate::components::RequireSession;
use crate::model::ledger::BalanceReading;
use crate::model::log_queue::{LogWrite, WriteFound, WriteMode};
use crate::model::request_log::Origin;
use crate::state::expiry::{OutputExpiry, use_output_expiry};
use crate::state::refusals::{StoreRefusals, use_store_refusals};
use crate::state::session::{Session, use_session};
use crate::state::workspace::SharedWorkspace;
use crate::store::StoreError;

type Loaded = Result<AnyView, ChunkError>;

/// Every page of the chunk, once: its key, its route's path (as `path!` reads it) and its
/// component. From this table `lazy_pages!` makes [`PageKey`], the page's view behind
/// `RequireSession` (`page_view`), its `LazyRoute` (`route::Key`), its `<Route>` in
/// [`WithLazyRoutes`] and the first path segments that [`in_chunk`] knows, so a page is added by one
/// line here and cannot be declared in some of those places only. A route listed earlier wins
/// (`/runs/compare` before `/runs/:id`).
macro_rules! lazy_pages {
    ($($key:ident $path:tt => $page:ident,)+) => {
        /// Which page to build.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum PageKey {
            $($key,)+
        }

        /// Every page's path, as its route matches it.
        const PATHS: &[&str] = &[$($path,)+];

        /// The page behind the route guard, built inside the chunk ([`build_page`]).
        fn page_view(key: PageKey) -> AnyView {
            $(use super::$page;)+
            match key {
                $(PageKey::$key => view! { <RequireSession><$page /></RequireSession> }.into_any(),)+
            }
        }

        /// Each page's `LazyRoute`, named as its key.
        mod route {
            use leptos::prelude::AnyView;
            use leptos_router::LazyRoute;

            $(
                /// A route whose page is built by its chunk (see the module's documentation).
                #[derive(Debug, Clone, Copy)]
                pub struct $key;

                impl LazyRoute for $key {
                    fn data() -> Self {
                        $key
                    }

                    async fn view(_: Self) -> AnyView {
                        super::route_view(super::PageKey::$key).await
                    }
                }
            )+
        }

        /// The app's routes for `<FlatRoutes>`: its children (App's own, the first screen's),
        /// then every page of the chunk's. Release builds (`erase_components`) hold each route
        /// erased in one list: the chunk's join that list rather than sit in it as one more
        /// erased route (a component returning `impl MatchNestedRoutes` would be one).
        #[cfg(erase_components)]
        #[component(transparent)]
        pub fn WithLazyRoutes(
            children: RouteChildren<StaticVec<AnyNestedRoute>>,
        ) -> StaticVec<AnyNestedRoute> {
            let mut routes = Vec::from(children.into_inner());
            routes.extend(Vec::from(
                view! { $(<Route path=path!($path) view={Lazy::<route::$key>::new()} />)+ }
                    .into_inner(),
            ));
            StaticVec::from(routes)
        }

        /// The app's routes for `<FlatRoutes>`: its children (App's own, the first screen's),
        /// then every page of the chunk's.
        #[cfg(not(erase_components))]
        #[component(transparent)]
        pub fn WithLazyRoutes<Routes>(
            children: RouteChildren<Routes>,
        ) -> impl MatchNestedRoutes + Clone + Send + 'static
        where
            Routes: MatchNestedRoutes + Clone + Send + 'static,
        {
            (
                children.into_inner(),
                view! { $(<Route path=path!($path) view={Lazy::<route::$key>::new()} />)+ }
                    .into_inner(),
            )
        }
    };
}

lazy_pages! {
    Actions "/actions" => ActionsPage,
    ActionForm "/actions/:id" => ActionFormPage,
    Runs "/runs" => RunsPage,
    CompareRuns "/runs/compare" => CompareRunsPage,
    RunDetail "/runs/:id" => RunDetailPage,
    Bulk "/bulk" => BulkPage,
    Chains "/chains" => ChainsPage,
    Keys "/keys" => KeysPage,
    Storage "/storage" => StoragePage,
    Credits "/credits" => CreditsPage,
    Log "/log" => RequestLogPage,
    LogEntry "/log/:id" => LogEntryPage,
    Safeguards "/safeguards" => SafeguardsPage,
}

chunk::in_pages_chunk! {
    preload(preload_pages);
    /// Builds a page, inside the chunk. One chunk holds all of them rather than one per page
    /// group: code the groups share would otherwise sit in many more small chunks, and every
    /// chunk is fetched in the background soon after the first screen anyway
    /// (docs/decisions/pages-chunk.md).
    fn build_page(key: PageKey) -> Loaded {
        Ok(page_view(key))
    }
}

chunk::in_pages_chunk! {
    /// Starts the background read of the workspace's runs list (`state::history`), inside the
    /// chunk: the history's code (its store, its serde) is not needed for the first screen, and
    /// the read starts once the chunk is there anyway (at most once; a failed fetch leaves it to
    /// the first page of the chunk that loads).
    fn start_history(
        session: Session,
        workspace: SharedWorkspace,
        expiry: OutputExpiry,
        refusals: StoreRefusals,
    ) -> Result<(), ChunkError> {
        crate::state::history::read_in_background(session, workspace, refusals);
        expiry.apply_in_background(workspace);
        Ok(())
    }
}

/// Starts the background read of the runs list from the chunk ([`start_history`]), called once
/// the chunk is known to be here (its preload or a page of it answered), so its code is there.
async fn start_history_from_chunk(
    session: Session,
    workspace: SharedWorkspace,
    expiry: OutputExpiry,
    refusals: StoreRefusals,
) {
    if let Err(ChunkError) = start_history(session, workspace, expiry, refusals).await {
        // Only a chunk that did not arrive fails, and it did: nothing was started, nothing is
        // lost, and the next page of the chunk that loads (`route_view`) starts it.
    }
}

chunk::in_pages_chunk! {
    /// [`forget_workspace`]'s work, inside the chunk.
    fn forget_in_chunk(
        workspace: String,
    ) -> Result<InChunk<Result<KeptCounts, String>>, ChunkError> {
        Ok(Box::pin(async move {
            crate::archive::forget_workspace(&workspace)
                .await
                .map_err(|error| error.sentence())
        }))
    }
}

chunk::in_pages_chunk! {
    /// [`kept_data_notice`]'s work, inside the chunk.
    fn kept_data_in_chunk() -> Result<InChunk<Option<AnyView>>, ChunkError> {
        Ok(Box::pin(super::storage::kept_data_notice()))
    }
}

chunk::in_pages_chunk! {
    /// [`keep_log`]'s work, inside the chunk.
    fn keep_log_in_chunk(
        write: LogWrite,
        origin: Origin,
        mode: WriteMode,
    ) -> Result<InChunk<Result<WriteFound, StoreError>>, ChunkError> {
        Ok(Box::pin(crate::request_log::keep(write, origin, mode)))
    }
}

chunk::in_pages_chunk! {
    /// [`keep_reading`]'s work, inside the chunk.
    fn keep_reading_in_chunk(
        workspace: String,
        reading: BalanceReading,
        refusals: StoreRefusals,
    ) -> Result<InChunk<()>, ChunkError> {
        Ok(Box::pin(crate::state::readings::keep(workspace, reading, refusals)))
    }
}

/// Keeps the page's exchanges in the request log (`request_log::keep`, from the chunk). The
/// first screen's requests wait in memory until the chunk has arrived as it would anyway, so
/// the log never fetches it sooner, over a slow link, than the first screen's own requests. A
/// write as the page goes ([`WriteMode::Leaving`]) cannot wait: without the chunk it writes
/// nothing.
pub fn keep_log(
    write: LogWrite,
    origin: Origin,
    mode: WriteMode,
) -> InChunk<Result<WriteFound, StoreError>> {
    Box::pin(async move {
        if mode == WriteMode::Leaving && !chunk::arrived() {
            return Ok(WriteFound::Failed);
        }
        chunk::until_arrived().await;
        match keep_log_in_chunk(write, origin, mode).await {
            Ok(keeping) => keeping.await,
            Err(ChunkError) => Ok(WriteFound::Failed),
        }
    })
}

/// Keeps a reading of `workspace`'s balance for the ledger (`state::readings::keep`, from the
/// chunk, which records a refusal for `/credits`), for the shared workspace resource, which is
/// part of the first screen. As the log's exchanges, a reading made before the chunk has arrived
/// waits in memory until it has.
pub fn keep_reading(
    workspace: String,
    reading: BalanceReading,
    refusals: StoreRefusals,
) -> InChunk<()> {
    Box::pin(async move {
        chunk::until_arrived().await;
        if let Ok(keeping) = keep_reading_in_chunk(workspace, reading, refusals).await {
            keeping.await;
        }
    })
}

/// Forgets everything this browser keeps for `workspace` (`archive::forget_workspace`), for
/// sign-out, which is part of the first screen; `Err` when nothing could be deleted (the code
/// did not arrive, or the store refused), with a sentence saying why.
pub async fn forget_workspace(workspace: String) -> Result<KeptCounts, String> {
    let forget = forget_in_chunk(workspace).await.map_err(|_| {
        "The console's code for this did not arrive: check the connection and try again.".to_owned()
    })?;
    forget.await
}

/// Sign-in's notice of what this browser keeps from earlier sign-ins (`storage::kept_data_notice`);
/// `None` when it keeps nothing, or the code did not arrive.
pub async fn kept_data_notice() -> Option<AnyView> {
    kept_data_in_chunk().await.ok()?.await
}

/// Fetches the pages' chunk in the background (at most once; if it fails, the first visit to
/// one of its pages tries again), so later navigation does not wait for the network: at once
/// when the page opened, or the one sign-in will return to, is in the chunk; otherwise 1.5 s
/// after the start, once the first screen's own requests (sign-in's check, the workspace) have
/// had the link to themselves.
pub fn schedule_preload(session: Session, workspace: SharedWorkspace) {
    let (expiry, refusals) = (use_output_expiry(), use_store_refusals());
    let opened = BrowserUrl::current().ok().map(|url| {
        if url.path().starts_with("/sign-in") {
            url.search_params()
                .get_str("next")
                .unwrap_or_default()
                .to_owned()
        } else {
            url.path().to_owned()
        }
    });
    let preload = move || {
        spawn_local(async move {
            if preload_pages().await.is_ok() {
                chunk::mark_arrived();
                start_history_from_chunk(session, workspace, expiry, refusals).await;
            }
        });
    };
    if opened.is_some_and(|path| in_chunk(&path)) {
        preload();
    } else {
        set_timeout(preload, std::time::Duration::from_millis(1500));
    }
}

/// Whether the page at `path` (with or without its query) is one of the chunk's: its first
/// segment is one of the table's paths'.
fn in_chunk(path: &str) -> bool {
    let first = first_segment(path);
    !first.is_empty() && PATHS.iter().any(|page| first_segment(page) == first)
}

fn first_segment(path: &str) -> &str {
    path.trim_start_matches('/')
        .split(['/', '?'])
        .next()
        .unwrap_or_default()
}

/// The router awaits `view`; on a failed fetch the page is a message with a retry. Signed out,
/// the guard sends the person to sign-in at once, without waiting for the chunk (a deep link
/// opened in a new tab always starts signed out).
async fn route_view(key: PageKey) -> AnyView {
    if !untrack(|| use_session().is_signed_in()) {
        return view! { <RequireSession>""</RequireSession> }.into_any();
    }
    match build_page(key).await {
        Ok(view) => {
            chunk::mark_arrived();
            // The chunk is here: the history's read starts, if the preload could not start it.
            let (session, workspace) = (use_session(), crate::state::workspace::use_workspace());
            let (expiry, refusals) = (use_output_expiry(), use_store_refusals());
            spawn_local(start_history_from_chunk(
                session, workspace, expiry, refusals,
            ));
            view
        }
        Err(ChunkError) => view! { <ChunkRetry key /> }.into_any(),
    }
}

/// In place of a page whose code did not arrive: says so, and loads it again on request.
#[component]
fn ChunkRetry(key: PageKey) -> impl IntoView {
    let (busy, set_busy) = signal(false);
    let (failures, set_failures) = signal(1_u32);
    // The page, once its code arrived: handed to the view below exactly once.
    let page = StoredValue::new_local(None::<AnyView>);
    let (loaded, set_loaded) = signal(false);
    // The page is built under this component's owner, as the router would have built it: its
    // components find the session and the other contexts, and leaving cancels the attempt.
    let owner = Owner::current().expect("ChunkRetry renders under the router");
    let retry = move |_| {
        set_busy.set(true);
        owner.with(|| {
            spawn_local_scoped_with_cancellation(async move {
                match build_page(key).await {
                    Ok(view) => {
                        page.set_value(Some(view));
                        set_loaded.set(true);
                    }
                    Err(ChunkError) => set_failures.update(|n| *n += 1),
                }
                set_busy.set(false);
            })
        });
    };
    move || {
        match loaded.get() {
        true => page
            .try_update_value(Option::take)
            .flatten()
            .unwrap_or_else(|| ().into_any()),
        false => view! {
            <section class="page">
                <div class="error-panel" role="alert">
                    <p class="error-title">"This page could not be loaded"</p>
                    <p class="error-message">
                        "Its code did not arrive: the connection to the console's server dropped or it did not answer. "
                        "Nothing you entered elsewhere is lost."
                    </p>
                    {move || (failures.get() > 1).then(|| view! {
                        <p class="hint">{move || format!("Tried {} times.", failures.get())}</p>
                    })}
                </div>
                <div class="actions-row">
                    <button type="button" class="button primary" on:click=retry.clone() disabled=busy>
                        {move || if busy.get() { "Loading…" } else { "Try again" }}
                    </button>
                </div>
            </section>
        }
        .into_any(),
    }
    }
}

#[cfg(test)]
mod tests {
    use super::in_chunk;

    #[test]
    fn the_chunks_pages_are_told_from_the_first_screens() {
        for path in [
            "/actions",
            "/actions/premium-search-person",
            "/runs?status=failed",
            "/runs/r_1",
            "/bulk",
            "/keys",
            "/storage",
            "/credits?range=90d",
            "/log?status=4xx",
            "/log/0001763975702123-0a1b2c3d",
            "/safeguards",
        ] {
            assert!(in_chunk(path), "{path}");
        }
        for path in [
            "/",
            "/workspace",
            "/sign-in",
            "",
            "/nowhere",
            "/actionsx",
            "/keysmith",
            "/logs",
        ] {
            assert!(!in_chunk(path), "{path}");
        }
    }
}
