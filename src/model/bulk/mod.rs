//! Bulk runs as data: a pasted or chosen CSV/TSV file read into a table ([`table`]), its columns
//! mapped to an action's fields ([`mapping`]), every row checked with the form's rules
//! ([`checks`]), the batch's rows, their keys and states ([`rows`]), and the merged export
//! ([`export`]).
//!
//! Pure functions and types, tested natively. [`engine`] runs a batch as a state machine without
//! I/O, on the batch's [`clock`], at the pace of [`pacer`] and within its credit [`budget`];
//! `crate::runner` drives it in the bulk worker, `state::bulk` keeps the page's copy and
//! `pages::bulk` renders it.
//!
//! Every item is re-exported here, so `crate::model::bulk::BatchRow` and the like are the paths
//! to use outside this module.

pub mod budget;
pub mod checks;
pub mod clock;
pub mod engine;
pub mod export;
pub mod mapping;
pub mod pacer;
pub mod rows;
pub mod table;

#[cfg(test)]
mod fixtures;

pub use api_contract::RUN_LIST_LIMIT;

pub use checks::{CheckedRow, Spared, check_row, check_rows, describe, with_repeats_marked};
pub use export::{
    CONTRACT_RECORD_IDS, ExportFormat, MergedExport, SameRecord, add_output_columns, merged_export,
};
pub use mapping::{ColumnMapping, FieldSource, Source, loose};
pub use rows::{
    BatchExpiryMarks, BatchRow, RowError, RowState, SavedBatch, SavedCounts, Tally, row_key,
};
pub use table::{MAX_ROWS, Table, TableRow, read_table};
