//! Loading data into a signal: the latest answer stays on screen while a newer request runs.
//!
//! A lighter alternative to `LocalResource` + `Suspend` + `Transition`: per result type it
//! instantiates one signal and one task instead of the async-derived and suspense machinery,
//! which matters for the bundle-size budget (see README, "Speed and size").

use std::future::Future;

use leptos::prelude::*;

use crate::session::use_session;
use crate::transport::{ApiClient, ApiError};

/// The latest result of a request, if one has arrived yet.
pub type Loaded<T> = RwSignal<Option<Result<T, ApiError>>>;

/// Runs `fetch` now and again whenever a signal it reads (synchronously) changes. An answer
/// to an older request never replaces a newer one.
pub fn load<T, Fut>(fetch: impl Fn() -> Fut + 'static) -> Loaded<T>
where
    T: Send + Sync + 'static,
    Fut: Future<Output = Result<T, ApiError>> + 'static,
{
    let value: Loaded<T> = RwSignal::new(None);
    let generation = StoredValue::new(0u32);
    Effect::new(move |_| {
        let request = fetch();
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        leptos::task::spawn_local(async move {
            let result = request.await;
            if generation.try_get_value() == Some(mine) {
                value.try_set(Some(result));
            }
        });
    });
    value
}

/// [`load`] with the signed-in session's client, reloading when the session changes. Signals
/// read synchronously inside `request` are tracked too.
pub fn load_api<T, Fut>(request: impl Fn(ApiClient) -> Fut + 'static) -> Loaded<T>
where
    T: Send + Sync + 'static,
    Fut: Future<Output = Result<T, ApiError>> + 'static,
{
    let session = use_session();
    load(move || {
        let pending = session.client().map(&request);
        async move {
            match pending {
                Some(request) => request.await,
                None => Err(ApiError::Network("not signed in".into())),
            }
        }
    })
}
