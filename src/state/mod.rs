//! State shared across pages, provided as context at the root: the session, the environment it
//! spends in, the workspace and
//! the action registry (each loaded once and shared), form drafts, the polling hook, and the background read of the runs list.

pub mod bulk;
pub mod drafts;
pub mod environment;
pub mod history;
pub mod polling;
pub mod registry;
pub mod safeguards;
pub mod session;
pub mod workspace;
