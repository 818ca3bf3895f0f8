//! Tells an API key from an account-session JWT, reading the JWT's claims for display only.
//!
//! Nothing here verifies a signature: the API decides what a credential may do; the console
//! only shows people which credential they are holding.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// How much of an API key the console shows: as much as a key list shows as its prefix, and
/// never more than half of the key, however short it is.
pub const KEY_PREFIX_SHOWN: usize = 16;

/// What kind of bearer credential a person signed in with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CredentialKind {
    /// An opaque API key; only its first characters are ever shown.
    ApiKey { prefix: String },
    /// An account-session JWT. Key management needs one.
    Session {
        subject: Option<String>,
        /// When the token says it expires.
        expires_at: Option<DateTime<Utc>>,
    },
}

impl CredentialKind {
    pub fn is_session(&self) -> bool {
        matches!(self, CredentialKind::Session { .. })
    }

    /// A short label for the header, never the whole secret.
    /// The kind alone, without the key's prefix or the session's subject: what presenter mode
    /// shows.
    pub fn kind_name(&self) -> &'static str {
        match self {
            CredentialKind::ApiKey { .. } => "API key",
            CredentialKind::Session { .. } => "Account session",
        }
    }

    /// As the given mode shows it: the label, or in presenter mode the kind alone.
    pub fn label_shown(&self, presenting: bool) -> String {
        if presenting {
            self.kind_name().to_owned()
        } else {
            self.label()
        }
    }

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

/// The JOSE header: a JWT's first part says which algorithm signed it.
#[derive(Deserialize)]
struct JwtHeader {
    #[allow(dead_code)] // its presence is the test; the value is the API's business
    alg: String,
}

/// The claims the console shows.
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    /// Unix seconds.
    exp: Option<i64>,
}

/// JWTs are unpadded base64url, but a padded token is read too.
const BASE64URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Classifies a bearer value. A value with three dot-separated parts whose first part decodes
/// to a JSON header with `alg` is a JWT; anything else is treated as an API key.
pub fn classify(bearer: &str) -> CredentialKind {
    if let [header, payload, _signature] = bearer.split('.').collect::<Vec<_>>()[..]
        && decode_part::<JwtHeader>(header).is_some()
    {
        let claims = decode_part::<Claims>(payload);
        return CredentialKind::Session {
            subject: claims.as_ref().and_then(|c| c.sub.clone()),
            expires_at: claims
                .and_then(|c| c.exp)
                .and_then(|exp| DateTime::from_timestamp(exp, 0)),
        };
    }
    CredentialKind::ApiKey {
        prefix: bearer
            .chars()
            .take(KEY_PREFIX_SHOWN.min(bearer.chars().count() / 2))
            .collect(),
    }
}

/// Decodes one base64url JSON part of a JWT.
fn decode_part<T: DeserializeOwned>(part: &str) -> Option<T> {
    let bytes = BASE64URL.decode(part).ok()?;
    // From a `str`, like every API answer: one JSON reader in the bundle, not two.
    serde_json::from_str(std::str::from_utf8(&bytes).ok()?).ok()
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
                expires_at: DateTime::from_timestamp(1_795_256_277, 0),
            }
        );
        assert!(kind.is_session());
        assert_eq!(kind.label(), "Session · admin@acme.example");
        // Presenter mode shows the kind alone.
        assert_eq!(kind.label_shown(true), "Account session");
        assert_eq!(kind.label_shown(false), kind.label());
    }

    #[test]
    fn a_padded_jwt_part_is_read_too() {
        // {"alg":"none"} padded, and a payload without claims the console shows.
        let kind = classify("eyJhbGciOiJub25lIn0=.e30.sig");
        assert_eq!(
            kind,
            CredentialKind::Session {
                subject: None,
                expires_at: None
            }
        );
        assert_eq!(kind.label(), "Account session");
    }

    #[test]
    fn an_opaque_key_shows_only_its_prefix() {
        let kind = classify("sk_sandbox_547cc6d1534c4f87dadf5b42");
        assert_eq!(kind.label(), "API key sk_sandbox_547cc…");
        assert_eq!(kind.label_shown(true), "API key");
        assert!(!kind.label().contains("47cc6d1"));
        let short = classify("sk_short_12345");
        assert_eq!(
            short.label(),
            "API key sk_shor…",
            "at most half of a short key"
        );
        // Dots alone do not make a JWT, nor does base64 that is not a JOSE header.
        assert!(!classify("a.b.c").is_session());
        assert!(!classify("aGk.aGk.aGk").is_session());
        assert!(!classify("a+b.e30.x").is_session());
    }
}
