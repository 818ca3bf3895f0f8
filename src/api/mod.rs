//! The transport: the only code that talks HTTP. Pages call [`ApiClient`]'s typed methods and
//! get a contract type or an [`ApiError`]; they never use gloo-net or `fetch` themselves. The
//! console's own server's environment document ([`served_environment`]) is asked here too.

mod client;
mod environment;
mod error;
mod probe;

pub use client::{ApiClient, ExchangeObserver, Submitted, UnauthorizedHandler, WithRequestId};
pub use environment::served_environment;
pub use error::{ApiError, interpret_error, interpret_response};
