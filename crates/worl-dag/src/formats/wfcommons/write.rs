//! Writer of WfCommons WfFormat 1.5 JSON, with an optional `execution` section that records
//! where and when each task ran (a schedule), so that WfCommons tools (WfSim, the analysis
//! and plotting of the `wfcommons` Python package) can read a worl workload or schedule.
//!
//! What is written (WfFormat 1.5 schema, `wfcommons-schema.json`):
//!
//! * `name`, `schemaVersion: "1.5"`, `createdAt` (fixed `1970-01-01T00:00:00Z` so that
//!   output is reproducible), `runtimeSystem: {name: "worl", version}`;
//! * `workflow.specification.tasks[]` = `{name, id, parents, children, inputFiles,
//!   outputFiles}`, one per task in id order; `workflow.specification.files[]`: one file
//!   per edge, in edge order (by parent, then child), named [`file_id`] `e<u>-<v>.data` after
//!   the **indices** `u` and `v` of the parent and the child (not their names: a file id
//!   stays under 48 bytes however long the names are), of `sizeInBytes` = the edge's bytes
//!   rounded to an integer (the schema's type), written by the parent and read by the child,
//!   so that the reader ([`super::read`], and WfCommons' own) gives the edge its bytes back;
//! * `workflow.execution`: `makespanInSeconds`, `executedAt`, `tasks[]` = `{id,
//!   runtimeInSeconds, executedAt?, machines?}` and `machines[]` = `{nodeName}`, in the
//!   schema's own field names.
//!
//! Without an [`Execution`], `runtimeInSeconds` is the task's work (its run time on the
//! reference GPU of speed 1.0) and `makespanInSeconds` the critical-path length with those
//! run times and free transfers; with one, each task's planned run time, its machine as the
//! one-element list `machines: ["node-1"]` (a name of `execution.machines[].nodeName`) and
//! its start as the timestamp `executedAt` ([`timestamp_after`]: the run's `executedAt`
//! plus the start in seconds, written with every digit of the `f64`, so that
//! [`seconds_between`] gives the start back exactly; WfCommons' readers keep the first six
//! fractional digits). The GPU has no field in the schema; it is written as the extra task
//! properties `gpuId` (index in the cluster), `gpuIndex` (position among its machine's GPUs)
//! and `gpuModel`: the schema allows extra properties, and WfCommons' readers ignore them.
//!
//! A gang task (more than one GPU, or non-default [`GangParams`]) carries the extra
//! properties `gpuCount`, `gangSpan`, `gangEfficiency`, `gangSyncBytes` and `gangSyncSteps`
//! in its execution entry, each only when it differs from its default (module
//! [`wfcommons`](super) reads them back), and without an [`Execution`] its
//! `runtimeInSeconds` is its wall time on `gpuCount` reference GPUs, `work / gpuCount`
//! (chosen within 2 ulps so that `runtime · gpuCount` is `work` exactly whenever such a
//! number exists: always for a power of two), which is also what the critical path sums. With
//! an [`Execution`], its planned run time is written as given, and a record whose task runs
//! on a GPU set ([`ExecutedTask::others`]) carries the whole set: `gpuId` / `gpuIndex` /
//! `gpuModel` name its lead, the extra property `gpuIds` lists the set's GPU ids lead first
//! (`[0, 1, 2, 3]`), and `machines` lists the lead's machine, then every other machine of the
//! set once in order of first appearance (`["a"]` for a gang on one machine, `["a", "b"]`
//! across two). The GPU count stays `gpuCount` (the workload's demand, as above), not the
//! schema's `coreCount`, which counts CPU cores and which the reader does not take as GPUs.
//! A record on one GPU is written exactly as before (no `gpuIds`, one machine).
//!
//! Task ids must match `^[0-9a-zA-Z-_.]*$` where they are referenced. They are the task
//! names when every name is valid and unique in the workload; otherwise `job.task` with
//! every other character replaced by `_` and `-2`, `-3`, ... appended on collisions
//! ([`task_ids`]). The reader names a task by its id and puts every task in one job named
//! after the file, so a one-job workload with valid names and whole-byte edges reads back
//! identical up to the workload's and job's name; task memory needs are not written
//! (WfFormat's `memoryInBytes` is a process's resident set, not a GPU memory need).
//!
//! The document is serialised straight to the writer (buffered), with no intermediate
//! text or JSON value: memory is `O(tasks)` beyond the workload, whatever the output's
//! size. Everything that can be refused is checked before the first byte is written.

use crate::error::{DagError, Result};
use crate::ids::TaskId;
use crate::task::{GangParams, Span, Task};
use crate::workload::Workload;
use serde::{Serialize, Serializer};
use std::collections::HashSet;
use std::fmt;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Where and when one task ran, for the `execution` section.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutedTask {
    /// The task.
    pub task: TaskId,
    /// Start, s after the run's start [`Execution::executed_at`] (written as the task's
    /// `executedAt` timestamp, [`timestamp_after`]).
    pub start: f64,
    /// Run time, s (`runtimeInSeconds`).
    pub runtime: f64,
    /// Name of the machine it ran on (written as `machines: [name]`; one of
    /// [`Execution::machines`]).
    pub machine: String,
    /// The GPU it ran on, if known: a gang task's lead (the first GPU of its set).
    pub gpu: Option<ExecutedGpu>,
    /// The other GPUs of a gang task's set, after the lead [`gpu`](Self::gpu), each with
    /// the name of its machine; empty for a task on one GPU (nothing more is written then).
    /// Written as the extra property `gpuIds` (the lead's id, then these ids) and, for each
    /// of these machines not yet listed, one more name in `machines`.
    pub others: Vec<(String, ExecutedGpu)>,
}

/// A GPU of an [`ExecutedTask`].
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutedGpu {
    /// Index of the GPU in its cluster (`gpuId`).
    pub id: usize,
    /// Position of the GPU among its machine's GPUs, 0-based (`gpuIndex`).
    pub index: usize,
    /// The GPU model's name (`gpuModel`).
    pub model: String,
}

/// The `execution` section of a WfFormat document: a (planned) run of the workflow.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// `makespanInSeconds`.
    pub makespan: f64,
    /// `executedAt`: the start of the run, an RFC 3339 timestamp in whole seconds
    /// (`1970-01-01T00:00:00Z`, [`EPOCH`], for a plan).
    pub executed_at: String,
    /// Machine names (`machines[].nodeName`), in the order written.
    pub machines: Vec<String>,
    /// One record per task, any order (written in task id order).
    pub tasks: Vec<ExecutedTask>,
}

/// The id of the file that carries the data of edge `from -> to` (task indices):
/// `e<from>-<to>.data`, e.g. `e0-12.data`.
pub fn file_id(from: TaskId, to: TaskId) -> String {
    FileId(from, to).to_string()
}

/// [`file_id`], written without an allocation.
#[derive(Copy, Clone)]
struct FileId(TaskId, TaskId);

impl fmt::Display for FileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}-{}.data", self.0.index(), self.1.index())
    }
}

impl Serialize for FileId {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A JSON array whose items `.0` yields afresh each time it is serialised: lists are
/// written as they are produced, never collected.
struct Lazy<F>(F);

impl<F, I> Serialize for Lazy<F>
where
    F: Fn() -> I,
    I: IntoIterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

#[derive(Serialize)]
struct Doc<'a, T, F, X> {
    name: &'a str,
    description: String,
    #[serde(rename = "createdAt")]
    created_at: &'static str,
    #[serde(rename = "schemaVersion")]
    schema_version: &'static str,
    #[serde(rename = "runtimeSystem")]
    runtime_system: RuntimeSystem,
    workflow: Wf<T, F, X>,
}

#[derive(Serialize)]
struct RuntimeSystem {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Wf<T, F, X> {
    specification: Spec<T, F>,
    execution: X,
}

#[derive(Serialize)]
struct Spec<T, F> {
    tasks: T,
    files: F,
}

#[derive(Serialize)]
struct SpecTask<'a, P, C, I, O> {
    name: &'a str,
    id: &'a str,
    parents: P,
    children: C,
    #[serde(rename = "inputFiles")]
    input_files: I,
    #[serde(rename = "outputFiles")]
    output_files: O,
}

#[derive(Serialize)]
struct SpecFile {
    id: FileId,
    #[serde(rename = "sizeInBytes")]
    size: u64,
}

#[derive(Serialize)]
struct Exec<'a, T> {
    #[serde(rename = "makespanInSeconds")]
    makespan: f64,
    #[serde(rename = "executedAt")]
    executed_at: &'a str,
    tasks: T,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    machines: Vec<Machine<'a>>,
}

#[derive(Serialize)]
struct ExecTask<'a> {
    id: &'a str,
    #[serde(rename = "runtimeInSeconds")]
    runtime: f64,
    #[serde(rename = "executedAt", skip_serializing_if = "Option::is_none")]
    executed_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    machines: Option<Machines<'a>>,
    #[serde(rename = "gpuId", skip_serializing_if = "Option::is_none")]
    gpu_id: Option<usize>,
    #[serde(rename = "gpuIndex", skip_serializing_if = "Option::is_none")]
    gpu_index: Option<usize>,
    #[serde(rename = "gpuModel", skip_serializing_if = "Option::is_none")]
    gpu_model: Option<&'a str>,
    #[serde(flatten)]
    gang: GangProps,
    #[serde(rename = "gpuIds", skip_serializing_if = "Option::is_none")]
    gpu_ids: Option<GpuIds<'a>>,
}

/// An execution record's `machines`: its lead's machine, then the other machines of its
/// gang set in order of first appearance (each once).
struct Machines<'a> {
    lead: &'a str,
    more: &'a [&'a str],
}

impl Serialize for Machines<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(std::iter::once(self.lead).chain(self.more.iter().copied()))
    }
}

/// A gang record's `gpuIds`: the lead's GPU id, then those of the other GPUs of its set.
struct GpuIds<'a>(usize, &'a [(String, ExecutedGpu)]);

impl Serialize for GpuIds<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(std::iter::once(self.0).chain(self.1.iter().map(|(_, g)| g.id)))
    }
}

/// A task's gang demand as the extra properties `gpuCount`, `gangSpan`, `gangEfficiency`,
/// `gangSyncBytes`, `gangSyncSteps`, each written only when not its default.
#[derive(Serialize)]
struct GangProps {
    #[serde(rename = "gpuCount", skip_serializing_if = "Option::is_none")]
    gpus: Option<u32>,
    #[serde(rename = "gangSpan", skip_serializing_if = "Option::is_none")]
    span: Option<Span>,
    #[serde(rename = "gangEfficiency", skip_serializing_if = "Option::is_none")]
    efficiency: Option<f64>,
    #[serde(rename = "gangSyncBytes", skip_serializing_if = "Option::is_none")]
    sync_bytes: Option<f64>,
    #[serde(rename = "gangSyncSteps", skip_serializing_if = "Option::is_none")]
    sync_steps: Option<f64>,
}

impl GangProps {
    fn of(t: &Task) -> Self {
        let (p, d) = (&t.gang, GangParams::default());
        let differs = |a: f64, b: f64| (a.to_bits() != b.to_bits()).then_some(a);
        Self {
            gpus: (t.gpus != 1).then_some(t.gpus),
            span: (p.span != d.span).then_some(p.span),
            efficiency: differs(p.efficiency, d.efficiency),
            sync_bytes: differs(p.sync_bytes, d.sync_bytes),
            sync_steps: differs(p.sync_steps, d.sync_steps),
        }
    }
}

/// The wall time written for a task of `work` reference GPU-seconds on `gpus` GPUs:
/// `work / gpus`, nudged by at most 2 ulps to a value `r` with `r · gpus == work` exactly
/// when there is one, so that the reader's `runtime · gpuCount` gives `work` back.
fn wall_time(work: f64, gpus: u32) -> f64 {
    if gpus <= 1 {
        return work;
    }
    let g = f64::from(gpus);
    let r = work / g;
    let mut candidates = [r; 5];
    let (mut up, mut down) = (r, r);
    for k in 0..2 {
        up = up.next_up();
        down = down.next_down();
        candidates[1 + 2 * k] = up;
        candidates[2 + 2 * k] = down;
    }
    candidates
        .into_iter()
        .find(|c| *c >= 0.0 && c * g == work)
        .unwrap_or(r)
}

#[derive(Serialize)]
struct Machine<'a> {
    #[serde(rename = "nodeName")]
    node_name: &'a str,
}

/// The start of a run written when none is known: the Unix epoch.
pub const EPOCH: &str = "1970-01-01T00:00:00Z";

fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The WfFormat id of every task, by task index (see the module docs): the names when all
/// are valid and unique, else sanitised `job.task` names made unique.
pub fn task_ids(w: &Workload) -> Vec<String> {
    let g = w.graph();
    let names: Vec<&str> = g.tasks().map(|(_, t)| t.name.as_str()).collect();
    let mut seen = HashSet::with_capacity(names.len());
    if names.iter().all(|n| valid_id(n) && seen.insert(*n)) {
        return names.iter().map(|n| (*n).to_owned()).collect();
    }
    let mut used = HashSet::with_capacity(names.len());
    g.tasks()
        .map(|(_, t)| {
            let raw = format!("{}.{}", w.job(t.job).name, t.name);
            let base: String = raw
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut id = base.clone();
            let mut k = 2;
            while !used.insert(id.clone()) {
                id = format!("{base}-{k}");
                k += 1;
            }
            id
        })
        .collect()
}

/// One task's checked record: the record, its start's timestamp and, for a gang across
/// machines, the machines of its set after the lead's (each once; empty otherwise).
type CheckedTask<'a> = (&'a ExecutedTask, String, Vec<&'a str>);

/// An [`Execution`], checked: per task in id order, its [`CheckedTask`].
struct Checked<'a> {
    x: &'a Execution,
    by_task: Vec<CheckedTask<'a>>,
}

/// Checks `execution` against `w` (the errors of [`to_string`]).
fn check<'a>(w: &Workload, x: &'a Execution) -> Result<Checked<'a>> {
    let n = w.graph().n_tasks();
    let bad = |task: String, reason: String| DagError::InvalidParameter {
        name: "execution",
        reason: format!("task `{task}`: {reason}"),
    };
    let mut by_task: Vec<Option<&ExecutedTask>> = vec![None; n];
    let machines: HashSet<&str> = x.machines.iter().map(String::as_str).collect();
    for r in &x.tasks {
        let Some(slot) = by_task.get_mut(r.task.index()) else {
            return Err(bad(
                format!("#{}", r.task.index()),
                format!("not in the workload ({n} tasks)"),
            ));
        };
        let label = || w.task_label(r.task);
        if slot.is_some() {
            return Err(bad(label(), "recorded twice".into()));
        }
        if !(r.start.is_finite() && r.start >= 0.0) {
            return Err(bad(
                label(),
                format!("start {} is not finite and >= 0", r.start),
            ));
        }
        if !(r.runtime.is_finite() && r.runtime >= 0.0) {
            return Err(bad(
                label(),
                format!("runtime {} is not finite and >= 0", r.runtime),
            ));
        }
        for m in std::iter::once(&r.machine).chain(r.others.iter().map(|(m, _)| m)) {
            if !machines.contains(m.as_str()) {
                return Err(bad(
                    label(),
                    format!("machine `{m}` is not in the machine list"),
                ));
            }
        }
        if !r.others.is_empty() && r.gpu.is_none() {
            return Err(bad(
                label(),
                format!(
                    "a GPU set of {} GPUs without its lead GPU",
                    r.others.len() + 1
                ),
            ));
        }
        *slot = Some(r);
    }
    if let Some(v) = by_task.iter().position(Option::is_none) {
        return Err(bad(w.task_label(TaskId::new(v)), "not recorded".into()));
    }
    if !x.makespan.is_finite() || x.makespan < 0.0 {
        return Err(DagError::InvalidParameter {
            name: "execution",
            reason: format!("makespan {} is not finite and >= 0", x.makespan),
        });
    }
    let mut out = Vec::with_capacity(n);
    for r in by_task.into_iter().flatten() {
        let at = timestamp_after(&x.executed_at, r.start)
            .map_err(|reason| bad(w.task_label(r.task), reason))?;
        let mut more: Vec<&str> = Vec::new();
        for (m, _) in &r.others {
            if *m != r.machine && !more.contains(&m.as_str()) {
                more.push(m);
            }
        }
        out.push((r, at, more));
    }
    Ok(Checked { x, by_task: out })
}

/// The document, checked and ready to be serialised.
struct Prepared<'a> {
    w: &'a Workload,
    ids: Vec<String>,
    exec: Option<Checked<'a>>,
}

fn prepare<'a>(w: &'a Workload, execution: Option<&'a Execution>) -> Result<Prepared<'a>> {
    let exec = execution.map(|x| check(w, x)).transpose()?;
    let ids = task_ids(w);
    crate::formats::native::check_edge_names(w, |v| ids[v.index()].len(), "WfFormat")?;
    Ok(Prepared { w, ids, exec })
}

/// Serialises `doc` (pretty-printed) to `writer`, buffered; `path` names the destination
/// and `name` the workload in errors.
fn serialise(doc: &impl Serialize, writer: impl Write, path: &Path, name: &str) -> Result<()> {
    let io = |source: std::io::Error| DagError::Io {
        path: path.to_owned(),
        source,
    };
    let mut out = BufWriter::with_capacity(1 << 16, writer);
    serde_json::to_writer_pretty(&mut out, doc).map_err(|e| match e.io_error_kind() {
        Some(kind) => io(std::io::Error::new(kind, e)),
        None => DagError::Parse {
            file: name.to_owned(),
            line: 0,
            message: e.to_string(),
        },
    })?;
    out.flush().map_err(io)
}

/// Serialises `p` (pretty-printed) to `writer`; `path` names the destination in errors.
fn emit(p: &Prepared<'_>, writer: impl Write, path: &Path) -> Result<()> {
    let (w, ids) = (p.w, &p.ids);
    let g = w.graph();
    let id = move |v: TaskId| ids[v.index()].as_str();
    let tasks = Lazy(move || {
        g.tasks().map(move |(v, t)| SpecTask {
            name: &t.name,
            id: id(v),
            parents: Lazy(move || g.preds(v).iter().map(move |p| id(p.task))),
            children: Lazy(move || g.succs(v).iter().map(move |s| id(s.task))),
            input_files: Lazy(move || g.preds(v).iter().map(move |p| FileId(p.task, v))),
            output_files: Lazy(move || g.succs(v).iter().map(move |s| FileId(v, s.task))),
        })
    });
    let files = Lazy(move || {
        g.edges().map(|e| SpecFile {
            id: FileId(e.from, e.to),
            size: e.bytes.round() as u64,
        })
    });
    fn doc<'a, T, F, X>(
        w: &'a Workload,
        planned: bool,
        tasks: T,
        files: F,
        execution: X,
    ) -> Doc<'a, T, F, X> {
        Doc {
            name: w.name(),
            description: if planned {
                format!("a schedule of workload {} planned by worl", w.name())
            } else {
                format!("workload {} written by worl", w.name())
            },
            created_at: EPOCH,
            schema_version: "1.5",
            runtime_system: RuntimeSystem {
                name: "worl",
                version: env!("CARGO_PKG_VERSION"),
            },
            workflow: Wf {
                specification: Spec { tasks, files },
                execution,
            },
        }
    }
    match &p.exec {
        None => {
            let exec = Exec {
                makespan: g
                    .critical_path(|v| wall_time(g.task(v).work, g.task(v).gpus), |_, _, _| 0.0)
                    .length,
                executed_at: EPOCH,
                tasks: Lazy(move || {
                    g.tasks().map(move |(v, t)| ExecTask {
                        id: id(v),
                        runtime: wall_time(t.work, t.gpus),
                        executed_at: None,
                        machines: None,
                        gpu_id: None,
                        gpu_index: None,
                        gpu_model: None,
                        gang: GangProps::of(t),
                        gpu_ids: None,
                    })
                }),
                machines: Vec::new(),
            };
            serialise(&doc(w, false, tasks, files, exec), writer, path, w.name())
        }
        Some(c) => {
            let exec = Exec {
                makespan: c.x.makespan,
                executed_at: &c.x.executed_at,
                tasks: Lazy(move || {
                    c.by_task.iter().map(move |(r, at, more)| ExecTask {
                        id: id(r.task),
                        runtime: r.runtime,
                        executed_at: Some(at.as_str()),
                        machines: Some(Machines {
                            lead: &r.machine,
                            more,
                        }),
                        gpu_id: r.gpu.as_ref().map(|g| g.id),
                        gpu_index: r.gpu.as_ref().map(|g| g.index),
                        gpu_model: r.gpu.as_ref().map(|g| g.model.as_str()),
                        gang: GangProps::of(g.task(r.task)),
                        gpu_ids: match (&r.gpu, r.others.is_empty()) {
                            (Some(lead), false) => Some(GpuIds(lead.id, &r.others)),
                            _ => None,
                        },
                    })
                }),
                machines: c
                    .x
                    .machines
                    .iter()
                    .map(|m| Machine { node_name: m })
                    .collect(),
            };
            serialise(&doc(w, true, tasks, files, exec), writer, path, w.name())
        }
    }
}

/// The WfFormat 1.5 document of `w`, with the `execution` section of `execution` or, for
/// `None`, the reference run times (module docs). [`write()`](fn@write) and [`save`] write
/// the same text without holding it in memory.
///
/// Errors: [`DagError::InvalidParameter`] (`execution`) naming the task when `execution`
/// names a task twice, misses one, names a task outside the workload, or gives a
/// non-finite or negative time, a start whose timestamp is past the year 9999, a machine
/// (of a GPU set's member too) not in its `machines` or a GPU set without its lead; for a non-finite or negative makespan; for an `executed_at` that
/// is not a timestamp in whole seconds ([`timestamp_after`]); [`DagError::InvalidParameter`]
/// (`workload`) naming a task when the `parents` and `children` lists would spend more than
/// [`MAX_EDGE_NAME_BYTES`](crate::formats::native::MAX_EDGE_NAME_BYTES) bytes on task ids.
pub fn to_string(w: &Workload, execution: Option<&Execution>) -> Result<String> {
    let mut buf = Vec::new();
    write(w, execution, &mut buf)?;
    Ok(String::from_utf8(buf).expect("serde_json writes UTF-8"))
}

/// Writes [`to_string`]'s text to `writer`, streamed (buffered; nothing is written when
/// `execution` is refused).
///
/// Errors: as [`to_string`]; [`DagError::Io`] (path `<writer>`) if writing fails.
pub fn write(w: &Workload, execution: Option<&Execution>, writer: impl Write) -> Result<()> {
    let p = prepare(w, execution)?;
    emit(&p, writer, Path::new("<writer>"))
}

/// Writes [`to_string`]'s text to the file `path` (created or truncated), streamed; the
/// file is not touched when `execution` is refused.
///
/// Errors: as [`to_string`]; [`DagError::Io`] naming the file.
pub fn save(w: &Workload, execution: Option<&Execution>, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let p = prepare(w, execution)?;
    let io = |source| DagError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::create(path).map_err(io)?;
    emit(&p, file, path)
}

/// The latest second a timestamp may name: 9999-12-31T23:59:59Z (RFC 3339 years have four
/// digits; Python's `datetime` stops there too), s after the Unix epoch.
pub const MAX_TIMESTAMP_SECONDS: i64 = 253_402_300_799;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month, day)` of a day count since 1970-01-01 (`civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A timestamp parsed by [`parse_timestamp`]: whole seconds since the Unix epoch (UTC) and
/// the digits of its fraction of a second (`""` for none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    pub seconds: i64,
    /// The decimal digits after the seconds' point, as written.
    pub fraction: String,
}

/// Parses an RFC 3339 / ISO 8601 date-time `YYYY-MM-DDThh:mm:ss[.f...](Z|±hh:mm)` (`T` or a
/// space between date and time, `Z` in either case; a fraction of any length); `None` for
/// anything else, or a field out of range.
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (h, mi, sec) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    let month_days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    if !(1..=12).contains(&mo) || h > 23 || mi > 59 || sec > 59 || d < 1 {
        return None;
    }
    if d > month_days[(mo - 1) as usize] + i64::from(mo == 2 && leap) {
        return None;
    }
    let mut rest = &text[19..];
    let mut fraction = String::new();
    if let Some(f) = rest.strip_prefix('.') {
        let n = f.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        fraction = f[..n].to_owned();
        rest = &f[n..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let o = rest.as_bytes();
            if o.len() != 6 || o[3] != b':' {
                return None;
            }
            let (oh, om) = (
                rest[1..3].parse::<i64>().ok()?,
                rest[4..6].parse::<i64>().ok()?,
            );
            if !rest[1..3]
                .bytes()
                .chain(rest[4..6].bytes())
                .all(|c| c.is_ascii_digit())
                || oh > 23
                || om > 59
            {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
    };
    let seconds = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Some(Timestamp { seconds, fraction })
}

/// The RFC 3339 timestamp (UTC, `Z`) `seconds` after `base`: `base` must be a timestamp in
/// whole seconds ([`parse_timestamp`]), `seconds` finite and `>= 0`. The fraction is every
/// digit of the shortest decimal that reads back as `seconds`, so [`seconds_between`] gives
/// `seconds` back exactly: `timestamp_after(EPOCH, 2.5)` is `1970-01-01T00:00:02.5Z`.
///
/// Errors: why not, as a phrase (a `base` that is not a timestamp in whole seconds, a
/// `seconds` that is not finite and `>= 0`, a time past 9999-12-31T23:59:59Z).
pub fn timestamp_after(base: &str, seconds: f64) -> std::result::Result<String, String> {
    let b = parse_timestamp(base)
        .filter(|t| t.fraction.bytes().all(|c| c == b'0'))
        .ok_or_else(|| format!("run start `{base}` is not a timestamp in whole seconds"))?;
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!("start {seconds} is not finite and >= 0"));
    }
    // `Display` of an f64 is its shortest round-trip decimal, never in exponent form.
    let text = seconds.to_string();
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let total = whole
        .parse::<i64>()
        .ok()
        .and_then(|w| w.checked_add(b.seconds))
        .filter(|&t| t <= MAX_TIMESTAMP_SECONDS)
        .ok_or_else(|| format!("start {seconds} s after `{base}` is past 9999-12-31T23:59:59Z"))?;
    let (y, mo, d) = civil_from_days(total.div_euclid(86_400));
    let day = total.rem_euclid(86_400);
    let mut out = format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
        day / 3600,
        day % 3600 / 60,
        day % 60
    );
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(fraction);
    }
    out.push('Z');
    Ok(out)
}

/// Seconds from the timestamp `base` to the timestamp `at` ([`parse_timestamp`]), exact
/// for the timestamps [`timestamp_after`] writes (the fraction's digits are read as one
/// decimal with the whole seconds); `None` if either is not a timestamp.
pub fn seconds_between(base: &str, at: &str) -> Option<f64> {
    let (b, t) = (parse_timestamp(base)?, parse_timestamp(at)?);
    let whole = t.seconds - b.seconds;
    let frac = |f: &str| -> f64 {
        if f.is_empty() {
            0.0
        } else {
            format!("0.{f}").parse().unwrap_or(0.0)
        }
    };
    let x = if whole >= 0 && b.fraction.bytes().all(|c| c == b'0') {
        let text = if t.fraction.is_empty() {
            whole.to_string()
        } else {
            format!("{whole}.{}", t.fraction)
        };
        text.parse().ok()?
    } else {
        whole as f64 + frac(&t.fraction) - frac(&b.fraction)
    };
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::wfcommons::{WfOptions, read};
    use crate::workload::WorkloadBuilder;

    fn diamond() -> Workload {
        let mut b = WorkloadBuilder::new("d");
        let j = b.add_job("d").unwrap();
        let a = b.add_task(j, "a", 2.0, None).unwrap();
        let l = b.add_task(j, "left", 3.0, None).unwrap();
        let r = b.add_task(j, "right", 5.0, None).unwrap();
        let z = b.add_task(j, "z", 1.0, None).unwrap();
        b.add_edge(a, l, 10.0).unwrap();
        b.add_edge(a, r, 20.0).unwrap();
        b.add_edge(l, z, 0.0).unwrap();
        b.add_edge(r, z, 7.0).unwrap();
        b.build().unwrap()
    }

    #[test]
    fn round_trip_keeps_tasks_edges_bytes_and_runtimes() {
        let w = diamond();
        let text = to_string(&w, None).unwrap();
        let (back, report) = read(text.as_bytes(), "d.json", &WfOptions::default()).unwrap();
        assert!(report.is_clean(), "{report:?}");
        let (g, h) = (w.graph(), back.graph());
        assert_eq!(h.n_tasks(), 4);
        for (v, t) in g.tasks() {
            assert_eq!(h.task(v).name, t.name);
            assert_eq!(h.task(v).work, t.work);
        }
        let e1: Vec<_> = g.edges().collect();
        let e2: Vec<_> = h.edges().collect();
        assert_eq!(e1, e2);
        // Critical path a -> right -> z with free transfers: 2 + 5 + 1.
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["workflow"]["execution"]["makespanInSeconds"], 8.0);
        assert_eq!(doc["schemaVersion"], "1.5");
    }

    #[test]
    fn ids_are_sanitised_and_unique_when_names_are_not_valid() {
        let mut b = WorkloadBuilder::new("w");
        let j1 = b.add_job("job 1").unwrap();
        let j2 = b.add_job("job/1").unwrap();
        b.add_task(j1, "t:1", 1.0, None).unwrap();
        b.add_task(j2, "t:1", 1.0, None).unwrap();
        let w = b.build().unwrap();
        assert_eq!(task_ids(&w), ["job_1.t_1", "job_1.t_1-2"]);
        assert_eq!(task_ids(&diamond()), ["a", "left", "right", "z"]);
    }

    #[test]
    fn execution_section_records_machine_start_and_gpu() {
        let w = diamond();
        let rec = |v: usize, start: f64, runtime: f64, m: &str| ExecutedTask {
            task: TaskId::new(v),
            start,
            runtime,
            machine: m.into(),
            gpu: Some(ExecutedGpu {
                id: v % 2,
                index: 0,
                model: "T4".into(),
            }),
            others: Vec::new(),
        };
        let x = Execution {
            makespan: 9.5,
            executed_at: EPOCH.into(),
            machines: vec!["m0".into(), "m1".into()],
            tasks: vec![
                rec(3, 8.5, 1.0, "m0"),
                rec(0, 0.0, 2.0, "m0"),
                rec(1, 2.0, 3.0, "m1"),
                rec(2, 2.5, 5.0, "m0"),
            ],
        };
        let doc: serde_json::Value =
            serde_json::from_str(&to_string(&w, Some(&x)).unwrap()).unwrap();
        let e = &doc["workflow"]["execution"];
        assert_eq!(e["makespanInSeconds"], 9.5);
        assert_eq!(e["machines"][1]["nodeName"], "m1");
        assert_eq!(e["tasks"][3]["id"], "z");
        assert_eq!(e["tasks"][3]["executedAt"], "1970-01-01T00:00:08.5Z");
        assert_eq!(e["tasks"][1]["machines"], serde_json::json!(["m1"]));
        assert!(e["tasks"][1].get("machine").is_none());
        assert!(e["tasks"][1].get("startInSeconds").is_none());
        assert_eq!(e["tasks"][1]["gpuId"], 1);
        assert_eq!(e["tasks"][1]["gpuModel"], "T4");

        let mut missing = x.clone();
        missing.tasks.pop();
        let err = to_string(&w, Some(&missing)).unwrap_err().to_string();
        assert!(
            err.contains("d/right") && err.contains("not recorded"),
            "{err}"
        );
        let mut twice = x.clone();
        twice.tasks[0] = rec(0, 0.0, 1.0, "m0");
        let err = to_string(&w, Some(&twice)).unwrap_err().to_string();
        assert!(err.contains("d/a") && err.contains("twice"), "{err}");
        let mut elsewhere = x;
        elsewhere.tasks[0].machine = "m9".into();
        let err = to_string(&w, Some(&elsewhere)).unwrap_err().to_string();
        assert!(err.contains("`m9`"), "{err}");
    }
    #[test]
    fn wfformat_plan_uses_schema_field_names() {
        // WfFormat 1.5: an execution task's machine is `machines` (a list of names of
        // `execution.machines[].nodeName`) and its start `executedAt` (a timestamp); the
        // old `machine` / `startInSeconds` made WfCommons read machines=[] and no start.
        let w = diamond();
        let rec = |v: usize, start: f64, runtime: f64, m: &str| ExecutedTask {
            task: TaskId::new(v),
            start,
            runtime,
            machine: m.into(),
            gpu: None,
            others: Vec::new(),
        };
        let x = Execution {
            makespan: 8.0 + 1.0 / 3.0,
            executed_at: EPOCH.into(),
            machines: vec!["node-0".into(), "node-1".into()],
            tasks: vec![
                rec(0, 0.0, 2.0, "node-0"),
                rec(1, 0.1 + 0.2, 3.0, "node-1"),
                rec(2, 2.0, 5.0, "node-0"),
                rec(3, 7.0 + 1.0 / 3.0, 1.0, "node-0"),
            ],
        };
        let doc: serde_json::Value =
            serde_json::from_str(&to_string(&w, Some(&x)).unwrap()).unwrap();
        let e = &doc["workflow"]["execution"];
        let keys: Vec<&str> = e["tasks"][1]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["executedAt", "id", "machines", "runtimeInSeconds"]);
        assert_eq!(e["executedAt"], EPOCH);
        assert_eq!(e["tasks"][0]["executedAt"], "1970-01-01T00:00:00Z");
        assert_eq!(
            e["tasks"][1]["executedAt"],
            "1970-01-01T00:00:00.30000000000000004Z"
        );
        assert_eq!(
            e["tasks"][3]["executedAt"],
            "1970-01-01T00:00:07.333333333333333Z"
        );
        assert_eq!(e["tasks"][1]["machines"], serde_json::json!(["node-1"]));
        assert_eq!(e["machines"][1], serde_json::json!({"nodeName": "node-1"}));
        // Every start reads back exactly.
        for (t, r) in e["tasks"].as_array().unwrap().iter().zip(&x.tasks) {
            let at = t["executedAt"].as_str().unwrap();
            assert_eq!(seconds_between(EPOCH, at), Some(r.start), "{at}");
        }
        // worl's own WfFormat reader takes the plan as a workload with the planned run times.
        let text = to_string(&w, Some(&x)).unwrap();
        let (back, _) = read(text.as_bytes(), "plan.wf.json", &WfOptions::default()).unwrap();
        assert_eq!(back.graph().n_tasks(), 4);
        assert_eq!(back.graph().task(TaskId::new(2)).work, 5.0);
        // A start past the year 9999 is refused, naming the task.
        let mut far = x;
        far.tasks[3].start = 1e12;
        let err = to_string(&w, Some(&far)).unwrap_err().to_string();
        assert!(err.contains("d/z") && err.contains("9999"), "{err}");
    }

    #[test]
    fn timestamps_round_trip_every_start_exactly() {
        let mut x = 0.123_456_789_012_345_6_f64;
        let mut starts = vec![
            0.0,
            1e-300,
            5e-324,
            1e-7,
            0.1,
            59.999_999_999_999_99,
            86_400.0,
        ];
        starts.extend([1e6 + 0.1, 2f64.powi(27) + 0.25, 2.5e11, 253_402_300_799.0]);
        for _ in 0..2000 {
            // a deterministic spread over 24 orders of magnitude
            x = (x * 7919.0 + 0.618_033_988_749_894_8).fract();
            starts.push(x * 10f64.powi((x * 1e6) as i32 % 24 - 12));
        }
        for base in [EPOCH, "2024-02-29T23:59:59Z", "1969-12-31T23:00:00Z"] {
            for &s in &starts {
                let b = parse_timestamp(base).unwrap().seconds;
                if b + s as i64 > MAX_TIMESTAMP_SECONDS {
                    continue;
                }
                let t = timestamp_after(base, s).unwrap();
                assert_eq!(seconds_between(base, &t), Some(s), "{base} + {s}: {t}");
            }
        }
        assert_eq!(
            timestamp_after(EPOCH, 86_400.0 * 366.0 + 0.5).unwrap(),
            "1971-01-02T00:00:00.5Z"
        );
        assert_eq!(
            timestamp_after("2024-02-28T23:59:59Z", 1.0).unwrap(),
            "2024-02-29T00:00:00Z"
        );
        assert!(timestamp_after(EPOCH, 253_402_300_800.0).is_err());
        assert!(timestamp_after(EPOCH, f64::NAN).is_err());
        assert!(timestamp_after(EPOCH, -1.0).is_err());
        assert!(timestamp_after("1970-01-01T00:00:00.5Z", 1.0).is_err());
        // Offsets and fractions written by other tools.
        assert_eq!(
            seconds_between(EPOCH, "1970-01-01T02:00:01.25+02:00"),
            Some(1.25)
        );
        assert_eq!(seconds_between(EPOCH, "1970-01-01 00:00:03z"), Some(3.0));
        for bad in [
            "1970-01-01",
            "1970-13-01T00:00:00Z",
            "1970-02-30T00:00:00Z",
            "1970-01-01T24:00:00Z",
            "1970-01-01T00:00:60Z",
            "1970-01-01T00:00:00.Z",
            "1970-01-01T00:00:00",
            "1970-01-01T00:00:00+2:00",
            "1970-01-01T00:00:00Zjunk",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }

    /// A (1 GPU) → G (4 GPUs, on one machine) → X (2 GPUs across machines, span cluster).
    fn gang_chain() -> Workload {
        let mut b = WorkloadBuilder::new("g");
        let j = b.add_job("g").unwrap();
        let a = b.add_task(j, "a", 2.0, None).unwrap();
        let g = b.add_task(j, "G", 8.0, None).unwrap();
        let x = b.add_task(j, "X", 4.0, None).unwrap();
        b.add_edge(a, g, 0.0).unwrap();
        b.add_edge(g, x, 0.0).unwrap();
        b.set_gang(g, 4, GangParams::default()).unwrap();
        let cluster = GangParams {
            span: Span::Cluster,
            ..GangParams::default()
        };
        b.set_gang(x, 2, cluster).unwrap();
        b.build().unwrap()
    }

    fn gpu(id: usize, index: usize) -> ExecutedGpu {
        ExecutedGpu {
            id,
            index,
            model: "S1".into(),
        }
    }

    /// The execution of [`gang_chain`] on machines `a` (g0..g3) and `b` (g4..g7): a on g0
    /// [0, 2), G on {g0, g1, g2, g3} [2, 4), X on {g3, g4} [4, 6).
    fn gang_execution() -> Execution {
        let member = |m: &str, id: usize| (m.to_owned(), gpu(id, id % 4));
        let rec =
            |v: usize, start: f64, lead: usize, others: Vec<(String, ExecutedGpu)>| ExecutedTask {
                task: TaskId::new(v),
                start,
                runtime: 2.0,
                machine: if lead < 4 { "a" } else { "b" }.into(),
                gpu: Some(gpu(lead, lead % 4)),
                others,
            };
        Execution {
            makespan: 6.0,
            executed_at: EPOCH.into(),
            machines: vec!["a".into(), "b".into()],
            tasks: vec![
                rec(0, 0.0, 0, Vec::new()),
                rec(
                    1,
                    2.0,
                    0,
                    vec![member("a", 1), member("a", 2), member("a", 3)],
                ),
                rec(2, 4.0, 3, vec![member("b", 4)]),
            ],
        }
    }

    #[test]
    fn a_gang_record_carries_its_whole_set() {
        let (w, x) = (gang_chain(), gang_execution());
        let text = to_string(&w, Some(&x)).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let e = &doc["workflow"]["execution"]["tasks"];
        // The 4-GPU gang on one machine: its machine once, the count, the set lead first.
        assert_eq!(
            e[1],
            serde_json::json!({
                "id": "G",
                "runtimeInSeconds": 2.0,
                "executedAt": "1970-01-01T00:00:02Z",
                "machines": ["a"],
                "gpuId": 0,
                "gpuIndex": 0,
                "gpuModel": "S1",
                "gpuCount": 4,
                "gpuIds": [0, 1, 2, 3],
            })
        );
        // Across machines: each machine, lead's first.
        assert_eq!(e[2]["machines"], serde_json::json!(["a", "b"]));
        assert_eq!(e[2]["gpuIds"], serde_json::json!([3, 4]));
        assert_eq!(e[2]["gpuCount"], 2);
        assert_eq!(e[2]["gangSpan"], "cluster");
        // A 1-GPU record has neither `gpuIds` nor `gpuCount`, and one machine.
        let keys: Vec<&str> = e[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "executedAt",
                "gpuId",
                "gpuIndex",
                "gpuModel",
                "id",
                "machines",
                "runtimeInSeconds"
            ]
        );
        // No `coreCount` anywhere: it counts CPU cores.
        assert!(!text.contains("coreCount"));
        // The reader takes the plan back as the same gang workload (runtime · gpuCount is
        // the planned run time times the count: 2 · 4 = 8 for G, 2 · 2 = 4 for X).
        let (back, _) = read(text.as_bytes(), "plan.wf.json", &WfOptions::default()).unwrap();
        let h = back.graph();
        assert_eq!(
            (h.task(TaskId::new(1)).gpus, h.task(TaskId::new(1)).work),
            (4, 8.0)
        );
        assert_eq!(
            (h.task(TaskId::new(2)).gpus, h.task(TaskId::new(2)).work),
            (2, 4.0)
        );
        assert_eq!(h.task(TaskId::new(2)).gang.span, Span::Cluster);
    }

    #[test]
    fn a_gang_set_member_on_an_unknown_machine_or_without_lead_is_refused() {
        let w = gang_chain();
        let mut x = gang_execution();
        x.tasks[2].others[0].0 = "c".into();
        let err = to_string(&w, Some(&x)).unwrap_err().to_string();
        assert!(err.contains("g/X") && err.contains("`c`"), "{err}");
        let mut x = gang_execution();
        x.tasks[1].gpu = None;
        let err = to_string(&w, Some(&x)).unwrap_err().to_string();
        assert!(
            err.contains("g/G") && err.contains("4 GPUs without its lead"),
            "{err}"
        );
    }

    #[test]
    fn records_on_one_gpu_are_written_as_before() {
        // The text of a gang-free plan, byte for byte as before sets were written.
        let w = diamond();
        let rec = |v: usize, start: f64, m: &str| ExecutedTask {
            task: TaskId::new(v),
            start,
            runtime: 1.0,
            machine: m.into(),
            gpu: Some(gpu(v % 2, 0)),
            others: Vec::new(),
        };
        let x = Execution {
            makespan: 4.0,
            executed_at: EPOCH.into(),
            machines: vec!["m0".into(), "m1".into()],
            tasks: vec![
                rec(0, 0.0, "m0"),
                rec(1, 1.0, "m1"),
                rec(2, 1.5, "m0"),
                rec(3, 3.0, "m0"),
            ],
        };
        let text = to_string(&w, Some(&x)).unwrap();
        let want = [
            "        {",
            r#"          "id": "left","#,
            r#"          "runtimeInSeconds": 1.0,"#,
            r#"          "executedAt": "1970-01-01T00:00:01Z","#,
            r#"          "machines": ["#,
            r#"            "m1""#,
            "          ],",
            r#"          "gpuId": 1,"#,
            r#"          "gpuIndex": 0,"#,
            r#"          "gpuModel": "S1""#,
            "        },",
        ]
        .join("\n");
        assert!(text.contains(&want), "{text}");
        assert!(!text.contains("gpuIds"));
    }
}
