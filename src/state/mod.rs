//! State shared across pages, provided as context at the root: the session, the workspace and
//! the action registry (each loaded once and shared), form drafts, and the polling hook.

pub mod bulk;
pub mod drafts;
pub mod polling;
pub mod registry;
pub mod session;
pub mod workspace;
