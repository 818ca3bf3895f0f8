//! The batch's Web Lock and `BroadcastChannel`: `model::batch_tab` decides what this tab does
//! with each answer of the browser; this does it.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::{Bulk, lock_reply};
use crate::browser::{HeldLock, LockAnswer, LockRequest, request_lock};
use crate::model::batch_tab::{BatchTab, CommandRoute, Role, TabStep};
use crate::model::bulk::engine::BatchNews;
use crate::runner::batch_lock_name;

impl Bulk {
    /// What the model decides for the batch shown (`Release` when none is shown: a lock
    /// granted for a batch no longer there is not needed).
    pub(super) fn decide(&self, event: impl FnOnce(&mut BatchTab) -> TabStep) -> TabStep {
        self.tab
            .try_update(|tab| tab.as_mut().map(event))
            .flatten()
            .unwrap_or(TabStep::Release)
    }

    /// Does `step` for the batch `batch`, with `lock` the lock just granted for it, if any.
    pub(super) fn perform(&self, step: TabStep, batch: &str, lock: Option<HeldLock>) {
        match (step, lock) {
            (TabStep::Keep, Some(lock)) => self.hold(lock, batch),
            (TabStep::RunKept { resume }, Some(lock)) => {
                let workspace = self
                    .batch
                    .with_untracked(|b| b.as_ref().and_then(|b| b.workspace.clone()))
                    .unwrap_or_default();
                let bulk = *self;
                let batch = batch.to_owned();
                spawn_local(async move {
                    bulk.run_kept(lock, &workspace, &batch, resume).await;
                });
            }
            (TabStep::Watch, lock) => {
                if let Some(lock) = lock {
                    lock.release();
                }
                // Another tab runs the batch now: this tab's worker stops, and the tab shows
                // the batch from that tab's news.
                self.stop_runner();
                self.listen(batch);
                self.take_up_when_free(batch.to_owned());
            }
            (_, Some(lock)) => lock.release(),
            (_, None) => {}
        }
    }

    /// Asks for the batch `batch`'s lock, if no other tab holds it.
    pub(super) fn ask_for_lock(&self, batch: String) {
        let bulk = *self;
        spawn_local(async move {
            let answer = request_lock(&batch_lock_name(&batch), LockRequest::IfAvailable).await;
            let (reply, lock) = lock_reply(answer);
            let step = bulk.decide(|tab| tab.lock_replied(&batch, reply));
            bulk.perform(step, &batch, lock);
        });
    }

    /// Whether a person's command goes to this tab's worker (it does not while another tab runs
    /// the batch). When the tab let go of the batch's lock (the batch had settled), it asks for
    /// it again; if another tab has taken the batch up meanwhile, this tab's worker stops and
    /// the tab only shows it.
    pub(super) fn route_command(&self) -> bool {
        let route = self
            .tab
            .try_update(|t| {
                t.as_mut()
                    .map(|tab| (tab.batch().to_owned(), tab.command()))
            })
            .flatten();
        match route {
            Some((batch, CommandRoute::Send { ask_for_lock })) => {
                if ask_for_lock {
                    self.ask_for_lock(batch);
                }
                true
            }
            Some((_, CommandRoute::Ignore)) | None => false,
        }
    }

    /// Keeps the batch's lock until it is released here or taken by another tab.
    pub(super) fn hold(&self, lock: HeldLock, batch: &str) {
        let lock = Rc::new(lock);
        self.lock.set_value(Some(lock.clone()));
        let bulk = *self;
        let batch = batch.to_owned();
        spawn_local(async move {
            lock.ended().await;
            let still_ours = bulk
                .lock
                .with_value(|held| held.as_ref().is_some_and(|held| Rc::ptr_eq(held, &lock)));
            if still_ours {
                bulk.lock.set_value(None);
                let step = bulk.decide(|tab| tab.lock_taken(&batch));
                bulk.perform(step, &batch, None);
            }
        });
    }

    /// The worker has nothing more to send: the lock goes, so another tab may open the batch
    /// as its own.
    pub(super) fn settled(&self) {
        if self.decide(BatchTab::settled) == TabStep::Release
            && let Some(lock) = self.lock.try_update_value(Option::take).flatten()
        {
            lock.release();
        }
    }

    /// Waits for the batch's lock: when the tab that runs it goes away, this tab takes the
    /// batch up from what was saved (paused, as after a reload).
    pub(super) fn take_up_when_free(&self, batch: String) {
        self.when_granted(batch, LockRequest::Wait, BatchTab::lock_freed);
    }

    /// Asks for the batch `batch`'s lock as `request` says and, once granted, does what the
    /// model makes of it (`Release` when no batch is shown); nothing when no lock is granted.
    pub(super) fn when_granted(
        &self,
        batch: String,
        request: LockRequest,
        granted: fn(&BatchTab, &str) -> TabStep,
    ) {
        let bulk = *self;
        spawn_local(async move {
            let LockAnswer::Held(lock) = request_lock(&batch_lock_name(&batch), request).await
            else {
                return;
            };
            let step = bulk
                .tab
                .with_untracked(|t| t.as_ref().map(|tab| granted(tab, &batch)))
                .unwrap_or(TabStep::Release);
            bulk.perform(step, &batch, Some(lock));
        });
    }

    /// Listens to the news of the tab that runs the batch.
    pub(super) fn listen(&self, batch: &str) {
        if let Some(channel) = self.channel.try_update_value(Option::take).flatten() {
            channel.close();
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(&batch_lock_name(batch)) else {
            return;
        };
        let bulk = *self;
        let on_news =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let Some(news) = event
                    .data()
                    .as_string()
                    .and_then(|text| serde_json::from_str::<BatchNews>(&text).ok())
                else {
                    return;
                };
                if bulk.role.get_untracked() == Role::Watches {
                    bulk.batch.update(|b| {
                        if let Some(engine) = b {
                            engine.absorb(news);
                        }
                    });
                }
            });
        channel.set_onmessage(Some(on_news.as_ref().unchecked_ref()));
        // The listener lives as long as the channel; the channel is closed when the tab shows
        // another batch or runs this one.
        on_news.forget();
        self.channel.set_value(Some(channel));
    }

    /// Stops the worker, releases the lock and closes the channel of the batch shown so far.
    pub(super) fn let_go(&self) {
        self.stop_runner();
        if let Some(lock) = self.lock.try_update_value(Option::take).flatten() {
            lock.release();
        }
        if let Some(channel) = self.channel.try_update_value(Option::take).flatten() {
            channel.close();
        }
    }
}
