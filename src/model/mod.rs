//! Pure models: the console's rules as plain data and functions, with no DOM and no signals, so
//! they are tested natively (`cargo test`).

pub mod archive;
pub mod batch_tab;
pub mod bulk;
pub mod bulk_view;
pub mod chain;
pub mod compare;
pub mod credential;
pub mod credits;
pub mod credits_view;
pub mod expiry;
pub mod explore;
pub mod form;
pub mod format;
pub mod keys;
pub mod ledger;
pub mod log_queue;
pub mod no_answer;
pub mod output;
pub mod preferences;
pub mod presenter;
pub mod record_order;
pub mod request_log;
pub mod row_window;
pub mod runs_view;
pub mod safeguards;
pub mod same_input;
pub mod sign_ins;
pub mod slice_pace;
pub mod snippets;
pub mod store_error;
pub mod store_table;
pub mod submission;
pub mod urls;
