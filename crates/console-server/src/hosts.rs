//! Which `Host` this server answers for. A web page on another site can point a name of its own
//! at this server's address (DNS rebinding) and then call it as its own origin, relaying
//! through it to the API; such a request carries that name in `Host`. Answered: an IP address
//! (a rebinding page never has one as its origin), `localhost` and `*.localhost` (which browsers
//! resolve themselves), and the names given with `--public-host`; the same rule as Vite's
//! `server.allowedHosts`.

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::refusal::{OwnCode, Refusal};

/// The names this server answers for, besides addresses and `localhost`.
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts {
    /// Lowercase, without a port or a final dot.
    names: Vec<String>,
}

impl AllowedHosts {
    /// `names` as given to `--public-host` (`console.example.com`, with or without a port).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut allowed = Vec::new();
        for name in names {
            let host = host_name(name)
                .filter(|host| !host.is_empty())
                .ok_or_else(|| format!("--public-host {name} is not a host name"))?;
            allowed.push(host);
        }
        Ok(AllowedHosts { names: allowed })
    }

    /// Whether a request whose `Host` header is `host` is for this server.
    pub fn allows(&self, host: &str) -> bool {
        let Some(name) = host_name(host) else {
            return false;
        };
        name.parse::<IpAddr>().is_ok()
            || name == "localhost"
            || name.ends_with(".localhost")
            || self.names.contains(&name)
    }

    fn listed(&self) -> String {
        if self.names.is_empty() {
            "only its IP addresses and localhost".to_owned()
        } else {
            format!("its IP addresses, localhost and {}", self.names.join(", "))
        }
    }
}

/// The name in a `Host` value: lowercase, without the port, the final dot or an IPv6 address's
/// brackets; `None` when it is not a host at all.
fn host_name(host: &str) -> Option<String> {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        let (address, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        address
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return None,
            None => host,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b':');
    plain.then(|| name.to_ascii_lowercase())
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|b| b.is_ascii_digit())
}

/// The middleware: a request for another host is refused (421) before anything else reads it.
pub async fn refuse_other_hosts(
    State(hosts): State<AllowedHosts>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    match host {
        Some(host) if hosts.allows(host) => next.run(request).await,
        Some(_) => Refusal::new(
            StatusCode::MISDIRECTED_REQUEST,
            OwnCode::MisdirectedRequest,
            format!(
                "This server answers for {}. If people reach it under another name, start it \
                 with --public-host NAME.",
                hosts.listed()
            ),
        )
        .into_response(),
        None => Refusal::new(
            StatusCode::BAD_REQUEST,
            OwnCode::InvalidRequest,
            "The request has no Host header.",
        )
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_localhost_and_listed_names_are_answered() {
        let hosts = AllowedHosts::new(["Console.Example.com", "ops.example:8443"]).unwrap();
        for host in [
            "127.0.0.1:8080",
            "10.1.2.3",
            "[::1]:8080",
            "[fe80::1]",
            "localhost:8080",
            "LOCALHOST",
            "app.localhost:3000",
            "console.example.com",
            "console.example.com.:443",
            "CONSOLE.EXAMPLE.COM:8080",
            "ops.example",
        ] {
            assert!(hosts.allows(host), "{host}");
        }
    }

    #[test]
    fn other_names_and_malformed_hosts_are_not() {
        let hosts = AllowedHosts::new(["console.example.com"]).unwrap();
        for host in [
            "evil.example",
            "evil.example:8080",
            "console.example.com.evil.example",
            "localhost.evil.example",
            "x",
            "",
            "127.0.0.1:80:80",
            "[::1]x",
            "host:port",
            "user@127.0.0.1",
            "127.0.0.1/evil",
            "évil.example",
        ] {
            assert!(!hosts.allows(host), "{host}");
        }
        assert!(AllowedHosts::new(["a b"]).is_err());
        assert!(AllowedHosts::new([""]).is_err());
    }
}
