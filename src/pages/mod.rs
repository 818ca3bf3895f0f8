//! One page per file; each is a route of the app.

mod actions;
mod not_found;
mod sign_in;
mod workspace;

pub use actions::ActionsPage;
pub use not_found::NotFoundPage;
pub use sign_in::SignInPage;
pub use workspace::WorkspacePage;
