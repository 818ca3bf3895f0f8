//! What a person asked this browser to watch over a workspace's spending: ask before a run
//! that may cost more than a threshold, and warn when the credits available fall below another.
//! Kept per workspace in this browser (localStorage: a preference, not a secret).
//!
//! The confirmation's threshold follows the environment unless the person set one: on a live
//! API, ask above [`LIVE_ASK_ABOVE`] credits; on a sandbox, do not ask.

use api_contract::input::MAX_CREDITS_LIMIT;
use api_contract::{ConsoleEnvironment, EnvironmentKind};
use serde::{Deserialize, Serialize};

use super::format::{counted, group_thousands, parse_credits};

/// On a live API, a run that may cost more than this asks first, unless the person chose
/// otherwise.
pub const LIVE_ASK_ABOVE: u64 = 1_000;

/// When to ask before a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskBeforeRuns {
    /// The environment's default: above [`LIVE_ASK_ABOVE`] on a live API, never on a sandbox.
    #[default]
    EnvironmentDefault,
    Never,
    /// Above this many credits (the run's worst case).
    Above(u64),
}

/// One workspace's safeguards in this browser.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Safeguards {
    #[serde(default)]
    pub ask: AskBeforeRuns,
    /// Warn in the header when the credits available are below this.
    #[serde(default)]
    pub warn_below: Option<u64>,
}

impl Safeguards {
    /// As kept; a damaged entry is the defaults (a preference, nothing is lost by it).
    pub fn from_json(text: &str) -> Safeguards {
        serde_json::from_str(text).unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data serializes")
    }

    /// The worst case above which a run asks first, in this environment; `None`: never asks.
    pub fn ask_above(&self, kind: EnvironmentKind) -> Option<u64> {
        match (self.ask, kind) {
            (AskBeforeRuns::EnvironmentDefault, EnvironmentKind::Live) => Some(LIVE_ASK_ABOVE),
            (AskBeforeRuns::EnvironmentDefault, EnvironmentKind::Sandbox) => None,
            (AskBeforeRuns::Never, _) => None,
            (AskBeforeRuns::Above(credits), _) => Some(credits),
        }
    }

    /// In one sentence, for the workspace page.
    pub fn summary(&self, kind: EnvironmentKind) -> String {
        let ask = match self.ask_above(kind) {
            Some(threshold) => format!(
                "Asks before a run that may cost more than {} credits",
                group_thousands(threshold)
            ),
            None => "Asks before a run only when it may cost more than is available".to_owned(),
        };
        let warn = match self.warn_below {
            Some(threshold) => format!("warns below {} credits", group_thousands(threshold)),
            None => "no low-balance warning".to_owned(),
        };
        format!("{ask}; {warn}.")
    }

    /// The header's warning, when the credits available are below the person's threshold.
    pub fn low_balance(&self, available: u64) -> Option<LowBalance> {
        let threshold = self.warn_below?;
        (available < threshold).then_some(LowBalance {
            available,
            threshold,
        })
    }

    /// Whether a spend of `worst_case` credits asks first, and what it asks. It asks above the
    /// threshold, and always when the worst case is more than is available (known), so that the
    /// person hears it before anything is sent.
    pub fn before_spending(
        &self,
        environment: &ConsoleEnvironment,
        spend: Spend,
        available: Option<u64>,
    ) -> Option<Confirmation> {
        let threshold = self
            .ask_above(environment.kind)
            .filter(|threshold| spend.worst_case() > *threshold);
        let more_than_available = available.is_some_and(|a| spend.worst_case() > a);
        (threshold.is_some() || more_than_available).then(|| Confirmation {
            environment: environment.clone(),
            spend,
            available,
            threshold,
            threshold_is_default: self.ask == AskBeforeRuns::EnvironmentDefault,
        })
    }
}

/// The credits available are below the person's threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LowBalance {
    pub available: u64,
    pub threshold: u64,
}

impl LowBalance {
    pub fn sentence(&self) -> String {
        format!(
            "Low balance: {} credits available, below the {} you asked to be warned at.",
            group_thousands(self.available),
            group_thousands(self.threshold)
        )
    }
}

/// What is about to spend credits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spend {
    /// One run, which may cost up to its `max_credits`.
    Run { worst_case: u64 },
    /// A bulk batch, which stops at its budget.
    Batch { rows: usize, budget: u64 },
    /// A chain over a spreadsheet: its worst case, or its budget when that is lower (the chain
    /// pauses there).
    Chain { steps: usize, worst_case: u64 },
}

impl Spend {
    pub fn worst_case(&self) -> u64 {
        match *self {
            Spend::Run { worst_case } => worst_case,
            Spend::Batch { budget, .. } => budget,
            Spend::Chain { worst_case, .. } => worst_case,
        }
    }
}

/// The question asked before spending: where, how much at worst, and what share of what is
/// available.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    pub environment: ConsoleEnvironment,
    pub spend: Spend,
    pub available: Option<u64>,
    /// The threshold the worst case passes, if it passes one (it may only pass what is
    /// available).
    pub threshold: Option<u64>,
    /// The threshold is the environment's default, not one the person set.
    pub threshold_is_default: bool,
}

impl Confirmation {
    /// The dialog's title: "Spend up to 2,000 credits on Production?"
    pub fn title(&self) -> String {
        format!(
            "Spend up to {} credits on {}?",
            group_thousands(self.spend.worst_case()),
            self.environment.name
        )
    }

    /// What it costs at worst, and what share of the credits available that is.
    pub fn details(&self) -> String {
        let worst = group_thousands(self.spend.worst_case());
        let what = match self.spend {
            Spend::Run { .. } => format!("This run may cost up to {worst} credits"),
            Spend::Batch { rows, budget: _ } => format!(
                "This batch of {} may spend up to its budget of {worst} credits",
                counted_rows(rows)
            ),
            Spend::Chain { steps, .. } => format!(
                "This chain of {} may spend up to {worst} credits in all",
                counted(steps as u64, "step", "steps")
            ),
        };
        let share = match self.available {
            None => String::new(),
            Some(available) if self.spend.worst_case() > available => format!(
                ": more than the {} credits available, so the API may refuse it",
                group_thousands(available)
            ),
            Some(available) => format!(
                ": {} of the {} credits available",
                share_text(self.spend.worst_case(), available),
                group_thousands(available)
            ),
        };
        let kind = if self.environment.is_live() {
            format!(
                "{} is live: these are the workspace's real credits.",
                self.environment.name
            )
        } else {
            format!("{} spends no real credits.", self.environment.name)
        };
        format!("{what}{share}. {kind}")
    }

    /// Why the person is asked.
    pub fn reason(&self) -> String {
        match self.threshold {
            Some(threshold) if self.threshold_is_default => format!(
                "Asked because it is more than {} credits, the default threshold on a live API.",
                group_thousands(threshold)
            ),
            Some(threshold) => format!(
                "Asked because it is more than {} credits, this workspace's threshold in this \
                 browser.",
                group_thousands(threshold)
            ),
            None => "Asked because it is more than the credits available.".to_owned(),
        }
    }
}

fn counted_rows(rows: usize) -> String {
    if rows == 1 {
        "1 row".to_owned()
    } else {
        format!("{} rows", group_thousands(rows as u64))
    }
}

/// `part` of `whole` as a percentage people read: whole numbers, "under 1%" rather than "0%".
fn share_text(part: u64, whole: u64) -> String {
    if whole == 0 || part == 0 {
        return "none".to_owned();
    }
    let percent = (u128::from(part) * 100).div_ceil(u128::from(whole));
    if part * 100 < whole {
        "under 1%".to_owned()
    } else {
        format!("{percent}%")
    }
}

/// The confirmation's threshold as typed on the safeguards page: whole credits from 1 to the
/// contract's `max_credits` limit (no run may cost more, so a higher one would never ask).
pub fn parse_ask_threshold(text: &str) -> Result<u64, String> {
    parse_credits(text, MAX_CREDITS_LIMIT)
}

/// The low-balance threshold as typed: whole credits from 1 to [`MAX_WARNING_THRESHOLD`].
pub fn parse_warning_threshold(text: &str) -> Result<u64, String> {
    parse_credits(text, MAX_WARNING_THRESHOLD)
}

/// The highest low-balance threshold the page takes (a billion credits).
pub const MAX_WARNING_THRESHOLD: u64 = 1_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn production() -> ConsoleEnvironment {
        ConsoleEnvironment {
            kind: EnvironmentKind::Live,
            name: "Production".to_owned(),
        }
    }

    #[test]
    fn live_asks_above_a_thousand_by_default_and_the_sandbox_never() {
        let defaults = Safeguards::default();
        assert_eq!(defaults.ask_above(EnvironmentKind::Live), Some(1_000));
        assert_eq!(defaults.ask_above(EnvironmentKind::Sandbox), None);
        let run = |worst_case| Spend::Run { worst_case };
        assert!(
            defaults
                .before_spending(&production(), run(1_000), None)
                .is_none()
        );
        assert!(
            defaults
                .before_spending(&production(), run(1_001), None)
                .is_some()
        );
        assert!(
            defaults
                .before_spending(
                    &ConsoleEnvironment::sandbox(),
                    run(300_000),
                    Some(1_000_000)
                )
                .is_none()
        );
        let never = Safeguards {
            ask: AskBeforeRuns::Never,
            ..Safeguards::default()
        };
        assert!(
            never
                .before_spending(&production(), run(300_000), Some(1_000_000))
                .is_none()
        );
        let above_50 = Safeguards {
            ask: AskBeforeRuns::Above(50),
            ..Safeguards::default()
        };
        assert!(
            above_50
                .before_spending(&ConsoleEnvironment::sandbox(), run(51), None)
                .is_some()
        );
    }

    #[test]
    fn a_spend_over_what_is_available_always_asks_and_says_so() {
        let never = Safeguards {
            ask: AskBeforeRuns::Never,
            ..Safeguards::default()
        };
        let asked = never
            .before_spending(
                &ConsoleEnvironment::sandbox(),
                Spend::Run { worst_case: 2_000 },
                Some(1_500),
            )
            .expect("more than is available asks");
        assert_eq!(asked.title(), "Spend up to 2,000 credits on Sandbox?");
        assert_eq!(
            asked.reason(),
            "Asked because it is more than the credits available."
        );
        assert_eq!(
            asked.details(),
            "This run may cost up to 2,000 credits: more than the 1,500 credits available, so \
             the API may refuse it. Sandbox spends no real credits."
        );
    }

    #[test]
    fn the_question_names_the_environment_the_worst_case_and_the_share() {
        let asked = Safeguards::default()
            .before_spending(&production(), Spend::Run { worst_case: 2_000 }, Some(5_000))
            .unwrap();
        assert_eq!(asked.title(), "Spend up to 2,000 credits on Production?");
        assert_eq!(
            asked.reason(),
            "Asked because it is more than 1,000 credits, the default threshold on a live API."
        );
        assert_eq!(
            asked.details(),
            "This run may cost up to 2,000 credits: 40% of the 5,000 credits available. \
             Production is live: these are the workspace's real credits."
        );
        let batch = Safeguards::default()
            .before_spending(
                &production(),
                Spend::Batch {
                    rows: 10_000,
                    budget: 20_000,
                },
                Some(3_000_000),
            )
            .unwrap();
        assert!(
            batch.details().starts_with(
                "This batch of 10,000 rows may spend up to its budget of 20,000 credits: under 1%"
            ),
            "{}",
            batch.details()
        );
        let chain = Safeguards::default()
            .before_spending(
                &production(),
                Spend::Chain {
                    steps: 3,
                    worst_case: 1_608,
                },
                Some(1_000),
            )
            .unwrap();
        assert_eq!(chain.title(), "Spend up to 1,608 credits on Production?");
        assert_eq!(
            chain.details(),
            "This chain of 3 steps may spend up to 1,608 credits in all: more than the 1,000 \
             credits available, so the API may refuse it. Production is live: these are the \
             workspace's real credits."
        );
        assert_eq!(share_text(1, 3), "34%");
        assert_eq!(share_text(3, 3), "100%");
    }

    #[test]
    fn said_in_one_sentence() {
        assert_eq!(
            Safeguards::default().summary(EnvironmentKind::Live),
            "Asks before a run that may cost more than 1,000 credits; no low-balance warning."
        );
        let set = Safeguards {
            ask: AskBeforeRuns::Never,
            warn_below: Some(20_000),
        };
        assert_eq!(
            set.summary(EnvironmentKind::Sandbox),
            "Asks before a run only when it may cost more than is available; warns below 20,000 \
             credits."
        );
    }

    #[test]
    fn low_balance_warns_below_the_threshold_only() {
        let warn = Safeguards {
            warn_below: Some(1_000),
            ..Safeguards::default()
        };
        assert_eq!(warn.low_balance(1_000), None);
        assert_eq!(
            warn.low_balance(420).unwrap().sentence(),
            "Low balance: 420 credits available, below the 1,000 you asked to be warned at."
        );
        assert_eq!(Safeguards::default().low_balance(0), None);
    }

    #[test]
    fn kept_as_json_and_a_damaged_entry_is_the_defaults() {
        let set = Safeguards {
            ask: AskBeforeRuns::Above(250),
            warn_below: Some(5_000),
        };
        assert_eq!(Safeguards::from_json(&set.to_json()), set);
        assert_eq!(Safeguards::from_json("{not json"), Safeguards::default());
        assert_eq!(Safeguards::from_json("{}"), Safeguards::default());
    }

    #[test]
    fn thresholds_are_whole_credits_within_the_contract() {
        assert_eq!(parse_ask_threshold(" 1,000 "), Ok(1_000));
        assert_eq!(parse_ask_threshold("300000"), Ok(300_000));
        for bad in ["", "0", "-5", "1.5", "300001", "lots"] {
            assert!(parse_ask_threshold(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_warning_threshold("2 500 000"), Ok(2_500_000));
        assert!(parse_warning_threshold("1000000001").is_err());
    }
}
