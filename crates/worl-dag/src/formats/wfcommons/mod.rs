//! Loader of WfCommons WfFormat JSON instances (wfcommons/WfFormat).
//!
//! Two layouts are read:
//! * **1.5 and later**: `workflow.specification.tasks[]` = {`id`, `name`, `parents`,
//!   `children`, `inputFiles`, `outputFiles`}, `workflow.specification.files[]` = {`id`,
//!   `sizeInBytes`}, and `workflow.execution.tasks[]` = {`id`, `runtimeInSeconds`, ...}
//!   matched by `id`;
//! * **1.4 and earlier**: `workflow.tasks[]` (`workflow.jobs[]` before 1.3) = {`name`, `id`?,
//!   `runtime` or `runtimeInSeconds`, `parents`, `children`?, `files[]` = {`name`, `link`
//!   (`input`/`output`), `size` or `sizeInBytes`}}; references are task names (or ids).
//!
//! One workflow is one job named after the file stem; a task is named by its `id` (1.5) or
//! `name` (older). `work = runtime · work_scale` reference GPU-seconds (the runtimes were
//! measured on CPU machines; the default scale 1.0 takes a measured second as a reference
//! GPU-second). An edge's bytes are the total size of the files the parent writes and the
//! child reads (WfFormat docs). Dependencies may be declared in `parents`, `children` or
//! both; when both are given they must agree, else [`DagError::InconsistentDependency`].
//! A reference to a missing task is [`DagError::UnknownTask`]; a missing runtime or file size
//! is repaired to 0 and reported ([`Reason::MissingRuntime`], [`Reason::MissingFileSize`]).
//! A task or execution entry given twice, or (1.5) a file declared twice with different
//! sizes, is an error naming it; in the older layout a file listed with another size than the
//! first keeps the first ([`Reason::FileSizeConflict`]). A file listed twice in one task's
//! inputs or outputs counts once on an edge; edge bytes cost `O(min(outputs, inputs))` per
//! edge (long file lists are hashed once per task).
//!
//! **Gang tasks.** WfFormat 1.5 has no GPU field (its `coreCount` counts CPU cores: the
//! WfInstances executions give it for CPU tasks, so it is not read as GPUs). A task's GPU
//! count and gang parameters are the extra properties `gpuCount` (a whole number in
//! `1..=4096`, default 1), `gangSpan` (`machine` / `cluster`), `gangEfficiency` (in
//! `(0, 1]`), `gangSyncBytes` and `gangSyncSteps` (finite, `>= 0`) of its
//! `workflow.execution.tasks[]` entry (1.5) or of its `workflow.tasks[]` entry (older): the
//! schema allows extra properties there and WfCommons' own reader ignores them. As for a
//! trace, `runtimeInSeconds` is then the wall time on `gpuCount` GPUs, and
//! `work = runtime · gpuCount · work_scale`. A bad value is [`DagError::Parse`] naming the
//! task, at the line of the property when it can be told.
//!
//! [`to_string`], [`write()`](fn@write) and [`save`] write WfFormat 1.5, optionally with an
//! [`Execution`] section recording a schedule (the layout: module [`write`](mod@write)).

use crate::error::{DagError, Result, num};
use crate::formats::report::{LoadReport, Reason, short};
use crate::formats::{gang, in_file, line_of, open, read_text, source_name};
use crate::ids::TaskId;
use crate::task::GangParams;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

pub mod write;
pub use write::{
    EPOCH, ExecutedGpu, ExecutedTask, Execution, file_id, save, task_ids, to_string, write,
};

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "wfformat";

/// Options of the WfCommons loader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WfOptions {
    /// Reference GPU-seconds per measured second. Default 1.0.
    pub work_scale: f64,
}

impl Default for WfOptions {
    fn default() -> Self {
        Self { work_scale: 1.0 }
    }
}

#[derive(Deserialize)]
struct Doc {
    workflow: Wf,
}

#[derive(Deserialize)]
struct Wf {
    specification: Option<Spec>,
    execution: Option<Exec>,
    tasks: Option<Vec<OldTask>>,
    jobs: Option<Vec<OldTask>>,
}

#[derive(Deserialize)]
struct Spec {
    tasks: Vec<SpecTask>,
    #[serde(default)]
    files: Vec<SpecFile>,
}

#[derive(Deserialize)]
struct SpecTask {
    id: String,
    parents: Option<Vec<String>>,
    children: Option<Vec<String>>,
    #[serde(default, rename = "inputFiles")]
    input_files: Vec<String>,
    #[serde(default, rename = "outputFiles")]
    output_files: Vec<String>,
}

#[derive(Deserialize)]
struct SpecFile {
    id: String,
    #[serde(rename = "sizeInBytes")]
    size: Option<f64>,
}

#[derive(Deserialize)]
struct Exec {
    #[serde(default)]
    tasks: Vec<ExecTask>,
}

#[derive(Deserialize)]
struct ExecTask {
    id: String,
    #[serde(rename = "runtimeInSeconds")]
    runtime: Option<f64>,
    #[serde(flatten)]
    gang: RawGang,
}

/// The gang demand of a task as written (worl's extra properties, see the module docs),
/// values checked when the task is built so that an error names the task.
#[derive(Deserialize, Default)]
struct RawGang {
    #[serde(rename = "gpuCount")]
    gpus: Option<serde_json::Value>,
    #[serde(rename = "gangSpan")]
    span: Option<serde_json::Value>,
    #[serde(rename = "gangEfficiency")]
    efficiency: Option<serde_json::Value>,
    #[serde(rename = "gangSyncBytes")]
    sync_bytes: Option<serde_json::Value>,
    #[serde(rename = "gangSyncSteps")]
    sync_steps: Option<serde_json::Value>,
}

/// The extra properties of the gang demand, in [`RawGang`] field order.
const GANG_KEYS: [&str; 5] = [
    "gpuCount",
    "gangSpan",
    "gangEfficiency",
    "gangSyncBytes",
    "gangSyncSteps",
];

impl RawGang {
    /// The values given, by [`GANG_KEYS`] position.
    fn values(&self) -> [Option<&serde_json::Value>; 5] {
        [
            self.gpus.as_ref(),
            self.span.as_ref(),
            self.efficiency.as_ref(),
            self.sync_bytes.as_ref(),
            self.sync_steps.as_ref(),
        ]
    }

    /// The demand: `gpus` 1 and default parameters where absent.
    ///
    /// Errors: the position in [`GANG_KEYS`] of the bad value and why it is refused.
    fn parse(&self) -> std::result::Result<(u32, GangParams), (usize, String)> {
        let [gpus, span, efficiency, sync_bytes, sync_steps] = self.values();
        let gpus = match gpus {
            Some(v) => gang::gpus_from_json(GANG_KEYS[0], v).map_err(|r| (0, r))?,
            None => 1,
        };
        let mut p = GangParams::default();
        if let Some(v) = span {
            p.span = gang::span_from_json(GANG_KEYS[1], v).map_err(|r| (1, r))?;
        }
        for (k, field, value) in [
            (2, gang::Field::Efficiency, efficiency),
            (3, gang::Field::SyncBytes, sync_bytes),
            (4, gang::Field::SyncSteps, sync_steps),
        ] {
            if let Some(v) = value {
                gang::set_json(&mut p, field, GANG_KEYS[k], v).map_err(|r| (k, r))?;
            }
        }
        Ok((gpus, p))
    }
}

/// Parses the gang demand of every task of `tasks` (in document order, named by `name`).
///
/// Errors: [`DagError::Parse`] naming the task (`<file stem>/<task>`) with the message of
/// [`DagError::InvalidGang`], at the line of the bad property when the document's properties
/// so named are exactly those of the tasks (else without a line: WfFormat allows extra
/// properties anywhere, so another one could take the rank).
fn parse_gangs<'a, T: 'a>(
    tasks: impl Iterator<Item = &'a T> + Clone,
    raw: impl Fn(&T) -> &RawGang,
    name: impl Fn(&T) -> &str,
    text: &str,
    source: &str,
) -> Result<Vec<(u32, GangParams)>> {
    let mut out = Vec::new();
    for (i, t) in tasks.clone().enumerate() {
        let g = raw(t);
        if g.values().iter().all(Option::is_none) {
            out.push((1, GangParams::default()));
            continue;
        }
        match g.parse() {
            Ok(d) => out.push(d),
            Err((k, reason)) => {
                let given = |t: &T| raw(t).values()[k].is_some();
                let rank = tasks.clone().take(i).filter(|t| given(t)).count();
                let total = tasks.clone().filter(|t| given(t)).count();
                let lines = gang::json_key_lines(text, GANG_KEYS[k]);
                let line = if lines.len() == total { lines[rank] } else { 0 };
                let task = format!("{}/{}", source_name(source), name(t));
                return Err(gang::error(source, line, task, reason));
            }
        }
    }
    Ok(out)
}

#[derive(Deserialize)]
struct OldTask {
    name: String,
    id: Option<String>,
    #[serde(alias = "runtimeInSeconds")]
    runtime: Option<f64>,
    parents: Option<Vec<String>>,
    children: Option<Vec<String>>,
    #[serde(default)]
    files: Vec<OldFile>,
    #[serde(flatten)]
    gang: RawGang,
}

#[derive(Deserialize)]
struct OldFile {
    name: Option<String>,
    id: Option<String>,
    link: Option<String>,
    #[serde(alias = "sizeInBytes")]
    size: Option<f64>,
}

/// A task in either layout.
struct WTask {
    name: String,
    alias: Option<String>,
    runtime: Option<f64>,
    parents: Option<Vec<String>>,
    children: Option<Vec<String>>,
    inputs: Vec<String>,
    outputs: Vec<String>,
    /// GPUs and gang parameters (checked).
    gang: (u32, GangParams),
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, opts: &WfOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), opts)
}

/// Loads a WfFormat document from any reader; `source` names it in errors and reports, and
/// its file stem names the workload and its job.
///
/// Errors: [`DagError::InvalidParameter`] for a bad `work_scale`; [`DagError::Parse`] with
/// the line for malformed JSON or a document with neither layout (the line of `"workflow"`),
/// and naming the file for a negative file size, for two `workflow.execution.tasks` entries
/// of one task, and for a file declared twice in `workflow.specification.files` with
/// different sizes (twice with one size is accepted);
/// [`DagError::UnknownTask`] for a parent, child or execution entry naming no task;
/// [`DagError::InconsistentDependency`]; [`DagError::Parse`] naming the task for a bad
/// gang property (module docs); [`DagError::Parse`] without a line naming the file
/// for what the builder rejects (duplicate task, negative runtime, bytes that overflow,
/// self-loop, cycle); [`DagError::Empty`] for no task.
pub fn read(reader: impl Read, source: &str, opts: &WfOptions) -> Result<(Workload, LoadReport)> {
    if !(opts.work_scale.is_finite() && opts.work_scale > 0.0) {
        return Err(DagError::InvalidParameter {
            name: "work_scale",
            reason: format!("{} is not finite and > 0", opts.work_scale),
        });
    }
    let text = read_text(reader, source)?;
    let doc: Doc = serde_json::from_str(&text).map_err(|e| DagError::Parse {
        file: source.to_owned(),
        line: e.line(),
        message: e.to_string(),
    })?;
    let mut report = LoadReport::new(source, FORMAT);
    let workflow_line = text.find("\"workflow\"").map_or(1, |p| line_of(&text, p));
    let (tasks, sizes) = normalise(doc.workflow, &text, source, workflow_line, &mut report)?;
    // A bad size is the file's fault, not that of the edge it would be summed into.
    let mut bad: Vec<(&String, f64)> = sizes
        .iter()
        .filter_map(|(f, s)| s.filter(|s| s.is_nan() || *s < 0.0).map(|s| (f, s)))
        .collect();
    bad.sort_by(|a, b| a.0.cmp(b.0));
    if let Some((f, s)) = bad.first() {
        return Err(DagError::Parse {
            file: source.to_owned(),
            line: 0,
            message: format!("file `{f}`: size {} bytes is not a number >= 0", num(*s)),
        });
    }
    report.records = tasks.len();

    let mut b = WorkloadBuilder::new(source_name(source));
    let job = b.add_job(source_name(source)).map_err(in_file(source))?;
    let mut index: HashMap<&str, TaskId> = HashMap::with_capacity(tasks.len());
    for t in &tasks {
        let (gpus, params) = t.gang;
        let work = match t.runtime {
            // A wall time on `gpus` GPUs: `gpus` times the work of one.
            Some(r) if gpus > 1 => r * f64::from(gpus) * opts.work_scale,
            Some(r) => r * opts.work_scale,
            None => {
                report.add(Reason::MissingRuntime, t.name.clone());
                0.0
            }
        };
        let id = b
            .add_task(job, t.name.as_str(), work, None)
            .map_err(in_file(source))?;
        if (gpus, params) != (1, GangParams::default()) {
            b.set_gang(id, gpus, params).map_err(in_file(source))?;
        }
        index.insert(t.name.as_str(), id);
    }
    for (i, t) in tasks.iter().enumerate() {
        if let Some(a) = &t.alias {
            index.entry(a.as_str()).or_insert(TaskId::new(i));
        }
    }
    let resolve = |name: &str, by: &str| -> Result<TaskId> {
        index
            .get(name)
            .copied()
            .ok_or_else(|| DagError::UnknownTask {
                file: source.to_owned(),
                task: name.to_owned(),
                referenced_by: by.to_owned(),
            })
    };
    // Edges from each side, in task order; duplicates within a list are reported.
    let mut from_parents: Vec<(TaskId, TaskId)> = Vec::new();
    let mut from_children: Vec<(TaskId, TaskId)> = Vec::new();
    let (mut seen_p, mut seen_c) = (HashSet::new(), HashSet::new());
    for (i, t) in tasks.iter().enumerate() {
        let me = TaskId::new(i);
        for p in t.parents.iter().flatten() {
            let e = (resolve(p, &t.name)?, me);
            if seen_p.insert(e) {
                from_parents.push(e);
            } else {
                report.add(
                    Reason::DuplicateDependency,
                    format!("{} -> {}", short(p), short(&t.name)),
                );
            }
        }
        for c in t.children.iter().flatten() {
            let e = (me, resolve(c, &t.name)?);
            if seen_c.insert(e) {
                from_children.push(e);
            } else if t.parents.is_none() {
                report.add(
                    Reason::DuplicateDependency,
                    format!("{} -> {}", short(&t.name), short(c)),
                );
            }
        }
    }
    let has_parents = tasks.iter().any(|t| t.parents.is_some());
    let has_children = tasks.iter().any(|t| t.children.is_some());
    let name = |id: TaskId| tasks[id.index()].name.clone();
    if has_parents && has_children {
        let inconsistent =
            |(u, v): (TaskId, TaskId), declared_by: TaskId| DagError::InconsistentDependency {
                file: source.to_owned(),
                parent: name(u),
                child: name(v),
                declared_by: name(declared_by),
            };
        if let Some(&e) = from_parents.iter().find(|e| !seen_c.contains(*e)) {
            return Err(inconsistent(e, e.1));
        }
        if let Some(&e) = from_children.iter().find(|e| !seen_p.contains(*e)) {
            return Err(inconsistent(e, e.0));
        }
    }
    let edges = if has_parents {
        from_parents
    } else {
        from_children
    };
    // Bytes: files written by the parent and read by the child. Each task's file lists are
    // deduplicated, and long ones hashed, once: an edge costs O(min(outputs, inputs)).
    let outputs: Vec<FileSet<'_>> = tasks.iter().map(|t| FileSet::new(&t.outputs)).collect();
    let inputs: Vec<FileSet<'_>> = tasks.iter().map(|t| FileSet::new(&t.inputs)).collect();
    let mut missing_size = HashSet::new();
    let mut common: Vec<usize> = Vec::new();
    for (u, v) in edges {
        let (pu, cv) = (&tasks[u.index()], &tasks[v.index()]);
        let (out, inp) = (&outputs[u.index()], &inputs[v.index()]);
        // The parent's outputs also read by the child, in the parent's order (so that the
        // sum of sizes does not depend on which list is shorter).
        common.clear();
        if out.files.len() <= inp.files.len() {
            common.extend((0..out.files.len()).filter(|&i| inp.contains(out.files[i])));
        } else {
            common.extend(inp.files.iter().filter_map(|f| out.position(f)));
            common.sort_unstable();
        }
        let shared = !common.is_empty();
        let mut bytes = 0.0;
        for &i in &common {
            let f = out.files[i];
            match sizes.get(f).copied().flatten() {
                Some(s) => bytes += s,
                None => {
                    if missing_size.insert(f) {
                        report.add(Reason::MissingFileSize, f);
                    }
                }
            }
        }
        if !shared {
            report.add(
                Reason::EdgeWithoutData,
                format!("{} -> {}", short(&pu.name), short(&cv.name)),
            );
        }
        b.add_edge(u, v, bytes).map_err(in_file(source))?;
    }
    Ok((b.build().map_err(in_file(source))?, report))
}

/// Lists with more files than this are hashed for lookups; shorter ones are scanned.
const SCAN_FILES: usize = 16;

/// One task's input or output files: each file once, in first-listed order, with a hash
/// index when the list is long.
struct FileSet<'a> {
    files: Vec<&'a str>,
    index: Option<HashMap<&'a str, usize>>,
}

impl<'a> FileSet<'a> {
    fn new(list: &'a [String]) -> Self {
        if list.len() <= SCAN_FILES {
            let mut files: Vec<&str> = Vec::with_capacity(list.len());
            for f in list {
                if !files.contains(&f.as_str()) {
                    files.push(f);
                }
            }
            return Self { files, index: None };
        }
        let mut files = Vec::with_capacity(list.len());
        let mut index = HashMap::with_capacity(list.len());
        for f in list {
            index.entry(f.as_str()).or_insert_with(|| {
                files.push(f.as_str());
                files.len() - 1
            });
        }
        Self {
            files,
            index: Some(index),
        }
    }

    /// Position of `f` in `files`, if listed.
    fn position(&self, f: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(f).copied(),
            None => self.files.iter().position(|&x| x == f),
        }
    }

    fn contains(&self, f: &str) -> bool {
        self.position(f).is_some()
    }
}

/// Brings either layout to one list of tasks and a file-size table.
type Normalised = (Vec<WTask>, HashMap<String, Option<f64>>);

fn normalise(
    wf: Wf,
    text: &str,
    source: &str,
    workflow_line: usize,
    report: &mut LoadReport,
) -> Result<Normalised> {
    if let Some(spec) = wf.specification {
        let mut runtime: HashMap<String, (Option<f64>, (u32, GangParams))> = HashMap::new();
        let ids: HashSet<&str> = spec.tasks.iter().map(|t| t.id.as_str()).collect();
        let exec = wf.execution.map(|e| e.tasks).unwrap_or_default();
        let gangs = parse_gangs(exec.iter(), |e| &e.gang, |e| &e.id, text, source)?;
        for (e, gang) in exec.into_iter().zip(gangs) {
            if !ids.contains(e.id.as_str()) {
                return Err(DagError::UnknownTask {
                    file: source.to_owned(),
                    task: e.id,
                    referenced_by: "workflow.execution.tasks".into(),
                });
            }
            if runtime.contains_key(&e.id) {
                return Err(DagError::Parse {
                    file: source.to_owned(),
                    line: 0,
                    message: format!(
                        "task `{}` has two entries in workflow.execution.tasks",
                        e.id
                    ),
                });
            }
            runtime.insert(e.id, (e.runtime, gang));
        }
        let mut sizes: HashMap<String, Option<f64>> = HashMap::with_capacity(spec.files.len());
        for f in spec.files {
            match sizes.get(&f.id) {
                // The same file declared again with the same size (or a size where the
                // other has none: both say the same) is accepted.
                Some(&old) if old == f.size || old.is_none() || f.size.is_none() => {
                    if old.is_none() {
                        sizes.insert(f.id, f.size);
                    }
                }
                Some(&old) => {
                    return Err(DagError::Parse {
                        file: source.to_owned(),
                        line: 0,
                        message: format!(
                            "file `{}` is declared twice in workflow.specification.files, \
                             with sizeInBytes {} and {}",
                            f.id,
                            num(old.unwrap_or(0.0)),
                            num(f.size.unwrap_or(0.0))
                        ),
                    });
                }
                None => {
                    sizes.insert(f.id, f.size);
                }
            }
        }
        let tasks = spec
            .tasks
            .into_iter()
            .map(|t| {
                let (runtime, gang) = runtime
                    .get(&t.id)
                    .copied()
                    .unwrap_or((None, (1, GangParams::default())));
                WTask {
                    runtime,
                    gang,
                    name: t.id,
                    alias: None,
                    parents: t.parents,
                    children: t.children,
                    inputs: t.input_files,
                    outputs: t.output_files,
                }
            })
            .collect();
        return Ok((tasks, sizes));
    }
    let Some(old) = wf.tasks.or(wf.jobs) else {
        return Err(DagError::Parse {
            file: source.to_owned(),
            line: workflow_line,
            message: "neither workflow.specification (WfFormat >= 1.5) nor workflow.tasks / \
                      workflow.jobs (<= 1.4) found"
                .into(),
        });
    };
    let mut sizes: HashMap<String, Option<f64>> = HashMap::new();
    let gangs = parse_gangs(old.iter(), |t| &t.gang, |t| &t.name, text, source)?;
    let tasks = old
        .into_iter()
        .zip(gangs)
        .map(|(t, gang)| {
            let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
            for f in t.files {
                let Some(fid) = f.name.or(f.id) else { continue };
                let slot = sizes.entry(fid.clone()).or_insert(None);
                match (*slot, f.size) {
                    (None, size) => *slot = size,
                    (Some(first), Some(size)) if first != size => report.add(
                        Reason::FileSizeConflict,
                        format!(
                            "{}: {} size {} (first given: {})",
                            short(&t.name),
                            short(&fid),
                            num(size),
                            num(first)
                        ),
                    ),
                    _ => {}
                }
                if f.link
                    .as_deref()
                    .is_some_and(|l| l.eq_ignore_ascii_case("input"))
                {
                    inputs.push(fid);
                } else {
                    outputs.push(fid);
                }
            }
            WTask {
                gang,
                name: t.name,
                alias: t.id,
                runtime: t.runtime,
                parents: t.parents,
                children: t.children,
                inputs,
                outputs,
            }
        })
        .collect();
    Ok((tasks, sizes))
}
