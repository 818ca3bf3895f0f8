//! The offer of a kept result: when this browser keeps a completed run of the same action with
//! the same input (`model::same_input`), at least as many records asked for, younger than the
//! window the person chose, the form says so, with "Open it" beside "Run again anyway". Nothing
//! is reused without the person's click, and the submit button still makes a new run.

use chrono::Utc;
use leptos::prelude::*;

use crate::archive;
use crate::components::Notice;
use crate::model::preferences::Preference;
use crate::model::same_input::{Question, ReuseWindow, answering_runs, newest_kept_answer};
use crate::model::urls::run_path;
use crate::state::preferences::use_preferences;
use crate::state::workspace::use_workspace;

/// The kept run that answers the question on screen, if any, and the choice of how recent it
/// must be.
#[component]
pub(super) fn KeptResultOffer(
    action: String,
    max_results_ceiling: u32,
    /// The question the form asks now, once its values break no rule.
    wanted: Memo<Option<Question>>,
) -> impl IntoView {
    let workspace = use_workspace();
    // The window chosen last (a preference, not a secret).
    let preferences = use_preferences();
    let chosen = RwSignal::new(
        preferences
            .read(Preference::ReuseWindow)
            .map_or(ReuseWindow::DEFAULT, |value| {
                ReuseWindow::from_value(&value)
            }),
    );
    let choice = RwSignal::new(chosen.get_untracked().value().to_owned());
    Effect::new(move |_| {
        let picked = ReuseWindow::from_value(&choice.get());
        if picked != chosen.get_untracked() {
            chosen.set(picked);
            preferences.keep(Preference::ReuseWindow, picked.value());
        }
    });
    // What this console asked before for this action (read again when the workspace is, as
    // after each submission); a store that cannot be read offers nothing.
    let asked = LocalResource::new(move || {
        let workspace_id = workspace.id();
        let action = action.clone();
        async move {
            match workspace_id {
                Some(id) => archive::asked_before(&id, &action, max_results_ceiling)
                    .await
                    .unwrap_or_default(),
                None => Vec::new(),
            }
        }
    });
    let candidates = Memo::new(move |_| {
        let wanted = wanted.get()?;
        asked.with(|asked| {
            asked
                .as_ref()
                .map(|asked| answering_runs(&wanted, asked))
                .filter(|ids| !ids.is_empty())
        })
    });
    let offered = LocalResource::new(move || {
        let ids = candidates.get();
        let window = chosen.get();
        let workspace_id = workspace.id_untracked();
        async move {
            let (Some(ids), Some(workspace_id)) = (ids, workspace_id) else {
                return None;
            };
            let mut runs = Vec::new();
            for id in ids {
                if let Ok(Some(kept)) = archive::kept_run(&workspace_id, &id).await {
                    runs.push(kept);
                }
            }
            newest_kept_answer(&runs, Utc::now(), window)
        }
    });
    view! {
        {move || offered.get().flatten().map(|answer| view! {
            <Notice field="kept-result" block=true>
                <p>{answer.sentence(Utc::now())} " Open it to see them without paying again."</p>
                <p class="actions-row">
                    <a class="button secondary" data-field="open-kept-run" href=run_path(&answer.run_id)>"Open it"</a>
                    <button type="submit" class="button secondary" data-field="run-again-anyway">"Run again anyway"</button>
                </p>
            </Notice>
        })}
        <p class="help">
            <label for="reuse-window">"Offer a kept result of the same input "</label>
            <select id="reuse-window" data-field="reuse-window" bind:value=choice>
                {ReuseWindow::ALL.into_iter().map(|window| view! {
                    <option value=window.value()>{window.label()}</option>
                }).collect_view()}
            </select>
        </p>
    }
}
