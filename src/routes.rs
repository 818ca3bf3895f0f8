//! The console's URLs as a type: every page the router can show, parsed from a path.
//!
//! `leptos_router` gives the console its `<Router>` (history, link interception, the location and
//! query signals, `navigate`); matching a path to a page happens here, in plain Rust, instead of
//! in `<Routes>`. Measured with the release flags, `<Routes>`'s nested matching cost about 27 KB
//! gzip of the 180 KB budget, and a `match` on this enum costs next to nothing. It is also
//! testable natively, and a page receives its path parameters as typed props.

/// A page of the console, with the parameters its path carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    SignIn,
    /// `/`: goes on to the workspace.
    Home,
    Workspace,
    Actions,
    /// `/actions/{id}`: the form for one action (an id the registry may not know).
    ActionForm(String),
    Runs,
    /// `/runs/{id}`.
    RunDetail(String),
    Keys,
    NotFound,
}

impl Route {
    /// The page for a URL path (without query or fragment). A trailing slash is ignored and
    /// percent-escapes in a parameter are decoded; anything else unknown is `NotFound`.
    pub fn parse(path: &str) -> Route {
        let trimmed = path.trim_start_matches('/').trim_end_matches('/');
        let segments: Vec<&str> = if trimmed.is_empty() {
            Vec::new()
        } else {
            trimmed.split('/').collect()
        };
        let param = |raw: &str| percent_decode(raw).filter(|s| !s.is_empty());
        match segments.as_slice() {
            [] => Route::Home,
            ["sign-in"] => Route::SignIn,
            ["workspace"] => Route::Workspace,
            ["actions"] => Route::Actions,
            ["actions", id] => param(id).map_or(Route::NotFound, Route::ActionForm),
            ["runs"] => Route::Runs,
            ["runs", id] => param(id).map_or(Route::NotFound, Route::RunDetail),
            ["keys"] => Route::Keys,
            _ => Route::NotFound,
        }
    }

    /// Whether the page needs a signed-in session (all but sign-in and not-found).
    pub fn needs_session(&self) -> bool {
        !matches!(self, Route::SignIn | Route::NotFound)
    }

    /// The path of this page, with parameters escaped; `parse(route.path()) == route`.
    pub fn path(&self) -> String {
        match self {
            Route::SignIn => "/sign-in".into(),
            Route::Home => "/".into(),
            Route::Workspace => "/workspace".into(),
            Route::Actions => "/actions".into(),
            Route::ActionForm(id) => format!("/actions/{}", percent_encode(id)),
            Route::Runs => "/runs".into(),
            Route::RunDetail(id) => format!("/runs/{}", percent_encode(id)),
            Route::Keys => "/keys".into(),
            Route::NotFound => "/not-found".into(),
        }
    }
}

/// Escapes everything but unreserved characters (RFC 3986), for a path segment or query value.
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 15)]));
        }
    }
    out
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Decodes `%XX` escapes; `None` for a broken escape or bytes that are not UTF-8.
pub fn percent_decode(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let digit = |b: u8| (b as char).to_digit(16);
            out.push((digit(hex[0])? * 16 + digit(hex[1])?) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_page() {
        assert_eq!(Route::parse("/"), Route::Home);
        assert_eq!(Route::parse(""), Route::Home);
        assert_eq!(Route::parse("/sign-in"), Route::SignIn);
        assert_eq!(Route::parse("/workspace/"), Route::Workspace);
        assert_eq!(Route::parse("/actions"), Route::Actions);
        assert_eq!(
            Route::parse("/actions/premium-search-people"),
            Route::ActionForm("premium-search-people".into())
        );
        assert_eq!(Route::parse("/runs"), Route::Runs);
        assert_eq!(
            Route::parse("/runs/run_01"),
            Route::RunDetail("run_01".into())
        );
        assert_eq!(Route::parse("/keys"), Route::Keys);
    }

    #[test]
    fn unknown_paths_are_not_found() {
        for path in [
            "/nope",
            "/runs/a/b",
            "/actions//x",
            "/workspace/x",
            "/runs/%",
            "/runs/%zz",
            "/runs/%ff",
        ] {
            assert_eq!(Route::parse(path), Route::NotFound, "{path}");
        }
    }

    #[test]
    fn parameters_round_trip_through_escaping() {
        for id in ["run_1", "a b/c?d#e%f", "ünï", "<script>"] {
            let route = Route::RunDetail(id.into());
            assert_eq!(Route::parse(&route.path()), route);
            let route = Route::ActionForm(id.into());
            assert_eq!(Route::parse(&route.path()), route);
        }
    }

    #[test]
    fn only_sign_in_and_not_found_are_public() {
        assert!(!Route::SignIn.needs_session());
        assert!(!Route::NotFound.needs_session());
        for route in [
            Route::Home,
            Route::Workspace,
            Route::Actions,
            Route::Runs,
            Route::Keys,
        ] {
            assert!(route.needs_session());
        }
    }
}
