//! Account-session tokens: compact HS256 JWTs signed with the sandbox's own secret, made and
//! checked by `jsonwebtoken`.

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

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
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret),
    )
    .expect("HS256 signs any claims that serialize")
}

/// Verifies the signature (HS256 only: `alg: none` or another algorithm is refused) and the
/// expiry against `now` (Unix seconds), with no leeway.
pub fn verify(token: &str, secret: &[u8], now: i64) -> Result<SessionClaims, JwtError> {
    let mut validation = Validation::new(Algorithm::HS256);
    // The expiry is checked against the sandbox's clock below, not the library's.
    validation.validate_exp = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<SessionClaims>(
        token,
        &DecodingKey::from_secret(secret),
        &validation,
    )
    .map_err(|e| match e.kind() {
        ErrorKind::InvalidSignature => JwtError::BadSignature,
        _ => JwtError::Malformed,
    })?
    .claims;
    if claims.exp <= now {
        return Err(JwtError::Expired);
    }
    Ok(claims)
}

/// True when the value has the form of a JWT (three base64url parts), whatever its validity.
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3 && token.starts_with("eyJ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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

    #[test]
    fn another_algorithm_is_refused_even_with_the_right_secret() {
        let token = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &claims(9_999),
            &EncodingKey::from_secret(b"secret"),
        )
        .unwrap();
        assert_eq!(verify(&token, b"secret", 150), Err(JwtError::Malformed));
    }
}
