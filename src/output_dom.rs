//! The output table, built straight into the DOM.
//!
//! A run's output is shown once and never patched, so it needs none of Leptos's reactive
//! machinery: building its rows with plain DOM calls renders 100 records in about half the
//! time of the equivalent `view!` (see README, "Speed and size") and with less code. The rules
//! are those of [`crate::output`]; every value goes in through `textContent`, never as HTML, and
//! only [`safe_link`] URLs become links.

use serde_json::Value;
use web_sys::{Document, Element};

use crate::output::{
    cell, chain_links, columns, plain, pretty, safe_link, shorten, summary, visible,
};

/// `<table class="output-table">` with a header of the records' keys, one row per record, and
/// per row a Copy button (`data-copy` = the record's index) and the record's chained actions.
pub fn build_table(document: &Document, action: &str, records: &[Value]) -> Option<Element> {
    let el = |tag: &str, class: &str| element(document, tag, class, "");
    let text_el = |tag: &str, class: &str, text: &str| element(document, tag, class, text);
    let columns = columns(records);
    let table = el("table", "output-table")?;
    table.set_attribute("data-field", "output-table").ok()?;
    let head_row = el("tr", "")?;
    for name in std::iter::once("#")
        .chain(columns.iter().map(String::as_str))
        .chain(["Actions"])
    {
        let th = text_el("th", "", name)?;
        th.set_attribute("scope", "col").ok()?;
        head_row.append_child(&th).ok()?;
    }
    let head = el("thead", "")?;
    head.append_child(&head_row).ok()?;
    table.append_child(&head).ok()?;
    let body = el("tbody", "")?;
    for (i, record) in records.iter().enumerate() {
        let row = el("tr", "")?;
        let number = text_el("th", "num", &(i + 1).to_string())?;
        number.set_attribute("scope", "row").ok()?;
        row.append_child(&number).ok()?;
        for column in &columns {
            let td = el("td", "")?;
            if let Some(value) = cell(record, column) {
                append_value(document, &td, value)?;
            }
            row.append_child(&td).ok()?;
        }
        let actions = el("td", "row-actions")?;
        let copy = text_el("button", "button link", "Copy")?;
        copy.set_attribute("type", "button").ok()?;
        copy.set_attribute("data-copy", &i.to_string()).ok()?;
        actions.append_child(&copy).ok()?;
        for (label, href) in chain_links(action, record) {
            let link = text_el("a", "button secondary small", label)?;
            link.set_attribute("href", &href).ok()?;
            actions.append_child(&link).ok()?;
        }
        row.append_child(&actions).ok()?;
        body.append_child(&row).ok()?;
    }
    table.append_child(&body).ok()?;
    Some(table)
}

/// One value into a cell: a clean `https:` URL as a link, long text shortened with the whole
/// text a click away, a nested value as a summary that expands to indented JSON, else text.
fn append_value(document: &Document, cell: &Element, value: &Value) -> Option<()> {
    let el = |tag: &str, class: &str, text: &str| element(document, tag, class, text);
    let expandable = |summary_text: &str, class: &str, full: Element| -> Option<()> {
        let details = el("details", class, "")?;
        details
            .append_child(&el("summary", "", summary_text)?.into())
            .ok()?;
        details.append_child(&full).ok()?;
        cell.append_child(&details).ok()?;
        Some(())
    };
    match value {
        Value::String(text) => {
            if let Some(url) = safe_link(text) {
                let (short, cut) = shorten(url);
                let link = el(
                    "a",
                    "",
                    &if cut {
                        format!("{short}…")
                    } else {
                        short.to_owned()
                    },
                )?;
                link.set_attribute("href", url).ok()?;
                link.set_attribute("rel", "noopener noreferrer").ok()?;
                link.set_attribute("target", "_blank").ok()?;
                cell.append_child(&link).ok()?;
            } else {
                match shorten(text) {
                    (_, false) => cell.set_text_content(Some(&visible(text))),
                    (short, true) => {
                        let label =
                            format!("{}… ({} characters)", visible(short), text.chars().count());
                        expandable(&label, "long", el("span", "full-text", &visible(text))?)?;
                    }
                }
            }
        }
        Value::Object(_) | Value::Array(_) => {
            let code = el("pre", "code", &pretty(value))?;
            code.set_attribute("tabindex", "0").ok()?;
            expandable(&summary(value), "nested", code)?;
        }
        scalar => cell.set_text_content(Some(&plain(scalar))),
    }
    Some(())
}

/// A new element with a class (if any) and its text (if any), set as text.
fn element(document: &Document, tag: &str, class: &str, text: &str) -> Option<Element> {
    let e = document.create_element(tag).ok()?;
    if !class.is_empty() {
        e.set_class_name(class);
    }
    if !text.is_empty() {
        e.set_text_content(Some(text));
    }
    Some(e)
}
