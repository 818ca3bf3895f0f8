//! The expiry rule's preference (localStorage: a preference, never data) and its application:
//! at start, once the pages' chunk has arrived (off the first screen's path), and every hour
//! while the console is open and shown. The work is `archive::forget_outputs_older_than` (runs'
//! outputs and the request log's bodies) and `batches` (finished bulk batches' records); the
//! last application is kept for `/storage` to say, and a refusal is told (`state::refusals`).

mod batches;

use std::sync::Once;
use std::time::Duration;

use leptos::prelude::*;

use crate::browser::preferences;
use crate::browser::{sleep, until_visible};
use crate::model::expiry::{APPLY_EVERY_MS, ForgetAfter, Freed};
use crate::model::preferences::Preference;
use crate::state::refusals::StoreRefusals;
use crate::state::workspace::SharedWorkspace;
use crate::store::StoreError;

/// What a refused application leaves, as `state::refusals` tells it.
pub const NOT_FORGOTTEN: &str = "The kept outputs and finished batches' records older than the days chosen on the Storage \
     page were not forgotten.";

/// One application of the rule: when, which rule, and what it freed or why it could not.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub at: f64,
    pub rule: ForgetAfter,
    pub result: Result<Freed, StoreError>,
    /// Applied by itself (at start or on the hour), not by the person on `/storage`.
    pub automatic: bool,
}

/// The rule's applications in this tab, provided at the root: the last is kept for `/storage`
/// to say what the automatic one did.
#[derive(Clone, Copy)]
pub struct OutputExpiry {
    last: RwSignal<Option<Applied>>,
    /// Where a refused application is told.
    refusals: StoreRefusals,
}

/// The tab's [`OutputExpiry`].
pub fn use_output_expiry() -> OutputExpiry {
    expect_context()
}

static START: Once = Once::new();

/// The rule chosen in this browser (off when none was, or it does not read back).
pub fn rule() -> ForgetAfter {
    ForgetAfter::from_kept(preferences::read(Preference::ForgetOutputsAfter).as_deref())
}

/// Keeps the rule chosen; `Err` with a sentence when the browser does not keep it (the hourly
/// application and the next visit then read the rule kept before).
pub fn set_rule(rule: ForgetAfter) -> Result<(), String> {
    preferences::write(Preference::ForgetOutputsAfter, &rule.text()).map_err(|not_kept| {
        format!(
            "{} The rule kept before applies again on the hour and after a reload.",
            not_kept.sentence(Preference::ForgetOutputsAfter)
        )
    })
}

/// What `rule` would free at `now` (`archive::expiry_preview`, and the finished batches whose
/// records it would forget), for `/storage` to say before it is saved.
pub async fn preview(rule: ForgetAfter, now: f64) -> Result<Freed, StoreError> {
    let outputs = crate::archive::expiry_preview(rule, now).await?;
    Ok(Freed {
        batches: batches::batches_to_forget(rule, now).await?,
        ..outputs
    })
}

impl OutputExpiry {
    pub fn provide(refusals: StoreRefusals) {
        provide_context(OutputExpiry {
            last: RwSignal::new(None),
            refusals,
        });
    }

    /// The last application of the rule in this tab; tracked.
    pub fn last_applied(self) -> Option<Applied> {
        self.last.get()
    }

    /// Applies the rule now (`archive::forget_outputs_older_than`, then the batches'), records
    /// what it did, and
    /// tells a refusal for the workspace in view.
    pub async fn apply(
        self,
        rule: ForgetAfter,
        workspace: Option<String>,
        automatic: bool,
    ) -> Applied {
        let at = js_sys::Date::now();
        let result = async {
            let outputs = crate::archive::forget_outputs_older_than(rule, at).await?;
            let batches = batches::forget_batch_records_older_than(rule, at).await?;
            Ok(Freed {
                batches: batches.batches,
                batch_rows: batches.batch_rows,
                ..outputs
            })
        }
        .await;
        if let Some(workspace) = workspace {
            self.refusals
                .record(&workspace, NOT_FORGOTTEN, result.clone());
        }
        let applied = Applied {
            at,
            rule,
            result,
            automatic,
        };
        self.last.set(Some(applied.clone()));
        applied
    }

    /// Starts applying the rule (once; later calls do nothing): now, then every hour while the
    /// tab is shown. Called from the pages' chunk once it has arrived.
    pub fn apply_in_background(self, workspace: SharedWorkspace) {
        START.call_once(|| {
            wasm_bindgen_futures::spawn_local(async move {
                loop {
                    until_visible().await;
                    let rule = rule();
                    if rule.0.is_some() {
                        self.apply(rule, workspace.id_untracked(), true).await;
                    }
                    sleep(Duration::from_millis(APPLY_EVERY_MS as u64)).await;
                }
            })
        });
    }
}
