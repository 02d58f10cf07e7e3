//! worl's native workload format: versioned JSON, read and written losslessly.
//!
//! ```json
//! {
//!   "format": "worl-workload",
//!   "version": 1,
//!   "name": "demo",
//!   "jobs": [
//!     { "name": "j1", "release": 30.0,
//!       "tasks": [ { "id": 0, "name": "M1", "work": 4.0 },
//!                  { "id": 1, "name": "R2_1", "work": 2.0, "mem_gib": 8.0 },
//!                  { "id": 2, "name": "ddp", "work": 64.0, "gpus": 8,
//!                    "gang": { "span": "cluster", "efficiency": 0.9 } } ],
//!       "edges": [ { "from": "M1", "to": "R2_1", "bytes": 1000000.0 } ] }
//!   ],
//!   "links": []
//! }
//! ```
//!
//! `work` is in reference GPU-seconds, `mem_gib` (optional) in GiB, `bytes` in bytes; a job's
//! optional `release` is its arrival time in seconds from the start of the schedule
//! ([`Job::release`](crate::Job::release), finite and `>= 0`, 0 when absent; written only
//! when not 0). A task's optional `gpus` is its gang size ([`Task::gpus`](crate::Task::gpus),
//! a whole number in `1..=4096`, 1 when absent, written only when not 1) and its optional
//! `gang` object its [`GangParams`] (`span` `"machine"` or `"cluster"`, `efficiency` in
//! `(0, 1]`, `sync_bytes` and `sync_steps` finite and `>= 0`): a missing field takes its
//! default, and only fields that differ from their defaults are written (no `gang` at all
//! when none does). Both are optional fields of version 1: files without them read as
//! before, and a workload without gang tasks writes the very same text as before. Edges
//! inside a job name their ends by task name; edges between jobs go in the optional
//! top-level `links` (`from_job`, `from`, `to_job`, `to`, `bytes`). A task's `id` is its
//! [`TaskId`] index: [`write()`] always writes it, so that reading gives back the very same
//! workload (same ids, bit-identical numbers); hand-written files may leave every `id` out,
//! ids then follow the file order. Unknown fields are errors.

use crate::error::{DagError, Result};
use crate::formats::gang;
use crate::formats::report::LoadReport;
use crate::formats::{in_file, line_of, open, read_text};
use crate::ids::{JobId, TaskId};
use crate::task::{GangParams, Span};
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

/// Value of the `format` field.
pub const FORMAT: &str = "worl-workload";
/// The version this crate writes and reads.
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    format: String,
    version: u32,
    name: String,
    jobs: Vec<DocJob>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    links: Vec<DocLink>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocJob {
    name: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    release: f64,
    tasks: Vec<DocTask>,
    #[serde(default)]
    edges: Vec<DocEdge>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    name: String,
    work: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mem_gib: Option<f64>,
    /// Kept as written and checked when the task is built, so that a bad value names the
    /// task (serde would name only a position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gpus: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gang: Option<DocGang>,
}

/// A task's `gang` object as written: every field optional (a missing one takes its
/// default), values checked when the task is built.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocGang {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    span: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    efficiency: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sync_bytes: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sync_steps: Option<serde_json::Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocEdge {
    from: String,
    to: String,
    bytes: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocLink {
    from_job: String,
    from: String,
    to_job: String,
    to: String,
    bytes: f64,
}

/// The most bytes of task names that a written document may spend naming the ends of its
/// edges: 1 GiB. Native JSON names both ends of every edge by task name and WfFormat names
/// every parent and child by task id, so a few tasks with long names and many edges (an
/// Alibaba task `R10001_1_2_..._10000` has a 49 kB name) would make the text grow with
/// edges × name length: 467 kB of CSV gave 981 MB of JSON. [`write()`] and
/// [`wfcommons::write`](fn@crate::formats::wfcommons::write) check it, in `O(tasks)`, before
/// writing anything.
pub const MAX_EDGE_NAME_BYTES: u64 = 1 << 30;

/// [`DagError::InvalidParameter`] (`workload`) when naming each edge's two ends, a task `v`
/// in `len(v)` bytes, takes more than [`MAX_EDGE_NAME_BYTES`]; `format` names the output in
/// the message, which names the task whose name costs most.
pub(crate) fn check_edge_names(
    w: &Workload,
    len: impl Fn(TaskId) -> usize,
    format: &str,
) -> Result<()> {
    let g = w.graph();
    let (mut total, mut worst) = (0u64, (0u64, TaskId::new(0)));
    for (v, _) in g.tasks() {
        let refs = (g.preds(v).len() + g.succs(v).len()) as u64;
        let bytes = refs.saturating_mul(len(v) as u64);
        total = total.saturating_add(bytes);
        if bytes > worst.0 {
            worst = (bytes, v);
        }
    }
    if total <= MAX_EDGE_NAME_BYTES {
        return Ok(());
    }
    let v = worst.1;
    Err(DagError::InvalidParameter {
        name: "workload",
        reason: format!(
            "workload `{}`: its {} edges would name their tasks in {total} bytes of {format}, \
             more than the {MAX_EDGE_NAME_BYTES} written at most (task `{}`, {} bytes long, \
             is named {} times)",
            crate::formats::report::short(w.name()),
            g.n_edges(),
            crate::formats::report::short(&w.task_label(v)),
            len(v),
            g.preds(v).len() + g.succs(v).len()
        ),
    })
}

/// [`Doc`] by reference, for writing: the same JSON, without copying a name per edge.
#[derive(Serialize)]
struct OutDoc<'a> {
    format: &'static str,
    version: u32,
    name: &'a str,
    jobs: Vec<OutJob<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links: Vec<OutLink<'a>>,
}

#[derive(Serialize)]
struct OutJob<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    release: f64,
    tasks: Vec<OutTask<'a>>,
    edges: Vec<OutEdge<'a>>,
}

#[derive(Serialize)]
struct OutTask<'a> {
    id: usize,
    name: &'a str,
    work: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    mem_gib: Option<f64>,
    #[serde(skip_serializing_if = "is_one")]
    gpus: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    gang: Option<OutGang>,
}

/// The fields of a task's [`GangParams`] that differ from their defaults.
#[derive(Serialize)]
struct OutGang {
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<Span>,
    #[serde(skip_serializing_if = "Option::is_none")]
    efficiency: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sync_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sync_steps: Option<f64>,
}

impl OutGang {
    /// The non-default fields of `p`; `None` when every field has its default.
    fn of(p: &GangParams) -> Option<Self> {
        let d = GangParams::default();
        if p.is_default() {
            return None;
        }
        let differs = |a: f64, b: f64| (a.to_bits() != b.to_bits()).then_some(a);
        Some(Self {
            span: (p.span != d.span).then_some(p.span),
            efficiency: differs(p.efficiency, d.efficiency),
            sync_bytes: differs(p.sync_bytes, d.sync_bytes),
            sync_steps: differs(p.sync_steps, d.sync_steps),
        })
    }
}

fn is_one(g: &u32) -> bool {
    *g == 1
}

#[derive(Serialize)]
struct OutEdge<'a> {
    from: &'a str,
    to: &'a str,
    bytes: f64,
}

#[derive(Serialize)]
struct OutLink<'a> {
    from_job: &'a str,
    from: &'a str,
    to_job: &'a str,
    to: &'a str,
    bytes: f64,
}

fn out_doc(w: &Workload) -> OutDoc<'_> {
    let g = w.graph();
    let mut jobs: Vec<OutJob<'_>> = w
        .jobs()
        .iter()
        .map(|j| OutJob {
            name: &j.name,
            release: j.release,
            tasks: j
                .tasks
                .iter()
                .map(|&t| {
                    let task = g.task(t);
                    OutTask {
                        id: t.index(),
                        name: &task.name,
                        work: task.work,
                        mem_gib: task.mem_gib,
                        gpus: task.gpus,
                        gang: OutGang::of(&task.gang),
                    }
                })
                .collect(),
            edges: Vec::new(),
        })
        .collect();
    let mut links = Vec::new();
    for e in g.edges() {
        let (a, c) = (g.task(e.from), g.task(e.to));
        if a.job == c.job {
            jobs[a.job.index()].edges.push(OutEdge {
                from: &a.name,
                to: &c.name,
                bytes: e.bytes,
            });
        } else {
            links.push(OutLink {
                from_job: &w.job(a.job).name,
                from: &a.name,
                to_job: &w.job(c.job).name,
                to: &c.name,
                bytes: e.bytes,
            });
        }
    }
    OutDoc {
        format: FORMAT,
        version: VERSION,
        name: w.name(),
        jobs,
        links,
    }
}

/// The workload as pretty-printed native JSON ([`write()`] writes the same text without
/// holding it in memory).
///
/// ```
/// use worl_dag::{formats::native, generators::shapes};
/// let w = shapes::chain(3, 1.5, 1e6)?;
/// let text = native::to_string(&w)?;
/// let (back, _) = native::read(text.as_bytes(), "chain.json")?;
/// assert_eq!(back, w);
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: as [`write()`].
pub fn to_string(w: &Workload) -> Result<String> {
    let mut buf = Vec::new();
    write(w, &mut buf)?;
    Ok(String::from_utf8(buf).expect("serde_json writes UTF-8"))
}

/// Writes the workload as native JSON to `writer`, streamed (buffered; names are borrowed,
/// not copied per edge).
///
/// Errors: [`DagError::InvalidParameter`] (`workload`), before anything is written, when the
/// edges' task names exceed [`MAX_EDGE_NAME_BYTES`]; [`DagError::Io`] (path `<writer>`) if
/// writing fails.
pub fn write(w: &Workload, writer: impl Write) -> Result<()> {
    emit(w, writer, Path::new("<writer>"))
}

fn emit(w: &Workload, writer: impl Write, path: &Path) -> Result<()> {
    let g = w.graph();
    check_edge_names(w, |v| g.task(v).name.len(), "native JSON")?;
    let io = |source: std::io::Error| DagError::Io {
        path: path.to_owned(),
        source,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, writer);
    serde_json::to_writer_pretty(&mut out, &out_doc(w)).map_err(|e| match e.io_error_kind() {
        Some(kind) => io(std::io::Error::new(kind, e)),
        None => DagError::Parse {
            file: w.name().to_owned(),
            line: 0,
            message: e.to_string(),
        },
    })?;
    out.flush().map_err(io)
}

/// Writes the workload as native JSON to the file `path` (created or truncated), streamed.
///
/// Errors: as [`write()`], naming the file; the file is not created when refused.
pub fn save(w: &Workload, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let g = w.graph();
    check_edge_names(w, |v| g.task(v).name.len(), "native JSON")?;
    let file = std::fs::File::create(path).map_err(|source| DagError::Io {
        path: path.to_owned(),
        source,
    })?;
    emit(w, file, path)
}

/// Loads a native JSON file.
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string())
}

/// Reads native JSON from any reader; `source` names it in errors. The report is always
/// clean: the format has no defects to repair, anything wrong is an error.
///
/// Errors: [`DagError::Parse`] with the line of the key and naming the task (`job/task`) for a
/// `gpus` that is not a whole number in `1..=4096`, a `span` other than `machine` /
/// `cluster`, an `efficiency` outside `(0, 1]` or a `sync_bytes` / `sync_steps` that is not
/// a number `>= 0` (message of [`DagError::InvalidGang`]);
/// [`DagError::Parse`] (with the line) for malformed JSON, an unknown field, another
/// `format` or `version`, or ids that are given for some tasks only or are not a permutation
/// of `0..n` (these two without a line, naming the task); [`DagError::UnknownTask`] for an
/// edge end that names no task; [`DagError::Parse`] without a line naming the file for what
/// the builder rejects (duplicate names, bad values, a negative `release` naming its job,
/// duplicate edges, cycles);
/// [`DagError::Empty`] for no task.
pub fn read(reader: impl Read, source: &str) -> Result<(Workload, LoadReport)> {
    let text = read_text(reader, source)?;
    let doc: Doc = serde_json::from_str(&text).map_err(|e| DagError::Parse {
        file: source.to_owned(),
        line: e.line(),
        message: e.to_string(),
    })?;
    // Errors below concern the document's content, not one line: no line is shown (serde
    // keeps no positions), except for `format` and `version`, found by their key.
    let parse_err = |message: String| DagError::Parse {
        file: source.to_owned(),
        line: 0,
        message,
    };
    if doc.format != FORMAT || doc.version != VERSION {
        let key = if doc.format != FORMAT {
            "format"
        } else {
            "version"
        };
        return Err(DagError::Parse {
            file: source.to_owned(),
            line: key_line(&text, key),
            message: format!(
                "format `{}` version {} is not `{FORMAT}` version {VERSION}",
                doc.format, doc.version
            ),
        });
    }
    let mut report = LoadReport::new(source, FORMAT);
    let n: usize = doc.jobs.iter().map(|j| j.tasks.len()).sum();
    report.records = n;
    // Task order: by id when ids are given (all or none).
    let with_id = doc
        .jobs
        .iter()
        .flat_map(|j| &j.tasks)
        .filter(|t| t.id.is_some())
        .count();
    let mut order: Vec<Option<(usize, usize)>> = vec![None; n]; // id -> (job, task in job)
    if with_id == 0 {
        let mut k = 0;
        for (j, job) in doc.jobs.iter().enumerate() {
            for t in 0..job.tasks.len() {
                order[k] = Some((j, t));
                k += 1;
            }
        }
    } else if with_id == n {
        for (j, job) in doc.jobs.iter().enumerate() {
            for (t, task) in job.tasks.iter().enumerate() {
                let id = task.id.unwrap_or(usize::MAX);
                match order.get_mut(id) {
                    Some(slot @ None) => *slot = Some((j, t)),
                    _ => {
                        return Err(parse_err(format!(
                            "task `{}/{}`: id {id} is repeated or not below {n}",
                            job.name, task.name
                        )));
                    }
                }
            }
        }
    } else {
        return Err(parse_err(format!(
            "{with_id} of {n} tasks have an id: give every task an id or none"
        )));
    }
    let mut b = WorkloadBuilder::new(doc.name.clone());
    for job in &doc.jobs {
        let id = b.add_job(job.name.as_str()).map_err(in_file(source))?;
        // A negative release names the job (DagError::InvalidRelease's message), in the file.
        b.set_release(id, job.release)
            .map_err(|e| parse_err(e.to_string()))?;
    }
    let mut index: HashMap<(usize, &str), TaskId> = HashMap::with_capacity(n);
    for &(j, t) in order.iter().flatten() {
        let task = &doc.jobs[j].tasks[t];
        let id = b
            .add_task(JobId::new(j), task.name.as_str(), task.work, task.mem_gib)
            .map_err(in_file(source))?;
        index.insert((j, task.name.as_str()), id);
        if task.gpus.is_some() || task.gang.is_some() {
            let (gpus, params) = doc_gang(task).map_err(|(key, reason)| {
                let label = format!("{}/{}", doc.jobs[j].name, task.name);
                gang::error(source, gang_line(&text, &doc, (j, t), key), label, reason)
            })?;
            b.set_gang(id, gpus, params).map_err(in_file(source))?;
        }
    }
    let job_index: HashMap<&str, usize> = doc
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| (job.name.as_str(), j))
        .collect();
    // The referring edge is rendered only for an error (rendering it per edge would copy a
    // job's name once per edge).
    let find = |j: usize, name: &str, by: &dyn Fn() -> String| {
        index
            .get(&(j, name))
            .copied()
            .ok_or_else(|| DagError::UnknownTask {
                file: source.to_owned(),
                task: format!("{}/{name}", doc.jobs[j].name),
                referenced_by: by(),
            })
    };
    let find_job = |name: &str, by: &dyn Fn() -> String| {
        job_index
            .get(name)
            .copied()
            .ok_or_else(|| DagError::UnknownTask {
                file: source.to_owned(),
                task: format!("{name}/*"),
                referenced_by: by(),
            })
    };
    for (j, job) in doc.jobs.iter().enumerate() {
        for e in &job.edges {
            let by = || format!("edge {} -> {} of job {}", e.from, e.to, job.name);
            let u = find(j, &e.from, &by)?;
            let v = find(j, &e.to, &by)?;
            b.add_edge(u, v, e.bytes).map_err(in_file(source))?;
        }
    }
    for l in &doc.links {
        let by = || format!("link {}/{} -> {}/{}", l.from_job, l.from, l.to_job, l.to);
        let u = find(find_job(&l.from_job, &by)?, &l.from, &by)?;
        let v = find(find_job(&l.to_job, &by)?, &l.to, &by)?;
        b.add_edge(u, v, l.bytes).map_err(in_file(source))?;
    }
    Ok((b.build().map_err(in_file(source))?, report))
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The gang demand written for `task` (`gpus` 1 and default parameters where absent).
///
/// Errors: the key of the bad value (`gpus`, `span`, ...) and why it is refused.
fn doc_gang(task: &DocTask) -> std::result::Result<(u32, GangParams), (&'static str, String)> {
    let gpus = match &task.gpus {
        Some(v) => gang::gpus_from_json("gpus", v).map_err(|r| ("gpus", r))?,
        None => 1,
    };
    let mut p = GangParams::default();
    if let Some(g) = &task.gang {
        if let Some(v) = &g.span {
            p.span = gang::span_from_json("span", v).map_err(|r| ("span", r))?;
        }
        for (key, field, value) in [
            ("efficiency", gang::Field::Efficiency, &g.efficiency),
            ("sync_bytes", gang::Field::SyncBytes, &g.sync_bytes),
            ("sync_steps", gang::Field::SyncSteps, &g.sync_steps),
        ] {
            if let Some(v) = value {
                gang::set_json(&mut p, field, key, v).map_err(|r| (key, r))?;
            }
        }
    }
    Ok((gpus, p))
}

/// The line of the key `key` of task `at` (job, task in job) in `text`: the keys `gpus`,
/// `span`, `efficiency`, `sync_bytes` and `sync_steps` appear only in tasks and their
/// `gang` objects (unknown fields are errors), so the task's key is the one whose rank among
/// the document's keys so named is the number of tasks before it that give the field.
fn gang_line(text: &str, doc: &Doc, at: (usize, usize), key: &str) -> usize {
    let gives = |t: &DocTask| match key {
        "gpus" => t.gpus.is_some(),
        _ => t.gang.as_ref().is_some_and(|g| match key {
            "span" => g.span.is_some(),
            "efficiency" => g.efficiency.is_some(),
            "sync_bytes" => g.sync_bytes.is_some(),
            _ => g.sync_steps.is_some(),
        }),
    };
    let rank = doc
        .jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| {
            job.tasks
                .iter()
                .enumerate()
                .map(move |(t, task)| ((j, t), task))
        })
        .take_while(|&(pos, _)| pos != at)
        .filter(|&(_, task)| gives(task))
        .count();
    gang::json_key_lines(text, key)
        .get(rank)
        .copied()
        .unwrap_or(0)
}

/// 1-based line of the first `"key":` in JSON `text` (0 if absent).
fn key_line(text: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .find(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
        .map_or(0, |(i, _)| line_of(text, i))
}

#[cfg(test)]
mod release_tests {
    use super::*;

    #[test]
    fn releases_round_trip_and_zero_is_omitted() {
        let text = r#"{"format": "worl-workload", "version": 1, "name": "r",
            "jobs": [ { "name": "a", "tasks": [ { "name": "t", "work": 1.0 } ] },
                      { "name": "b", "release": 12.5, "tasks": [ { "name": "t", "work": 2.0 } ] } ] }"#;
        let (w, _) = read(text.as_bytes(), "r.json").unwrap();
        assert_eq!(w.jobs()[0].release, 0.0);
        assert_eq!(w.jobs()[1].release, 12.5);
        let out = to_string(&w).unwrap();
        assert_eq!(out.matches("\"release\"").count(), 1, "{out}");
        assert!(out.contains("\"release\": 12.5"), "{out}");
        let (back, _) = read(out.as_bytes(), "back.json").unwrap();
        assert_eq!(back, w);
        assert_eq!(back.jobs()[1].release, 12.5);
    }

    #[test]
    fn a_negative_release_names_the_job_and_file() {
        let text = r#"{"format": "worl-workload", "version": 1, "name": "r",
            "jobs": [ { "name": "late", "release": -1.0, "tasks": [ { "name": "t", "work": 1.0 } ] } ] }"#;
        match read(text.as_bytes(), "neg.json") {
            Err(DagError::Parse { file, message, .. }) => {
                assert_eq!(file, "neg.json");
                assert!(message.contains("job `late`"), "{message}");
                assert!(message.contains("-1"), "{message}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
        // JSON has no NaN: a `NaN` release is a syntax error with its line.
        let nan = "{\"format\": \"worl-workload\", \"version\": 1, \"name\": \"r\",\n\
                   \"jobs\": [ { \"name\": \"x\", \"release\": NaN, \"tasks\": [] } ] }";
        match read(nan.as_bytes(), "nan.json") {
            Err(DagError::Parse { line, .. }) => assert_eq!(line, 2),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }
}
