//! The page's one look for a sentence that informs (`.notice`): something to know, not an
//! error of the API (that is `ApiErrorPanel`).

use leptos::prelude::*;

/// What a notice is for: its look and how assistive technology announces it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NoticeKind {
    /// Something to know (`role="status"`, announced politely).
    #[default]
    Info,
    /// Something to know that is less important than the page around it, in smaller text
    /// (`.notice.subtle`, `role="status"`).
    Subtle,
    /// Something went wrong with what the person asked for (`role="alert"`, announced at once).
    Problem,
}

impl NoticeKind {
    /// The element's classes.
    pub fn class(self) -> &'static str {
        match self {
            NoticeKind::Info | NoticeKind::Problem => "notice",
            NoticeKind::Subtle => "notice subtle",
        }
    }

    /// The element's ARIA role.
    pub fn role(self) -> &'static str {
        match self {
            NoticeKind::Info | NoticeKind::Subtle => "status",
            NoticeKind::Problem => "alert",
        }
    }
}

/// A notice: a `<p class="notice">` around a sentence, or with `block` a `<div>` around
/// paragraphs and lists.
#[component]
pub fn Notice(
    /// Its look and role; `Info` unless told.
    #[prop(optional)]
    kind: NoticeKind,
    /// The `data-field` tests find it by.
    #[prop(optional)]
    field: Option<&'static str>,
    /// The children are blocks (paragraphs, lists), so the notice is a `<div>`, not a `<p>`.
    #[prop(optional)]
    block: bool,
    /// Hidden while true (kept in the page, so a live region is there before it speaks).
    #[prop(optional, into)]
    hidden: Signal<bool>,
    /// What it says.
    children: Children,
) -> impl IntoView {
    let hidden = move || hidden.get();
    if block {
        view! {
            <div class=kind.class() role=kind.role() data-field=field hidden=hidden>{children()}</div>
        }
        .into_any()
    } else {
        view! {
            <p class=kind.class() role=kind.role() data-field=field hidden=hidden>{children()}</p>
        }
        .into_any()
    }
}
