//! Which request targets may be forwarded: a path under `/v1/` made of plain segments. Whatever
//! the browser, a proxy in between or an attacker sends, the forwarded request stays on the
//! upstream and under its `/v1`: no `.` or `..` segment (as sent or percent-encoded), no encoded
//! `/` or `\` that a server behind might decode into a separator, no empty segment (`//host`),
//! no control character.

use percent_encoding::percent_decode_str;

/// Why a path was not forwarded; each says it in words for the 400's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathRefusal {
    NotUnderV1,
    EmptySegment,
    DotSegment,
    EncodedSeparator,
    Backslash,
    ControlCharacter,
}

impl PathRefusal {
    pub fn message(self) -> &'static str {
        match self {
            PathRefusal::NotUnderV1 => "Only paths under /v1/ are forwarded to the API.",
            PathRefusal::EmptySegment => "The path has an empty segment (//); it is not forwarded.",
            PathRefusal::DotSegment => "The path has a . or .. segment; it is not forwarded.",
            PathRefusal::EncodedSeparator => {
                "The path has an encoded / or \\ in a segment; it is not forwarded."
            }
            PathRefusal::Backslash => "The path has a \\; it is not forwarded.",
            PathRefusal::ControlCharacter => {
                "The path has a control character; it is not forwarded."
            }
        }
    }
}

/// `Ok` when `path` (a request's path, without the query) may go to the upstream as sent.
pub fn check_api_path(path: &str) -> Result<(), PathRefusal> {
    let rest = path.strip_prefix("/v1/").ok_or(PathRefusal::NotUnderV1)?;
    if path.contains('\\') {
        return Err(PathRefusal::Backslash);
    }
    for segment in rest.split('/') {
        if segment.is_empty() {
            return Err(PathRefusal::EmptySegment);
        }
        let decoded = percent_decode_str(segment).collect::<Vec<u8>>();
        if decoded == b"." || decoded == b".." {
            return Err(PathRefusal::DotSegment);
        }
        if decoded.iter().any(|b| *b == b'/' || *b == b'\\') {
            return Err(PathRefusal::EncodedSeparator);
        }
        if decoded.iter().any(|b| b.is_ascii_control()) {
            return Err(PathRefusal::ControlCharacter);
        }
    }
    Ok(())
}

/// `POST /v1/actions/{action}/run/live`: the submission that holds its answer until the run
/// ends or the provider's lease runs out, so it gets the long timeout.
pub fn is_live_submission(path: &str) -> bool {
    path.strip_prefix("/v1/actions/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(_, tail)| tail == "run/live")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contracts_paths_pass() {
        for path in [
            "/v1/workspace",
            "/v1/actions",
            "/v1/actions/premium-search-people/run/live",
            "/v1/runs/run_0b7c8a4e",
            "/v1/runs/a%20b",
            "/v1/keys/key_1",
            "/v1/runs/...",
        ] {
            assert_eq!(check_api_path(path), Ok(()), "{path}");
        }
    }

    #[test]
    fn tricks_that_could_leave_the_upstream_or_its_v1_are_refused() {
        use PathRefusal::*;
        for (path, why) in [
            ("/v1/../admin", DotSegment),
            ("/v1/runs/..", DotSegment),
            ("/v1/./workspace", DotSegment),
            ("/v1/%2e%2e/admin", DotSegment),
            ("/v1/%2E./admin", DotSegment),
            ("/v1/runs/%2f%2fevil.example", EncodedSeparator),
            ("/v1/runs/a%5c..%5cadmin", EncodedSeparator),
            ("/v1//evil.example/x", EmptySegment),
            ("/v1/runs/", EmptySegment),
            ("/v1/runs\\..\\admin", Backslash),
            ("/v1/runs/a%00b", ControlCharacter),
            ("/v1/runs/a%0d%0aHost:%20evil", ControlCharacter),
            ("/v1", NotUnderV1),
            ("/v2/runs", NotUnderV1),
            ("//evil.example/v1/runs", NotUnderV1),
        ] {
            assert_eq!(check_api_path(path), Err(why), "{path}");
        }
    }

    #[test]
    fn only_live_submissions_get_the_long_timeout() {
        assert!(is_live_submission("/v1/actions/a-b/run/live"));
        assert!(!is_live_submission("/v1/actions/a-b/run/async"));
        assert!(!is_live_submission("/v1/runs/run/live"));
        assert!(!is_live_submission("/v1/actions/run/live/x"));
    }
}
