//! The contract's `/v1` routes (section 4), listed once: the sandbox serves and documents exactly
//! these, and console-server forwards exactly these and refuses everything else.

/// The methods the contract's routes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RouteMethod {
    Get,
    Post,
    Delete,
}

impl RouteMethod {
    /// As HTTP writes it: `GET`, `POST`, `DELETE`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RouteMethod::Get => "GET",
            RouteMethod::Post => "POST",
            RouteMethod::Delete => "DELETE",
        }
    }
}

/// One route of the contract: a method and a path template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    ListActions,
    SubmitLive,
    SubmitAsync,
    ListRuns,
    GetRun,
    GetRunOutputs,
    CancelRun,
    GetWorkspace,
    ListKeys,
    CreateKey,
    RevokeKey,
}

/// The longest path parameter (an action, run or key id) a request may carry.
pub const PATH_PARAMETER_MAX_LEN: usize = 128;

impl Endpoint {
    /// Every route, in the order of the contract's section 4.
    pub const ALL: [Endpoint; 11] = [
        Endpoint::ListActions,
        Endpoint::SubmitLive,
        Endpoint::SubmitAsync,
        Endpoint::ListRuns,
        Endpoint::GetRun,
        Endpoint::GetRunOutputs,
        Endpoint::CancelRun,
        Endpoint::GetWorkspace,
        Endpoint::ListKeys,
        Endpoint::CreateKey,
        Endpoint::RevokeKey,
    ];

    pub const fn method(self) -> RouteMethod {
        match self {
            Endpoint::SubmitLive
            | Endpoint::SubmitAsync
            | Endpoint::CancelRun
            | Endpoint::CreateKey => RouteMethod::Post,
            Endpoint::RevokeKey => RouteMethod::Delete,
            Endpoint::ListActions
            | Endpoint::ListRuns
            | Endpoint::GetRun
            | Endpoint::GetRunOutputs
            | Endpoint::GetWorkspace
            | Endpoint::ListKeys => RouteMethod::Get,
        }
    }

    /// The submission route of a mode: live or async.
    pub const fn submit(live: bool) -> Endpoint {
        if live {
            Endpoint::SubmitLive
        } else {
            Endpoint::SubmitAsync
        }
    }

    /// The request carries a JSON body (a submission's, a new key's name).
    pub const fn sends_body(self) -> bool {
        matches!(
            self,
            Endpoint::SubmitLive | Endpoint::SubmitAsync | Endpoint::CreateKey
        )
    }

    /// The path as axum and OpenAPI write it, `/v1` included; a `{name}` segment is a path
    /// parameter.
    pub const fn path(self) -> &'static str {
        match self {
            Endpoint::ListActions => "/v1/actions",
            Endpoint::SubmitLive => "/v1/actions/{action}/run/live",
            Endpoint::SubmitAsync => "/v1/actions/{action}/run/async",
            Endpoint::ListRuns => "/v1/runs",
            Endpoint::GetRun => "/v1/runs/{id}",
            Endpoint::GetRunOutputs => "/v1/runs/{id}/outputs",
            Endpoint::CancelRun => "/v1/runs/{id}/cancel",
            Endpoint::GetWorkspace => "/v1/workspace",
            Endpoint::ListKeys | Endpoint::CreateKey => "/v1/keys",
            Endpoint::RevokeKey => "/v1/keys/{id}",
        }
    }

    /// The path of a request to this route: its parameter (`{action}`, `{id}`), where it has
    /// one, replaced by `parameter` as given (the caller percent-encodes it); a route without
    /// one is its path.
    pub fn path_with(self, parameter: &str) -> String {
        let path = self.path();
        match (path.find('{'), path.find('}')) {
            (Some(open), Some(close)) => {
                format!("{}{parameter}{}", &path[..open], &path[close + 1..])
            }
            _ => path.to_owned(),
        }
    }

    /// Method and path, as logs and metrics name the route: `GET /v1/runs/{id}`.
    pub const fn label(self) -> &'static str {
        match self {
            Endpoint::ListActions => "GET /v1/actions",
            Endpoint::SubmitLive => "POST /v1/actions/{action}/run/live",
            Endpoint::SubmitAsync => "POST /v1/actions/{action}/run/async",
            Endpoint::ListRuns => "GET /v1/runs",
            Endpoint::GetRun => "GET /v1/runs/{id}",
            Endpoint::GetRunOutputs => "GET /v1/runs/{id}/outputs",
            Endpoint::CancelRun => "POST /v1/runs/{id}/cancel",
            Endpoint::GetWorkspace => "GET /v1/workspace",
            Endpoint::ListKeys => "GET /v1/keys",
            Endpoint::CreateKey => "POST /v1/keys",
            Endpoint::RevokeKey => "DELETE /v1/keys/{id}",
        }
    }

    /// The route a request is for, by its method and its path (without the query), as sent:
    /// percent-encoded bytes are not decoded, so a parameter is matched exactly as it will reach
    /// the server behind.
    pub fn recognize(method: &str, path: &str) -> Result<Endpoint, Unrecognized> {
        let mut allowed = Vec::new();
        let mut bad_parameter = false;
        for endpoint in Endpoint::ALL {
            match endpoint.match_path(path) {
                PathMatch::No => {}
                PathMatch::BadParameter => bad_parameter = true,
                PathMatch::Yes if endpoint.method().as_str() == method => return Ok(endpoint),
                PathMatch::Yes => allowed.push(endpoint.method()),
            }
        }
        if !allowed.is_empty() {
            Err(Unrecognized::MethodNotAllowed { allowed })
        } else if bad_parameter {
            Err(Unrecognized::BadParameter)
        } else {
            Err(Unrecognized::NoRoute)
        }
    }

    fn match_path(self, path: &str) -> PathMatch {
        let mut sent = path.split('/');
        let mut template = self.path().split('/');
        let mut parameters_are_plain = true;
        loop {
            match (template.next(), sent.next()) {
                (None, None) => break,
                (Some(expected), Some(segment)) if is_parameter(expected) => {
                    if segment.is_empty() {
                        return PathMatch::No;
                    }
                    parameters_are_plain &= is_plain_parameter(segment);
                }
                (Some(expected), Some(segment)) if expected == segment => {}
                _ => return PathMatch::No,
            }
        }
        if parameters_are_plain {
            PathMatch::Yes
        } else {
            PathMatch::BadParameter
        }
    }
}

enum PathMatch {
    Yes,
    /// The path has the route's shape, but a parameter is not a plain id.
    BadParameter,
    No,
}

fn is_parameter(template_segment: &str) -> bool {
    template_segment.starts_with('{') && template_segment.ends_with('}')
}

/// An id as the contract's ids look: ASCII letters, digits, `_` and `-`, 1 to
/// [`PATH_PARAMETER_MAX_LEN`] of them. Nothing a server behind could read as a separator, a dot
/// segment, an encoded byte or a parameter of its own (`;`).
pub fn is_plain_parameter(segment: &str) -> bool {
    (1..=PATH_PARAMETER_MAX_LEN).contains(&segment.len())
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Why a request is for none of the contract's routes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unrecognized {
    /// No route has this path.
    NoRoute,
    /// A route has this path, with another method: these.
    MethodNotAllowed { allowed: Vec<RouteMethod> },
    /// A route has this shape of path, but an id in it is not a plain id.
    BadParameter,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_with_its_parameter_is_recognized_as_its_route() {
        for endpoint in Endpoint::ALL {
            let path = endpoint.path_with("run_1");
            assert!(!path.contains('{'), "{path}");
            assert_eq!(
                Endpoint::recognize(endpoint.method().as_str(), &path),
                Ok(endpoint),
                "{path}"
            );
        }
        assert_eq!(Endpoint::GetRun.path_with("r-9"), "/v1/runs/r-9");
        assert_eq!(Endpoint::CancelRun.path_with("r-9"), "/v1/runs/r-9/cancel");
        assert_eq!(
            Endpoint::SubmitAsync.path_with("network-search-schools"),
            "/v1/actions/network-search-schools/run/async"
        );
        assert_eq!(Endpoint::ListRuns.path_with("ignored"), "/v1/runs");
    }

    #[test]
    fn every_route_is_recognized_with_ids_filled_in() {
        for endpoint in Endpoint::ALL {
            let path = endpoint
                .path()
                .replace("{action}", "premium-search-people")
                .replace("{id}", "3f2b6c1e-0d4a-4e8b-9a57-1c2d3e4f5a6b");
            assert_eq!(
                Endpoint::recognize(endpoint.method().as_str(), &path),
                Ok(endpoint),
                "{path}"
            );
        }
    }

    #[test]
    fn a_routes_label_is_its_method_and_path() {
        for endpoint in Endpoint::ALL {
            assert_eq!(
                endpoint.label(),
                format!("{} {}", endpoint.method().as_str(), endpoint.path())
            );
        }
    }

    #[test]
    fn a_known_path_with_another_method_names_the_allowed_ones() {
        assert_eq!(
            Endpoint::recognize("PUT", "/v1/keys"),
            Err(Unrecognized::MethodNotAllowed {
                allowed: vec![RouteMethod::Get, RouteMethod::Post]
            })
        );
        for method in ["PATCH", "PURGE", "PROPFIND", "get", "HEAD", "OPTIONS"] {
            assert_eq!(
                Endpoint::recognize(method, "/v1/workspace"),
                Err(Unrecognized::MethodNotAllowed {
                    allowed: vec![RouteMethod::Get]
                }),
                "{method}"
            );
        }
    }

    #[test]
    fn ids_that_are_not_plain_are_refused() {
        let too_long = format!("/v1/runs/{}", "a".repeat(PATH_PARAMETER_MAX_LEN + 1));
        let longest = format!("/v1/runs/{}", "a".repeat(PATH_PARAMETER_MAX_LEN));
        assert_eq!(Endpoint::recognize("GET", &longest), Ok(Endpoint::GetRun));
        for path in [
            too_long.as_str(),
            "/v1/runs/..",
            "/v1/runs/..;",
            "/v1/runs/%2e%2e",
            "/v1/runs/%252e%252e",
            "/v1/runs/%%32%65",
            "/v1/runs/%C0%AE%C0%AE",
            "/v1/runs/\u{ff0e}\u{ff0e}",
            "/v1/runs/a.b",
            "/v1/runs/a;jsessionid=1",
            "/v1/keys/a%2Fb",
            "/v1/actions/..;/run/live",
            "/v1/runs/a%00/outputs",
        ] {
            assert_eq!(
                Endpoint::recognize("GET", path),
                Err(Unrecognized::BadParameter),
                "{path}"
            );
        }
    }

    #[test]
    fn paths_of_no_route_are_refused() {
        for path in [
            "/v1",
            "/v1/",
            "/v1/..;/admin",
            "/v1/%252e%252e/admin",
            "/v1/workspace/",
            "/v1/workspace/..",
            "/v1//workspace",
            "/v1/runs/",
            "/v1/runs/r1/",
            "/v1/runs/r1/outputs/x",
            "/v1/actions/a/run",
            "/v1/actions/a/run/later",
            "/v1/Workspace",
            "/v2/runs",
            "/runs",
            "",
        ] {
            assert_eq!(
                Endpoint::recognize("GET", path),
                Err(Unrecognized::NoRoute),
                "{path}"
            );
        }
    }
}
