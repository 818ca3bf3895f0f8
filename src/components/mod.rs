//! Widgets shared by several pages.

mod api_error_panel;

pub use api_error_panel::ApiErrorPanel;
