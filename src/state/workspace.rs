//! The workspace (`GET /v1/workspace`) as one shared resource: the header's summary, the
//! workspace page and the form's "available" figure read the same answer, so opening a page
//! never fetches it twice. Sign-in's check hands its answer over ([`SharedWorkspace::prime`]),
//! so signing in costs one request, not a check and then a load.
//!
//! Each answer is tagged with the sign-in it was asked for: after the person switches workspace,
//! nothing reads the workspace they left while the new one loads.
//!
//! Every answer's balance is also a reading for the credit ledger (`model::ledger`): this is the
//! one place the console reads the workspace (sign-in's check through [`SharedWorkspace::prime`],
//! the pages' and the bulk batch's refreshes through [`SharedWorkspace::refresh`]), so each
//! reading is handed from here to the keeper the app gives [`SharedWorkspace::provide`] (which
//! writes it with `state::readings` from the pages' chunk), and `/credits` reads it back, with
//! the store's sentence for a write it refused.

use api_contract::Workspace;
use leptos::prelude::*;

use super::refusals::StoreRefusals;
use super::session::{SeenWorkspace, Session};
use crate::api::ApiError;
use crate::model::ledger::BalanceReading;
use crate::model::sign_ins::SignInId;

/// Keeps a reading of a workspace's balance (by its id) for the credit ledger, in a task of its
/// own, telling a refusal in the tab's [`StoreRefusals`].
pub type ReadingKeeper = fn(
    String,
    BalanceReading,
    StoreRefusals,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

/// An answer to `GET /v1/workspace`, and the sign-in it was asked with.
#[derive(Clone, Debug)]
pub struct Answer {
    sign_in: Option<SignInId>,
    result: Result<Workspace, ApiError>,
    /// The answer's balance with when it was asked and answered, for the ledger.
    reading: Option<BalanceReading>,
}

/// Sign-in's check's answer, for the first load of the sign-in it made.
#[derive(Clone)]
struct Primed {
    sign_in: SignInId,
    workspace: Workspace,
    reading: BalanceReading,
}

#[derive(Clone, Copy)]
pub struct SharedWorkspace {
    /// Reloads when another sign-in is put in use, and on [`SharedWorkspace::refresh`].
    resource: LocalResource<Answer>,
    session: Session,
    /// A request is under way (the resource's fetcher started and has not answered yet).
    loading: StoredValue<bool>,
    /// An answer to use for the next load instead of asking (sign-in's check).
    primed: StoredValue<Option<Primed>>,
    /// When the last answer arrived, ms since the epoch.
    answered_at: StoredValue<f64>,
}

/// Turns [`SharedWorkspace::loaded`] gives the resource to start its reload after a switch.
const RELOAD_TURNS: u32 = 10;

/// An answer younger than this is fresh enough for a page that opens.
const FRESH_MS: f64 = 2_000.0;

impl SharedWorkspace {
    /// Provided as context at the root, under the `Session`; `keep_reading` keeps each
    /// answer's balance for the ledger (a refusal told in `refusals`).
    pub fn provide(session: Session, keep_reading: ReadingKeeper, refusals: StoreRefusals) {
        let loading = StoredValue::new(false);
        let primed = StoredValue::new(None::<Primed>);
        let answered_at = StoredValue::new(0.0);
        let resource = LocalResource::new(move || {
            let client = session.client();
            let sign_in = session.current_id();
            let kept = primed
                .try_update_value(Option::take)
                .flatten()
                .filter(|p| Some(p.sign_in) == sign_in);
            loading.set_value(client.is_some() && kept.is_none());
            async move {
                let (result, reading) = match (kept, client) {
                    (_, None) => (Err(ApiError::SignedOut), None),
                    (Some(primed), Some(_)) => (Ok(primed.workspace), Some(primed.reading)),
                    (None, Some(client)) => {
                        let asked_at = js_sys::Date::now();
                        let result = client.workspace().await;
                        let reading = result.as_ref().ok().map(|workspace| {
                            BalanceReading::of(workspace, asked_at, js_sys::Date::now())
                        });
                        (result, reading)
                    }
                };
                loading.set_value(false);
                answered_at.set_value(js_sys::Date::now());
                if let (Some(id), Ok(workspace)) = (sign_in, &result) {
                    session.saw_workspace(
                        id,
                        SeenWorkspace {
                            id: workspace.workspace_id.clone(),
                            name: workspace.name.clone(),
                        },
                    );
                }
                if let (Some(reading), Ok(workspace)) = (reading, &result) {
                    // In a task of its own: the answer is not held back for the store.
                    leptos::task::spawn_local(keep_reading(
                        workspace.workspace_id.clone(),
                        reading,
                        refusals,
                    ));
                }
                Answer {
                    sign_in,
                    result,
                    reading,
                }
            }
        });
        provide_context(SharedWorkspace {
            resource,
            session,
            loading,
            primed,
            answered_at,
        });
    }

    /// The last answer for the sign-in in use (kept while a newer one loads); `None` before the
    /// first, and while a workspace the person just switched to loads. Tracked.
    pub fn get(&self) -> Option<Result<Workspace, ApiError>> {
        let sign_in = self.session.current_id();
        self.resource
            .get()
            .filter(|answer| answer.sign_in == sign_in)
            .map(|answer| answer.result)
    }

    /// Like [`SharedWorkspace::get`], untracked: for event handlers.
    pub fn get_untracked(&self) -> Option<Result<Workspace, ApiError>> {
        untrack(|| self.get())
    }

    /// The workspace in use, once its load (or reload) has answered: for a page's `Suspend`.
    /// Right after a switch the resource may still hold the workspace left (its reload starts
    /// in a task of its own): that answer is not given, the next is awaited.
    pub async fn loaded(self) -> Result<Workspace, ApiError> {
        let mut answer = self.resource.await;
        // A few turns at most: the reload starts on the next one.
        for _ in 0..RELOAD_TURNS {
            if answer.sign_in == self.session.current_id_untracked() {
                break;
            }
            leptos::task::tick().await;
            answer = self.resource.await;
        }
        answer.result
    }

    /// The signed-in workspace's id once loaded; tracked, so a resource that reads it loads again
    /// when the workspace arrives (and on each refresh: a page that must not, reads it through
    /// a `Memo` of its own).
    pub fn id(&self) -> Option<String> {
        self.get().and_then(Result::ok).map(|w| w.workspace_id)
    }

    /// The signed-in workspace's id once loaded; untracked.
    pub fn id_untracked(&self) -> Option<String> {
        untrack(|| self.id())
    }

    /// Asks again: after a submission, a cancel, a run that finished, or on the page's timer.
    pub fn refresh(&self) {
        self.resource.refetch();
    }

    /// Asks again unless a request is already under way (the one sign-in starts): opening the
    /// workspace page shows fresh numbers without doubling that load. A refresh asked for
    /// before a pending reload has started merges with it (the resource reloads once).
    pub fn refresh_unless_loading(&self) {
        let fresh = js_sys::Date::now() - self.answered_at.get_value() < FRESH_MS;
        if !self.loading.get_value() && !fresh {
            self.refresh();
        }
    }

    /// The answer sign-in's check just got (its request sent at `asked_at`, ms since the epoch),
    /// for the load the new sign-in `sign_in` starts: call it right after signing in (the load
    /// starts once the current task yields).
    pub fn prime(&self, sign_in: SignInId, workspace: Workspace, asked_at: f64) {
        let now = js_sys::Date::now();
        let reading = BalanceReading::of(&workspace, asked_at, now);
        self.primed.set_value(Some(Primed {
            sign_in,
            workspace,
            reading,
        }));
        self.answered_at.set_value(now);
    }

    /// The balance of the last answer for the sign-in in use, as a reading; untracked (a page
    /// that shows it loads again on each answer through [`SharedWorkspace::id`]).
    pub fn reading_untracked(&self) -> Option<BalanceReading> {
        let sign_in = self.session.current_id_untracked();
        self.resource
            .get_untracked()
            .filter(|answer| answer.sign_in == sign_in)
            .and_then(|answer| answer.reading)
    }
}

pub fn use_workspace() -> SharedWorkspace {
    expect_context::<SharedWorkspace>()
}
