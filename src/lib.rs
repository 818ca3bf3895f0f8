//! The admin console: a Leptos client-side app for the data-extraction API (`/v1`).
//!
//! `app` holds the layout and picks the page for the current `routes::Route` (`navigation`
//! follows the URL), `transport` makes every HTTP request, `session` knows who is signed in;
//! pages live one per file under `pages/`, shared widgets under `components/`.

pub mod app;
pub mod browser;
pub mod components;
pub mod credential;
pub mod decode;
pub mod form_model;
pub mod format;
pub mod loading;
pub mod navigation;
pub mod output;
pub mod output_dom;
pub mod pages;
pub mod polling;
pub mod routes;
pub mod session;
pub mod shared_state;
pub mod transport;

pub use app::App;
