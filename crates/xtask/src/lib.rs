//! The console's build tasks (see `main.rs`); modules public so their tests and the binary share
//! them.

pub mod finish_dist;
pub mod imports;
pub mod precompress;
pub mod tools;
