//! Which API the console is spending on, in view on every page. For the console's own origin,
//! what the server that serves it says (`api_contract::ENVIRONMENT_PATH`, asked through `api`:
//! the sandbox says "Sandbox", console-server the name it was started with); for a base URL
//! typed at sign-in, or a server that says nothing (nginx, `trunk serve` without the sandbox),
//! live, named by its host.
//!
//! The document is asked for beside the wasm (a preload in index.html) and the app is mounted
//! once it has answered ([`served_environment`], from `main`): the sandbox's band is there at
//! the first render, so it never moves the page under a person's pointer.

use std::time::Duration;

use api_contract::ConsoleEnvironment;
use leptos::prelude::*;

use super::session::Session;

/// How long the first render waits for the console's server to say what it is in front of.
const WAIT_AT_MOST: Duration = Duration::from_millis(1500);

/// What the console's own server says (`api::served_environment`); `None` when it says nothing
/// this console can read within [`WAIT_AT_MOST`].
pub async fn served_environment() -> Option<ConsoleEnvironment> {
    crate::api::served_environment(WAIT_AT_MOST).await
}

#[derive(Clone, Copy)]
pub struct Environment {
    served: StoredValue<Option<ConsoleEnvironment>>,
    session: Session,
}

impl Environment {
    /// Provided as context at the root, with what the console's server said before mounting.
    pub fn provide(session: Session, served: Option<ConsoleEnvironment>) {
        provide_context(Environment {
            served: StoredValue::new(served),
            session,
        });
    }

    /// The environment of the signed-in session (or, before sign-in, of the console's own
    /// origin). Tracked (the session).
    pub fn current(&self) -> ConsoleEnvironment {
        let own_origin = window().location().origin().unwrap_or_default();
        let base_url = self.session.base_url().unwrap_or(own_origin);
        self.of_base_url(&base_url)
    }

    /// The environment of an API at `base_url`: what the console's own server says for its own
    /// origin, else live and named by its host. For a request log entry, sent to its base URL.
    pub fn of_base_url(&self, base_url: &str) -> ConsoleEnvironment {
        let own_origin = window().location().origin().unwrap_or_default();
        if base_url != own_origin && !base_url.is_empty() {
            return ConsoleEnvironment::live_at(base_url);
        }
        self.served
            .get_value()
            .unwrap_or_else(|| ConsoleEnvironment::live_at(&own_origin))
    }
}

impl Environment {
    /// A file name for an export made now: the environment first (`production-run-…`), so a
    /// file from the sandbox is never mistaken for a live one's.
    pub fn file_name(&self, rest: &str) -> String {
        let environment = self.current_untracked();
        format!(
            "{}-{rest}",
            crate::model::format::file_label(&environment.name)
        )
    }

    /// Like [`Environment::current`], untracked: for event handlers.
    pub fn current_untracked(&self) -> ConsoleEnvironment {
        untrack(|| self.current())
    }
}

pub fn use_environment() -> Environment {
    expect_context::<Environment>()
}
