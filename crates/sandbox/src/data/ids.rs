//! The identifiers that chain between actions, made so the sandbox can tell its own from
//! made-up ones, and the handles it pretends to know.

use api_contract::input::validate_network_profile_url;

use super::seq::stable_hash;

/// The kinds of post a `social_id` names.
pub(super) const SOCIAL_KINDS: &[&str] = &["share", "ugcPost", "activity"];

/// Lowercase ASCII words joined by dashes, at most 60 characters: a URL path segment.
pub(super) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').chars().take(60).collect()
}

/// The public profile URL of a handle.
pub(super) fn profile_url(handle: &str) -> String {
    format!("https://www.network.com/in/{handle}")
}

/// The identifier an enrichment returns for a handle; accepted back as an `identifier`.
pub fn profile_identifier(handle: &str) -> String {
    format!("ACoAA{:016X}", stable_hash(&["profile", handle]))
}

/// Whether `id` has the shape of a [`profile_identifier`].
pub(super) fn is_profile_identifier(id: &str) -> bool {
    id.len() == 21
        && id.starts_with("ACoAA")
        && id[5..]
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
}

/// A social id of the given kind with a checksum digit.
pub fn social_id(seq_value: u64, kind: &str) -> String {
    let digits = format!("7{:017}", seq_value % 100_000_000_000_000_000);
    let check = digits.bytes().map(|b| u32::from(b - b'0')).sum::<u32>() % 10;
    format!("urn:network:{kind}:{digits}{check}")
}

/// What a `social_id` given as input turns out to be.
pub(super) enum SocialIdCheck {
    Valid,
    LooksLikeActivityId,
    Unknown,
}

/// Tells the sandbox's own social ids from activity ids and made-up ones.
pub(super) fn check_social_id(id: &str) -> SocialIdCheck {
    if id.chars().all(|c| c.is_ascii_digit()) {
        return SocialIdCheck::LooksLikeActivityId;
    }
    let Some(rest) = id.strip_prefix("urn:network:") else {
        return SocialIdCheck::Unknown;
    };
    let Some((kind, digits)) = rest.split_once(':') else {
        return SocialIdCheck::Unknown;
    };
    if !SOCIAL_KINDS.contains(&kind)
        || digits.len() != 19
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return SocialIdCheck::Unknown;
    }
    let (body, check) = digits.split_at(18);
    let sum = body.bytes().map(|b| u32::from(b - b'0')).sum::<u32>() % 10;
    if check.as_bytes()[0] - b'0' == sum as u8 {
        SocialIdCheck::Valid
    } else {
        SocialIdCheck::Unknown
    }
}

/// A public handle or profile URL the sandbox pretends to know: lowercase letters, digits and
/// dashes, not starting with `unknown`.
pub(super) fn known_handle(identifier: &str) -> Option<String> {
    let handle = if validate_network_profile_url(identifier).is_ok() {
        let path = identifier.split("/in/").nth(1)?;
        path.trim_end_matches('/').to_owned()
    } else {
        identifier.to_owned()
    };
    let ok = (2..=100).contains(&handle.len())
        && handle
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !handle.starts_with("unknown");
    ok.then_some(handle)
}
