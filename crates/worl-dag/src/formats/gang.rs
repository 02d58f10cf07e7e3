//! Reading and writing a task's gang demand ([`Task::gpus`](crate::Task::gpus) and
//! [`GangParams`]) in the formats that carry it: shared parsing of the values, with reasons
//! that name the field and value (the caller names the task, the file and the line), and the
//! line of a JSON key for the JSON formats.

use crate::error::{DagError, num};
use crate::task::{GangParams, MAX_GANG_GPUS, Span};

/// A GPU count from a number: a whole number in `1..=`[`MAX_GANG_GPUS`] (`8.0` is 8).
///
/// Errors: the reason, naming the field `what` and the value.
pub(crate) fn gpus_from_f64(what: &str, x: f64) -> Result<u32, String> {
    if !x.is_finite() || x.fract() != 0.0 {
        return Err(format!("{what} {} is not a whole number of GPUs", num(x)));
    }
    if x < 1.0 {
        return Err(format!("{what} = {}; a task needs at least 1 GPU", num(x)));
    }
    if x > f64::from(MAX_GANG_GPUS) {
        return Err(format!(
            "{what} = {} is more than {MAX_GANG_GPUS}, the most one task may demand",
            num(x)
        ));
    }
    Ok(x as u32)
}

/// A GPU count from text (`8`, ` 8 `, `8.0`), as [`gpus_from_f64`].
///
/// Errors: the reason, naming the field `what` and the text (clipped).
pub(crate) fn gpus_from_text(what: &str, s: &str) -> Result<u32, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if !x.is_nan() => gpus_from_f64(what, x),
        _ => Err(format!(
            "{what} `{}` is not a whole number of GPUs",
            crate::error::clip(s)
        )),
    }
}

/// A GPU count from a JSON value: a number, as [`gpus_from_f64`].
///
/// Errors: the reason, naming the field `what` and the value.
pub(crate) fn gpus_from_json(what: &str, v: &serde_json::Value) -> Result<u32, String> {
    match v.as_f64() {
        Some(x) => gpus_from_f64(what, x),
        None => Err(format!("{what} {v} is not a whole number of GPUs")),
    }
}

/// The span written `s` (`machine` or `cluster`, any case).
///
/// Errors: the reason, naming the field `what` and the text.
pub(crate) fn span_from_text(what: &str, s: &str) -> Result<Span, String> {
    Span::parse(s.trim()).ok_or_else(|| {
        format!(
            "{what} `{}` is neither `machine` nor `cluster`",
            crate::error::clip(s)
        )
    })
}

/// Which gang parameter a value sets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    /// [`GangParams::efficiency`].
    Efficiency,
    /// [`GangParams::sync_bytes`].
    SyncBytes,
    /// [`GangParams::sync_steps`].
    SyncSteps,
}

/// Sets `field` of `p` to `x`, checked as [`GangParams::check`] checks it; `what` names the
/// field in the reason.
///
/// Errors: the reason, naming `what` and the value.
pub(crate) fn set_number(
    p: &mut GangParams,
    field: Field,
    what: &str,
    x: f64,
) -> Result<(), String> {
    let mut one = GangParams::default();
    match field {
        Field::Efficiency => one.efficiency = x,
        Field::SyncBytes => one.sync_bytes = x,
        Field::SyncSteps => one.sync_steps = x,
    }
    one.check(1).map_err(|reason| {
        // `check` names the field by its Rust name; the format may spell it otherwise.
        let rust = match field {
            Field::Efficiency => "efficiency",
            Field::SyncBytes => "sync_bytes",
            Field::SyncSteps => "sync_steps",
        };
        reason.replacen(rust, what, 1)
    })?;
    match field {
        Field::Efficiency => p.efficiency = x,
        Field::SyncBytes => p.sync_bytes = x,
        Field::SyncSteps => p.sync_steps = x,
    }
    Ok(())
}

/// [`set_number`] from text.
///
/// Errors: the reason, naming `what` and the text.
pub(crate) fn set_text(
    p: &mut GangParams,
    field: Field,
    what: &str,
    s: &str,
) -> Result<(), String> {
    match s.trim().parse::<f64>() {
        Ok(x) => set_number(p, field, what, x),
        Err(_) => Err(format!(
            "{what} `{}` is not a number",
            crate::error::clip(s)
        )),
    }
}

/// [`set_number`] from a JSON value.
///
/// Errors: the reason, naming `what` and the value.
pub(crate) fn set_json(
    p: &mut GangParams,
    field: Field,
    what: &str,
    v: &serde_json::Value,
) -> Result<(), String> {
    match v.as_f64() {
        Some(x) => set_number(p, field, what, x),
        None => Err(format!("{what} {v} is not a number")),
    }
}

/// [`span_from_text`] from a JSON value (a string).
///
/// Errors: the reason, naming `what` and the value.
pub(crate) fn span_from_json(what: &str, v: &serde_json::Value) -> Result<Span, String> {
    match v.as_str() {
        Some(s) => span_from_text(what, s),
        None => Err(format!("{what} {v} is neither `machine` nor `cluster`")),
    }
}

/// The error for a bad gang value of task `task` (`job/task`) at `line` of `file`: a
/// [`DagError::Parse`] whose message is that of [`DagError::InvalidGang`].
pub(crate) fn error(file: &str, line: usize, task: String, reason: String) -> DagError {
    DagError::Parse {
        file: file.to_owned(),
        line,
        message: DagError::InvalidGang { task, reason }.to_string(),
    }
}

/// The 1-based lines of the object keys of JSON `text` named `key` (exactly as written,
/// escapes not decoded), in document order: one scan that tracks strings, so that a key-like
/// text inside a string value is not counted. For error messages only (the JSON readers
/// keep no positions once parsed).
pub(crate) fn json_key_lines(text: &str, key: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        match b[i] {
            b'\n' => line += 1,
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    if b[j] == b'\\' {
                        j += 1;
                    } else if b[j] == b'\n' {
                        line += 1;
                    }
                    j += 1;
                }
                let end = j.min(b.len());
                let mut k = end + 1;
                while k < b.len() && matches!(b[k], b' ' | b'\t' | b'\r' | b'\n') {
                    k += 1;
                }
                if k < b.len() && b[k] == b':' && &b[start..end] == key.as_bytes() {
                    out.push(line);
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_counts_are_whole_numbers_in_range() {
        assert_eq!(gpus_from_text("gpus", "8"), Ok(8));
        assert_eq!(gpus_from_text("gpus", " 8.0 "), Ok(8));
        assert_eq!(gpus_from_f64("gpus", 4096.0), Ok(4096));
        assert_eq!(
            gpus_from_text("gpus", "0").unwrap_err(),
            "gpus = 0; a task needs at least 1 GPU"
        );
        assert_eq!(
            gpus_from_f64("inst_num", -2.0).unwrap_err(),
            "inst_num = -2; a task needs at least 1 GPU"
        );
        assert_eq!(
            gpus_from_text("gpus", "2.5").unwrap_err(),
            "gpus 2.5 is not a whole number of GPUs"
        );
        assert_eq!(
            gpus_from_text("gpus", "abc").unwrap_err(),
            "gpus `abc` is not a whole number of GPUs"
        );
        assert_eq!(
            gpus_from_text("gpus", "NaN").unwrap_err(),
            "gpus `NaN` is not a whole number of GPUs"
        );
        assert_eq!(
            gpus_from_f64("gpus", 4097.0).unwrap_err(),
            "gpus = 4097 is more than 4096, the most one task may demand"
        );
        assert_eq!(
            gpus_from_json("gpus", &serde_json::json!("8")).unwrap_err(),
            "gpus \"8\" is not a whole number of GPUs"
        );
    }

    #[test]
    fn gang_numbers_are_checked_per_field() {
        let mut p = GangParams::default();
        set_text(&mut p, Field::Efficiency, "efficiency", "0.5").unwrap();
        set_number(&mut p, Field::SyncSteps, "sync_steps", 10.0).unwrap();
        assert_eq!((p.efficiency, p.sync_steps, p.sync_bytes), (0.5, 10.0, 0.0));
        assert_eq!(
            set_text(&mut p, Field::Efficiency, "gangEfficiency", "2").unwrap_err(),
            "gangEfficiency 2 is not in (0, 1]"
        );
        assert_eq!(
            set_text(&mut p, Field::SyncBytes, "sync_bytes", "-1").unwrap_err(),
            "sync_bytes -1 is not a finite number >= 0"
        );
        assert_eq!(
            set_text(&mut p, Field::SyncBytes, "sync_bytes", "abc").unwrap_err(),
            "sync_bytes `abc` is not a number"
        );
        // A refused value leaves the parameters as they were.
        assert_eq!(p.efficiency, 0.5);
        assert_eq!(span_from_text("span", "Cluster"), Ok(Span::Cluster));
        assert_eq!(
            span_from_text("span", "rack").unwrap_err(),
            "span `rack` is neither `machine` nor `cluster`"
        );
    }

    #[test]
    fn key_lines_skip_strings() {
        let text = "{\"gpus\": 2,\n \"name\": \"\\\"gpus\\\": 3\",\n \"x\": {\"gpus\"\n : 4}}";
        assert_eq!(json_key_lines(text, "gpus"), [1, 3]);
        assert_eq!(json_key_lines(text, "name"), [2]);
        assert!(json_key_lines(text, "span").is_empty());
    }
}
