//! Widgets used by several pages, and the route guard.

mod api_error_panel;
mod confirm;
mod confirm_spend;
mod copy_as_code;
mod credits_chart;
mod missed_runs;
mod notice;
mod output_explorer;
mod poll_notice;
mod presenter;
mod real_data_export;
mod require_session;
mod run_status_badge;
mod sliced_rows;
mod store_refusal_notice;
mod theme_toggle;
mod windowed_table;
mod workspace_switcher;

pub use api_error_panel::ApiErrorPanel;
pub use confirm::Confirm;
pub use confirm_spend::ConfirmSpend;
pub use copy_as_code::CopyAsCode;
pub use credits_chart::CreditsChart;
pub use missed_runs::MissedRuns;
pub use notice::{Notice, NoticeKind};
pub use output_explorer::{ExplorerRecords, OutputExplorer};
pub use poll_notice::PollNotice;
pub use presenter::{PresenterBand, PresenterToggle};
pub use real_data_export::{RealDataGate, RealDataQuestion};
pub use require_session::RequireSession;
pub use run_status_badge::RunStatusBadge;
pub use sliced_rows::{rows_drawn_in_slices, sliced_rows};
pub use store_refusal_notice::StoreRefusalNotice;
pub use theme_toggle::{Theme, ThemeToggle};
pub use windowed_table::{RowAttribute, WindowedPlaces, WindowedTable};
pub use workspace_switcher::{SignInList, WorkspaceSwitcher};
