//! API keys for people: the name rule as a sentence, and the list's order.

use api_contract::ApiKey;
use api_contract::input::validate_key_name;

/// What is wrong with a new key's name, as shown under the field, if anything.
pub fn name_error(name: &str) -> Option<String> {
    validate_key_name(name)
        .err()
        .map(|e| format!("Name {}", e.message))
}

/// Newest first; keys created in the same instant keep the API's order.
pub fn newest_first(keys: &mut [ApiKey]) {
    keys.sort_by_key(|k| std::cmp::Reverse(k.created_at));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(prefix: &str, created: &str) -> ApiKey {
        ApiKey {
            id: prefix.to_owned(),
            name: "n".to_owned(),
            prefix: prefix.to_owned(),
            created_at: created.parse().unwrap(),
            revoked_at: None,
        }
    }

    #[test]
    fn names_follow_the_contract_rule() {
        assert_eq!(name_error("CI deploys"), None);
        assert_eq!(name_error(&"é".repeat(100)), None, "characters, not bytes");
        assert_eq!(
            name_error(""),
            Some("Name must be 1 to 100 characters (it has 0)".to_owned())
        );
        assert!(
            name_error(&"x".repeat(101))
                .unwrap()
                .contains("(it has 101)")
        );
    }

    #[test]
    fn the_list_is_newest_first_and_stable() {
        let mut keys = vec![
            key("sk_a", "2026-11-20T10:00:00Z"),
            key("sk_b", "2026-11-21T10:00:00Z"),
            key("sk_c", "2026-11-20T10:00:00Z"),
        ];
        newest_first(&mut keys);
        let order: Vec<&str> = keys.iter().map(|k| k.prefix.as_str()).collect();
        assert_eq!(order, ["sk_b", "sk_a", "sk_c"]);
    }
}
