//! Account-session tokens: compact HS256 JWTs signed with the sandbox's own secret.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// What a session token says about its holder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionClaims {
    /// The account (an e-mail address).
    pub sub: String,
    /// The workspace the session acts in.
    pub workspace_id: String,
    /// Issued at, Unix seconds.
    pub iat: i64,
    /// Expiry, Unix seconds.
    pub exp: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JwtError {
    Malformed,
    BadSignature,
    Expired,
}

pub fn sign(claims: &SessionClaims, secret: &[u8]) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("claims serialize"));
    let signing_input = format!("{header}.{payload}");
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(signing_input.as_bytes());
    let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    format!("{signing_input}.{signature}")
}

/// Verifies the signature (in constant time) and the expiry against `now` (Unix seconds).
pub fn verify(token: &str, secret: &[u8], now: i64) -> Result<SessionClaims, JwtError> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    let header: serde_json::Value = URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|h| serde_json::from_slice(&h).ok())
        .ok_or(JwtError::Malformed)?;
    if header.get("alg").and_then(|a| a.as_str()) != Some("HS256") {
        return Err(JwtError::Malformed);
    }
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| JwtError::Malformed)?;
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(header_payload(token).as_bytes());
    mac.verify_slice(&signature)
        .map_err(|_| JwtError::BadSignature)?;
    let claims: SessionClaims = URL_SAFE_NO_PAD
        .decode(payload)
        .ok()
        .and_then(|p| serde_json::from_slice(&p).ok())
        .ok_or(JwtError::Malformed)?;
    if claims.exp <= now {
        return Err(JwtError::Expired);
    }
    Ok(claims)
}

fn header_payload(token: &str) -> &str {
    &token[..token.rfind('.').unwrap_or(0)]
}

/// True when the value has the form of a JWT (three base64url parts), whatever its validity.
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3 && token.starts_with("eyJ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp: i64) -> SessionClaims {
        SessionClaims {
            sub: "admin@acme.example".into(),
            workspace_id: "ws_acme".into(),
            iat: 100,
            exp,
        }
    }

    #[test]
    fn a_signed_token_verifies_until_it_expires() {
        let token = sign(&claims(200), b"secret");
        assert!(looks_like_jwt(&token));
        assert_eq!(verify(&token, b"secret", 150), Ok(claims(200)));
        assert_eq!(verify(&token, b"secret", 200), Err(JwtError::Expired));
    }

    #[test]
    fn tampering_or_another_secret_fails() {
        let token = sign(&claims(200), b"secret");
        assert_eq!(verify(&token, b"other", 150), Err(JwtError::BadSignature));
        let forged_payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims(9_999)).unwrap());
        let mut parts: Vec<&str> = token.split('.').collect();
        parts[1] = &forged_payload;
        assert_eq!(
            verify(&parts.join("."), b"secret", 150),
            Err(JwtError::BadSignature)
        );
        assert_eq!(verify("a.b", b"secret", 150), Err(JwtError::Malformed));
        assert_eq!(verify("", b"secret", 150), Err(JwtError::Malformed));
    }

    #[test]
    fn alg_none_is_refused() {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims(9_999)).unwrap());
        assert_eq!(
            verify(&format!("{header}.{payload}."), b"secret", 150),
            Err(JwtError::Malformed)
        );
    }
}
