//! One page per file; each is a route of the app, declared in `app.rs`.

mod action_form;
mod actions;
mod bulk;
pub mod compare;
mod credits;
mod keys;
pub mod lazy;
mod not_found;
mod request_log;
mod run_detail;
mod runs;
mod safeguards;
mod sign_in;
mod storage;
mod workspace;

pub use action_form::ActionFormPage;
pub use actions::ActionsPage;
pub use bulk::{BulkPage, ChainsPage};
pub use compare::CompareRunsPage;
pub use credits::CreditsPage;
pub use keys::KeysPage;
pub use not_found::NotFoundPage;
pub use request_log::{LogEntryPage, RequestLogPage};
pub use run_detail::RunDetailPage;
pub use runs::RunsPage;
pub use safeguards::SafeguardsPage;
pub use sign_in::SignInPage;
pub use storage::StoragePage;
pub use workspace::WorkspacePage;
