//! Which tab of this browser runs a bulk batch, as a state machine without I/O: the tab that
//! runs a batch holds a Web Lock named after it; another tab showing the batch watches it and
//! waits for the lock. `state::bulk` asks the browser for the lock, starts and stops the worker
//! and listens to the running tab's news; this type decides, from the browser's answers, what
//! the tab does next.
//!
//! What it guarantees:
//! - A tab runs a batch that another tab holds the lock of only until it learns so: a new batch
//!   runs while its (free) lock is being granted, and a settled batch, which has nothing to
//!   send, runs without it. Without Web Locks nothing is exclusive.
//! - A tab that loses the lock stops running the batch and watches it; a watching tab takes the
//!   batch up when the lock is free, from what was saved, paused.
//! - A settled batch (nothing left to send) lets go of its lock, so another tab may open it as
//!   its own; a command to it (resume, retry) asks for the lock again, and the tab watches if
//!   another tab has taken the batch up meanwhile.
//! - The tab asks for the lock once at a time: a command while a request is unanswered asks
//!   nothing more, so "held elsewhere" is never this tab's own first request answering its
//!   second; and a batch that settles before its lock is granted lets go of it once it is.
//! - Answers about a batch the tab no longer shows change nothing.

/// Whether this tab runs the batch it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// This tab's worker sends the batch's requests (the tab holds the batch's lock).
    Runs,
    /// Another tab of this browser runs it: this tab shows its progress and sends nothing.
    Watches,
}

/// This tab's hold on the batch's lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    /// Not held, nor asked for: let go when the batch settled, or lost to another tab.
    NotHeld,
    /// Asked for (only if available), and the browser has not answered yet. `settled`: the
    /// batch had nothing more to send when it last said so, and the lock goes once granted.
    Asking {
        settled: bool,
    },
    Held,
    /// The browser has no Web Locks (an old browser, a page not served securely).
    Unsupported,
}

/// What the browser answered to a request for the batch's lock (`browser::LockAnswer` without
/// the lock itself, which the caller keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockReply {
    Granted,
    /// Another tab holds it (asked for only if available).
    HeldElsewhere,
    Unsupported,
}

/// What the tab does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum TabStep {
    Nothing,
    /// Keep the lock just granted, until released here or taken by another tab.
    Keep,
    /// Release the lock just granted or held: this tab does not need it.
    Release,
    /// Another tab runs the batch: stop this tab's worker, show the other tab's news, and wait
    /// for the lock.
    Watch,
    /// Run the batch here, with the lock just granted, from what this browser saved; `resume`
    /// goes on at once, else it waits paused for the person.
    RunKept {
        resume: bool,
    },
}

impl TabStep {
    /// What becomes of an answer to a request the tab no longer waits for: a lock granted goes.
    fn unasked(reply: LockReply) -> TabStep {
        match reply {
            LockReply::Granted => TabStep::Release,
            LockReply::HeldElsewhere | LockReply::Unsupported => TabStep::Nothing,
        }
    }
}

/// What becomes of a person's command (pause, resume, cancel, budget, retry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandRoute {
    /// Another tab runs the batch: this tab sends nothing.
    Ignore,
    /// To this tab's worker; `ask_for_lock` when the tab let go of the lock (the batch had
    /// settled) and must hold it again before the batch sends anything more (never while an
    /// earlier request is unanswered: the tab asks once at a time).
    Send { ask_for_lock: bool },
}

/// The batch a tab shows and this tab's part in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchTab {
    batch: String,
    role: Role,
    hold: Hold,
}

impl BatchTab {
    /// A batch this tab runs, once the caller asked for its lock and before the browser
    /// answered (a new batch, whose lock is free: no other tab knows its id yet).
    pub fn runs(batch: &str) -> BatchTab {
        BatchTab {
            batch: batch.to_owned(),
            role: Role::Runs,
            hold: Hold::Asking { settled: false },
        }
    }

    /// A batch another tab runs, shown here.
    pub fn watches(batch: &str) -> BatchTab {
        BatchTab {
            batch: batch.to_owned(),
            role: Role::Watches,
            hold: Hold::NotHeld,
        }
    }

    /// A kept batch opened in this tab, once the browser answered for its lock (asked for only
    /// if available): the tab runs it (`TabStep::Keep`, or `Nothing` without Web Locks) or
    /// watches it (`TabStep::Watch`).
    pub fn opened(batch: &str, reply: LockReply) -> (BatchTab, TabStep) {
        let mut tab = BatchTab::runs(batch);
        let step = tab.lock_replied(batch, reply);
        (tab, step)
    }

    pub fn batch(&self) -> &str {
        &self.batch
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// Whether this tab holds the batch's lock.
    pub fn holds_lock(&self) -> bool {
        self.hold == Hold::Held
    }

    /// The browser answered a request for `batch`'s lock asked for only if available. An
    /// answer the tab no longer waits for (another batch shown, or the tab watches) changes
    /// nothing, and a lock it grants goes.
    pub fn lock_replied(&mut self, batch: &str, reply: LockReply) -> TabStep {
        let settled = match self.hold {
            Hold::Asking { settled } if batch == self.batch => settled,
            _ => return TabStep::unasked(reply),
        };
        match reply {
            LockReply::Granted if settled => {
                self.hold = Hold::NotHeld;
                TabStep::Release
            }
            LockReply::Granted => {
                self.hold = Hold::Held;
                TabStep::Keep
            }
            LockReply::HeldElsewhere => self.watch(),
            LockReply::Unsupported => {
                self.hold = Hold::Unsupported;
                TabStep::Nothing
            }
        }
    }

    /// The lock this tab held for `batch` ended without this tab releasing it: another tab
    /// took it over and runs the batch now.
    pub fn lock_taken(&mut self, batch: &str) -> TabStep {
        if batch != self.batch || self.hold != Hold::Held {
            return TabStep::Nothing;
        }
        self.hold = Hold::NotHeld;
        match self.role {
            Role::Runs => self.watch(),
            Role::Watches => TabStep::Nothing,
        }
    }

    /// The worker has nothing more to send for now: the lock goes, so that another tab may
    /// open the batch as its own (once granted, when it is still asked for).
    pub fn settled(&mut self) -> TabStep {
        match self.hold {
            Hold::Held => {
                self.hold = Hold::NotHeld;
                TabStep::Release
            }
            Hold::Asking { .. } => {
                self.hold = Hold::Asking { settled: true };
                TabStep::Nothing
            }
            Hold::NotHeld | Hold::Unsupported => TabStep::Nothing,
        }
    }

    /// Where a person's command goes; with `ask_for_lock`, the caller asks for the lock, which
    /// the tab from then on waits for.
    pub fn command(&mut self) -> CommandRoute {
        if self.role == Role::Watches {
            return CommandRoute::Ignore;
        }
        match self.hold {
            Hold::Held | Hold::Unsupported => CommandRoute::Send {
                ask_for_lock: false,
            },
            Hold::NotHeld | Hold::Asking { .. } => {
                let ask_for_lock = self.hold == Hold::NotHeld;
                // The batch sends again: the lock, once granted, is kept.
                self.hold = Hold::Asking { settled: false };
                CommandRoute::Send { ask_for_lock }
            }
        }
    }

    /// The lock this watching tab waited for was granted (the running tab went away): it takes
    /// the batch up, paused, unless it no longer watches `batch`.
    pub fn lock_freed(&self, batch: &str) -> TabStep {
        if batch == self.batch && self.role == Role::Watches {
            TabStep::RunKept { resume: false }
        } else {
            TabStep::Release
        }
    }

    /// The person took the batch over from the tab that runs it, and the lock was taken from
    /// that tab: this tab runs it from what was saved, going on at once.
    pub fn took_over(&self, batch: &str) -> TabStep {
        if batch == self.batch {
            TabStep::RunKept { resume: true }
        } else {
            TabStep::Release
        }
    }

    /// A batch this tab runs from what was saved, with the lock it was granted (after
    /// [`TabStep::RunKept`]).
    pub fn runs_holding_lock(batch: &str) -> BatchTab {
        BatchTab {
            batch: batch.to_owned(),
            role: Role::Runs,
            hold: Hold::Held,
        }
    }

    fn watch(&mut self) -> TabStep {
        self.role = Role::Watches;
        self.hold = Hold::NotHeld;
        TabStep::Watch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BATCH: &str = "b1";

    #[test]
    fn a_new_batch_runs_and_keeps_its_lock() {
        let mut tab = BatchTab::runs(BATCH);
        assert_eq!(tab.role(), Role::Runs);
        assert!(!tab.holds_lock());
        assert_eq!(tab.lock_replied(BATCH, LockReply::Granted), TabStep::Keep);
        assert!(tab.holds_lock());
        assert_eq!(
            tab.command(),
            CommandRoute::Send {
                ask_for_lock: false
            }
        );
    }

    #[test]
    fn a_command_while_the_lock_is_asked_for_does_not_ask_again() {
        let mut tab = BatchTab::runs(BATCH);
        assert_eq!(
            tab.command(),
            CommandRoute::Send {
                ask_for_lock: false
            },
            "a second request would be answered \"held elsewhere\" by this tab's first"
        );
        assert_eq!(tab.lock_replied(BATCH, LockReply::Granted), TabStep::Keep);
        assert_eq!(tab.role(), Role::Runs);
        assert!(tab.holds_lock());
    }

    #[test]
    fn only_the_answer_to_the_request_out_counts() {
        let mut tab = BatchTab::runs(BATCH);
        assert_eq!(tab.lock_replied(BATCH, LockReply::Granted), TabStep::Keep);
        assert_eq!(
            tab.lock_replied(BATCH, LockReply::HeldElsewhere),
            TabStep::Nothing,
            "the tab holds the lock: no other tab does"
        );
        assert_eq!(tab.role(), Role::Runs);
        assert!(tab.holds_lock());
        assert_eq!(
            tab.lock_replied(BATCH, LockReply::Granted),
            TabStep::Release,
            "a lock the tab did not wait for goes"
        );
        assert!(tab.holds_lock());
    }

    #[test]
    fn a_batch_that_settles_before_its_lock_is_granted_lets_go_of_it() {
        let mut tab = BatchTab::runs(BATCH);
        assert_eq!(tab.settled(), TabStep::Nothing, "nothing held yet");
        assert_eq!(
            tab.lock_replied(BATCH, LockReply::Granted),
            TabStep::Release
        );
        assert_eq!(tab.role(), Role::Runs);
        assert!(!tab.holds_lock());
        assert_eq!(tab.command(), CommandRoute::Send { ask_for_lock: true });
    }

    #[test]
    fn a_command_after_the_batch_settled_while_asking_keeps_the_lock_once_granted() {
        let mut tab = BatchTab::runs(BATCH);
        let _ = tab.settled();
        assert_eq!(
            tab.command(),
            CommandRoute::Send {
                ask_for_lock: false
            }
        );
        assert_eq!(tab.lock_replied(BATCH, LockReply::Granted), TabStep::Keep);
        assert!(tab.holds_lock());
    }

    #[test]
    fn a_kept_batch_opened_while_another_tab_runs_it_is_watched() {
        let (mut tab, step) = BatchTab::opened(BATCH, LockReply::HeldElsewhere);
        assert_eq!(step, TabStep::Watch);
        assert_eq!(tab.role(), Role::Watches);
        assert_eq!(
            tab.command(),
            CommandRoute::Ignore,
            "a watching tab sends nothing"
        );
        assert!(!tab.holds_lock());
    }

    #[test]
    fn a_kept_batch_opened_with_its_lock_free_runs_here() {
        let (tab, step) = BatchTab::opened(BATCH, LockReply::Granted);
        assert_eq!(step, TabStep::Keep);
        assert_eq!(tab.role(), Role::Runs);
        assert!(tab.holds_lock());
    }

    #[test]
    fn without_web_locks_the_tab_runs_the_batch_and_never_asks_again() {
        let (mut tab, step) = BatchTab::opened(BATCH, LockReply::Unsupported);
        assert_eq!(step, TabStep::Nothing);
        assert_eq!(tab.role(), Role::Runs);
        assert_eq!(
            tab.command(),
            CommandRoute::Send {
                ask_for_lock: false
            }
        );
    }

    #[test]
    fn losing_the_lock_turns_a_running_tab_into_a_watching_one() {
        let mut tab = BatchTab::runs_holding_lock(BATCH);
        assert_eq!(tab.lock_taken(BATCH), TabStep::Watch);
        assert_eq!(tab.role(), Role::Watches);
        assert!(!tab.holds_lock());
        assert_eq!(tab.command(), CommandRoute::Ignore);
        assert_eq!(tab.lock_taken(BATCH), TabStep::Nothing, "only once");
    }

    #[test]
    fn a_lock_that_ended_after_being_let_go_changes_nothing() {
        let mut tab = BatchTab::runs_holding_lock(BATCH);
        assert_eq!(tab.settled(), TabStep::Release);
        assert_eq!(tab.lock_taken(BATCH), TabStep::Nothing);
        assert_eq!(tab.role(), Role::Runs);
    }

    #[test]
    fn a_settled_batch_lets_go_of_its_lock_and_asks_again_on_the_next_command() {
        let mut tab = BatchTab::runs_holding_lock(BATCH);
        assert_eq!(tab.settled(), TabStep::Release);
        assert_eq!(tab.settled(), TabStep::Nothing, "released once");
        assert_eq!(tab.command(), CommandRoute::Send { ask_for_lock: true });
        // Another tab opened it meanwhile: this one watches.
        assert_eq!(
            tab.lock_replied(BATCH, LockReply::HeldElsewhere),
            TabStep::Watch
        );
        assert_eq!(tab.role(), Role::Watches);
    }

    #[test]
    fn a_settled_batch_asked_again_keeps_running_here_when_the_lock_is_free() {
        let mut tab = BatchTab::runs_holding_lock(BATCH);
        let _ = tab.settled();
        assert_eq!(tab.command(), CommandRoute::Send { ask_for_lock: true });
        assert_eq!(tab.lock_replied(BATCH, LockReply::Granted), TabStep::Keep);
        assert_eq!(tab.role(), Role::Runs);
        assert!(tab.holds_lock());
    }

    #[test]
    fn a_watching_tab_takes_the_batch_up_paused_when_the_lock_is_free() {
        let tab = BatchTab::watches(BATCH);
        assert_eq!(tab.lock_freed(BATCH), TabStep::RunKept { resume: false });
        assert_eq!(
            tab.lock_freed("other"),
            TabStep::Release,
            "a batch no longer shown"
        );
        let runs = BatchTab::runs_holding_lock(BATCH);
        assert_eq!(
            runs.lock_freed(BATCH),
            TabStep::Release,
            "a tab that runs it already"
        );
    }

    #[test]
    fn taking_over_runs_the_batch_here_at_once() {
        let tab = BatchTab::watches(BATCH);
        assert_eq!(tab.took_over(BATCH), TabStep::RunKept { resume: true });
        assert_eq!(tab.took_over("other"), TabStep::Release);
    }

    #[test]
    fn answers_about_a_batch_no_longer_shown_change_nothing() {
        let mut tab = BatchTab::runs(BATCH);
        assert_eq!(
            tab.lock_replied("old", LockReply::Granted),
            TabStep::Release
        );
        assert_eq!(
            tab.lock_replied("old", LockReply::HeldElsewhere),
            TabStep::Nothing
        );
        assert_eq!(tab.lock_taken("old"), TabStep::Nothing);
        assert_eq!(tab, BatchTab::runs(BATCH));
    }

    #[test]
    fn a_watching_tab_granted_a_lock_it_asked_for_earlier_releases_it() {
        let mut tab = BatchTab::watches(BATCH);
        assert_eq!(
            tab.lock_replied(BATCH, LockReply::Granted),
            TabStep::Release
        );
        assert_eq!(tab.role(), Role::Watches);
        assert!(!tab.holds_lock());
    }
}
