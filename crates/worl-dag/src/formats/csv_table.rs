//! A CSV table with a header line, its columns found by name: what the GPU-trace loaders
//! ([`openb`](super::openb), [`pai`](super::pai)) share.

use crate::error::{DagError, Result};
use crate::formats::read_text;
use std::io::Read;

/// The rows of a CSV table and the positions of the columns asked for.
pub(crate) struct Table {
    /// Position of each requested column, in the order asked (`None`: absent, optional).
    pub(crate) columns: Vec<Option<usize>>,
    /// Data rows with their 1-based line, blank lines left out.
    pub(crate) rows: Vec<(usize, csv::StringRecord)>,
}

/// The header fields of `line`: split at commas, trimmed, a UTF-8 byte-order mark dropped
/// (no quoting: the traces' headers have none).
pub(crate) fn header_fields(line: &str) -> Vec<&str> {
    line.trim_start_matches('\u{feff}')
        .trim_end_matches(['\r', '\n'])
        .split(',')
        .map(str::trim)
        .collect()
}

/// The first line of `text` (without its line break).
pub(crate) fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or("")
}

/// Whether the header `line` names every column of `required`.
pub(crate) fn has_columns(line: &str, required: &[&str]) -> bool {
    let fields = header_fields(line);
    required.iter().all(|c| fields.contains(c))
}

/// Reads the table: the first line is the header; `columns` are looked up in it by name, and
/// those with `required[i]` must be there. Every row must have as many fields as the header.
///
/// Errors: [`DagError::Io`] naming `source` if reading fails; [`DagError::Parse`] naming
/// `source` and the line for invalid UTF-8, malformed CSV, a missing required column (line 1,
/// listing the header's columns) or a row whose field count differs from the header's.
pub(crate) fn read(
    reader: impl Read,
    source: &str,
    columns: &[&str],
    required: &[bool],
) -> Result<Table> {
    let text = read_text(reader, source)?;
    let err = |line: usize, message: String| DagError::Parse {
        file: source.to_owned(),
        line,
        message,
    };
    let header = header_fields(first_line(&text));
    let found: Vec<Option<usize>> = columns
        .iter()
        .map(|c| header.iter().position(|h| h == c))
        .collect();
    if let Some(i) = (0..columns.len()).find(|&i| required[i] && found[i].is_none()) {
        return Err(err(
            1,
            format!(
                "no column `{}` in the header (columns: {})",
                columns[i],
                crate::error::clip(&header.join(","))
            ),
        ));
    }
    let width = header.len();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    let mut rec = csv::StringRecord::new();
    let mut lines = LineCounter::new();
    loop {
        let more = rdr.read_record(&mut rec).map_err(|e| {
            let line = e
                .position()
                .map_or(0, |p| lines.at(text.as_bytes(), p.byte()));
            err(line, e.to_string())
        })?;
        if !more {
            break;
        }
        let line = rec
            .position()
            .map_or(0, |p| lines.at(text.as_bytes(), p.byte()));
        if rec.len() == 1 && rec[0].trim().is_empty() {
            continue; // blank line
        }
        if rec.len() != width {
            return Err(err(
                line,
                format!("{} fields, expected {width} as in the header", rec.len()),
            ));
        }
        rows.push((line, rec.clone()));
    }
    Ok(Table {
        columns: found,
        rows,
    })
}

/// The lines of the records a CSV reader returns, in order: the reader's own line count
/// passes over blank lines, and its position is where it began reading, before the blank
/// lines it skipped; the record starts after them. Counting from the last record keeps the
/// whole file's cost linear.
pub(crate) struct LineCounter {
    /// Byte offset counted up to.
    pos: usize,
    /// 1-based line at `pos`.
    line: usize,
}

impl LineCounter {
    /// A counter at the start of the text.
    pub(crate) fn new() -> Self {
        Self { pos: 0, line: 1 }
    }

    /// The 1-based line of the record the reader places at `byte` of `b` (positions at or
    /// after the previous one).
    pub(crate) fn at(&mut self, b: &[u8], byte: u64) -> usize {
        let mut to = (byte as usize).min(b.len());
        while to < b.len() && matches!(b[to], b'\n' | b'\r') {
            to += 1;
        }
        if to >= self.pos {
            self.line += b[self.pos..to].iter().filter(|&&c| c == b'\n').count();
            self.pos = to;
        }
        self.line
    }
}

/// A numeric field: `None` when empty (or blank).
///
/// Errors: [`DagError::Parse`] naming `source`, `line`, the row's item `at` (e.g. ``pod
/// `p1` ``) and the column for text that is not a finite number.
pub(crate) fn number(
    text: &str,
    column: &str,
    at: &str,
    line: usize,
    source: &str,
) -> Result<Option<f64>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(DagError::Parse {
            file: source.to_owned(),
            line,
            message: format!(
                "{at}: {column} `{}` is not a finite number",
                crate::error::clip(t)
            ),
        }),
    }
}

/// The names of the columns whose value is missing among `fields` (`(column, value)`),
/// joined as `a, b`; `None` when every value is present.
pub(crate) fn empty_columns(fields: &[(&str, Option<f64>)]) -> Option<String> {
    let empty: Vec<&str> = fields
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|&(c, _)| c)
        .collect();
    (!empty.is_empty()).then(|| empty.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_found_by_name_and_rows_checked() {
        let text = "\u{feff}b, a ,c\n1,2,3\n\n4,5,6\n";
        let t = read(
            text.as_bytes(),
            "t.csv",
            &["a", "c", "z"],
            &[true, true, false],
        )
        .unwrap();
        assert_eq!(t.columns, [Some(1), Some(2), None]);
        let lines: Vec<usize> = t.rows.iter().map(|r| r.0).collect();
        assert_eq!(lines, [2, 4]);
        assert_eq!(&t.rows[1].1[1], "5");
        let e = read(text.as_bytes(), "t.csv", &["z"], &[true])
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e, "t.csv:1: no column `z` in the header (columns: b,a,c)");
        let e = read("a,b\n1,2\n3\n".as_bytes(), "t.csv", &["a"], &[true])
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e, "t.csv:3: 1 fields, expected 2 as in the header");
        assert!(has_columns("x,a,b\r\n", &["a", "b"]) && !has_columns("a", &["a", "b"]));
        assert_eq!(
            number(" 7 ", "n", "pod `p`", 2, "t.csv").unwrap(),
            Some(7.0)
        );
        assert_eq!(number("", "n", "pod `p`", 2, "t.csv").unwrap(), None);
        let e = number("x", "n", "pod `p`", 2, "t.csv")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "t.csv:2: pod `p`: n `x` is not a finite number");
    }
}
