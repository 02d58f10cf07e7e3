//! Schedule files: a [`Schedule`] with the names other tools need (task, job, machine, GPU
//! model), who made it and how good it is, written as JSON or CSV and read back against a
//! [`Problem`]. The format is described in `docs/formats.md`, "Schedule files".
//!
//! * [`ScheduleFile::new`] builds one from a problem, a schedule and a [`ScheduleMeta`];
//!   [`ScheduleFile::save`] / [`ScheduleFile::read`] choose JSON or CSV by the extension;
//!   [`ScheduleFile::read`] also reads a WfFormat plan ([`crate::wfformat`]) and refuses
//!   other files as [`ClusterError::NotAScheduleFile`].
//! * [`ScheduleFile::to_schedule`] matches the rows to the problem's tasks and GPUs (by id,
//!   checking the names agree; by names where a file has no ids) and fails on the first row
//!   that does not fit, with a [`MatchError`] naming the file, line and row.
//! * [`ScheduleFile::validate`] reports every [`Violation`] of the file: missing and repeated
//!   tasks, unknown GPUs, a wrong declared makespan, and everything
//!   [`Schedule::validate`] finds; each violation's [`explain`](Violation::explain) is one
//!   line naming the broken constraint.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;
use worl_cluster::schedule::set_label;
use worl_cluster::validate::exceeds;
use worl_cluster::{
    ClusterError, GpuId, GpuSet, MachineId, Problem, Result, Schedule, ScheduledTask, Tolerance,
    Violation,
};
use worl_dag::TaskId;
use worl_dag::error::{clip, num};

/// The `format` value of every schedule file.
pub const SCHEDULE_FORMAT: &str = "worl-schedule";

/// The version of the schedule file format this crate writes and reads.
pub const SCHEDULE_VERSION: u32 = 1;

/// The largest task id, GPU id or GPU index a row may give: `u32::MAX` (ids are 32-bit;
/// a larger one is a parse error naming the line and the value).
pub const MAX_ID: usize = u32::MAX as usize;

/// The CSV columns, in the order they are written.
pub const CSV_COLUMNS: [&str; 9] = [
    "task_id",
    "task",
    "job",
    "gpu_id",
    "machine",
    "gpu_index",
    "model",
    "start",
    "finish",
];

/// The optional CSV column listing a gang task's GPU set: GPU ids separated by `;`, lead
/// first (`0;1;2;3`), empty for a task on one GPU. Written only when some task runs on
/// several GPUs, so files without gangs keep exactly the [`CSV_COLUMNS`].
pub const GPUS_COLUMN: &str = "gpus";

/// Who made a schedule, written in the header of its file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleMeta {
    /// The scheduler's label (`heft`, `worl-rtgs`, ...).
    pub scheduler: String,
    /// Its options as the spec string it was built from (`pop=30,iters=200`), `""` for none.
    pub options: String,
    /// The random seed, if the scheduler used one.
    pub seed: Option<u64>,
}

/// One row of a schedule file: where and when one task runs.
///
/// Written with every field; a file made by another tool may leave out the ids (`task_id`,
/// `gpu_id`), and then the task is found by `(job, task)` and the GPU by
/// `(machine, gpu_index)`; `machine`, `gpu_index` and `model` may be left out where
/// `gpu_id` is given (empty strings and `None` mean "not given").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleRow {
    /// The task's [`TaskId`] index in the workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<usize>,
    /// The task's name in its job.
    pub task: String,
    /// The job's name.
    pub job: String,
    /// The GPU's [`GpuId`] index in the cluster (`gpu` is read as another name of it).
    #[serde(default, alias = "gpu", skip_serializing_if = "Option::is_none")]
    pub gpu_id: Option<usize>,
    /// The name of the machine holding the GPU.
    #[serde(default)]
    pub machine: String,
    /// The GPU's position among its machine's GPUs, 0-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_index: Option<usize>,
    /// The GPU model's name (`V100-16GB`).
    #[serde(default)]
    pub model: String,
    /// Start time, s.
    pub start: f64,
    /// Finish time, s.
    pub finish: f64,
}

/// A schedule as a file: header fields and one [`ScheduleRow`] per task, in task id order
/// when written by [`ScheduleFile::new`].
///
/// JSON: `{"format": "worl-schedule", "version": 1, "workload", "cluster", "scheduler",
/// "options", "seed", "makespan", "lower_bound", "rows": [...]}`. CSV: leading
/// `# key: value` lines for the header, then a header row of [`CSV_COLUMNS`] and one line per
/// task. Times in seconds. Details and an example: `docs/formats.md`, "Schedule files".
///
/// Two files are equal when their header fields and rows are; where they were read from
/// does not count.
#[derive(Clone, Debug)]
pub struct ScheduleFile {
    /// Format version ([`SCHEDULE_VERSION`]).
    pub version: u32,
    /// Name of the workload scheduled.
    pub workload: String,
    /// Name of the cluster.
    pub cluster: String,
    /// Who made the schedule.
    pub meta: ScheduleMeta,
    /// The makespan `max_v F_v`, s; `None` if the file does not give it.
    pub makespan: Option<f64>,
    /// The problem's makespan lower bound ([`Problem::lower_bound`]), s, if given.
    pub lower_bound: Option<f64>,
    /// One row per task.
    pub rows: Vec<ScheduleRow>,
    /// The GPU set (GPU ids, lead first: the row's `gpu_id`) of each row whose task runs on
    /// several GPUs (a gang task), by row index (0-based); empty without gangs. JSON: the
    /// row's `gpus` array; CSV: the [`GPUS_COLUMN`].
    pub gpu_sets: BTreeMap<usize, Vec<usize>>,
    /// Where the file was read from (`<memory>` otherwise), for messages.
    origin: String,
    /// The 1-based line of each row (0 where the format gives none: JSON).
    lines: Vec<usize>,
    /// Whether rows name their task by WfFormat id (read from a WfFormat plan) rather than
    /// by job and name.
    by_wf_id: bool,
}

impl PartialEq for ScheduleFile {
    fn eq(&self, o: &Self) -> bool {
        self.version == o.version
            && self.workload == o.workload
            && self.cluster == o.cluster
            && self.meta == o.meta
            && self.makespan == o.makespan
            && self.lower_bound == o.lower_bound
            && self.rows == o.rows
            && self.gpu_sets == o.gpu_sets
    }
}

/// The JSON form.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Json {
    #[serde(default = "default_format")]
    format: String,
    #[serde(default = "default_version")]
    version: u32,
    #[serde(default)]
    workload: String,
    #[serde(default)]
    cluster: String,
    #[serde(default)]
    scheduler: String,
    #[serde(default)]
    options: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    makespan: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lower_bound: Option<f64>,
    rows: Vec<JsonRow>,
}

/// A row in the JSON form: a [`ScheduleRow`] and, for a gang task, its GPU set.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRow {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task_id: Option<usize>,
    task: String,
    job: String,
    #[serde(default, alias = "gpu", skip_serializing_if = "Option::is_none")]
    gpu_id: Option<usize>,
    #[serde(default)]
    machine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gpu_index: Option<usize>,
    #[serde(default)]
    model: String,
    start: f64,
    finish: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    gpus: Vec<usize>,
}

impl JsonRow {
    fn new(r: &ScheduleRow, gpus: Option<&Vec<usize>>) -> Self {
        Self {
            task_id: r.task_id,
            task: r.task.clone(),
            job: r.job.clone(),
            gpu_id: r.gpu_id,
            machine: r.machine.clone(),
            gpu_index: r.gpu_index,
            model: r.model.clone(),
            start: r.start,
            finish: r.finish,
            gpus: gpus.cloned().unwrap_or_default(),
        }
    }

    fn split(self) -> (ScheduleRow, Vec<usize>) {
        (
            ScheduleRow {
                task_id: self.task_id,
                task: self.task,
                job: self.job,
                gpu_id: self.gpu_id,
                machine: self.machine,
                gpu_index: self.gpu_index,
                model: self.model,
                start: self.start,
                finish: self.finish,
            },
            self.gpus,
        )
    }
}

fn default_format() -> String {
    SCHEDULE_FORMAT.to_owned()
}

fn default_version() -> u32 {
    SCHEDULE_VERSION
}

/// Where a row is: the file, its 1-based line (0 for JSON, which has none per row) and its
/// 1-based position among the rows. Displays as `file:line (row r)` or `file (row r)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowRef {
    /// The file (`<memory>` for text not read from a file).
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based row number.
    pub row: usize,
}

impl fmt::Display for RowRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{} (row {})", self.file, self.line, self.row)
        } else {
            write!(f, "{} (row {})", self.file, self.row)
        }
    }
}

/// A schedule file that does not fit a problem, from [`ScheduleFile::to_schedule`] and
/// [`ScheduleFile::validate`]. Every variant names the file and, but for
/// [`MissingTask`](Self::MissingTask), the row.
#[derive(Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MatchError {
    /// A row's task id or `(job, task)` names no task of the workload.
    #[error("{at}: task `{}`{} is not in workload `{workload}`", clip(task), id_note(*id))]
    UnknownTask {
        /// The row.
        at: RowRef,
        /// The row's task as `job/task`.
        task: String,
        /// The row's task id, if given.
        id: Option<usize>,
        /// The workload's name.
        workload: String,
    },
    /// A row's task id names a task whose job or name differs from the row's.
    #[error(
        "{at}: task id {id} is `{expected}` in workload `{workload}`, the row names `{}`",
        clip(found)
    )]
    TaskMismatch {
        /// The row.
        at: RowRef,
        /// The task id.
        id: usize,
        /// The task of that id, as `job/task`.
        expected: String,
        /// The row's task, as `job/task`.
        found: String,
        /// The workload's name.
        workload: String,
    },
    /// Two rows name the same task.
    #[error("{at}: task `{task}` already has row {first_row}")]
    DuplicateTask {
        /// The second row.
        at: RowRef,
        /// The task, as `job/task`.
        task: String,
        /// The first row naming it (1-based).
        first_row: usize,
    },
    /// A task of the workload has no row.
    #[error("{file}: task `{task}` ({id}) has no row")]
    MissingTask {
        /// The file.
        file: String,
        /// The task, as `job/task`.
        task: String,
        /// Its id.
        id: TaskId,
    },
    /// A row's GPU id or `(machine, gpu_index)` names no GPU of the cluster.
    #[error("{at}: GPU {} is not in cluster `{cluster}`", clip(gpu))]
    UnknownGpu {
        /// The row.
        at: RowRef,
        /// The GPU as the row gives it: `g9` or `` `node-3` #2 ``.
        gpu: String,
        /// The cluster's name.
        cluster: String,
    },
    /// A row's GPU set ([`GPUS_COLUMN`], JSON `gpus`) does not fit its row: its first GPU is
    /// not the row's GPU, or it is empty.
    #[error("{at}: GPU set {{{gpus}}}: {reason}")]
    BadSet {
        /// The row.
        at: RowRef,
        /// The set as `g0,g1,...`.
        gpus: String,
        /// What is wrong.
        reason: String,
    },
    /// A row gives neither a GPU id nor a machine and GPU index.
    #[error("{at}: no GPU (give `gpu_id`, or `machine` and `gpu_index`)")]
    NoGpu {
        /// The row.
        at: RowRef,
    },
    /// A row's GPU id names a GPU whose machine, index on the machine or model differs from
    /// the row's.
    #[error(
        "{at}: GPU g{id} is {expected} in cluster `{cluster}`, the row says {}",
        clip(found)
    )]
    GpuMismatch {
        /// The row.
        at: RowRef,
        /// The GPU id.
        id: usize,
        /// The GPU as `` `node-1` #0 (V100-16GB) ``.
        expected: String,
        /// The row's machine, index and model, as far as given, in the same form.
        found: String,
        /// The cluster's name.
        cluster: String,
    },
}

fn id_note(id: Option<usize>) -> String {
    id.map(|i| format!(" (id {i})")).unwrap_or_default()
}

/// The GPU as `` `machine` #index (model) ``, leaving out what is not given.
fn gpu_words(machine: &str, index: Option<usize>, model: &str) -> String {
    let mut s = String::new();
    if !machine.is_empty() {
        s.push_str(&format!("`{machine}`"));
    }
    if let Some(i) = index {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&format!("#{i}"));
    }
    if !model.is_empty() {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&format!("({model})"));
    }
    s
}

/// Rows matched to a problem.
/// The GPU sets of matched rows, and the tasks (with the GPU id) of sets naming a GPU the
/// cluster lacks.
type MatchedSets = (Vec<GpuSet>, Vec<(TaskId, usize)>);

struct Matched {
    /// Per task: the first row naming it (0-based) and its entry.
    entries: Vec<Option<(usize, ScheduledTask)>>,
    /// Rows per task.
    count: Vec<usize>,
    /// Rows (0-based) whose GPU id is out of range, with the task and the id.
    unknown_gpu: Vec<(TaskId, usize)>,
}

fn parse_err(file: &str, line: usize, message: String) -> ClusterError {
    ClusterError::Parse {
        file: file.to_owned(),
        line,
        message,
    }
}

impl ScheduleFile {
    /// The file of `schedule` on `problem`: one row per task in id order with every id and
    /// name, the makespan, the problem's [lower bound](Problem::lower_bound), and `meta`.
    ///
    /// Errors: [`ClusterError::ShapeMismatch`] if the schedule's task or GPU count is not the
    /// problem's.
    pub fn new(problem: &Problem, schedule: &Schedule, meta: ScheduleMeta) -> Result<Self> {
        if schedule.n_tasks() != problem.n_tasks() || schedule.n_gpus() != problem.n_gpus() {
            return Err(ClusterError::ShapeMismatch {
                what: "schedule (tasks, GPUs)",
                expected: (problem.n_tasks(), problem.n_gpus()),
                actual: (schedule.n_tasks(), schedule.n_gpus()),
            });
        }
        let w = problem.workload();
        let c = problem.cluster();
        let rows: Vec<ScheduleRow> = schedule
            .tasks()
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let t = w.graph().task(TaskId::new(i));
                let g = c.gpu(e.gpu);
                ScheduleRow {
                    task_id: Some(i),
                    task: t.name.clone(),
                    job: w.job(t.job).name.clone(),
                    gpu_id: Some(e.gpu.index()),
                    machine: c.machines()[g.machine.index()].clone(),
                    gpu_index: c.gpus_of(g.machine).iter().position(|&k| k == e.gpu),
                    model: g.model.clone(),
                    start: e.start,
                    finish: e.finish,
                }
            })
            .collect();
        let lines = vec![0; rows.len()];
        let gpu_sets = schedule
            .sets()
            .map(|(t, set)| (t.index(), set.iter().map(|k| k.index()).collect()))
            .collect();
        Ok(Self {
            version: SCHEDULE_VERSION,
            workload: w.name().to_owned(),
            cluster: c.name().to_owned(),
            meta,
            makespan: Some(schedule.makespan()),
            lower_bound: Some(problem.lower_bound().value),
            rows,
            gpu_sets,
            origin: "<memory>".to_owned(),
            lines,
            by_wf_id: false,
        })
    }

    /// Where this file was read from: its path, or `<memory>`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Where row `i` (0-based) is, for messages.
    ///
    /// # Panics
    /// If `i` is not a row.
    pub fn row_ref(&self, i: usize) -> RowRef {
        RowRef {
            file: self.origin.clone(),
            line: self.lines.get(i).copied().unwrap_or(0),
            row: i + 1,
        }
    }

    // ----- writing -----

    /// The file as pretty-printed JSON (ends with a newline). Optional fields that are
    /// `None` are left out.
    pub fn to_json_string(&self) -> String {
        let j = Json {
            format: SCHEDULE_FORMAT.to_owned(),
            version: self.version,
            workload: self.workload.clone(),
            cluster: self.cluster.clone(),
            scheduler: self.meta.scheduler.clone(),
            options: self.meta.options.clone(),
            seed: self.meta.seed,
            makespan: self.makespan,
            lower_bound: self.lower_bound,
            rows: self
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| JsonRow::new(r, self.gpu_sets.get(&i)))
                .collect(),
        };
        let mut s = serde_json::to_string_pretty(&j).expect("a schedule file serialises");
        s.push('\n');
        s
    }

    /// The file as CSV: `# key: value` header lines (`format`, `version`, `workload`,
    /// `cluster`, `scheduler`, `options`, then `seed`, `makespan`, `lower_bound` where
    /// given), the column row [`CSV_COLUMNS`] (plus [`GPUS_COLUMN`] when a task runs on
    /// several GPUs), one line per row (`None` as an empty field).
    /// A header value is written as is, but one with leading or trailing whitespace, a
    /// control character or a leading `"` is written as a JSON string (`"..."`).
    pub fn to_csv_string(&self) -> String {
        let mut out = String::new();
        let mut kv = |k: &str, v: &str| {
            out.push_str(&format!("# {k}: {}\n", header_value(v)));
        };
        kv("format", SCHEDULE_FORMAT);
        kv("version", &self.version.to_string());
        kv("workload", &self.workload);
        kv("cluster", &self.cluster);
        kv("scheduler", &self.meta.scheduler);
        kv("options", &self.meta.options);
        if let Some(s) = self.meta.seed {
            kv("seed", &s.to_string());
        }
        if let Some(m) = self.makespan {
            kv("makespan", &m.to_string());
        }
        if let Some(lb) = self.lower_bound {
            kv("lower_bound", &lb.to_string());
        }
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let opt = |x: Option<usize>| x.map(|i| i.to_string()).unwrap_or_default();
        let sets = !self.gpu_sets.is_empty();
        let mut columns = CSV_COLUMNS.to_vec();
        if sets {
            columns.push(GPUS_COLUMN);
        }
        w.write_record(&columns).expect("writing to memory");
        for (i, r) in self.rows.iter().enumerate() {
            let mut record = vec![
                opt(r.task_id),
                r.task.clone(),
                r.job.clone(),
                opt(r.gpu_id),
                r.machine.clone(),
                opt(r.gpu_index),
                r.model.clone(),
                r.start.to_string(),
                r.finish.to_string(),
            ];
            if sets {
                record.push(self.gpu_sets.get(&i).map_or_else(String::new, |s| {
                    s.iter()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>()
                        .join(";")
                }));
            }
            w.write_record(&record).expect("writing to memory");
        }
        let body = w.into_inner().expect("writing to memory");
        out.push_str(std::str::from_utf8(&body).expect("CSV of strings is UTF-8"));
        out
    }

    /// Writes the file to `path`: JSON for a `.json` extension, CSV for `.csv` (any case).
    ///
    /// Errors: [`ClusterError::InvalidParameter`] for another extension;
    /// [`ClusterError::Io`] if the file cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let text = match Kind::of(path)? {
            Kind::Json => self.to_json_string(),
            Kind::Csv => self.to_csv_string(),
        };
        std::fs::write(path, text).map_err(|source| ClusterError::Io {
            path: path.to_owned(),
            source,
        })
    }

    // ----- reading -----

    /// Reads a schedule file: JSON for a `.json` extension (a worl schedule file, or a
    /// WfFormat plan such as `worl schedule --out plan.wf.json` writes,
    /// [`wfformat::from_json_str`](crate::wfformat::from_json_str)), CSV for `.csv` (any
    /// case). A leading byte-order mark is skipped.
    ///
    /// Errors: [`ClusterError::InvalidParameter`] for another extension,
    /// [`ClusterError::Io`] if it cannot be read, [`ClusterError::NotAScheduleFile`] naming
    /// the path for a file of another kind, [`ClusterError::Parse`] (with the path and
    /// line) as [`from_json_str`](Self::from_json_str) and
    /// [`from_csv_str`](Self::from_csv_str) say.
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Kind::of(path)?;
        let text = std::fs::read_to_string(path).map_err(|source| ClusterError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_str_at(worl_dag::formats::strip_bom(&text), path)
    }

    /// A schedule file from `text` read from `path` (by a caller that reads files its own
    /// way): JSON for a `.json` extension, CSV for `.csv` (any case), as
    /// [`read`](Self::read) does; errors name `path`.
    ///
    /// Errors: as [`read`](Self::read), but for [`ClusterError::Io`].
    pub fn from_str_at(text: &str, path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        match Kind::of(path)? {
            Kind::Json => Self::parse_json(text, &origin),
            Kind::Csv => Self::parse_csv(text, &origin),
        }
    }

    /// A schedule file from JSON text: an object with `rows` (or `format`) is a worl
    /// schedule file; one with `workflow` (or `schemaVersion`) and no `rows` a WfFormat plan
    /// ([`wfformat::from_json_str`](crate::wfformat::from_json_str)). A row's `gpu` is read
    /// as its `gpu_id`.
    ///
    /// Errors: [`ClusterError::NotAScheduleFile`] (file `<memory>`) for JSON that is not an
    /// object or has neither `rows` nor `workflow`, and a WfFormat workflow without a plan;
    /// [`ClusterError::Parse`] (file `<memory>`, with the line) for malformed JSON,
    /// an unknown or repeated field, a missing `task`, `job`, `start` or `finish`, another
    /// `format`, a newer `version`, a makespan or lower bound that is not a finite number
    /// `>= 0`, an id beyond [`MAX_ID`], or a row whose start or finish is not finite or
    /// whose finish precedes its start (line 0, naming the row and task).
    pub fn from_json_str(text: &str) -> Result<Self> {
        Self::parse_json(text, "<memory>")
    }

    /// A schedule file from CSV text (a `gpu` column is read as `gpu_id`).
    ///
    /// Errors: [`ClusterError::NotAScheduleFile`] (file `<memory>`) when the column row has
    /// none of [`CSV_COLUMNS`]; [`ClusterError::Parse`] (file `<memory>`, with the line) for
    /// a header `makespan` or `lower_bound` that is not a finite number `>= 0`, an id
    /// beyond [`MAX_ID`], a leading `#`
    /// line that is not `# key: value` with a known key or repeats one, a bad header value,
    /// another `format`, a newer `version`, a column row with an unknown or repeated column
    /// or without `task`, `job`, `start` and `finish`, a line with another number of fields,
    /// an id or time that is not a number, or a row whose start or finish is not finite or
    /// whose finish precedes its start.
    pub fn from_csv_str(text: &str) -> Result<Self> {
        Self::parse_csv(text, "<memory>")
    }

    fn parse_json(text: &str, origin: &str) -> Result<Self> {
        /// The top-level keys that tell the kinds of JSON file apart.
        #[derive(Deserialize)]
        struct Probe {
            format: Option<serde_json::Value>,
            rows: Option<serde::de::IgnoredAny>,
            workflow: Option<serde::de::IgnoredAny>,
            #[serde(rename = "schemaVersion")]
            schema_version: Option<serde::de::IgnoredAny>,
            jobs: Option<serde::de::IgnoredAny>,
            machines: Option<serde::de::IgnoredAny>,
            task_graph: Option<serde::de::IgnoredAny>,
        }
        let probe: Probe = match serde_json::from_str(text) {
            Ok(p) => p,
            Err(e) if e.is_data() => {
                return Err(ClusterError::NotAScheduleFile {
                    file: origin.to_owned(),
                    reason: "JSON that is not an object (a schedule file is an object with \
                             `rows`, or a WfFormat plan with `workflow.execution`)"
                        .to_owned(),
                });
            }
            Err(e) => return Err(parse_err(origin, e.line(), e.to_string())),
        };
        let other_kind = |what: &str| ClusterError::NotAScheduleFile {
            file: origin.to_owned(),
            reason: format!(
                "{what}, with neither `rows` (a worl schedule file, as `worl schedule --out \
                 FILE.json` writes) nor `workflow.execution` (a WfFormat plan)"
            ),
        };
        let format = probe.format.as_ref().and_then(serde_json::Value::as_str);
        if format == Some(worl_dag::formats::native::FORMAT) {
            return Err(other_kind(&format!(
                "a worl workload file (`\"format\": \"{}\"`)",
                worl_dag::formats::native::FORMAT
            )));
        }
        if probe.rows.is_none() && probe.format.is_none() {
            if probe.workflow.is_some() || probe.schema_version.is_some() {
                return crate::wfformat::parse(text, origin);
            }
            if probe.task_graph.is_some() {
                return Err(other_kind(
                    "a saga / dag-bench problem instance (`task_graph`)",
                ));
            }
            if probe.jobs.is_some() {
                return Err(other_kind("a workload (`jobs`)"));
            }
            if probe.machines.is_some() {
                return Err(other_kind("a cluster file (`machines`)"));
            }
            return Err(ClusterError::NotAScheduleFile {
                file: origin.to_owned(),
                reason: "a JSON object with neither `rows` (a worl schedule file) nor \
                         `workflow.execution` (a WfFormat plan)"
                    .to_owned(),
            });
        }
        let j: Json =
            serde_json::from_str(text).map_err(|e| parse_err(origin, e.line(), e.to_string()))?;
        check_format(&j.format, j.version, origin, 1)?;
        let lines = vec![0; j.rows.len()];
        let mut rows = Vec::with_capacity(j.rows.len());
        let mut gpu_sets = BTreeMap::new();
        for (i, r) in j.rows.into_iter().enumerate() {
            let (row, gpus) = r.split();
            rows.push(row);
            if !gpus.is_empty() {
                gpu_sets.insert(i, gpus);
            }
        }
        let f = Self {
            version: j.version,
            workload: j.workload,
            cluster: j.cluster,
            meta: ScheduleMeta {
                scheduler: j.scheduler,
                options: j.options,
                seed: j.seed,
            },
            makespan: j.makespan,
            lower_bound: j.lower_bound,
            rows,
            gpu_sets,
            origin: origin.to_owned(),
            lines,
            by_wf_id: false,
        };
        f.check_times()?;
        Ok(f)
    }

    fn parse_csv(text: &str, origin: &str) -> Result<Self> {
        let mut header: HashMap<String, (String, usize)> = HashMap::new();
        let mut offset = 0usize; // lines before the column row
        let mut rest = text;
        while rest.starts_with('#') || rest.starts_with('\n') || rest.starts_with("\r\n") {
            let (line, tail) = rest.split_once('\n').unwrap_or((rest, ""));
            offset += 1;
            rest = tail;
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let Some((k, v)) = line[1..].split_once(':') else {
                return Err(parse_err(
                    origin,
                    offset,
                    format!("expected a `# key: value` header line, found `{line}`"),
                ));
            };
            let k = k.trim();
            if !HEADER_KEYS.contains(&k) {
                return Err(parse_err(
                    origin,
                    offset,
                    format!(
                        "unknown header key `{k}` (known: {})",
                        HEADER_KEYS.join(", ")
                    ),
                ));
            }
            let v = v.trim();
            let v = if v.starts_with('"') {
                serde_json::from_str::<String>(v).map_err(|e| {
                    parse_err(
                        origin,
                        offset,
                        format!("header `{k}`: bad quoted value: {e}"),
                    )
                })?
            } else {
                v.to_owned()
            };
            if header.insert(k.to_owned(), (v, offset)).is_some() {
                return Err(parse_err(
                    origin,
                    offset,
                    format!("header key `{k}` is repeated"),
                ));
            }
        }
        let take = |k: &str| header.get(k).cloned();
        let parse_num = |k: &str| -> Result<Option<f64>> {
            match take(k) {
                None => Ok(None),
                Some((v, line)) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                    Ok(_) => Err(parse_err(
                        origin,
                        line,
                        format!("header `{k}`: `{v}` is not a finite number >= 0 (s)"),
                    )),
                    Err(_) => Err(parse_err(
                        origin,
                        line,
                        format!("header `{k}`: `{v}` is not a number"),
                    )),
                },
            }
        };
        let version = match take("version") {
            None => SCHEDULE_VERSION,
            Some((v, line)) => v.parse::<u32>().map_err(|_| {
                parse_err(
                    origin,
                    line,
                    format!("header `version`: `{v}` is not a whole number"),
                )
            })?,
        };
        let format = take("format").map_or_else(default_format, |(v, _)| v);
        let format_line = header.get("format").map_or(1, |(_, l)| *l);
        check_format(&format, version, origin, format_line)?;
        let seed = match take("seed") {
            None => None,
            Some((v, line)) => Some(v.parse::<u64>().map_err(|_| {
                parse_err(
                    origin,
                    line,
                    format!("header `seed`: `{v}` is not a whole number >= 0"),
                )
            })?),
        };
        let makespan = parse_num("makespan")?;
        let lower_bound = parse_num("lower_bound")?;

        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(rest.as_bytes());
        let cols = rdr
            .headers()
            .map_err(|e| csv_err(origin, offset, &e))?
            .clone();
        let col_line = offset + 1;
        let mut idx: HashMap<&str, usize> = HashMap::new();
        // `gpu` is another name of `gpu_id` (Python rows use it).
        let column = |c: &str| {
            let c = if c == "gpu" { "gpu_id" } else { c };
            if c == GPUS_COLUMN {
                return Some(GPUS_COLUMN);
            }
            CSV_COLUMNS.iter().find(|&&n| n == c).copied()
        };
        if cols.iter().all(|c| column(c).is_none()) {
            let first: String = cols
                .iter()
                .collect::<Vec<_>>()
                .join(",")
                .chars()
                .take(80)
                .collect();
            return Err(ClusterError::NotAScheduleFile {
                file: origin.to_owned(),
                reason: format!(
                    "line {col_line}: `{first}` has none of the schedule columns ({})",
                    CSV_COLUMNS.join(", ")
                ),
            });
        }
        for (i, c) in cols.iter().enumerate() {
            let Some(name) = column(c) else {
                return Err(parse_err(
                    origin,
                    col_line,
                    format!("unknown column `{c}` (known: {})", CSV_COLUMNS.join(", ")),
                ));
            };
            if idx.insert(name, i).is_some() {
                return Err(parse_err(
                    origin,
                    col_line,
                    format!("column `{name}` is repeated (`gpu` is another name of `gpu_id`)"),
                ));
            }
        }
        for need in ["task", "job", "start", "finish"] {
            if !idx.contains_key(need) {
                return Err(parse_err(
                    origin,
                    col_line,
                    format!("column `{need}` is missing"),
                ));
            }
        }
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        let mut gpu_sets = BTreeMap::new();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| csv_err(origin, offset, &e))?;
            let line = offset + rec.position().map_or(0, |p| p.line() as usize);
            let field = |c: &str| idx.get(c).and_then(|&i| rec.get(i)).unwrap_or("");
            let opt_int = |c: &str| -> Result<Option<usize>> {
                let v = field(c);
                if v.is_empty() {
                    return Ok(None);
                }
                match v.parse::<usize>() {
                    Ok(i) if i <= MAX_ID => Ok(Some(i)),
                    Ok(_) => Err(parse_err(
                        origin,
                        line,
                        format!("column `{c}`: `{v}` is beyond the largest id {MAX_ID}"),
                    )),
                    Err(_) => Err(parse_err(
                        origin,
                        line,
                        format!("column `{c}`: `{v}` is not a whole number >= 0"),
                    )),
                }
            };
            let time = |c: &str| -> Result<f64> {
                let v = field(c);
                v.parse::<f64>().map_err(|_| {
                    parse_err(origin, line, format!("column `{c}`: `{v}` is not a number"))
                })
            };
            rows.push(ScheduleRow {
                task_id: opt_int("task_id")?,
                task: field("task").to_owned(),
                job: field("job").to_owned(),
                gpu_id: opt_int("gpu_id")?,
                machine: field("machine").to_owned(),
                gpu_index: opt_int("gpu_index")?,
                model: field("model").to_owned(),
                start: time("start")?,
                finish: time("finish")?,
            });
            let set = field(GPUS_COLUMN).trim();
            if !set.is_empty() {
                let mut gpus = Vec::new();
                for id in set.split(';') {
                    match id.trim().parse::<usize>() {
                        Ok(k) if k <= MAX_ID => gpus.push(k),
                        _ => {
                            return Err(parse_err(
                                origin,
                                line,
                                format!(
                                    "column `{GPUS_COLUMN}`: `{}` is not a list of GPU ids \
                                     separated by `;` (each a whole number <= {MAX_ID})",
                                    clip(set)
                                ),
                            ));
                        }
                    }
                }
                gpu_sets.insert(rows.len() - 1, gpus);
            }
            lines.push(line);
        }
        let f = Self {
            version,
            workload: take("workload").map(|v| v.0).unwrap_or_default(),
            cluster: take("cluster").map(|v| v.0).unwrap_or_default(),
            meta: ScheduleMeta {
                scheduler: take("scheduler").map(|v| v.0).unwrap_or_default(),
                options: take("options").map(|v| v.0).unwrap_or_default(),
                seed,
            },
            makespan,
            lower_bound,
            rows,
            gpu_sets,
            origin: origin.to_owned(),
            lines,
            by_wf_id: false,
        };
        f.check_times()?;
        Ok(f)
    }

    /// A file read from a WfFormat plan ([`crate::wfformat::from_json_str`]): rows naming
    /// their task by WfFormat id, checked as every file's rows are.
    pub(crate) fn from_wfformat_parts(
        origin: &str,
        workload: String,
        meta: ScheduleMeta,
        makespan: Option<f64>,
        rows: Vec<ScheduleRow>,
    ) -> Result<Self> {
        let f = Self {
            version: SCHEDULE_VERSION,
            workload,
            cluster: String::new(),
            meta,
            makespan,
            lower_bound: None,
            lines: vec![0; rows.len()],
            rows,
            gpu_sets: BTreeMap::new(),
            origin: origin.to_owned(),
            by_wf_id: true,
        };
        f.check_times()?;
        Ok(f)
    }

    /// Whether the rows name their task by WfFormat id (a file read from a WfFormat plan:
    /// `task` is the id, `job` is empty) rather than by job and task name.
    pub fn names_tasks_by_wfformat_id(&self) -> bool {
        self.by_wf_id
    }

    /// The header's makespan and lower bound finite and `>= 0`; every row's ids at most
    /// [`MAX_ID`], start and finish finite with `finish >= start`.
    fn check_times(&self) -> Result<()> {
        for (k, v) in [
            ("makespan", self.makespan),
            ("lower_bound", self.lower_bound),
        ] {
            if let Some(x) = v.filter(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(parse_err(
                    &self.origin,
                    1,
                    format!("header `{k}`: {} is not a finite number >= 0 (s)", num(x)),
                ));
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            for (name, id) in [
                ("task_id", r.task_id),
                ("gpu_id", r.gpu_id),
                ("gpu_index", r.gpu_index),
            ] {
                if let Some(id) = id.filter(|&id| id > MAX_ID) {
                    let at = self.row_ref(i);
                    return Err(parse_err(
                        &at.file,
                        at.line,
                        format!(
                            "row {}: task `{}/{}`: {name} {id} is beyond the largest id {MAX_ID}",
                            at.row, r.job, r.task
                        ),
                    ));
                }
            }
            if !(r.start.is_finite() && r.finish.is_finite() && r.finish >= r.start) {
                let at = self.row_ref(i);
                return Err(parse_err(
                    &at.file,
                    at.line,
                    format!(
                        "row {}: task `{}/{}`: start {} s / finish {} s is not a valid interval",
                        at.row,
                        r.job,
                        r.task,
                        num(r.start),
                        num(r.finish)
                    ),
                ));
            }
        }
        Ok(())
    }

    // ----- matching -----

    /// The schedule this file gives for `problem`: each row matched to a task and a GPU.
    ///
    /// A row with a `task_id` is the task of that id, and its `job` and `task` must be that
    /// task's; a row without is the task named `task` in job `job` (in a file read from a
    /// WfFormat plan, the task whose WfFormat id,
    /// [`task_ids`](worl_dag::formats::wfcommons::task_ids), is `task`). A row with a `gpu_id` is
    /// the GPU of that id, and its `machine`, `gpu_index` and `model`, where given, must be
    /// that GPU's; a row without is GPU number `gpu_index` (0-based) of machine `machine`,
    /// and its `model`, where given, must agree. Header names (`workload`, `cluster`) are
    /// not compared.
    ///
    /// Errors ([`MatchError`], naming the file, line and row; the first in row order):
    /// [`UnknownTask`](MatchError::UnknownTask), [`TaskMismatch`](MatchError::TaskMismatch),
    /// [`DuplicateTask`](MatchError::DuplicateTask), [`UnknownGpu`](MatchError::UnknownGpu),
    /// [`NoGpu`](MatchError::NoGpu), [`GpuMismatch`](MatchError::GpuMismatch), then
    /// [`MissingTask`](MatchError::MissingTask) for the first task without a row.
    /// The schedule is not checked against the constraints: that is [`validate`](Self::validate)'s job.
    pub fn to_schedule(&self, problem: &Problem) -> Result<Schedule, MatchError> {
        let m = self.match_rows(problem, true)?;
        let entries = self.complete(problem, &m, true)?;
        let (sets, _) = self.match_sets(problem, &m, &entries, true)?;
        Ok(Schedule::with_sets(problem.n_gpus(), entries, sets)
            .expect("rows matched to the problem"))
    }

    /// Every [`Violation`] of this file on `problem`, for `worl validate`: a task without a
    /// row ([`Violation::MissingTask`]), a task with several
    /// ([`Violation::DuplicateTask`]; the first row counts), a GPU id the cluster lacks
    /// ([`Violation::UnknownGpu`]), a declared makespan other than the latest finish
    /// ([`Violation::Makespan`], relative tolerance `1e-9`), and everything
    /// [`Schedule::validate`] finds
    /// on the rows' schedule (leaving out what involves a task without a row or on an
    /// unknown GPU). Display each plainly, or with [`Violation::explain`] on the schedule
    /// [`validate_with_schedule`](Self::validate_with_schedule) returns.
    ///
    /// Errors: the [`MatchError`]s of [`to_schedule`](Self::to_schedule) that mean the file
    /// does not belong to this problem (unknown or renamed task, GPU named by machine that
    /// the cluster lacks, a GPU whose names disagree, a row without a GPU).
    pub fn validate(&self, problem: &Problem) -> Result<Vec<Violation>, MatchError> {
        Ok(self.validate_with_schedule(problem)?.0)
    }

    /// [`validate`](Self::validate), also returning the schedule checked (a task without a row or
    /// on an unknown GPU is at time 0 on `g0` there, and no violation involving it beyond
    /// the missing-task or unknown-GPU one is reported), to
    /// [`explain`](Violation::explain) the violations with.
    pub fn validate_with_schedule(
        &self,
        problem: &Problem,
    ) -> Result<(Vec<Violation>, Schedule), MatchError> {
        let mut m = self.match_rows(problem, false)?;
        let entries = self.complete(problem, &m, false)?;
        let (sets, unknown) = self.match_sets(problem, &m, &entries, false)?;
        m.unknown_gpu.extend(unknown);
        let schedule = Schedule::with_sets(problem.n_gpus(), entries, sets)
            .expect("rows matched to the problem");
        let mut skip = vec![false; problem.n_tasks()];
        let mut out = Vec::new();
        for (i, e) in m.entries.iter().enumerate() {
            if e.is_none() {
                skip[i] = true;
                out.push(Violation::MissingTask {
                    task: TaskId::new(i),
                });
            }
        }
        for (i, &c) in m.count.iter().enumerate() {
            if c > 1 {
                out.push(Violation::DuplicateTask {
                    task: TaskId::new(i),
                    rows: c,
                });
            }
        }
        for &(v, k) in &m.unknown_gpu {
            skip[v.index()] = true;
            out.push(Violation::UnknownGpu {
                task: v,
                gpu: GpuId::new(k),
            });
        }
        out.extend(
            schedule
                .validate(problem)
                .into_iter()
                .filter(|v| v.tasks().iter().all(|t| !skip[t.index()])),
        );
        if let Some(declared) = self.makespan {
            let actual = self.rows.iter().map(|r| r.finish).fold(0.0, f64::max);
            if exceeds((declared - actual).abs(), Tolerance::DEFAULT.of(actual)) {
                out.push(Violation::Makespan { declared, actual });
            }
        }
        Ok((out, schedule))
    }

    /// The GPU sets of the matched rows (`entries` from [`complete`](Self::complete)), and
    /// (unless `strict`, which fails on the first) the tasks of sets naming a GPU the
    /// cluster lacks (their set is left out).
    ///
    /// Errors: [`MatchError::UnknownGpu`] (strict) for a set's GPU id out of range;
    /// [`MatchError::BadSet`] for a set whose first GPU is not the row's GPU.
    fn match_sets(
        &self,
        problem: &Problem,
        m: &Matched,
        entries: &[ScheduledTask],
        strict: bool,
    ) -> Result<MatchedSets, MatchError> {
        let mut sets = Vec::new();
        let mut unknown = Vec::new();
        if self.gpu_sets.is_empty() {
            return Ok((sets, unknown));
        }
        for (v, e) in m.entries.iter().enumerate() {
            let Some((row, _)) = e else { continue };
            let Some(ids) = self.gpu_sets.get(row) else {
                continue;
            };
            let task = TaskId::new(v);
            if let Some(&k) = ids.iter().find(|&&k| k >= problem.n_gpus()) {
                if strict {
                    return Err(MatchError::UnknownGpu {
                        at: self.row_ref(*row),
                        gpu: format!("g{k}"),
                        cluster: problem.cluster().name().to_owned(),
                    });
                }
                unknown.push((task, k));
                continue;
            }
            let gpus: Vec<GpuId> = ids.iter().map(|&k| GpuId::new(k)).collect();
            if m.unknown_gpu.iter().any(|&(t, _)| t == task) {
                continue;
            }
            if gpus.first() != Some(&entries[v].gpu) {
                return Err(MatchError::BadSet {
                    at: self.row_ref(*row),
                    gpus: set_label(&gpus),
                    reason: format!("its first GPU must be the row's GPU {}", entries[v].gpu),
                });
            }
            sets.push(GpuSet { task, gpus });
        }
        Ok((sets, unknown))
    }

    /// One entry per task: matched rows, placeholders (`g0`, time 0) elsewhere unless
    /// `strict`, which fails on the first missing task.
    fn complete(
        &self,
        problem: &Problem,
        m: &Matched,
        strict: bool,
    ) -> Result<Vec<ScheduledTask>, MatchError> {
        let placeholder = ScheduledTask {
            gpu: GpuId::new(0),
            start: 0.0,
            finish: 0.0,
        };
        let mut out = Vec::with_capacity(m.entries.len());
        for (i, e) in m.entries.iter().enumerate() {
            match e {
                Some((_, st)) => out.push(*st),
                None if strict => {
                    return Err(MatchError::MissingTask {
                        file: self.origin.clone(),
                        task: problem.task_label(TaskId::new(i)),
                        id: TaskId::new(i),
                    });
                }
                None => out.push(placeholder),
            }
        }
        Ok(out)
    }

    fn match_rows(&self, problem: &Problem, strict: bool) -> Result<Matched, MatchError> {
        let w = problem.workload();
        let c = problem.cluster();
        let n = problem.n_tasks();
        let mut by_name: Option<HashMap<(&str, &str), TaskId>> = None;
        let wf_ids = self
            .by_wf_id
            .then(|| worl_dag::formats::wfcommons::task_ids(w));
        let by_wf_id: Option<HashMap<&str, TaskId>> = wf_ids.as_ref().map(|ids| {
            ids.iter()
                .enumerate()
                .map(|(i, id)| (id.as_str(), TaskId::new(i)))
                .collect()
        });
        let mut machines: Option<HashMap<&str, MachineId>> = None;
        let mut m = Matched {
            entries: vec![None; n],
            count: vec![0; n],
            unknown_gpu: Vec::new(),
        };
        for (i, r) in self.rows.iter().enumerate() {
            let found = if self.by_wf_id {
                r.task.clone()
            } else {
                format!("{}/{}", r.job, r.task)
            };
            let unknown = || MatchError::UnknownTask {
                at: self.row_ref(i),
                task: found.clone(),
                id: r.task_id,
                workload: w.name().to_owned(),
            };
            // The task.
            let v = match r.task_id {
                Some(id) => {
                    if id >= n {
                        return Err(unknown());
                    }
                    let v = TaskId::new(id);
                    let t = w.graph().task(v);
                    if t.name != r.task || w.job(t.job).name != r.job {
                        return Err(MatchError::TaskMismatch {
                            at: self.row_ref(i),
                            id,
                            expected: problem.task_label(v),
                            found,
                            workload: w.name().to_owned(),
                        });
                    }
                    v
                }
                None if self.by_wf_id => *by_wf_id
                    .as_ref()
                    .and_then(|map| map.get(r.task.as_str()))
                    .ok_or_else(unknown)?,
                None => {
                    let map = by_name.get_or_insert_with(|| {
                        w.graph()
                            .tasks()
                            .map(|(id, t)| ((w.job(t.job).name.as_str(), t.name.as_str()), id))
                            .collect()
                    });
                    *map.get(&(r.job.as_str(), r.task.as_str()))
                        .ok_or_else(unknown)?
                }
            };
            m.count[v.index()] += 1;
            if let Some((first, _)) = m.entries[v.index()] {
                if strict {
                    return Err(MatchError::DuplicateTask {
                        at: self.row_ref(i),
                        task: problem.task_label(v),
                        first_row: first + 1,
                    });
                }
                continue;
            }
            // The GPU.
            let gpu = match r.gpu_id {
                Some(k) if k >= problem.n_gpus() => {
                    if strict || k > MAX_ID {
                        return Err(MatchError::UnknownGpu {
                            at: self.row_ref(i),
                            gpu: format!("g{k}"),
                            cluster: c.name().to_owned(),
                        });
                    }
                    m.unknown_gpu.push((v, k));
                    None
                }
                Some(k) => {
                    let id = GpuId::new(k);
                    let g = c.gpu(id);
                    let machine = &c.machines()[g.machine.index()];
                    let index = c.gpus_of(g.machine).iter().position(|&x| x == id);
                    let bad = (!r.machine.is_empty() && r.machine != *machine)
                        || (r.gpu_index.is_some() && r.gpu_index != index)
                        || (!r.model.is_empty() && r.model != g.model);
                    if bad {
                        return Err(MatchError::GpuMismatch {
                            at: self.row_ref(i),
                            id: k,
                            expected: gpu_words(machine, index, &g.model),
                            found: gpu_words(&r.machine, r.gpu_index, &r.model),
                            cluster: c.name().to_owned(),
                        });
                    }
                    Some(id)
                }
                None => {
                    let (Some(index), false) = (r.gpu_index, r.machine.is_empty()) else {
                        return Err(MatchError::NoGpu {
                            at: self.row_ref(i),
                        });
                    };
                    let map = machines.get_or_insert_with(|| {
                        let mut map = HashMap::new();
                        for (j, name) in c.machines().iter().enumerate() {
                            map.entry(name.as_str()).or_insert(MachineId::new(j));
                        }
                        map
                    });
                    let id = map
                        .get(r.machine.as_str())
                        .and_then(|&mid| c.gpus_of(mid).get(index).copied())
                        .ok_or_else(|| MatchError::UnknownGpu {
                            at: self.row_ref(i),
                            gpu: gpu_words(&r.machine, Some(index), ""),
                            cluster: c.name().to_owned(),
                        })?;
                    let model = &c.gpu(id).model;
                    if !r.model.is_empty() && r.model != *model {
                        return Err(MatchError::GpuMismatch {
                            at: self.row_ref(i),
                            id: id.index(),
                            expected: gpu_words(&r.machine, Some(index), model),
                            found: gpu_words(&r.machine, Some(index), &r.model),
                            cluster: c.name().to_owned(),
                        });
                    }
                    Some(id)
                }
            };
            let st = ScheduledTask {
                gpu: gpu.unwrap_or(GpuId::new(0)),
                start: if gpu.is_some() { r.start } else { 0.0 },
                finish: if gpu.is_some() { r.finish } else { 0.0 },
            };
            m.entries[v.index()] = Some((i, st));
        }
        Ok(m)
    }
}

const HEADER_KEYS: [&str; 9] = [
    "format",
    "version",
    "workload",
    "cluster",
    "scheduler",
    "options",
    "seed",
    "makespan",
    "lower_bound",
];

/// A header value as written in a `# key: value` line: as is, or as a JSON string where
/// reading it back as is would change it.
fn header_value(v: &str) -> String {
    if v.trim() != v || v.starts_with('"') || v.chars().any(char::is_control) {
        serde_json::to_string(v).expect("a string serialises")
    } else {
        v.to_owned()
    }
}

fn check_format(format: &str, version: u32, origin: &str, line: usize) -> Result<()> {
    if format != SCHEDULE_FORMAT {
        return Err(parse_err(
            origin,
            line,
            format!("format `{format}` is not `{SCHEDULE_FORMAT}`"),
        ));
    }
    if version == 0 || version > SCHEDULE_VERSION {
        return Err(parse_err(
            origin,
            line,
            format!(
                "version {version} is not supported (this reader knows 1 to {SCHEDULE_VERSION})"
            ),
        ));
    }
    Ok(())
}

fn csv_err(origin: &str, offset: usize, e: &csv::Error) -> ClusterError {
    let line = e.position().map_or(0, |p| offset + p.line() as usize);
    parse_err(origin, line, e.to_string())
}

enum Kind {
    Json,
    Csv,
}

impl Kind {
    fn of(path: &Path) -> Result<Self> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("json") => Ok(Self::Json),
            Some("csv") => Ok(Self::Csv),
            _ => Err(ClusterError::InvalidParameter {
                name: "path",
                reason: format!(
                    "`{}`: a schedule file ends in `.json` or `.csv`",
                    path.display()
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_json_given_as_a_schedule_is_named_a_workload_file() {
        let workload = r#"{"format": "worl-workload", "version": 1, "name": "chain",
            "jobs": [{"name": "j", "tasks": [{"name": "a", "work": 1.0}]}]}"#;
        let e = ScheduleFile::from_json_str(workload).unwrap_err();
        assert!(matches!(e, ClusterError::NotAScheduleFile { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.starts_with("not a schedule file: <memory>: a worl workload file")
                && !e.contains("unknown field"),
            "{e}"
        );
        for (text, what) in [
            (r#"{"name": "w", "jobs": []}"#, "a workload (`jobs`)"),
            (
                r#"{"name": "c", "machines": 2}"#,
                "a cluster file (`machines`)",
            ),
            (
                r#"{"task_graph": {}}"#,
                "a saga / dag-bench problem instance",
            ),
        ] {
            let e = ScheduleFile::from_json_str(text).unwrap_err().to_string();
            assert!(e.contains(what), "{text}: {e}");
        }
    }

    #[test]
    fn a_10_mb_value_is_clipped_in_schedule_file_errors() {
        let big = "9".repeat(10 << 20);
        let csv = format!("task,job,start,finish\na,j,0,{big}x\n");
        let e = ScheduleFile::from_csv_str(&csv).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "<memory>:2: column `finish`: `{}… ({} bytes)` is not a number",
                "9".repeat(80),
                big.len() + 1
            )
        );
        // serde's messages too: a string where a number belongs, an unknown field
        let json =
            format!(r#"{{"rows": [{{"task": "a", "job": "j", "start": 0, "finish": "{big}"}}]}}"#);
        let e = ScheduleFile::from_json_str(&json).unwrap_err().to_string();
        assert!(
            e.len() < 300 && e.contains("… (10485760 bytes)"),
            "{}",
            &e[..300.min(e.len())]
        );
        let json = format!(r#"{{"rows": [], "{big}": 1}}"#);
        let e = ScheduleFile::from_json_str(&json).unwrap_err().to_string();
        assert!(
            e.len() < 400 && e.contains("unknown field `9999"),
            "{}",
            &e[..400.min(e.len())]
        );
        // names in match errors
        let header = format!("# cluster: {big}\ntask,job,start,finish\n");
        assert!(ScheduleFile::from_csv_str(&header).is_ok());
    }
}
