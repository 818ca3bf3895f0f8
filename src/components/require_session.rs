//! The guard for pages that need a signed-in session.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::components::Redirect;
use leptos_router::hooks::use_location;

use crate::model::urls::sign_in_path;
use crate::nav::replace;
use crate::state::session::use_session;

/// Shows `children` while someone is signed in; otherwise goes to sign-in with `?next=` set to
/// this page, so the person comes back after signing in (also when a 401 ends the session).
///
/// Not `<ProtectedRoute>`: its `<Redirect>` pushes a history entry, so Back from the sign-in
/// page would land on the guarded page and bounce straight back. This one replaces it.
#[component]
pub fn RequireSession(children: ChildrenFn) -> impl IntoView {
    let session = use_session();
    let location = use_location();
    move || {
        if session.is_signed_in() {
            Either::Left(children())
        } else {
            let (path, query) = (
                location.pathname.get_untracked(),
                location.search.get_untracked(),
            );
            let here = if query.is_empty() {
                path
            } else {
                format!("{path}?{query}")
            };
            Either::Right(view! { <Redirect path=sign_in_path(&here) options=replace() /> })
        }
    }
}
