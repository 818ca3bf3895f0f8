//! `--upstream`: the one API this server forwards `/v1` to, checked once at start.

use std::fmt;
use std::str::FromStr;

use axum::http::Uri;
use axum::http::uri::Scheme;

/// An `http://` or `https://` address with an optional base path (`https://host/api` forwards
/// `/v1/runs` to `https://host/api/v1/runs`); never credentials, a query or a fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    /// `scheme://host[:port]`, which messages name.
    origin: String,
    /// Empty, or `/segment…` without a trailing `/`.
    base_path: String,
    https: bool,
    loopback: bool,
    /// Loopback, or an address of a private network (RFC 1918, unique local, link-local).
    private: bool,
}

impl Upstream {
    /// The origin people know the API by, for messages: `https://api.provider.example`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn is_https(&self) -> bool {
        self.https
    }

    /// `localhost` or a loopback address: plain HTTP there never crosses a network.
    pub fn is_loopback(&self) -> bool {
        self.loopback
    }

    /// `localhost`, a loopback address or a private network's address: plain HTTP there never
    /// crosses the internet.
    pub fn is_private(&self) -> bool {
        self.private
    }

    /// Where a request for `path_and_query` (checked by `paths::check_api_path`) goes.
    pub fn target(&self, path_and_query: &str) -> Result<Uri, axum::http::uri::InvalidUri> {
        format!("{}{}{}", self.origin, self.base_path, path_and_query).parse()
    }

    /// A `Location` the upstream sent, as this server's own path when it points back at the
    /// upstream (so the browser comes back here rather than to an origin that refuses it).
    pub fn relative_location(&self, location: &str) -> Option<String> {
        let rest = location.strip_prefix(&self.origin)?;
        let rest = rest.strip_prefix(&self.base_path)?;
        rest.starts_with('/').then(|| rest.to_owned())
    }
}

impl fmt::Display for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.origin, self.base_path)
    }
}

impl FromStr for Upstream {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let uri: Uri = text
            .parse()
            .map_err(|e| format!("{text} is not a URL ({e})"))?;
        let https = match uri.scheme() {
            Some(scheme) if *scheme == Scheme::HTTPS => true,
            Some(scheme) if *scheme == Scheme::HTTP => false,
            _ => return Err(format!("{text} must start with https:// (or http://)")),
        };
        let authority = uri
            .authority()
            .ok_or_else(|| format!("{text} names no host"))?;
        if authority.as_str().contains('@') {
            return Err(format!(
                "{text} carries credentials; the console sends each person's own, so the \
                 upstream's address must not"
            ));
        }
        if uri.query().is_some() || text.contains('#') {
            return Err(format!(
                "{text} has a query or fragment; give the API's base URL only"
            ));
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let address = host.parse::<std::net::IpAddr>().ok();
        let loopback = host == "localhost" || address.is_some_and(|ip| ip.is_loopback());
        let private = loopback
            || address.is_some_and(|ip| match ip {
                std::net::IpAddr::V4(v4) => v4.is_private() || v4.is_link_local(),
                std::net::IpAddr::V6(v6) => v6.is_unique_local() || v6.is_unicast_link_local(),
            });
        let base_path = uri.path().trim_end_matches('/');
        let base_path = base_path
            .strip_suffix("/v1")
            .unwrap_or(base_path)
            .to_owned();
        Ok(Upstream {
            origin: format!("{}://{}", if https { "https" } else { "http" }, authority),
            base_path,
            https,
            loopback,
            private,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_or_a_base_path_is_an_upstream() {
        let plain: Upstream = "https://api.provider.example".parse().unwrap();
        assert_eq!(plain.origin(), "https://api.provider.example");
        assert_eq!(
            plain.target("/v1/runs?cursor=a").unwrap(),
            "https://api.provider.example/v1/runs?cursor=a"
        );
        let based: Upstream = "https://provider.example/api/".parse().unwrap();
        assert_eq!(
            based.target("/v1/workspace").unwrap(),
            "https://provider.example/api/v1/workspace"
        );
        // People paste the base URL with its /v1 as often as without.
        let with_v1: Upstream = "http://127.0.0.1:8787/v1".parse().unwrap();
        assert_eq!(
            with_v1.target("/v1/actions").unwrap(),
            "http://127.0.0.1:8787/v1/actions"
        );
        assert!(with_v1.is_loopback() && !with_v1.is_https());
    }

    #[test]
    fn private_addresses_are_told_from_public_ones() {
        for private in [
            "http://localhost:8787",
            "http://127.0.0.1",
            "http://[::1]:80",
            "http://10.0.0.7",
            "http://172.16.3.4",
            "http://192.168.1.20:8080",
            "http://169.254.1.1",
            "http://[fd00::1]",
            "http://[fe80::1]",
        ] {
            assert!(
                private.parse::<Upstream>().unwrap().is_private(),
                "{private}"
            );
        }
        for public in [
            "http://api.provider.example",
            "http://8.8.8.8",
            "http://172.32.0.1",
            "http://[2001:db8::1]",
            "http://internal.corp",
        ] {
            assert!(
                !public.parse::<Upstream>().unwrap().is_private(),
                "{public}"
            );
        }
    }

    #[test]
    fn credentials_queries_and_other_schemes_are_refused() {
        for text in [
            "https://user:secret@api.example",
            "https://api.example/?key=1",
            "https://api.example/#x",
            "ftp://api.example",
            "api.example",
            "/v1",
        ] {
            assert!(text.parse::<Upstream>().is_err(), "{text}");
        }
    }

    #[test]
    fn a_location_on_the_upstream_comes_back_here() {
        let upstream: Upstream = "https://provider.example/api".parse().unwrap();
        assert_eq!(
            upstream.relative_location("https://provider.example/api/v1/runs/r1"),
            Some("/v1/runs/r1".to_owned())
        );
        assert_eq!(
            upstream.relative_location("https://elsewhere.example/v1/runs"),
            None
        );
        assert_eq!(
            upstream.relative_location("https://provider.example.evil/x"),
            None
        );
    }
}
