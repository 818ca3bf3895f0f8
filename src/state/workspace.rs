//! The workspace (`GET /v1/workspace`) as one shared resource: the header's summary, the
//! workspace page and the form's "available" figure read the same answer, so opening a page
//! never fetches it twice. Sign-in's check hands its answer over ([`SharedWorkspace::prime`]),
//! so signing in costs one request, not a check and then a load.

use api_contract::Workspace;
use leptos::prelude::*;

use super::session::Session;
use crate::api::ApiError;

#[derive(Clone, Copy)]
pub struct SharedWorkspace {
    /// Reloads when the session changes, and on [`SharedWorkspace::refresh`].
    pub resource: LocalResource<Result<Workspace, ApiError>>,
    /// A request is under way (the resource's fetcher started and has not answered yet).
    loading: StoredValue<bool>,
    /// An answer to use for the next load instead of asking (sign-in's check).
    primed: StoredValue<Option<Workspace>>,
    /// When the last answer arrived, ms since the epoch.
    answered_at: StoredValue<f64>,
}

/// An answer younger than this is fresh enough for a page that opens.
const FRESH_MS: f64 = 2_000.0;

impl SharedWorkspace {
    /// Provided as context at the root, under the `Session`.
    pub fn provide(session: Session) {
        let loading = StoredValue::new(false);
        let primed = StoredValue::new(None::<Workspace>);
        let answered_at = StoredValue::new(0.0);
        let resource = LocalResource::new(move || {
            let client = session.client();
            let kept = primed.try_update_value(Option::take).flatten();
            loading.set_value(client.is_some() && kept.is_none());
            async move {
                let answer = match kept {
                    Some(workspace) if client.is_some() => Ok(workspace),
                    _ => client.ok_or(ApiError::SignedOut)?.workspace().await,
                };
                loading.set_value(false);
                answered_at.set_value(js_sys::Date::now());
                answer
            }
        });
        provide_context(SharedWorkspace {
            resource,
            loading,
            primed,
            answered_at,
        });
    }

    /// The signed-in workspace's id once loaded; tracked, so a resource that reads it loads again
    /// when the workspace arrives (and on each refresh: a page that must not, reads it through
    /// a `Memo` of its own).
    pub fn id(&self) -> Option<String> {
        self.resource
            .get()
            .and_then(Result::ok)
            .map(|w| w.workspace_id)
    }

    /// The signed-in workspace's id once loaded; untracked.
    pub fn id_untracked(&self) -> Option<String> {
        self.resource
            .get_untracked()
            .and_then(Result::ok)
            .map(|w| w.workspace_id)
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

    /// The answer sign-in's check just got, for the load the new session starts: call it right
    /// before signing in.
    pub fn prime(&self, workspace: Workspace) {
        self.primed.set_value(Some(workspace));
        self.answered_at.set_value(js_sys::Date::now());
    }
}

pub fn use_workspace() -> SharedWorkspace {
    expect_context::<SharedWorkspace>()
}
