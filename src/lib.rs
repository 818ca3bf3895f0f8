//! The admin console: a Leptos client-side app for the data-extraction API (`/v1`).
//!
//! Layers, from the outside in: `app` (the router and the layout), `pages/` (one per route),
//! `components/` (shared widgets), `state/` (session, shared loaders, polling), `api/` (the only
//! code that talks HTTP), and `model/` (pure rules, tested natively). `browser` wraps the few
//! browser facilities used directly, `chunk` how code is split into the pages' chunk, `store`
//! what this browser keeps (IndexedDB), `archive` and `request_log` the run history and the
//! request log kept there, and `runner` what runs a bulk batch in its own worker
//! (`src/bin/bulk-worker.rs`).

pub mod api;
pub mod app;
pub mod archive;
pub mod browser;
pub mod chunk;
pub mod components;
pub mod model;
pub mod nav;
pub mod pages;
pub mod request_log;
pub mod runner;
pub mod state;
pub mod store;

pub use app::App;
