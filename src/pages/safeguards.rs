//! `/safeguards`: this workspace's spending safeguards in this browser: when to ask before a
//! run or a batch (the environment's default, above a threshold, or never), and below which
//! available balance the header warns. Kept per workspace in localStorage (`state::safeguards`),
//! never sent to the API.

use leptos::prelude::*;

use crate::model::format::group_thousands;
use crate::model::safeguards::{
    AskBeforeRuns, LIVE_ASK_ABOVE, Safeguards, parse_ask_threshold, parse_warning_threshold,
};
use crate::state::environment::use_environment;
use crate::state::safeguards::use_safeguards;
use crate::state::workspace::use_workspace;

/// The radio group's values.
const ASK_DEFAULT: &str = "default";
const ASK_ABOVE: &str = "above";
const ASK_NEVER: &str = "never";

#[component]
pub fn SafeguardsPage() -> impl IntoView {
    let workspace = use_workspace();
    let environment = use_environment();
    let safeguards = use_safeguards();
    let kept = safeguards.get_untracked();

    let ask = RwSignal::new(
        match kept.ask {
            AskBeforeRuns::EnvironmentDefault => ASK_DEFAULT,
            AskBeforeRuns::Above(_) => ASK_ABOVE,
            AskBeforeRuns::Never => ASK_NEVER,
        }
        .to_owned(),
    );
    let ask_above = RwSignal::new(match kept.ask {
        AskBeforeRuns::Above(credits) => credits.to_string(),
        _ => LIVE_ASK_ABOVE.to_string(),
    });
    let warn = RwSignal::new(kept.warn_below.is_some());
    let warn_below = RwSignal::new(kept.warn_below.map(|c| c.to_string()).unwrap_or_default());
    let tried = RwSignal::new(false);
    let saved = RwSignal::new(None::<Result<(), String>>);

    // The typed thresholds, checked: `None` where the field is not in use.
    let ask_error = Memo::new(move |_| {
        (ask.with(|a| a == ASK_ABOVE))
            .then(|| parse_ask_threshold(&ask_above.get()).err())
            .flatten()
    });
    let warn_error = Memo::new(move |_| {
        warn.get()
            .then(|| parse_warning_threshold(&warn_below.get()).err())
            .flatten()
    });
    let chosen = move || -> Option<Safeguards> {
        let ask = match ask.get_untracked().as_str() {
            ASK_ABOVE => {
                AskBeforeRuns::Above(parse_ask_threshold(&ask_above.get_untracked()).ok()?)
            }
            ASK_NEVER => AskBeforeRuns::Never,
            _ => AskBeforeRuns::EnvironmentDefault,
        };
        let warn_below = if warn.get_untracked() {
            Some(parse_warning_threshold(&warn_below.get_untracked()).ok()?)
        } else {
            None
        };
        Some(Safeguards { ask, warn_below })
    };
    let on_save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        tried.set(true);
        let Some(chosen) = chosen() else {
            let first = if ask_error.get_untracked().is_some() {
                "field-ask-above"
            } else {
                "field-warn-below"
            };
            crate::browser::focus_id(first);
            saved.set(None);
            return;
        };
        saved.set(Some(safeguards.save(&chosen)));
    };
    // Any change makes the last "Saved" stale.
    Effect::new(move |_| {
        ask.track();
        ask_above.track();
        warn.track();
        warn_below.track();
        saved.set(None);
    });

    let env = environment.current_untracked();
    let default_rule = if env.is_live() {
        format!(
            "The default for {}, a live API: ask above {} credits",
            env.name,
            group_thousands(LIVE_ASK_ABOVE)
        )
    } else {
        format!("The default for {}, a sandbox: never ask", env.name)
    };
    let workspace_name = move || {
        workspace
            .get()
            .and_then(Result::ok)
            .map(|ws| ws.name)
            .unwrap_or_else(|| "this workspace".to_owned())
    };
    // A field's rule, shown once the person tried to save.
    let error_text = move |label: &'static str, error: Memo<Option<String>>| {
        move || {
            tried
                .get()
                .then(|| error.get().map(|e| format!("{label} {e}")))
                .flatten()
        }
    };

    view! {
        <section class="page">
            <h1>"Spending safeguards"</h1>
            <p class="lead">
                "For " <strong>{workspace_name}</strong> " on " <strong>{env.name.clone()}</strong>
                ", in this browser only: they are not sent to the API, and other browsers and people keep their own."
            </p>
            <form class="form safeguards-form" novalidate on:submit=on_save>
                <fieldset>
                    <legend>"Ask before spending"</legend>
                    <p class="help">"Before a run (from the form or Run again) or a bulk batch whose worst case is above the threshold, the console asks first and names where the credits go. It also asks whenever the worst case is more than the credits available."</p>
                    <label><input type="radio" name="ask" value=ASK_DEFAULT bind:group=ask />{default_rule}</label>
                    <label><input type="radio" name="ask" value=ASK_ABOVE bind:group=ask />
                        "Ask before a run or batch that may cost more than a threshold"</label>
                    <ThresholdField id="field-ask-above" label="Threshold, in credits" value=ask_above
                        error=Signal::derive(error_text("Threshold", ask_error))
                        disabled=Signal::derive(move || ask.with(|a| a != ASK_ABOVE)) />
                    <label><input type="radio" name="ask" value=ASK_NEVER bind:group=ask />
                        "Never ask (except when a run may cost more than is available)"</label>
                </fieldset>
                <fieldset>
                    <legend>"Low balance"</legend>
                    <label><input type="checkbox" name="warn" bind:checked=warn />
                        "Warn in the header when the credits available fall below a threshold"</label>
                    <ThresholdField id="field-warn-below" label="Warn below, in credits" value=warn_below
                        error=Signal::derive(error_text("Warn below", warn_error))
                        disabled=Signal::derive(move || !warn.get()) />
                </fieldset>
                <div class="actions-row">
                    <button type="submit" class="button primary">"Save"</button>
                    <span role="status" data-field="safeguards-saved">{move || match saved.get() {
                        Some(Ok(())) => view! { <span class="ok">"Saved for this workspace in this browser."</span> }.into_any(),
                        Some(Err(message)) => view! { <span class="field-error">{message}</span> }.into_any(),
                        None => ().into_any(),
                    }}</span>
                </div>
            </form>
        </section>
    }
}

/// A number of credits under the choice it belongs to, disabled while that choice is off.
#[component]
fn ThresholdField(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    /// The rule it breaks, once the person tried to save.
    error: Signal<Option<String>>,
    disabled: Signal<bool>,
) -> impl IntoView {
    let error_id = format!("{id}-error");
    view! {
        <div class="field indented">
            <label for=id>{label}</label>
            <input id=id type="text" inputmode="numeric" autocomplete="off"
                aria-describedby=error_id.clone()
                aria-invalid=move || error.with(Option::is_some).to_string()
                disabled=disabled
                bind:value=value />
            <p class="field-error" id=error_id role="alert">{error}</p>
        </div>
    }
}
