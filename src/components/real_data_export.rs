//! The question presenter mode asks before an export: the screen hides personal data, a file
//! does not. With presenter mode off, an export goes at once.

use leptos::prelude::*;

use super::Confirm;
use crate::state::presenter::use_masker;

/// An export waiting for the person's yes.
#[derive(Clone)]
struct AskedExport {
    /// What the file will hold, in a sentence ("50 records with the columns name, headline").
    holds: String,
    export: Callback<()>,
}

/// Exports of one page, asked about first while presenter mode is on; show
/// [`RealDataQuestion`] where the question goes.
#[derive(Clone, Copy)]
pub struct RealDataGate {
    asking: RwSignal<Option<AskedExport>>,
    masking: bool,
}

impl Default for RealDataGate {
    /// A gate for a page built now (presenter mode as it is now).
    fn default() -> RealDataGate {
        RealDataGate {
            asking: RwSignal::new(None),
            masking: use_masker().is_on(),
        }
    }
}

impl RealDataGate {
    /// Runs `export` at once, or, in presenter mode, after the person's yes to a question that
    /// says the file holds real data and what: `holds`.
    pub fn export(&self, holds: String, export: impl Fn() + Send + Sync + 'static) {
        if self.masking {
            self.asking.set(Some(AskedExport {
                holds,
                export: Callback::new(move |()| export()),
            }));
        } else {
            export();
        }
    }
}

/// The question of `gate`, while it asks.
#[component]
pub fn RealDataQuestion(gate: RealDataGate) -> impl IntoView {
    let asking = gate.asking;
    move || {
        asking.get().map(|asked| {
            let export = asked.export;
            view! {
                <Confirm field="confirm-real-data" title=|| "The file will hold real data"
                    confirm_label="Export the real data" cancel_label="Do not export" focus_cancel=true
                    confirm_field="export-real-data"
                    on_confirm=Callback::new(move |()| { export.run(()); asking.set(None); })
                    on_cancel=Callback::new(move |()| asking.set(None))>
                    <p>"Presenter mode hides personal data on screen, not in files. The file will hold "
                        {asked.holds} ", as the API returned them, names and profiles included. "
                        "Open it only where those watching may see it."</p>
                </Confirm>
            }
        })
    }
}
