//! Which API the console is spending on. Not part of `/v1`: the servers that serve the console
//! (the sandbox, console-server) answer [`ENVIRONMENT_PATH`] with a [`ConsoleEnvironment`], and
//! the console reads it at start, so every page can say whether its runs spend real credits.

use serde::{Deserialize, Serialize};

/// Where the console's own server says what it is in front of.
pub const ENVIRONMENT_PATH: &str = "/console-environment.json";

/// Whether runs spend real credits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvironmentKind {
    /// Play money: the local sandbox, or a provider's own test environment.
    Sandbox,
    /// A workspace's real credits.
    Live,
}

/// An environment's kind and the name people know it by ("Sandbox", "Production").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleEnvironment {
    pub kind: EnvironmentKind,
    pub name: String,
}

impl ConsoleEnvironment {
    /// The sandbox of this workspace (crates/sandbox).
    pub fn sandbox() -> Self {
        ConsoleEnvironment {
            kind: EnvironmentKind::Sandbox,
            name: "Sandbox".to_owned(),
        }
    }

    /// An API known only by its address: live, named by its host (and port, if any).
    pub fn live_at(base_url: &str) -> Self {
        let host = base_url
            .split_once("://")
            .map_or(base_url, |(_, rest)| rest)
            .split(['/', '?', '#'])
            .next()
            .unwrap_or_default();
        ConsoleEnvironment {
            kind: EnvironmentKind::Live,
            name: host.rsplit('@').next().unwrap_or(host).to_owned(),
        }
    }

    pub fn is_live(&self) -> bool {
        self.kind == EnvironmentKind::Live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_alone_is_live_and_named_by_its_host() {
        let env = ConsoleEnvironment::live_at("https://api.provider.example/api");
        assert_eq!(env.kind, EnvironmentKind::Live);
        assert_eq!(env.name, "api.provider.example");
        assert_eq!(
            ConsoleEnvironment::live_at("http://127.0.0.1:8787").name,
            "127.0.0.1:8787"
        );
    }

    #[test]
    fn the_document_is_small_json() {
        assert_eq!(
            serde_json::to_string(&ConsoleEnvironment::sandbox()).unwrap(),
            r#"{"kind":"sandbox","name":"Sandbox"}"#
        );
        let live: ConsoleEnvironment =
            serde_json::from_str(r#"{"kind":"live","name":"Production","extra":1}"#).unwrap();
        assert!(live.is_live());
    }
}
