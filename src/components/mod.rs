//! Widgets shared by several pages.

mod api_error_panel;
mod run_status_badge;

pub use api_error_panel::ApiErrorPanel;
pub use run_status_badge::RunStatusBadge;
