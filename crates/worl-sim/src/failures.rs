//! [`Failures`]: GPU outages, random (exponential times between failures per GPU) or
//! scripted.

use crate::error::{Result, SimError};
use crate::noise::{as_given, kind_and_arg, parse_f64};
use std::fmt;
use std::io::Read;
use std::str::FromStr;
use std::sync::Arc;
use worl_cluster::GpuId;

/// Largest time a failure setting may name, s (about 31,700 years): repair times and
/// scripted outage times beyond it are refused (at such magnitudes `f64` time stops
/// advancing by task durations).
pub const MAX_FAILURE_TIME_S: f64 = 1e12;

/// Default repair time of `mtbf:H`, s.
pub const DEFAULT_REPAIR_S: f64 = 600.0;

/// Most outages of a script (`outages:` or `script:FILE`, or [`Failures::Script`]): one
/// million. Each is two events of the simulation; a longer script is refused before it is
/// read further.
pub const MAX_OUTAGES: usize = 1_000_000;

/// Largest outage script file (`script:FILE`), bytes: 64 MiB (a million rows of about 64
/// characters); a larger file is refused before it is read.
pub const MAX_SCRIPT_BYTES: u64 = 64 << 20;

/// One scripted outage: `gpu` is down on `[from, to)`, s (half-open: a task finishing at
/// `from` is not lost, a task may start at `to`).
///
/// Two outages are equal when their GPU and times are ([`origin`](Outage::origin) is
/// ignored).
#[derive(Clone, Debug)]
pub struct Outage {
    /// The GPU.
    pub gpu: GpuId,
    /// Failure time, s (finite, `>= 0`).
    pub from: f64,
    /// Repair time, s (finite, `> from`).
    pub to: f64,
    /// Where the outage was written, for error messages ([`OutageOrigin::Given`] for one
    /// built in code).
    pub origin: OutageOrigin,
}

impl Outage {
    /// The outage of `gpu` on `[from, to)`, s, built in code ([`OutageOrigin::Given`]).
    pub fn new(gpu: GpuId, from: f64, to: f64) -> Self {
        Self {
            gpu,
            from,
            to,
            origin: OutageOrigin::Given,
        }
    }
}

impl PartialEq for Outage {
    fn eq(&self, other: &Self) -> bool {
        (self.gpu, self.from, self.to) == (other.gpu, other.from, other.to)
    }
}

/// Where a scripted [`Outage`] was written: what an error about it (a GPU the cluster
/// lacks, found by [`Simulation::new`](crate::Simulation::new)) names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum OutageOrigin {
    /// Built in code: named by its 1-based position in [`Failures::Script`].
    #[default]
    Given,
    /// Item `position` (1-based) of an `outages:` list, written `text` (trimmed).
    Listed {
        /// 1-based position in the list.
        position: usize,
        /// The item as written, trimmed.
        text: Box<str>,
    },
    /// Line `line` (1-based, the header is line 1) of the `script:FILE` file `file`.
    File {
        /// The file, as given (shared by the outages of one file).
        file: Arc<str>,
        /// 1-based line.
        line: u64,
    },
}

impl OutageOrigin {
    /// How an error names the outage at 1-based position `position` of its script:
    /// ``outage 2 `g2@3+4` `` (a list), ``outage script `f.csv`, line 3`` (a file) or
    /// `outage 2` (built in code). Control characters are escaped.
    pub fn describe(&self, position: usize) -> String {
        match self {
            Self::Given => format!("outage {position}"),
            Self::Listed { position, text } => format!("outage {position} `{}`", escaped(text)),
            Self::File { file, line } => {
                format!("outage script `{}`, line {line}", escaped(file))
            }
        }
    }
}

/// `text` with its control characters (NUL, CR, ...) escaped as Rust writes them (`\0`,
/// `\r`, `\u{1b}`), other characters as they are: what error messages quote.
pub(crate) fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// `x` with a negative zero made `0` (`-0` parses as `-0.0`, which `>= 0` accepts and
/// `Display` writes `-0`).
fn unsigned_zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
}

/// GPU failures.
///
/// A task running on a GPU when it fails is **lost**: its elapsed time counts as lost
/// time, it returns to the ready set and the policy dispatches it again. A failed GPU starts
/// nothing until repaired; the tasks queued on it stay queued.
///
/// Text form (`FromStr`/`Display`):
///
/// * `none`;
/// * `mtbf:H` (repair [`DEFAULT_REPAIR_S`]) or `mtbf:H:REPAIR_S`;
/// * `outages:GPU@FROM+DURATION[;GPU@FROM+DURATION...]`: scripted outages, GPU `GPU` down
///   from `FROM` s for `DURATION` s; `GPU@FROM..TO` gives the repair time instead of the
///   duration, and `,` separates outages as well as `;`. `GPU` is the GPU's index in the
///   cluster (`3` or `g3`, as event logs and Gantt charts name it; GPUs have no names of
///   their own); times are seconds, finite, `0 <= FROM < TO <= `[`MAX_FAILURE_TIME_S`]
///   (`inf` is refused). `outages:` alone is a script without outages;
/// * `script:FILE`: the outages of a CSV file with the header `gpu,from,to` (columns in any
///   order, surrounding spaces trimmed, lines starting with `#` ignored), one outage per
///   row, `from` and `to` in seconds.
///
/// A script parses into [`Failures::Script`], whose text form is the `outages:` list
/// (`GPU@FROM+DURATION` where `FROM + DURATION` gives back `TO` exactly in `f64`,
/// `GPU@FROM..TO` otherwise), so that `Display` then `FromStr` gives back an equal value,
/// also for a script read from a file. Overlapping outages of one GPU are allowed and merge:
/// the GPU is down while any of them covers it. A script's GPUs are checked against the
/// cluster by [`Simulation::new`](crate::Simulation::new), whose error names the outage by
/// its [`OutageOrigin`] (the item of the list, or the file and line). A time written `-0`
/// is `0`. Control characters of a quoted field are escaped in error messages.
///
/// Ties: an outage covers `[FROM, TO)` and a task runs on `[start, finish)`, so a task
/// finishing exactly when its GPU fails is not lost, and a task may start on a GPU at the
/// instant it is repaired. A failure and a repair at one instant take the GPU down first
/// (abutting outages of one GPU keep it down).
///
/// Losses: under `mtbf:` a task lost [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS) times stops the
/// run with [`SimError::TooManyLosses`] (failures faster than the task can run would never
/// end); scripted outages have no such cap, since they are finitely many and the run ends
/// once they end.
///
/// ```
/// use worl_cluster::GpuId;
/// use worl_sim::{Failures, Outage};
/// assert_eq!("mtbf:24:300".parse::<Failures>().unwrap(), Failures::Mtbf { hours: 24.0, repair_s: 300.0 });
/// assert!("mtbf:0".parse::<Failures>().is_err());
/// let f: Failures = "outages:g0@5+20; 1@30..31.5".parse().unwrap();
/// assert_eq!(f, Failures::Script(vec![
///     Outage::new(GpuId::new(0), 5.0, 25.0),
///     Outage::new(GpuId::new(1), 30.0, 31.5),
/// ]));
/// assert_eq!(f.to_string(), "outages:0@5+20;1@30+1.5");
/// assert!("outages:0@5+inf".parse::<Failures>().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Failures {
    /// No failures.
    #[default]
    None,
    /// Each GPU fails independently after exponential up-times of mean `hours` (the mean
    /// time between failures, MTBF), then stays down `repair_s` seconds.
    Mtbf {
        /// Mean time between failures per GPU, hours (finite, `> 0`).
        hours: f64,
        /// Repair time, s (finite, `>= 0`).
        repair_s: f64,
    },
    /// Scripted outages, at most [`MAX_OUTAGES`] (overlapping outages of one GPU merge: it
    /// is up when none covers it).
    Script(Vec<Outage>),
}

/// Why the times of an outage are refused, if they are.
fn bad_times(from: f64, to: f64) -> Option<&'static str> {
    if !(from.is_finite() && from >= 0.0) {
        Some("the failure time must be finite and >= 0")
    } else if !(to.is_finite() && to > from) {
        Some("the repair time must be finite and after the failure")
    } else if to > MAX_FAILURE_TIME_S {
        Some("outage times must be at most 1e12 s")
    } else {
        None
    }
}

/// The refusal of a script of `n` outages, more than [`MAX_OUTAGES`].
fn too_many(n: usize) -> String {
    format!("{n} outages, more than the {MAX_OUTAGES} a script may have")
}

impl Failures {
    /// Checks the parameters against a cluster of `n_gpus` GPUs.
    ///
    /// Errors: [`SimError::InvalidSpec`] for a non-positive or non-finite MTBF, a negative
    /// or non-finite repair time, or a script of more than [`MAX_OUTAGES`] outages;
    /// [`SimError::InvalidOutage`] for an outage of a GPU outside the cluster (the reason
    /// names the outage by its [`OutageOrigin`] and the cluster's size), with negative or
    /// non-finite times, `to <= from` or `to > `[`MAX_FAILURE_TIME_S`].
    pub fn validate(&self, n_gpus: usize) -> Result<()> {
        match self {
            Self::None => Ok(()),
            Self::Mtbf { hours, repair_s } => {
                let reason = if !(hours.is_finite() && *hours > 0.0) {
                    "the mean time between failures must be finite and > 0 hours"
                } else if !(repair_s.is_finite() && *repair_s >= 0.0) {
                    "the repair time must be finite and >= 0 s"
                } else if *repair_s > MAX_FAILURE_TIME_S {
                    "the repair time must be at most 1e12 s"
                } else {
                    return Ok(());
                };
                Err(SimError::InvalidSpec {
                    what: "failures",
                    spec: self.to_string(),
                    reason: reason.to_string(),
                })
            }
            Self::Script(outages) => {
                if outages.len() > MAX_OUTAGES {
                    return Err(SimError::InvalidSpec {
                        what: "failures",
                        spec: format!("a script of {} outages", outages.len()),
                        reason: too_many(outages.len()),
                    });
                }
                for (i, o) in outages.iter().enumerate() {
                    let reason = if o.gpu.index() >= n_gpus {
                        format!(
                            "{}: GPU {} is not in the cluster, which has {n_gpus} GPUs (g0..g{})",
                            o.origin.describe(i + 1),
                            o.gpu,
                            n_gpus.saturating_sub(1)
                        )
                    } else if let Some(r) = bad_times(o.from, o.to) {
                        format!("{}: {r}", o.origin.describe(i + 1))
                    } else {
                        continue;
                    };
                    return Err(SimError::InvalidOutage {
                        gpu: o.gpu.index(),
                        from: o.from,
                        to: o.to,
                        reason,
                    });
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::Mtbf { hours, repair_s } => {
                write!(f, "mtbf:{hours}:{}", unsigned_zero(*repair_s))
            }
            Self::Script(outages) => {
                write!(f, "outages:")?;
                for (i, o) in outages.iter().enumerate() {
                    if i > 0 {
                        write!(f, ";")?;
                    }
                    let (gpu, from, to) = (o.gpu.index(), unsigned_zero(o.from), o.to);
                    let duration = to - from;
                    if from + duration == to {
                        write!(f, "{gpu}@{from}+{duration}")?;
                    } else {
                        write!(f, "{gpu}@{from}..{to}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// The GPU of `text`: an index `3` or `g3`.
fn parse_gpu(text: &str) -> Option<GpuId> {
    let t = text.trim();
    let digits = t.strip_prefix(['g', 'G']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    GpuId::try_new(digits.parse::<usize>().ok()?)
}

/// `text` split at its first `+` that is not a number's leading sign or an exponent's sign
/// (`5e+2+20` is `5e+2` and `20`).
fn split_plus(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    (1..b.len())
        .find(|&i| b[i] == b'+' && !matches!(b[i - 1], b'e' | b'E'))
        .map(|i| (&text[..i], &text[i + 1..]))
}

/// A number of an outage, or why it is not one.
fn number(field: &str, text: &str) -> std::result::Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .map(unsigned_zero)
        .map_err(|_| format!("{field} `{}` is not a number", escaped(text.trim())))
}

/// One outage `GPU@FROM+DURATION` or `GPU@FROM..TO` (origin [`OutageOrigin::Given`]), or
/// why it is refused.
fn parse_outage(item: &str) -> std::result::Result<Outage, String> {
    let (gpu, times) = item
        .split_once('@')
        .ok_or("expected GPU@FROM+DURATION or GPU@FROM..TO")?;
    let gpu = parse_gpu(gpu).ok_or_else(|| {
        format!(
            "GPU `{}` is not a GPU index (`3` or `g3`)",
            escaped(gpu.trim())
        )
    })?;
    let (from, to) = if let Some((from, to)) = times.split_once("..") {
        (number("failure time", from)?, number("repair time", to)?)
    } else if let Some((from, duration)) = split_plus(times.trim()) {
        let from = number("failure time", from)?;
        let duration = number("duration", duration)?;
        if !(duration.is_finite() && duration > 0.0) {
            return Err(format!(
                "the duration must be finite and > 0 s (an outage ends by {MAX_FAILURE_TIME_S:e} s)"
            ));
        }
        (from, from + duration)
    } else {
        return Err("expected GPU@FROM+DURATION or GPU@FROM..TO".to_string());
    };
    if let Some(r) = bad_times(from, to) {
        return Err(r.to_string());
    }
    Ok(Outage::new(gpu, from, to))
}

/// The outages of `arg`, the list of an `outages:` specification `spec`.
fn parse_outages(spec: &str, arg: &str) -> Result<Vec<Outage>> {
    let bad = |reason: String| SimError::InvalidSpec {
        what: "failures",
        spec: spec.to_string(),
        reason,
    };
    if arg.trim().is_empty() {
        return Ok(Vec::new());
    }
    let n = arg.split([';', ',']).count();
    if n > MAX_OUTAGES {
        // The list is long: the message shows its start.
        let end = (0..=64)
            .rev()
            .find(|&i| spec.is_char_boundary(i))
            .unwrap_or(0);
        return Err(SimError::InvalidSpec {
            what: "failures",
            spec: format!("{}...", &spec[..end.min(spec.len())]),
            reason: too_many(n),
        });
    }
    arg.split([';', ','])
        .enumerate()
        .map(|(i, item)| {
            let origin = OutageOrigin::Listed {
                position: i + 1,
                text: item.trim().into(),
            };
            match parse_outage(item) {
                Ok(o) => Ok(Outage { origin, ..o }),
                Err(r) => Err(bad(format!("{}: {r}", origin.describe(i + 1)))),
            }
        })
        .collect()
}

/// Line numbers of byte offsets of a text, counted incrementally.
struct LineCounter<'a> {
    data: &'a [u8],
    /// Offset up to which newlines are counted.
    at: usize,
    /// The 1-based line of `at`.
    line: u64,
}

impl LineCounter<'_> {
    /// The line of the first character at or after `byte` that is not a line break (a
    /// record's position is where the reader started, before the blank lines it skipped).
    fn line_at(&mut self, byte: u64) -> u64 {
        let mut end = usize::try_from(byte)
            .unwrap_or(usize::MAX)
            .min(self.data.len());
        while end < self.data.len() && matches!(self.data[end], b'\r' | b'\n') {
            end += 1;
        }
        if end < self.at {
            (self.at, self.line) = (0, 1);
        }
        // `\n`, `\r\n` and a lone `\r` each end a line, as for the csv reader.
        let span = &self.data[self.at..end];
        self.line += span
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && span.get(i + 1) != Some(&b'\n')))
            .count() as u64;
        self.at = end;
        self.line
    }
}

/// The outages of the CSV file `file` (header `gpu,from,to`).
fn read_script(file: &str) -> Result<Vec<Outage>> {
    let shared: Arc<str> = file.into();
    let err = |line: Option<u64>, reason: String| SimError::InvalidScript {
        file: file.to_string(),
        line,
        reason,
    };
    if file.is_empty() {
        return Err(err(
            None,
            "no file named (expected script:FILE)".to_string(),
        ));
    }
    let meta = std::fs::metadata(file).map_err(|e| err(None, e.to_string()))?;
    if meta.is_dir() {
        return Err(err(None, "is a directory".to_string()));
    }
    if meta.len() > MAX_SCRIPT_BYTES {
        return Err(err(
            None,
            format!(
                "{} bytes, more than the {MAX_SCRIPT_BYTES} an outage script may have",
                meta.len()
            ),
        ));
    }
    // The size the file reports is 0 for devices and pipes (`/dev/zero`, a FIFO): the read
    // itself is bounded, one byte past the cap telling a file that is too long.
    let mut data = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_SCRIPT_BYTES + 1).read_to_end(&mut data))
        .map_err(|e| err(None, e.to_string()))?;
    if data.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(err(
            None,
            format!("more than the {MAX_SCRIPT_BYTES} bytes an outage script may have"),
        ));
    }
    // Comment lines are skipped here rather than by the csv reader, and lines are counted
    // here from the byte offsets: the reader's line numbers miscount comment and blank
    // lines. Rows may have any length for the reader and are checked here.
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(data.as_slice());
    let mut lines = LineCounter {
        data: &data,
        at: 0,
        line: 1,
    };
    const NAMES: [&str; 3] = ["gpu", "from", "to"];
    let mut columns: Option<(usize, [usize; 3])> = None;
    let mut outages = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map(|p| lines.line_at(p.byte()));
            let reason = match e.kind() {
                csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_string(),
                _ => e.to_string(),
            };
            err(line, reason)
        })?;
        let line = rec.position().map(|p| lines.line_at(p.byte()));
        if rec.get(0).is_some_and(|f| f.starts_with('#')) {
            continue;
        }
        let Some((width, [gpu_c, from_c, to_c])) = columns else {
            let mut col = [None; 3];
            for (i, h) in rec.iter().enumerate() {
                let h = h.trim_start_matches('\u{feff}');
                let Some(c) = NAMES.iter().position(|n| h.eq_ignore_ascii_case(n)) else {
                    return Err(err(
                        line,
                        format!(
                            "unknown column `{}` (the header is gpu,from,to)",
                            escaped(h)
                        ),
                    ));
                };
                if col[c].replace(i).is_some() {
                    return Err(err(line, format!("column `{}` is repeated", NAMES[c])));
                }
            }
            if let Some(c) = col.iter().position(Option::is_none) {
                return Err(err(
                    line,
                    format!("no column `{}` (the header is gpu,from,to)", NAMES[c]),
                ));
            }
            columns = Some((rec.len(), col.map(|c| c.unwrap_or(0))));
            continue;
        };
        if rec.len() != width {
            return Err(err(
                line,
                format!("{} fields, the header has {width}", rec.len()),
            ));
        }
        if outages.len() == MAX_OUTAGES {
            return Err(err(line, too_many(MAX_OUTAGES + 1)));
        }
        let row = || -> std::result::Result<Outage, String> {
            let gpu_text = &rec[gpu_c];
            let gpu = parse_gpu(gpu_text).ok_or_else(|| {
                format!(
                    "GPU `{}` is not a GPU index (`3` or `g3`)",
                    escaped(gpu_text)
                )
            })?;
            let from = number("failure time (from)", &rec[from_c])?;
            let to = number("repair time (to)", &rec[to_c])?;
            match bad_times(from, to) {
                Some(r) => Err(r.to_string()),
                None => Ok(Outage {
                    gpu,
                    from,
                    to,
                    origin: OutageOrigin::File {
                        file: shared.clone(),
                        line: line.unwrap_or(0),
                    },
                }),
            }
        };
        outages.push(row().map_err(|r| err(line, r))?);
    }
    if columns.is_none() {
        return Err(err(
            None,
            "no header (the first line that is not a comment is gpu,from,to)".to_string(),
        ));
    }
    Ok(outages)
}

impl FromStr for Failures {
    type Err = SimError;

    /// Parses `none`, `mtbf:H`, `mtbf:H:REPAIR_S`, `outages:...` or `script:FILE` (reading
    /// the file), then validates (a script's GPUs are checked against the cluster later, by
    /// [`validate`](Failures::validate)).
    ///
    /// Errors: [`SimError::InvalidSpec`] naming the string (and for `outages:` the 1-based
    /// position and text of the bad outage); [`SimError::InvalidScript`] naming the file and
    /// the line for `script:FILE`.
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            SimError::InvalidSpec {
            what: "failures",
            spec: s.to_string(),
            reason: "expected none, mtbf:HOURS[:REPAIR_S], outages:GPU@FROM+DURATION[;...] or script:FILE"
                .to_string(),
        }
        };
        let (kind, arg) = kind_and_arg(s);
        let f = match (kind.as_str(), arg) {
            ("none", None) => Self::None,
            ("mtbf", Some(a)) => {
                let parts: Vec<&str> = a.split(':').collect();
                if parts.len() > 2 {
                    return Err(bad());
                }
                Self::Mtbf {
                    hours: parse_f64("failures", s, "MTBF (hours)", parts[0])?,
                    repair_s: match parts.get(1) {
                        Some(r) => unsigned_zero(parse_f64("failures", s, "repair time (s)", r)?),
                        None => DEFAULT_REPAIR_S,
                    },
                }
            }
            ("outages", Some(a)) => Self::Script(parse_outages(s, a)?),
            ("script", Some(a)) => Self::Script(read_script(a.trim())?),
            _ => return Err(bad()),
        };
        f.validate(usize::MAX).map_err(|e| as_given(e, s))?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_tokens_are_indices_with_an_optional_g() {
        assert_eq!(parse_gpu(" 3 "), Some(GpuId::new(3)));
        assert_eq!(parse_gpu("g12"), Some(GpuId::new(12)));
        assert_eq!(parse_gpu("G0"), Some(GpuId::new(0)));
        for bad in ["", "g", "-1", "+1", "1.0", "gg1", "a/0", "4294967296"] {
            assert_eq!(parse_gpu(bad), None, "{bad}");
        }
        assert_eq!(parse_gpu("4294967295"), Some(GpuId::new(u32::MAX as usize)));
    }

    #[test]
    fn the_duration_is_split_at_a_plus_that_is_no_sign() {
        assert_eq!(split_plus("5+20"), Some(("5", "20")));
        assert_eq!(split_plus("5e+2+20"), Some(("5e+2", "20")));
        assert_eq!(split_plus("+5+1E+1"), Some(("+5", "1E+1")));
        assert_eq!(split_plus("5"), None);
        assert_eq!(split_plus("+5"), None);
    }

    #[test]
    fn outage_items_parse_both_forms() {
        let o = |g, from, to| Outage::new(GpuId::new(g), from, to);
        assert_eq!(parse_outage("0@5+20"), Ok(o(0, 5.0, 25.0)));
        assert_eq!(parse_outage(" g2 @ 1e+1 + 5 "), Ok(o(2, 10.0, 15.0)));
        assert_eq!(parse_outage("1@0..0.5"), Ok(o(1, 0.0, 0.5)));
        assert!(parse_outage("1@5").unwrap_err().contains("expected"));
        assert!(parse_outage("1@5-3").unwrap_err().contains("expected"));
        assert!(parse_outage("5+20").unwrap_err().contains("expected"));
        assert!(parse_outage("1@5+0").unwrap_err().contains("duration"));
        assert!(parse_outage("1@5+-1").unwrap_err().contains("duration"));
        assert!(parse_outage("1@5+nan").unwrap_err().contains("duration"));
        assert!(
            parse_outage("1@3..3")
                .unwrap_err()
                .contains("after the failure")
        );
        assert!(parse_outage("1@-1+2").unwrap_err().contains(">= 0"));
    }
}
