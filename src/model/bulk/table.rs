//! A pasted or chosen CSV/TSV file read into a [`Table`] (with the `csv` crate): the header line
//! names the columns, and every row keeps the line it starts on, as a spreadsheet numbers it.

/// The most rows one batch takes.
pub const MAX_ROWS: usize = 10_000;

/// A CSV or TSV file: its header and its rows, each with the line it starts on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<TableRow>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    /// The file's line where the row starts (the header is line 1), as a spreadsheet numbers it.
    pub line: usize,
    pub cells: Vec<String>,
}

/// Reads pasted or uploaded text: UTF-8 with or without a byte-order mark, comma- or
/// tab-separated (whichever the header line uses more), quoted fields, CRLF or LF. The first
/// line names the columns; blank lines are skipped.
pub fn read_table(text: &str) -> Result<Table, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first_line.is_empty() {
        return Err("The file is empty: the first line should name the columns.".to_owned());
    }
    let delimiter = if first_line.matches('\t').count() > first_line.matches(',').count() {
        b'\t'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut table = Table::default();
    let (mut counted, mut lines_before) = (0, 0);
    let mut rows_read = 0_usize;
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| match e.position() {
            Some(p) => format!("Line {}: {}", p.line(), csv_reason(&e)),
            None => csv_reason(&e),
        })?;
        // The csv crate places a record at the end of the line before it (its own line count is
        // off by one after a CRLF): step over line ends, then count them.
        let mut start = record
            .position()
            .map_or(text.len(), |p| p.byte() as usize)
            .min(text.len());
        while matches!(text.as_bytes().get(start), Some(b'\r' | b'\n')) {
            start += 1;
        }
        lines_before += text.as_bytes()[counted..start]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        counted = start;
        let line = lines_before + 1;
        let cells: Vec<String> = record.iter().map(|c| c.trim().to_owned()).collect();
        if i == 0 {
            if cells.iter().all(String::is_empty) {
                return Err("The first line should name the columns.".to_owned());
            }
            table.headers = cells;
            continue;
        }
        if cells.iter().all(String::is_empty) {
            continue;
        }
        rows_read += 1;
        if table.rows.len() < MAX_ROWS {
            table.rows.push(TableRow { line, cells });
        }
    }
    if rows_read > MAX_ROWS {
        return Err(format!(
            "The file has {} rows; a batch takes at most {}: split it into batches of at most {}.",
            crate::model::format::group_thousands(rows_read as u64),
            crate::model::format::group_thousands(MAX_ROWS as u64),
            crate::model::format::group_thousands(MAX_ROWS as u64),
        ));
    }
    if table.rows.is_empty() {
        return Err("The file has a header line but no rows.".to_owned());
    }
    Ok(table)
}

fn csv_reason(error: &csv::Error) -> String {
    match error.kind() {
        csv::ErrorKind::Utf8 { .. } => "is not UTF-8 text (save the file as CSV UTF-8)".to_owned(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_fields_crlf_and_a_byte_order_mark() {
        let t = read_table("\u{feff}first_name,Last Name,company\r\n\"Ada, Countess\",\"Love\"\"lace\",\"Analytical\nEngines\"\r\n\r\nGrace,Hopper,Navy\r\n").unwrap();
        assert_eq!(t.headers, ["first_name", "Last Name", "company"]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(
            t.rows[0].cells,
            ["Ada, Countess", "Love\"lace", "Analytical\nEngines"]
        );
        assert_eq!(t.rows[0].line, 2);
        // The quoted line break moved the next row down a line; the blank line is skipped.
        assert_eq!((t.rows[1].line, t.rows[1].cells[0].as_str()), (5, "Grace"));
    }

    #[test]
    fn tab_separated_text_is_recognised() {
        let t = read_table("keywords\tmax_results\nrust, wasm\t5\n").unwrap();
        assert_eq!(t.rows[0].cells, ["rust, wasm", "5"]);
    }

    #[test]
    fn empty_headerless_oversized_and_non_utf8_files_are_explained() {
        assert!(read_table("").unwrap_err().contains("empty"));
        assert!(read_table("keywords\n").unwrap_err().contains("no rows"));
        let big = format!("keywords\n{}", "x\n".repeat(MAX_ROWS + 1));
        assert_eq!(
            read_table(&big).unwrap_err(),
            "The file has 10,001 rows; a batch takes at most 10,000: split it into batches of at \
             most 10,000."
        );
        let exactly = format!("keywords\n{}", "x\n".repeat(MAX_ROWS));
        assert_eq!(read_table(&exactly).unwrap().rows.len(), MAX_ROWS);
    }
}
