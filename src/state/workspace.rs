//! The workspace (`GET /v1/workspace`) as one shared resource: the header's summary, the
//! workspace page and the form's "available" figure read the same answer, so opening a page
//! never fetches it twice.

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
}

impl SharedWorkspace {
    /// Provided as context at the root, under the `Session`.
    pub fn provide(session: Session) {
        let loading = StoredValue::new(false);
        let resource = LocalResource::new(move || {
            let client = session.client();
            loading.set_value(client.is_some());
            async move {
                let answer = client.ok_or(ApiError::SignedOut)?.workspace().await;
                loading.set_value(false);
                answer
            }
        });
        provide_context(SharedWorkspace { resource, loading });
    }

    /// Asks again: after a submission, a cancel, a run that finished, or on the page's timer.
    pub fn refresh(&self) {
        self.resource.refetch();
    }

    /// Asks again unless a request is already under way (the one sign-in starts): opening the
    /// workspace page shows fresh numbers without doubling that load. A refresh asked for
    /// before a pending reload has started merges with it (the resource reloads once).
    pub fn refresh_unless_loading(&self) {
        if !self.loading.get_value() {
            self.refresh();
        }
    }
}

pub fn use_workspace() -> SharedWorkspace {
    expect_context::<SharedWorkspace>()
}
