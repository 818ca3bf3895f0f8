//! Pure models: the console's rules as plain data and functions, with no DOM and no signals, so
//! they are tested natively (`cargo test`).

pub mod archive;
pub mod batch_tab;
pub mod bulk;
// What the bulk page shows of the prepared rows and of the batch (the page is in pages::bulk).
pub mod bulk_view;
pub mod compare;
pub mod credential;
pub mod credits;
pub mod explore;
pub mod form;
pub mod format;
pub mod keys;
pub mod no_answer;
pub mod output;
pub mod request_log;
pub mod safeguards;
pub mod sign_ins;
pub mod snippets;
pub mod urls;
