//! Widgets shared by several pages.

mod api_error_panel;
mod poll_notice;
mod run_status_badge;
mod theme_toggle;

pub use api_error_panel::ApiErrorPanel;
pub use poll_notice::PollNotice;
pub use run_status_badge::RunStatusBadge;
pub use theme_toggle::{Theme, ThemeToggle};
