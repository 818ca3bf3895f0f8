//! Hostile requests never make the sandbox fail: arbitrary bodies, headers and paths get a
//! contract answer (never a 5xx, never a non-JSON error) and leave the store consistent.

mod common;

use common::Sandbox;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_submissions_get_a_contract_answer(
        body in prop_oneof![".{0,200}", r#"\{"input":\{"keywords":".{0,40}"\}(,"max_results":-?[0-9]{1,4})?\}"#],
        key in "[a-zA-Z0-9_:/ -]{0,20}",
        action in prop_oneof![Just("premium-search-people".to_owned()), Just("network-extract-people".to_owned()), "[a-z-]{1,20}"],
        mode in prop_oneof![Just("live"), Just("async")],
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let sb = Sandbox::fast();
            let reply = sb.send("POST", &format!("/v1/actions/{action}/run/{mode}"), Some(sb.key()),
                &[("content-type", "application/json"), ("idempotency-key", &key)], Some(&body)).await;
            assert!(reply.status.as_u16() < 500, "{} for {body:?}", reply.status);
            if !reply.status.is_success() {
                let _: api_contract::ErrorBody = reply.json();
            }
            let ws = sb.workspace(sb.key()).await;
            assert!(ws.credits_reserved <= 100 * 20);
        });
    }

    #[test]
    fn arbitrary_paths_and_bearers_never_fail(path in "/v1/[a-zA-Z0-9/{}%._-]{0,40}", bearer in "[ -~]{0,60}") {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let sb = Sandbox::fast();
            let reply = sb.send("GET", &path, Some(&bearer), &[], None).await;
            assert!(reply.status.as_u16() < 500, "{} for {path:?}", reply.status);
        });
    }
}
