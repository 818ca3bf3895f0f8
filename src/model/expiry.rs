//! How long this browser keeps runs' outputs and the request log's bodies: the person's rule
//! ("forget kept outputs older than N days", a preference), and what it forgets at a given
//! time, a finished bulk batch's records among them. Pure: `archive::forget_outputs_older_than`
//! and `state::bulk::forget_batch_records_older_than` apply it in the store.

use super::archive::{ForgottenOutput, KeptOutput, OutputIndex};
use super::bulk::SavedBatch;

/// A day, in ms.
pub const DAY_MS: f64 = 86_400_000.0;
/// The choices `/storage` offers besides "off" and a number typed.
pub const PRESET_DAYS: [u32; 3] = [7, 30, 90];
/// The longest rule (ten years): more is the same as off.
pub const MAX_DAYS: u32 = 3_650;
/// How often the rule is applied while the console is open.
pub const APPLY_EVERY_MS: f64 = 3_600_000.0;

/// The rule: forget kept outputs (and the request log's bodies) older than this many days;
/// `None` is off (the default: nothing is forgotten by age).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForgetAfter(pub Option<u32>);

impl ForgetAfter {
    /// The rule from what the person chose or typed: "off" (or nothing), or a whole number of
    /// days from 1 to [`MAX_DAYS`]; otherwise a sentence saying what is accepted.
    pub fn parse(text: &str) -> Result<ForgetAfter, String> {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("off") {
            return Ok(ForgetAfter(None));
        }
        match text.parse::<u32>() {
            Ok(days) if (1..=MAX_DAYS).contains(&days) => Ok(ForgetAfter(Some(days))),
            _ => Err(format!(
                "Type a whole number of days from 1 to {MAX_DAYS}, or choose off."
            )),
        }
    }

    /// As kept in localStorage and shown in the field: "off" or the days.
    pub fn text(self) -> String {
        self.0
            .map_or_else(|| "off".to_owned(), |days| days.to_string())
    }

    /// The rule as kept (a missing or unreadable preference is off).
    pub fn from_kept(kept: Option<&str>) -> ForgetAfter {
        kept.and_then(|text| ForgetAfter::parse(text).ok())
            .unwrap_or_default()
    }

    /// What was kept before this time (ms since the epoch) is forgotten at `now`; `None` when
    /// off.
    pub fn cutoff(self, now: f64) -> Option<f64> {
        self.0.map(|days| now - f64::from(days) * DAY_MS)
    }
}

/// The kept outputs the rule forgets at `now` (oldest first), an output of unknown age counting
/// as kept at `now`; nothing when off.
pub fn expired_outputs(index: &OutputIndex, rule: ForgetAfter, now: f64) -> Vec<KeptOutput> {
    rule.cutoff(now)
        .map(|cutoff| index.kept_before(cutoff))
        .unwrap_or_default()
}

/// What the rule does with a kept batch at `now`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchExpiry {
    /// Nothing: the rule is off, the batch is not done (it may still run, or be resumed), its
    /// records are forgotten already, or they are not old enough.
    Keep,
    /// Done, and not dated yet: dated as done now, its records' days counting from there (as a
    /// kept output of unknown age counts from the rule's first application).
    Date,
    /// Done for more than the rule's days: its records are forgotten, its rows, their states,
    /// runs and costs kept.
    Forget { after_days: u32 },
}

/// What the rule does with `batch` at `now` (see [`BatchExpiry`]). A chain's steps are
/// batches too, but a chain is forgotten whole when it is older than the days (`/chains`), so
/// its batches are left to it (`of_a_chain`).
pub fn batch_expiry(
    batch: &SavedBatch,
    of_a_chain: bool,
    rule: ForgetAfter,
    now: f64,
) -> BatchExpiry {
    let (Some(days), Some(cutoff)) = (rule.0, rule.cutoff(now)) else {
        return BatchExpiry::Keep;
    };
    if !batch.done || of_a_chain || batch.expiry.records_forgotten.is_some() {
        return BatchExpiry::Keep;
    }
    match batch.expiry.done_seen_at {
        None => BatchExpiry::Date,
        Some(done) if done < cutoff => BatchExpiry::Forget { after_days: days },
        Some(_) => BatchExpiry::Keep,
    }
}

/// Why a batch's records cannot be exported or explored once the rule forgot them.
pub fn batch_records_forgotten(forgotten: ForgottenOutput) -> String {
    format!(
        "This batch's records were forgotten after {} days, by the rule on the Storage page: its \
         rows, their states, runs and costs are kept, and a run's page can fetch its output \
         again while the API still has it.",
        forgotten.after_days
    )
}

/// What a rule frees, or freed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Freed {
    /// Kept outputs forgotten, and their bytes.
    pub outputs: usize,
    pub output_bytes: u64,
    /// Request log entries whose bodies were dropped, and those bodies' bytes.
    pub log_bodies: usize,
    pub log_bytes: u64,
    /// Finished bulk batches whose records were forgotten, and their rows with records.
    pub batches: usize,
    pub batch_rows: usize,
}

impl Freed {
    /// What forgetting `outputs` frees.
    pub fn of_outputs(outputs: &[KeptOutput]) -> Freed {
        Freed {
            outputs: outputs.len(),
            output_bytes: outputs.iter().map(|o| o.bytes).sum(),
            ..Freed::default()
        }
    }

    pub fn is_nothing(&self) -> bool {
        self.outputs == 0 && self.log_bodies == 0 && self.batches == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake clock: ms since the epoch, moved by whole days.
    struct Clock(f64);

    impl Clock {
        fn after_days(&mut self, days: f64) -> f64 {
            self.0 += days * DAY_MS;
            self.0
        }
    }

    fn kept(key: &str, bytes: u64, at: Option<f64>) -> KeptOutput {
        KeptOutput {
            key: key.to_owned(),
            bytes,
            kept_at: at,
        }
    }

    fn batch(done: bool, done_seen_at: Option<f64>) -> SavedBatch {
        let mut batch: SavedBatch = serde_json::from_value(serde_json::json!({
            "id": "b", "workspace": "w", "action": "premium-search-people", "headers": [],
            "created_at": 0.0, "cancelled": false, "done": done, "to_send": 0, "finished": 0,
        }))
        .expect("a batch");
        batch.expiry.done_seen_at = done_seen_at;
        batch
    }

    #[test]
    fn a_finished_batch_is_dated_then_its_records_forgotten_past_the_days() {
        let mut clock = Clock(1_700_000_000_000.0);
        let rule = ForgetAfter(Some(7));
        let now = clock.0;
        // Off, or still running (or paused, to be resumed): kept as it is.
        assert_eq!(
            batch_expiry(&batch(true, None), false, ForgetAfter(None), now),
            BatchExpiry::Keep
        );
        assert_eq!(
            batch_expiry(&batch(false, None), false, rule, now),
            BatchExpiry::Keep
        );
        // Done and never dated: dated now.
        assert_eq!(
            batch_expiry(&batch(true, None), false, rule, now),
            BatchExpiry::Date
        );
        let dated = batch(true, Some(now));
        assert_eq!(
            batch_expiry(&dated, false, rule, clock.after_days(6.9)),
            BatchExpiry::Keep
        );
        let later = clock.after_days(0.2);
        assert_eq!(
            batch_expiry(&dated, false, rule, later),
            BatchExpiry::Forget { after_days: 7 }
        );
        // A chain's step is the chain's to forget; a batch forgotten once is not again.
        assert_eq!(batch_expiry(&dated, true, rule, later), BatchExpiry::Keep);
        let mut forgotten = dated.clone();
        forgotten.expiry.records_forgotten = Some(crate::model::archive::ForgottenOutput {
            at: later,
            after_days: 7,
        });
        assert_eq!(
            batch_expiry(&forgotten, false, rule, later),
            BatchExpiry::Keep
        );
    }

    #[test]
    fn the_rule_reads_off_presets_and_typed_days_and_refuses_the_rest() {
        assert_eq!(ForgetAfter::parse("off"), Ok(ForgetAfter(None)));
        assert_eq!(ForgetAfter::parse(" "), Ok(ForgetAfter(None)));
        assert_eq!(ForgetAfter::parse("7"), Ok(ForgetAfter(Some(7))));
        assert_eq!(ForgetAfter::parse(" 45 "), Ok(ForgetAfter(Some(45))));
        for bad in ["0", "-3", "1.5", "seven", "3651"] {
            assert!(ForgetAfter::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(ForgetAfter(Some(30)).text(), "30");
        assert_eq!(ForgetAfter(None).text(), "off");
        assert_eq!(ForgetAfter::from_kept(Some("90")), ForgetAfter(Some(90)));
        assert_eq!(ForgetAfter::from_kept(Some("damaged")), ForgetAfter(None));
        assert_eq!(ForgetAfter::from_kept(None), ForgetAfter(None));
    }

    #[test]
    fn outputs_are_forgotten_once_the_clock_moves_past_the_days_oldest_first() {
        let mut clock = Clock(1_700_000_000_000.0);
        let mut index = OutputIndex::default();
        let first = clock.0;
        index.outputs.push(kept("w/a", 100, Some(first)));
        let second = clock.after_days(2.0);
        index.outputs.push(kept("w/b", 50, Some(second)));
        let rule = ForgetAfter(Some(7));

        // Six days after the first: nothing is 7 days old.
        let now = clock.after_days(4.0);
        assert!(expired_outputs(&index, rule, now).is_empty());
        // Just past 7 days after the first: the first only.
        let now = first + 7.0 * DAY_MS + 1.0;
        let expired = expired_outputs(&index, rule, now);
        assert_eq!(expired, vec![kept("w/a", 100, Some(first))]);
        assert_eq!(
            Freed::of_outputs(&expired),
            Freed {
                outputs: 1,
                output_bytes: 100,
                ..Freed::default()
            }
        );
        // Past both: both, and their bytes.
        let now = clock.after_days(30.0);
        let expired = expired_outputs(&index, rule, now);
        assert_eq!(Freed::of_outputs(&expired).output_bytes, 150);
        let keys: Vec<String> = expired.into_iter().map(|o| o.key).collect();
        index.remove(&keys);
        assert!(index.outputs.is_empty());
        // Off forgets nothing, however old.
        index.outputs.push(kept("w/c", 1, Some(first)));
        assert!(expired_outputs(&index, ForgetAfter(None), now).is_empty());
    }

    #[test]
    fn an_output_of_unknown_age_counts_from_the_rules_first_application() {
        let mut clock = Clock(1_700_000_000_000.0);
        // Kept by a console before the rule: no date, read back as `None`.
        let old: OutputIndex =
            serde_json::from_str(r#"{"outputs":[{"key":"w/old","bytes":10}]}"#).unwrap();
        assert_eq!(old.outputs[0].kept_at, None);
        let mut index = old;
        let rule = ForgetAfter(Some(7));
        let applied = clock.0;
        assert!(expired_outputs(&index, rule, applied).is_empty());
        assert!(index.date_unknown(applied));
        assert!(!index.date_unknown(applied), "dated once");
        assert!(expired_outputs(&index, rule, clock.after_days(6.9)).is_empty());
        assert_eq!(
            expired_outputs(&index, rule, clock.after_days(0.2)).len(),
            1,
            "7 days after the rule was first applied"
        );
        // Dated, the index is written with the date, and reads back with it.
        let text = serde_json::to_string(&index).unwrap();
        let back: OutputIndex = serde_json::from_str(&text).unwrap();
        assert_eq!(back.outputs[0].kept_at, Some(applied));
    }
}
