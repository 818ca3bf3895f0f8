//! Tells an API key from an account-session JWT, decoding the JWT's claims for display only.
//!
//! Nothing here verifies a signature: the API decides what a credential may do; the console
//! only shows people which credential they are holding.

use crate::decode::{Claims, FromJson, JwtHeader, decode};

/// What kind of bearer credential a person signed in with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CredentialKind {
    /// An opaque API key; only its first characters are ever shown.
    ApiKey { prefix: String },
    /// An account-session JWT. Key management needs one.
    Session {
        subject: Option<String>,
        /// Expiry in Unix seconds, when the token states one.
        expires_at: Option<i64>,
    },
}

impl CredentialKind {
    pub fn is_session(&self) -> bool {
        matches!(self, CredentialKind::Session { .. })
    }

    /// A short label for the header, never the whole secret.
    pub fn label(&self) -> String {
        match self {
            CredentialKind::ApiKey { prefix } => format!("API key {prefix}…"),
            CredentialKind::Session {
                subject: Some(subject),
                ..
            } => format!("Session · {subject}"),
            CredentialKind::Session { subject: None, .. } => "Account session".to_owned(),
        }
    }
}

/// Classifies a bearer value. A value with three dot-separated parts whose first part decodes
/// to a JSON header with `alg` is a JWT; anything else is treated as an API key.
pub fn classify(bearer: &str) -> CredentialKind {
    let parts: Vec<&str> = bearer.split('.').collect();
    if let [header, payload, _signature] = parts.as_slice() {
        let header_ok = decode_part::<JwtHeader>(header).is_some();
        if header_ok {
            let claims = decode_part::<Claims>(payload);
            return CredentialKind::Session {
                subject: claims.as_ref().and_then(|c| c.sub.clone()),
                expires_at: claims.and_then(|c| c.exp),
            };
        }
    }
    CredentialKind::ApiKey {
        prefix: bearer.chars().take(12).collect(),
    }
}

/// Decodes one base64url JSON part of a JWT.
fn decode_part<T: FromJson>(part: &str) -> Option<T> {
    let bytes = base64url_decode(part)?;
    decode(std::str::from_utf8(&bytes).ok()?).ok()
}

/// Decodes unpadded (or padded) base64url; `None` on any invalid character.
fn base64url_decode(input: &str) -> Option<Vec<u8>> {
    let input = input.trim_end_matches('=');
    let mut out = Vec::with_capacity(input.len() * 3 / 4);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in input.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Header {"alg":"HS256","typ":"JWT"}, payload {"sub":"admin@acme.example","workspace_id":"ws_acme","iat":1,"exp":1795256277}
    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZG1pbkBhY21lLmV4YW1wbGUiLCJ3b3Jrc3BhY2VfaWQiOiJ3c19hY21lIiwiaWF0IjoxLCJleHAiOjE3OTUyNTYyNzd9.c2lnbmF0dXJl";

    #[test]
    fn a_jwt_is_a_session_with_subject_and_expiry() {
        let kind = classify(JWT);
        assert_eq!(
            kind,
            CredentialKind::Session {
                subject: Some("admin@acme.example".into()),
                expires_at: Some(1_795_256_277)
            }
        );
        assert!(kind.is_session());
        assert_eq!(kind.label(), "Session · admin@acme.example");
    }

    #[test]
    fn an_opaque_key_shows_only_its_prefix() {
        let kind = classify("sk_sandbox_547cc6d1534c4f87dadf5b42");
        assert_eq!(kind.label(), "API key sk_sandbox_5…");
        assert!(!kind.label().contains("47cc6d"));
        // Dots alone do not make a JWT.
        assert!(!classify("a.b.c").is_session());
    }

    #[test]
    fn base64url_decodes_with_and_without_padding() {
        assert_eq!(base64url_decode("aGk").unwrap(), b"hi");
        assert_eq!(base64url_decode("aGk=").unwrap(), b"hi");
        assert_eq!(base64url_decode("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(base64url_decode("a+b"), None);
    }
}
