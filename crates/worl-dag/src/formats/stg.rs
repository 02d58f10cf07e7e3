//! Loader of the Standard Task Graph (STG) format of the Kasahara Lab (Tobita & Kasahara,
//! J. Scheduling 5(5), 2002; <http://www.kasahara.cs.waseda.ac.jp/schedule/format_e.html>).
//!
//! Line 1 holds `n`, the number of real tasks; then one line per task, `id cost n_pred
//! pred...`, including a dummy entry task (id 0) and a dummy exit task (id `n+1`) of cost 0;
//! then optional `#` comment lines (critical path length, parallelism, ...). The variant
//! with communication costs lists `pred comm_cost` pairs instead of bare predecessors; it is
//! recognised from the token count of each line (a file mixing both is an error). Columns are
//! fixed-width in the published files but are split on whitespace here.
//!
//! A task is named `T<id>`; the graph is one job named after the file stem.
//! `work = cost · time_unit` reference GPU-seconds (default 1 s per STG time unit); a
//! communication cost `c` becomes `c · time_unit · bandwidth` bytes, so that it takes `c`
//! time units at the reference bandwidth; without communication costs edges carry 0 bytes.
//!
//! **Dummy tasks** are removed by default (they carry no work and only tie the entries and
//! exits together), with their edges, and reported ([`Reason::DummyTask`],
//! [`Reason::DummyEdge`]); the first task counts as the dummy entry if it has cost 0 and no
//! predecessor, the last as the dummy exit if it has cost 0 and no successor.
//! [`StgOptions::keep_dummies`] keeps them. A header that counts the dummies (`n+2` lines
//! expected, `n` found) is accepted and noted ([`Reason::HeaderCountsDummies`]).

use crate::ccr::REFERENCE_BANDWIDTH;
use crate::error::{DagError, Result};
use crate::formats::report::{LoadReport, Reason};
use crate::formats::{in_file, open, read_text, source_name};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "stg";

/// Options of the STG loader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StgOptions {
    /// Reference GPU-seconds per STG time unit. Default 1.0.
    pub time_unit: f64,
    /// Keep the dummy entry and exit tasks. Default `false`.
    pub keep_dummies: bool,
    /// Bandwidth (bytes/s) turning communication costs into bytes. Default
    /// [`REFERENCE_BANDWIDTH`].
    pub bandwidth: f64,
}

impl Default for StgOptions {
    fn default() -> Self {
        Self {
            time_unit: 1.0,
            keep_dummies: false,
            bandwidth: REFERENCE_BANDWIDTH,
        }
    }
}

/// One task line.
struct Line {
    line: usize,
    id: u64,
    cost: f64,
    /// (predecessor id, communication cost)
    preds: Vec<(u64, f64)>,
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, opts: &StgOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), opts)
}

/// Loads an STG graph from any reader; `source` names it in errors and reports, and its file
/// stem names the workload and its job.
///
/// Errors: [`DagError::InvalidParameter`] for bad options; [`DagError::Parse`] naming the
/// line for a missing or bad header, a task line with a wrong token count, a number that
/// does not parse, a file mixing the two variants, a repeated task id or predecessor, or a
/// task-line count
/// other than `n+2` (or `n`), each showing the numbers as written; [`DagError::Parse`] naming
/// the line of a task whose cost (times `time_unit`) is negative or overflows, or of the
/// child of an edge the builder rejects (self-loop, communication bytes that overflow);
/// [`DagError::UnknownTask`] for a predecessor that is no task; [`DagError::Parse`] without
/// a line naming the file for a cycle; [`DagError::Empty`] for no task.
pub fn read(reader: impl Read, source: &str, opts: &StgOptions) -> Result<(Workload, LoadReport)> {
    for (name, v) in [("time_unit", opts.time_unit), ("bandwidth", opts.bandwidth)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(DagError::InvalidParameter {
                name,
                reason: format!("{v} is not finite and > 0"),
            });
        }
    }
    let text = read_text(reader, source)?;
    let err = |line: usize, message: String| DagError::Parse {
        file: source.to_owned(),
        line,
        message,
    };
    // (line, count, the count as written)
    let mut header: Option<(usize, u64, &str)> = None;
    let mut lines: Vec<Line> = Vec::new();
    let mut with_comm: Option<(bool, usize)> = None;
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let tokens: Vec<&str> = t.split_whitespace().collect();
        if header.is_none() {
            let n = match tokens.as_slice() {
                [n] => n.parse::<u64>().ok(),
                _ => None,
            }
            .ok_or_else(|| {
                err(
                    no,
                    format!(
                        "header `{t}` is not a task count (an integer from 0 to {})",
                        u64::MAX
                    ),
                )
            })?;
            header = Some((no, n, t));
            continue;
        }
        let int = |s: &str, what: &str| {
            s.parse::<u64>().map_err(|_| {
                err(
                    no,
                    format!("{what} `{s}` is not an integer from 0 to {}", u64::MAX),
                )
            })
        };
        let num = |s: &str, what: &str| match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(err(no, format!("{what} `{s}` is not a finite number"))),
        };
        if tokens.len() < 3 {
            return Err(err(
                no,
                format!("task line `{t}` needs `id cost n_pred ...`"),
            ));
        }
        let id = int(tokens[0], "task id")?;
        let cost = num(tokens[1], "processing time")?;
        let k = int(tokens[2], "predecessor count")?;
        let rest = &tokens[3..];
        let comm = if rest.len() as u64 == k {
            false
        } else if Some(rest.len() as u64) == k.checked_mul(2) {
            true
        } else {
            let k_text = tokens[2];
            return Err(err(
                no,
                format!(
                    "task {}: {} tokens after the predecessor count `{k_text}`, expected \
                     {k_text} (predecessors) or twice {k_text} (predecessor, communication \
                     cost pairs)",
                    tokens[0],
                    rest.len(),
                ),
            ));
        };
        if k > 0 {
            match with_comm {
                Some((c, first)) if c != comm => {
                    return Err(err(
                        no,
                        format!(
                            "task {id} is written {} communication costs, line {first} {}",
                            if comm { "with" } else { "without" },
                            if c { "with" } else { "without" }
                        ),
                    ));
                }
                None => with_comm = Some((comm, no)),
                _ => {}
            }
        }
        let preds = if comm {
            rest.chunks(2)
                .map(|p| Ok((int(p[0], "predecessor")?, num(p[1], "communication cost")?)))
                .collect::<Result<Vec<_>>>()?
        } else {
            rest.iter()
                .map(|p| Ok((int(p, "predecessor")?, 0.0)))
                .collect::<Result<Vec<_>>>()?
        };
        let mut listed = std::collections::HashSet::with_capacity(preds.len());
        if let Some(&(p, _)) = preds.iter().find(|q| !listed.insert(q.0)) {
            return Err(err(no, format!("task {id}: predecessor {p} listed twice")));
        }
        lines.push(Line {
            line: no,
            id,
            cost,
            preds,
        });
    }
    let (header_line, n, n_text) =
        header.ok_or_else(|| err(1, "empty file: no task count".into()))?;
    let mut report = LoadReport::new(source, FORMAT);
    report.records = lines.len();
    let found = lines.len() as u64;
    if found == n {
        report.add(
            Reason::HeaderCountsDummies,
            format!("header {n}, {found} task lines"),
        );
    } else if Some(found) != n.checked_add(2) {
        let expected = match n.checked_add(2) {
            Some(e) => e.to_string(),
            None => format!("{n_text} + 2"),
        };
        return Err(err(
            header_line,
            format!(
                "header says {n_text} tasks, so {expected} task lines (with the 2 dummies) were \
                 expected; found {found}"
            ),
        ));
    }
    let mut pos: HashMap<u64, usize> = HashMap::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if pos.insert(l.id, i).is_some() {
            return Err(err(l.line, format!("task id {} repeated", l.id)));
        }
    }
    for l in &lines {
        for &(p, _) in &l.preds {
            if !pos.contains_key(&p) {
                return Err(DagError::UnknownTask {
                    file: source.to_owned(),
                    task: format!("T{p}"),
                    referenced_by: format!("T{} (line {})", l.id, l.line),
                });
            }
        }
    }
    // Dummy entry (first line) and exit (last line).
    let mut dummy = vec![false; lines.len()];
    if !opts.keep_dummies && lines.len() >= 2 {
        let first = &lines[0];
        if first.cost == 0.0 && first.preds.is_empty() {
            dummy[0] = true;
        }
        let last = lines.len() - 1;
        let last_id = lines[last].id;
        let has_succ = lines.iter().any(|l| l.preds.iter().any(|p| p.0 == last_id));
        if lines[last].cost == 0.0 && !has_succ {
            dummy[last] = true;
        }
    }
    let name = source_name(source);
    let mut b = WorkloadBuilder::new(name.clone());
    let job = b.add_job(name).map_err(in_file(source))?;
    let mut ids: Vec<Option<TaskId>> = vec![None; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        if dummy[i] {
            let which = if i == 0 { "entry" } else { "exit" };
            report.skip(Reason::DummyTask, format!("T{} ({which})", l.id));
        } else {
            let work = l.cost * opts.time_unit;
            let id = b
                .add_task(job, format!("T{}", l.id), work, None)
                .map_err(|e| err(l.line, e.to_string()))?;
            ids[i] = Some(id);
        }
    }
    let byte_scale = opts.time_unit * opts.bandwidth;
    for (i, l) in lines.iter().enumerate() {
        for &(p, c) in &l.preds {
            let pi = pos[&p];
            match (ids[pi], ids[i]) {
                (Some(u), Some(v)) => b
                    .add_edge(u, v, c * byte_scale)
                    .map_err(|e| err(l.line, e.to_string()))?,
                _ => report.add(Reason::DummyEdge, format!("T{p} -> T{}", l.id)),
            }
        }
    }
    Ok((b.build().map_err(in_file(source))?, report))
}
