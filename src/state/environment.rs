//! Which API the console is spending on, in view on every page. For the console's own origin,
//! what the server that serves it says ([`ENVIRONMENT_PATH`]: the sandbox says "Sandbox",
//! console-server the name it was started with); for a base URL typed at sign-in, or a server
//! that says nothing (nginx, `trunk serve` without the sandbox), live, named by its host.

use api_contract::{ConsoleEnvironment, ENVIRONMENT_PATH};
use leptos::prelude::*;

use super::session::Session;

#[derive(Clone, Copy)]
pub struct Environment {
    /// What the console's own server says; `None` when it says nothing this console can read.
    served: LocalResource<Option<ConsoleEnvironment>>,
    session: Session,
}

impl Environment {
    /// Provided as context at the root; asks the console's own server once.
    pub fn provide(session: Session) {
        let served = LocalResource::new(|| async {
            let answer = gloo_net::http::Request::get(ENVIRONMENT_PATH)
                .header("Accept", "application/json")
                .send()
                .await
                .ok()?;
            if !answer.ok() {
                return None;
            }
            serde_json::from_str::<ConsoleEnvironment>(&answer.text().await.ok()?).ok()
        });
        provide_context(Environment { served, session });
    }

    /// The environment of the signed-in session (or, before sign-in, of the console's own
    /// origin); `None` until the console's server has answered. Tracked.
    pub fn current(&self) -> Option<ConsoleEnvironment> {
        let own_origin = window().location().origin().unwrap_or_default();
        let base_url = self
            .session
            .base_url()
            .unwrap_or_else(|| own_origin.clone());
        if base_url != own_origin {
            return Some(ConsoleEnvironment::live_at(&base_url));
        }
        self.served
            .get()
            .map(|served| served.unwrap_or_else(|| ConsoleEnvironment::live_at(&own_origin)))
    }
}

pub fn use_environment() -> Environment {
    expect_context::<Environment>()
}
