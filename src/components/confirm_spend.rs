//! `ConfirmSpend`: the question asked before a run or a batch that may cost more than the
//! person's threshold (or more than is available), in a modal `<dialog>`: where the credits go,
//! how many at worst, and what share of the credits available. Nothing is sent unless the
//! person says yes; Escape, "Cancel" and closing the dialog all mean no.

use leptos::prelude::*;

use crate::model::safeguards::Confirmation;

#[component]
pub fn ConfirmSpend(
    confirmation: Confirmation,
    /// "Spend up to N credits": the person agreed.
    on_confirm: Callback<()>,
    /// Cancel, Escape or the dialog closed: nothing is sent.
    on_dismiss: Callback<()>,
) -> impl IntoView {
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    let cancel = NodeRef::<leptos::html::Button>::new();
    dialog.on_load(move |d| {
        let _ = d.show_modal();
        // The safe answer has the focus: Enter pressed by habit sends nothing.
        if let Some(button) = cancel.get_untracked() {
            let _ = button.focus();
        }
    });
    let live = confirmation.environment.is_live();
    let spend_label = format!(
        "Spend up to {} credits",
        crate::model::format::group_thousands(confirmation.spend.worst_case())
    );
    view! {
        <dialog class="spend-dialog" class:live=live node_ref=dialog data-field="confirm-spend"
            aria-labelledby="spend-title" aria-describedby="spend-details"
            // Escape, or the browser closing it: the person said no.
            on:close=move |_| on_dismiss.run(())>
            <h2 id="spend-title">{confirmation.title()}</h2>
            <p id="spend-details">{confirmation.details()}</p>
            <p class="help">{confirmation.reason()} " "
                <a href="/safeguards">"Change when to ask"</a>
            </p>
            <div class="actions-row">
                <button type="button" class=if live { "button danger" } else { "button primary" }
                    data-field="confirm-spend-yes" on:click=move |_| on_confirm.run(())>
                    {spend_label}
                </button>
                <button type="button" class="button secondary" node_ref=cancel
                    on:click=move |_| on_dismiss.run(())>"Cancel"</button>
            </div>
        </dialog>
    }
}
