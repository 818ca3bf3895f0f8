//! Widgets shared by several pages.

mod api_error_panel;
mod run_status_badge;
mod theme_toggle;

pub use api_error_panel::ApiErrorPanel;
pub use run_status_badge::RunStatusBadge;
pub use theme_toggle::{Theme, ThemeToggle};
