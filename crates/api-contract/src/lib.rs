//! The `/v1` API contract as Rust types, the action catalog and the input rules, shared by the console and the sandbox.
//!
//! Nothing here knows about Leptos, axum or any transport: it is plain data plus pure
//! validation, so the console's field errors and the sandbox's 400s come from one place.

pub mod actions;
pub mod chain;
pub mod environment;
pub mod input;
pub mod routes;
pub mod timestamp;
pub mod types;

pub use actions::{ActionGroup, ActionId};
pub use chain::{CHAIN_RULES, CarriedBy, ChainRule};
pub use environment::{ConsoleEnvironment, ENVIRONMENT_PATH, EnvironmentKind};
pub use input::{FieldError, FieldKind, FieldSpec, InputShape, RunInput, Submission};
pub use routes::{Endpoint, RouteMethod, Unrecognized};
pub use types::*;
