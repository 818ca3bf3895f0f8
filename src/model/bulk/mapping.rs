//! Which column (or constant text) gives each field of the action's form its value, for every
//! row: a [`ColumnMapping`], first guessed from the headers, then set by the person.

use crate::model::form::{FormModel, MAX_CREDITS, MAX_RESULTS, Values};

/// Where a field's value comes from, for every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Left empty.
    Unset,
    /// The column at this index.
    Column(usize),
    /// The same text for every row.
    Constant(String),
}

/// A header or field name compared loosely: case, spaces, `_` and `-` do not matter.
pub fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Where each field of the form (inputs, then `max_results` and `max_credits`) takes its value
/// from, in the form's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnMapping(Vec<FieldSource>);

/// One field of a [`ColumnMapping`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSource {
    pub field: String,
    pub source: Source,
}

impl ColumnMapping {
    /// Every field with the column whose header matches its name or label, else
    /// [`Source::Unset`].
    pub fn by_header(form: &FormModel, headers: &[String]) -> ColumnMapping {
        let find = |names: &[&str]| {
            headers
                .iter()
                .position(|h| names.iter().any(|n| loose(h) == loose(n)))
                .map_or(Source::Unset, Source::Column)
        };
        let mut fields: Vec<FieldSource> = form
            .fields
            .iter()
            .map(|f| FieldSource {
                field: f.name.clone(),
                source: find(&[&f.name, &f.label]),
            })
            .collect();
        for limit in [MAX_RESULTS, MAX_CREDITS] {
            fields.push(FieldSource {
                field: limit.to_owned(),
                source: find(&[limit]),
            });
        }
        ColumnMapping(fields)
    }

    /// The fields' names, in the form's order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|f| f.field.as_str())
    }

    /// Where a field takes its value from ([`Source::Unset`] for a name the form lacks).
    pub fn source(&self, field: &str) -> Source {
        self.0
            .iter()
            .find(|f| f.field == field)
            .map_or(Source::Unset, |f| f.source.clone())
    }

    /// Changes where a field takes its value from; a name the form lacks is ignored.
    pub fn set(&mut self, field: &str, source: Source) {
        if let Some(kept) = self.0.iter_mut().find(|f| f.field == field) {
            kept.source = source;
        }
    }

    /// A row's values by field name, as the form would hold them.
    pub fn row_values(&self, cells: &[String]) -> Values {
        self.0
            .iter()
            .map(|f| {
                let value = match &f.source {
                    Source::Unset => String::new(),
                    Source::Column(i) => cells.get(*i).cloned().unwrap_or_default(),
                    Source::Constant(text) => text.trim().to_owned(),
                };
                (f.field.clone(), value)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use api_contract::ActionId;

    use super::*;
    use crate::model::bulk::fixtures::form;

    #[test]
    fn columns_map_by_name_or_label_loosely() {
        let f = form(ActionId::PremiumSearchPerson);
        let headers: Vec<String> = ["Company", "FIRST NAME", "last-name", "Max Results", "x"]
            .map(String::from)
            .into();
        let m = ColumnMapping::by_header(&f, &headers);
        let source = |name: &str| m.source(name);
        assert_eq!(source("first_name"), Source::Column(1));
        assert_eq!(source("last_name"), Source::Column(2));
        assert_eq!(source("company"), Source::Column(0));
        assert_eq!(source("network_profile_url"), Source::Unset);
        assert_eq!(source(MAX_RESULTS), Source::Column(3));
        assert_eq!(source(MAX_CREDITS), Source::Unset);
    }
}
