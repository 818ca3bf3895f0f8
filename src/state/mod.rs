//! State shared across pages, provided as context at the root: the session, the environment it
//! spends in, the workspace and
//! the action registry (each loaded once and shared), form drafts, the polling hook, the background read of the runs list, and the balance
//! readings' writes.

pub mod bulk;
pub mod chains;
pub mod drafts;
pub mod environment;
pub mod expiry;
pub mod history;
pub mod polling;
pub mod preferences;
pub mod presenter;
pub mod readings;
pub mod refusals;
pub mod registry;
pub mod safeguards;
pub mod session;
pub mod workspace;
