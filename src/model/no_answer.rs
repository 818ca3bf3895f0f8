//! Why a request got no answer at all, as far as a browser lets a page tell, and what fixes each
//! cause. The browser hides the cause of a failed `fetch`; `api::client` gathers the clues (is
//! the computer online, the two origins, did the console's own policy block the request, does a
//! `no-cors` probe get an answer) and this module names the cause and says it in words.

/// What stopped an answer from reaching the console.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoAnswer {
    /// The browser says this computer is offline.
    Offline,
    /// The console's own origin (its server, a proxy in front of the API) did not answer.
    ConsoleServer { console_origin: String },
    /// An `http:` API called from an `https:` console: the browser blocks it (mixed content).
    MixedContent { api_origin: String },
    /// The console's Content-Security-Policy (set by whatever serves it) does not allow the API's
    /// origin: the browser did not send the request.
    BlockedByConsolePolicy { api_origin: String },
    /// A server answers at the API's origin, but not with CORS headers that allow this console's
    /// origin: the browser hid its answer.
    RefusesThisOrigin {
        api_origin: String,
        console_origin: String,
    },
    /// Nothing answers at the API's origin: down, a wrong address or port, or a firewall.
    NothingAnswers { api_origin: String },
}

/// The clues gathered after a request got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clues {
    pub online: bool,
    pub console_origin: String,
    pub api_origin: String,
    /// The browser reported that the console's policy blocked a request to `api_origin`.
    pub blocked_by_policy: bool,
    /// A `no-cors` request to the API's URL got an (opaque) answer.
    pub probe_answered: bool,
}

/// `scheme://host[:port]` of an absolute `http(s)` URL, lowercased as browsers write origins.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    // Credentials in a URL are not part of its origin.
    let host = authority.rsplit('@').next()?.to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let host = host.strip_suffix(default_port).unwrap_or(&host);
    Some(format!("{scheme}://{host}"))
}

/// Whether a browser blocks a request from a page on `console_origin` to `api_origin` as mixed
/// content: an `https:` page calling `http:`, except on the loopback addresses, which browsers
/// treat as secure.
pub fn is_mixed_content(console_origin: &str, api_origin: &str) -> bool {
    let Some(host) = api_origin.strip_prefix("http://") else {
        return false;
    };
    let host = host.rsplit_once(':').map_or(host, |(host, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            host
        } else {
            // An IPv6 literal without a port: `[::1]`.
            api_origin.trim_start_matches("http://")
        }
    });
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "[::1]";
    console_origin.starts_with("https://") && !loopback
}

/// Whether the clues are worth gathering with a probe: the API is on another origin, and
/// neither an offline computer nor mixed content explains the silence already.
pub fn needs_probe(online: bool, console_origin: &str, api_origin: &str) -> bool {
    online && console_origin != api_origin && !is_mixed_content(console_origin, api_origin)
}

impl NoAnswer {
    /// The cause the clues point to, most certain first.
    pub fn from_clues(clues: Clues) -> NoAnswer {
        let Clues {
            online,
            console_origin,
            api_origin,
            blocked_by_policy,
            probe_answered,
        } = clues;
        if !online {
            NoAnswer::Offline
        } else if console_origin == api_origin {
            NoAnswer::ConsoleServer { console_origin }
        } else if is_mixed_content(&console_origin, &api_origin) {
            NoAnswer::MixedContent { api_origin }
        } else if blocked_by_policy {
            NoAnswer::BlockedByConsolePolicy { api_origin }
        } else if probe_answered {
            NoAnswer::RefusesThisOrigin {
                api_origin,
                console_origin,
            }
        } else {
            NoAnswer::NothingAnswers { api_origin }
        }
    }

    /// What happened and what fixes it, in one paragraph; the same on every page.
    pub fn message(&self) -> String {
        match self {
            NoAnswer::Offline => {
                "No answer: this computer is offline. The request was not sent; try again once \
                 it is back online."
                    .to_owned()
            }
            NoAnswer::ConsoleServer { console_origin } => format!(
                "No answer from {console_origin}, the server this console is on: it may have \
                 stopped or be restarting. Check that it is running, then try again."
            ),
            NoAnswer::MixedContent { api_origin } => format!(
                "The browser blocked the request: this console is on https:, and the API at \
                 {api_origin} is on plain http: (mixed content). Use the API's https:// \
                 address, or serve the console through console-server --upstream {api_origin} \
                 and leave the API base URL empty."
            ),
            NoAnswer::BlockedByConsolePolicy { api_origin } => format!(
                "The browser did not send the request: the server this console is on allows it \
                 to call only its own origin, not {api_origin}. Leave the API base URL empty to \
                 use the API that server forwards to, or serve the console with {api_origin} in \
                 its Content-Security-Policy's connect-src."
            ),
            NoAnswer::RefusesThisOrigin {
                api_origin,
                console_origin,
            } => format!(
                "The API at {api_origin} answers, but does not allow this console's origin \
                 ({console_origin}): it sends no CORS headers for it, so the browser hid its \
                 answer. Serve the console through console-server --upstream {api_origin} and \
                 leave the API base URL empty, or have the API allow {console_origin} with the \
                 Authorization, Content-Type and Idempotency-Key headers."
            ),
            NoAnswer::NothingAnswers { api_origin } => format!(
                "Nothing answers at {api_origin}: the server is down, or the address or port is \
                 wrong. Check the API base URL."
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clues(console: &str, api: &str) -> Clues {
        Clues {
            online: true,
            console_origin: console.to_owned(),
            api_origin: api.to_owned(),
            blocked_by_policy: false,
            probe_answered: false,
        }
    }

    #[test]
    fn origins_as_browsers_write_them() {
        for (url, origin) in [
            (
                "https://API.Example.com/v1/workspace?x=1",
                Some("https://api.example.com"),
            ),
            ("http://127.0.0.1:8787", Some("http://127.0.0.1:8787")),
            (
                "https://api.example.com:443/v1",
                Some("https://api.example.com"),
            ),
            (
                "https://user:pw@api.example.com/",
                Some("https://api.example.com"),
            ),
            ("/v1/workspace", None),
            ("ftp://x", None),
        ] {
            assert_eq!(origin_of(url).as_deref(), origin, "{url}");
        }
    }

    #[test]
    fn mixed_content_is_https_to_http_except_loopback() {
        assert!(is_mixed_content(
            "https://console.example",
            "http://api.example"
        ));
        assert!(is_mixed_content(
            "https://console.example",
            "http://10.0.0.5:8080"
        ));
        for loopback in [
            "http://localhost:8787",
            "http://127.0.0.1:8787",
            "http://[::1]:8787",
            "http://[::1]",
            "http://api.localhost",
        ] {
            assert!(
                !is_mixed_content("https://console.example", loopback),
                "{loopback}"
            );
        }
        assert!(!is_mixed_content(
            "http://console.example",
            "http://api.example"
        ));
        assert!(!is_mixed_content(
            "https://console.example",
            "https://api.example"
        ));
    }

    #[test]
    fn each_clue_names_its_cause() {
        let console = "http://127.0.0.1:8080";
        let api = "http://127.0.0.1:9999";
        assert_eq!(
            NoAnswer::from_clues(clues(console, api)),
            NoAnswer::NothingAnswers {
                api_origin: api.into()
            }
        );
        let answered = Clues {
            probe_answered: true,
            ..clues(console, api)
        };
        assert_eq!(
            NoAnswer::from_clues(answered.clone()),
            NoAnswer::RefusesThisOrigin {
                api_origin: api.into(),
                console_origin: console.into()
            }
        );
        // The policy blocks the probe too, so its report outweighs the probe's silence.
        let blocked = Clues {
            blocked_by_policy: true,
            ..clues(console, api)
        };
        assert!(matches!(
            NoAnswer::from_clues(blocked),
            NoAnswer::BlockedByConsolePolicy { .. }
        ));
        assert!(matches!(
            NoAnswer::from_clues(clues("https://console.example", "http://api.example")),
            NoAnswer::MixedContent { .. }
        ));
        assert!(matches!(
            NoAnswer::from_clues(clues(console, console)),
            NoAnswer::ConsoleServer { .. }
        ));
        let offline = Clues {
            online: false,
            ..answered
        };
        assert_eq!(NoAnswer::from_clues(offline), NoAnswer::Offline);
    }

    #[test]
    fn each_message_says_what_fixes_it() {
        let api = "https://api.provider.example";
        let console = "https://console.example";
        let refuses = NoAnswer::RefusesThisOrigin {
            api_origin: api.into(),
            console_origin: console.into(),
        }
        .message();
        for part in [
            "console-server --upstream https://api.provider.example",
            "allow https://console.example",
            "Authorization, Content-Type and Idempotency-Key",
        ] {
            assert!(refuses.contains(part), "{part} in {refuses}");
        }
        let nothing = NoAnswer::NothingAnswers {
            api_origin: api.into(),
        }
        .message();
        assert!(nothing.contains("Nothing answers at https://api.provider.example"));
        assert!(!nothing.contains("CORS"));
        let mixed = NoAnswer::MixedContent {
            api_origin: "http://api.example".into(),
        }
        .message();
        assert!(mixed.contains("mixed content") && mixed.contains("https://"));
        let blocked = NoAnswer::BlockedByConsolePolicy {
            api_origin: api.into(),
        }
        .message();
        assert!(blocked.contains("Leave the API base URL empty"));
    }

    #[test]
    fn a_probe_is_needed_only_when_the_clues_so_far_say_nothing() {
        assert!(needs_probe(true, "http://a:1", "http://b:2"));
        assert!(!needs_probe(false, "http://a:1", "http://b:2"));
        assert!(!needs_probe(true, "http://a:1", "http://a:1"));
        assert!(!needs_probe(true, "https://a", "http://b"));
    }
}
