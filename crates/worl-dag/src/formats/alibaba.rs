//! Loader of the Alibaba cluster-trace-v2018 `batch_task.csv` table.
//!
//! Rows have no header: `task_name, instance_num, job_name, task_type, status, start_time,
//! end_time, plan_cpu, plan_mem` (alibaba/clusterdata `cluster-trace-v2018/schema.md`;
//! times in seconds from the trace start, 0 = outside the 8-day window).
//!
//! **DAG encoding.** A name like `M1`, `R2_1` or `J5_3_4` is a DAG task: the letters carry no
//! meaning, the first number is the task's id in its job, and each further `_k` means "depends
//! on task k of the same job". Any other name (`task_<base64>`, `MergeTask`) is an
//! independent task.
//!
//! **Work.** By default `work = (end_time - start_time) · work_scale` reference GPU-seconds
//! (`work_scale` 1.0: a trace second is taken as a second on the reference GPU);
//! `instance_num` (how many instances of the task ran in parallel) is ignored unless
//! [`WorkModel::DurationTimesInstances`] is chosen, which multiplies by it (total
//! instance-seconds). `plan_mem` becomes a memory need only with
//! [`AlibabaOptions::mem_gib_per_plan_mem`].
//!
//! **Edge bytes.** The trace has no data sizes: they are drawn, seeded, so that the workload's
//! CCR at the chosen bandwidth is the `ccr` option (default 1.0 at
//! [`REFERENCE_BANDWIDTH`]; see [`crate::ccr`]); `ccr(0.0)` gives edges without data.
//!
//! **Releases.** Each kept job's release ([`Job::release`](crate::Job::release), its arrival
//! time for the simulator) is its earliest task `start_time` minus the earliest `start_time`
//! of all kept jobs, in seconds: the first job is released at 0 and the workload keeps the
//! trace's arrival pattern. `batch_task` has no submission time; a job's first task start is
//! the closest the table gives (the same proxy as [`AlibabaOptions::submit_window`]). A job
//! with a task without a start time is dropped ([`Reason::MissingTime`]), so every kept job
//! has one; filters and `max_jobs` apply before the shift, so the first kept job is at 0.
//!
//! **Defects** (each reported in the [`LoadReport`] with the offending items, see
//! [`Reason`]):
//! * names cut at the trace's 50-character limit ([`NAME_LIMIT`]): the last token is
//!   unreliable (`..._18_1` for `..._18_19`; `M5_..._100_1` of job `j_1053726` is what
//!   makes a cycle with `R1_5`), so it is ignored ([`Reason::TruncatedName`]);
//! * dependency tokens that are no task id (`Stg<k>` pseudo-tasks: `J10_7_9_Stg4`) or ids
//!   absent from the job are ignored ([`Reason::PseudoTaskDependency`],
//!   [`Reason::MissingDependency`]); a repeated dependency is kept once;
//! * a job whose dependencies still form a cycle is dropped whole ([`Reason::Cycle`]): the
//!   true dependencies are unknown, and a broken cycle would be a guess;
//! * a task with `start_time` or `end_time` 0 or empty (outside the trace window; Waiting or
//!   Running rows) or ending before it starts drops its job ([`Reason::MissingTime`],
//!   [`Reason::NegativeDuration`]): its run time is unknown; `end_time == start_time` uses
//!   `min_duration` ([`Reason::ZeroDuration`]);
//! * a repeated task name in a job keeps its first row ([`Reason::DuplicateTask`]); two
//!   tasks with one id drop the job ([`Reason::DuplicateTaskId`]);
//! * empty `plan_cpu`/`plan_mem` are noted ([`Reason::EmptyPlanFields`]).
//!
//! Per-task repairs are reported for the jobs kept, one item per task and reason: the item
//! lists the task's ignored dependency tokens and counts each ([`LoadReport::count`]), so a
//! name is copied once per reason, not once per token. A dropped job is reported once, under
//! the reason that dropped it. Rows with the wrong number of fields, a non-numeric number or an
//! empty task or job name are [`DagError::Parse`] errors naming the line.
//!
//! ```
//! use worl_dag::formats::alibaba::{read, AlibabaOptions};
//! use worl_dag::formats::Reason;
//! let rows = "M1,1,j_7,1,Terminated,100,160,100,0.3\n\
//!             R2_1,1,j_7,1,Terminated,160,170,100,0.3\n\
//!             J3_1_Stg4,1,j_7,1,Terminated,160,160,100,0.3\n\
//!             task_abc,,j_8,6,Waiting,0,0,,\n";
//! let (w, report) = read(rows.as_bytes(), "head.csv", &AlibabaOptions::default())?;
//! assert_eq!((w.graph().n_tasks(), w.graph().n_edges(), w.n_jobs()), (3, 2, 1));
//! assert_eq!(report.count(Reason::PseudoTaskDependency), 1); // `Stg4`
//! assert_eq!(report.count(Reason::ZeroDuration), 1); // J3 lasted 0 s -> 1 s
//! assert_eq!(report.items(Reason::MissingTime), ["j_8 (1 rows): task_abc (line 4) start_time 0 end_time 0"]);
//! # Ok::<(), worl_dag::DagError>(())
//! ```

use crate::ccr::{REFERENCE_BANDWIDTH, assign_ccr_bytes};
use crate::error::{DagError, Result, num};
use crate::formats::report::{LoadReport, Reason};
use crate::formats::{CsvTrace, csv_table, in_file, open, openb, pai, source_name};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::Read;
use std::path::Path;

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "alibaba-v2018";

/// How a task's work is derived from its row.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum WorkModel {
    /// `work = duration · work_scale` (default): the task's wall-clock time, its instances
    /// running in parallel.
    #[default]
    Duration,
    /// `work = duration · instance_num · work_scale`: total instance-seconds, as if the
    /// instances ran one after another on one GPU.
    DurationTimesInstances,
}

/// Options of the Alibaba loader, built with chained setters from
/// [`AlibabaOptions::default`]. Every field is public and documented with its default.
///
/// ```
/// use worl_dag::formats::alibaba::AlibabaOptions;
/// let opts = AlibabaOptions::default().only_terminated().task_range(2, 100).first_jobs(50);
/// assert_eq!(opts.max_jobs, Some(50));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlibabaOptions {
    /// Only these jobs (by `job_name`), if set. Default: all.
    pub job_names: Option<Vec<String>>,
    /// At most this many jobs: the first ones in file order that pass the other filters and
    /// are not dropped for defects. Default: no limit.
    pub max_jobs: Option<usize>,
    /// Jobs with fewer tasks (distinct names) are filtered out. Default 1.
    pub min_tasks: usize,
    /// Jobs with more tasks are filtered out. Default `usize::MAX`.
    pub max_tasks: usize,
    /// Accepted task statuses (`Terminated`, `Failed`, `Running`, `Waiting`, ...): a job is
    /// kept only if every task's status is one of them. Default: all.
    pub statuses: Option<Vec<String>>,
    /// Only jobs submitted in `[start, end)` seconds, the submission time being the job's
    /// earliest positive `start_time`. Default: all.
    pub submit_window: Option<(f64, f64)>,
    /// How work is derived. Default [`WorkModel::Duration`].
    pub work_model: WorkModel,
    /// Reference GPU-seconds per trace second. Default 1.0.
    pub work_scale: f64,
    /// Duration (trace seconds) used for a task with `end_time == start_time` (the trace has
    /// a 1 s resolution). Default 1.0.
    pub min_duration: f64,
    /// GiB of GPU memory per unit of `plan_mem` (normalised 0-100), if set; an empty or zero
    /// `plan_mem` then gives no memory need. Default: none (no memory needs).
    pub mem_gib_per_plan_mem: Option<f64>,
    /// Target CCR of the edge bytes drawn ([`crate::ccr`]). Default 1.0.
    pub ccr: f64,
    /// Bandwidth of the CCR, bytes/s. Default [`REFERENCE_BANDWIDTH`].
    pub bandwidth: f64,
    /// Seed of the edge-byte draw. Default 0.
    pub seed: u64,
}

impl Default for AlibabaOptions {
    fn default() -> Self {
        Self {
            job_names: None,
            max_jobs: None,
            min_tasks: 1,
            max_tasks: usize::MAX,
            statuses: None,
            submit_window: None,
            work_model: WorkModel::Duration,
            work_scale: 1.0,
            min_duration: 1.0,
            mem_gib_per_plan_mem: None,
            ccr: 1.0,
            bandwidth: REFERENCE_BANDWIDTH,
            seed: 0,
        }
    }
}

impl AlibabaOptions {
    /// Only the jobs named (e.g. `["j_3", "j_8"]`).
    pub fn jobs<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.job_names = Some(names.into_iter().map(Into::into).collect());
        self
    }
    /// At most `n` jobs (see [`max_jobs`](Self::max_jobs)).
    pub fn first_jobs(mut self, n: usize) -> Self {
        self.max_jobs = Some(n);
        self
    }
    /// Only jobs with `min..=max` tasks.
    pub fn task_range(mut self, min: usize, max: usize) -> Self {
        self.min_tasks = min;
        self.max_tasks = max;
        self
    }
    /// Only jobs whose tasks all have one of these statuses.
    pub fn statuses<S: Into<String>>(mut self, statuses: impl IntoIterator<Item = S>) -> Self {
        self.statuses = Some(statuses.into_iter().map(Into::into).collect());
        self
    }
    /// Only jobs whose tasks all finished (`Terminated`).
    pub fn only_terminated(self) -> Self {
        self.statuses(["Terminated"])
    }
    /// Only jobs submitted in `[start, end)` trace seconds.
    pub fn submit_window(mut self, start: f64, end: f64) -> Self {
        self.submit_window = Some((start, end));
        self
    }
    /// How work is derived.
    pub fn work_model(mut self, model: WorkModel) -> Self {
        self.work_model = model;
        self
    }
    /// Reference GPU-seconds per trace second.
    pub fn work_scale(mut self, scale: f64) -> Self {
        self.work_scale = scale;
        self
    }
    /// Duration used for zero-duration tasks, trace seconds.
    pub fn min_duration(mut self, seconds: f64) -> Self {
        self.min_duration = seconds;
        self
    }
    /// GiB of GPU memory per unit of `plan_mem`.
    pub fn mem_gib_per_plan_mem(mut self, gib: f64) -> Self {
        self.mem_gib_per_plan_mem = Some(gib);
        self
    }
    /// Target CCR of the drawn edge bytes.
    pub fn ccr(mut self, ccr: f64) -> Self {
        self.ccr = ccr;
        self
    }
    /// Bandwidth of the CCR, bytes/s.
    pub fn bandwidth(mut self, bytes_per_s: f64) -> Self {
        self.bandwidth = bytes_per_s;
        self
    }
    /// Seed of the edge-byte draw.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    fn validate(&self) -> Result<()> {
        let bad = |name, reason: String| Err(DagError::InvalidParameter { name, reason });
        if !(self.work_scale.is_finite() && self.work_scale > 0.0) {
            return bad(
                "work_scale",
                format!("{} is not finite and > 0", self.work_scale),
            );
        }
        if !(self.min_duration.is_finite() && self.min_duration >= 0.0) {
            return bad(
                "min_duration",
                format!("{} is not finite and >= 0", self.min_duration),
            );
        }
        if self.min_tasks > self.max_tasks {
            return bad(
                "min_tasks",
                format!("{} exceeds max_tasks {}", self.min_tasks, self.max_tasks),
            );
        }
        if let Some(g) = self.mem_gib_per_plan_mem
            && !(g.is_finite() && g > 0.0)
        {
            return bad("mem_gib_per_plan_mem", format!("{g} is not finite and > 0"));
        }
        if let Some((a, b)) = self.submit_window
            && (a.is_nan() || b.is_nan() || a >= b)
        {
            return bad("submit_window", format!("[{a}, {b}) is empty"));
        }
        Ok(())
    }
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, opts: &AlibabaOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), opts)
}

/// Loads CSV rows from any reader; `source` names the input in errors, in the report and (its
/// file stem) as the workload's name.
///
/// A file whose first line is the header of an Alibaba GPU trace ([`CsvTrace`]) is read by
/// that trace's loader, [`openb::read`] or [`pai::read`], with `opts.work_scale` and their
/// other defaults: the v2018 options that select jobs or draw edge bytes do not apply to
/// them, and asking for any (options other than the defaults, `work_scale` aside) is
/// [`DagError::InvalidParameter`] (`options`).
///
/// Errors: [`DagError::InvalidParameter`] for bad options; [`DagError::Parse`] naming the
/// line for a row without 9 fields, an empty task or job name, a number that does not parse
/// or is not finite, or invalid UTF-8, and naming the line and `job/task` of a row whose work
/// or memory need overflows, or whose work makes the workload's total work or edge bytes
/// overflow (the largest work is blamed); [`DagError::Empty`] if no job is left.
pub fn read(
    mut reader: impl Read,
    source: &str,
    opts: &AlibabaOptions,
) -> Result<(Workload, LoadReport)> {
    opts.validate()?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|e| DagError::Io {
        path: source.into(),
        source: e,
    })?;
    let head = &bytes[..bytes.len().min(1 << 16)];
    let head = String::from_utf8_lossy(head);
    let kind = CsvTrace::of_first_line(crate::formats::csv_table::first_line(&head));
    if kind != CsvTrace::BatchTask {
        // A GPU trace: read by its own loader (so that a caller of this reader, e.g. one
        // that picked it by the `.csv` extension, reads every Alibaba CSV trace).
        let selection = AlibabaOptions {
            work_scale: 1.0,
            ..opts.clone()
        };
        if selection != AlibabaOptions::default() {
            return Err(DagError::InvalidParameter {
                name: "options",
                reason: format!(
                    "{source} is an Alibaba GPU trace ({}): only work_scale of the v2018 \
                     batch_task options applies to it; use formats::{} for its own",
                    if kind == CsvTrace::OpenbPods {
                        openb::FORMAT
                    } else {
                        pai::FORMAT
                    },
                    if kind == CsvTrace::OpenbPods {
                        "openb"
                    } else {
                        "pai"
                    }
                ),
            });
        }
        return match kind {
            CsvTrace::OpenbPods => openb::read(
                &bytes[..],
                source,
                &openb::OpenbOptions {
                    work_scale: opts.work_scale,
                },
            ),
            _ => pai::read(
                &bytes[..],
                source,
                &pai::PaiOptions {
                    work_scale: opts.work_scale,
                    ..Default::default()
                },
            ),
        };
    }
    let table = Table::parse(&bytes, source)?;
    let mut report = LoadReport::new(source, FORMAT);
    report.records = table.rows.len();
    let mut builder = WorkloadBuilder::new(source_name(source));
    let mut scratch = JobScratch::default();
    let job_filter: Option<std::collections::HashSet<&str>> = opts
        .job_names
        .as_ref()
        .map(|v| v.iter().map(String::as_str).collect());
    let status_ok: Vec<bool> = table
        .statuses
        .iter()
        .map(|s| opts.statuses.as_ref().is_none_or(|acc| acc.contains(s)))
        .collect();
    let mut kept_jobs = 0usize;
    // (job, earliest start_time) of the kept jobs, for their releases.
    let mut first_starts: Vec<(crate::ids::JobId, f64)> = Vec::new();
    let mut biggest: Option<Biggest> = None;
    for (j, job_name) in table.job_names.iter().enumerate() {
        let rows = &table.order[table.job_start[j]..table.job_start[j + 1]];
        let filtered = |reason, report: &mut LoadReport, detail: String| {
            report.add(reason, format!("{job_name} ({} rows){detail}", rows.len()));
            report.records_skipped += rows.len();
        };
        if opts.max_jobs.is_some_and(|m| kept_jobs >= m) {
            filtered(Reason::FilteredJobLimit, &mut report, String::new());
            continue;
        }
        if job_filter
            .as_ref()
            .is_some_and(|f| !f.contains(job_name.as_str()))
        {
            filtered(Reason::FilteredJobName, &mut report, String::new());
            continue;
        }
        if let Some((a, b)) = opts.submit_window {
            let submit = rows
                .iter()
                .filter_map(|&r| table.rows[r].start.filter(|&s| s > 0.0))
                .fold(f64::INFINITY, f64::min);
            if !(submit >= a && submit < b) {
                filtered(
                    Reason::FilteredSubmitTime,
                    &mut report,
                    format!(": submitted at {submit}"),
                );
                continue;
            }
        }
        if let Some(&r) = rows.iter().find(|&&r| !status_ok[table.rows[r].status]) {
            let row = &table.rows[r];
            let detail = format!(": {} is {}", table.name(row), table.statuses[row.status]);
            filtered(Reason::FilteredStatus, &mut report, detail);
            continue;
        }
        // Duplicate names: keep the first row.
        scratch.rows.clear();
        scratch.names.clear();
        let small = rows.len() <= SMALL_JOB;
        for &r in rows {
            let row = &table.rows[r];
            let name = table.name(row);
            let first = if small {
                !scratch
                    .rows
                    .iter()
                    .any(|&k| table.name(&table.rows[k]) == name)
            } else {
                scratch.names.insert(name)
            };
            if first {
                scratch.rows.push(r);
            } else {
                report.skip(
                    Reason::DuplicateTask,
                    format!("{job_name}/{} (line {})", table.name(row), row.line),
                );
            }
        }
        let n = scratch.rows.len();
        if n < opts.min_tasks || n > opts.max_tasks {
            report.add(Reason::FilteredSize, format!("{job_name} ({n} tasks)"));
            report.records_skipped += n;
            continue;
        }
        match check_job(&table, job_name, &mut scratch) {
            Err((reason, detail)) => {
                report.add(reason, format!("{job_name} ({n} rows): {detail}"));
                report.records_skipped += n;
            }
            Ok(()) => {
                // check_job refused every start_time <= 0 or empty: the minimum is finite.
                let first_start = scratch
                    .rows
                    .iter()
                    .filter_map(|&r| table.rows[r].start)
                    .fold(f64::INFINITY, f64::min);
                add_job(
                    &table,
                    job_name,
                    &mut scratch,
                    opts,
                    &mut builder,
                    &mut report,
                    &mut biggest,
                )?;
                kept_jobs += 1;
                if let Some(id) = builder.job_id(job_name) {
                    first_starts.push((id, first_start));
                }
            }
        }
    }
    // The edge bytes are drawn from the mean work: a work so large that the total work or
    // the total bytes overflow is the fault of that task's row, not of the edge that would
    // get an infinite size.
    let total_work: f64 = builder.tasks().iter().map(|t| t.work).sum();
    let n_edges = builder.edges().len();
    let mean_work = total_work / builder.tasks().len().max(1) as f64;
    let total_bytes = opts.ccr * opts.bandwidth * n_edges as f64 * mean_work;
    if let Some(big) = &biggest
        && !(total_work.is_finite() && (n_edges == 0 || total_bytes.is_finite()))
    {
        let what = if total_work.is_finite() {
            format!(
                "the edge bytes for CCR {} at {} bytes/s overflow",
                num(opts.ccr),
                num(opts.bandwidth)
            )
        } else {
            "the workload's total work overflows".into()
        };
        return Err(DagError::Parse {
            file: source.to_owned(),
            line: big.line as usize,
            message: format!(
                "task `{}`: work {} reference GPU-seconds (start_time {}, end_time {}) is too \
                 large: {what}",
                big.task,
                num(big.work),
                num(big.start),
                num(big.end)
            ),
        });
    }
    let t0 = first_starts
        .iter()
        .map(|&(_, s)| s)
        .fold(f64::INFINITY, f64::min);
    for &(job, start) in &first_starts {
        builder
            .set_release(job, start - t0)
            .map_err(|e| DagError::Parse {
                file: source.to_owned(),
                line: 0,
                message: e.to_string(),
            })?;
    }
    assign_ccr_bytes(&mut builder, opts.ccr, opts.bandwidth, opts.seed)?;
    Ok((builder.build().map_err(in_file(source))?, report))
}

/// The kept task of largest work, blamed when sums over the workload overflow.
struct Biggest {
    work: f64,
    line: u64,
    /// `job/task`.
    task: String,
    start: f64,
    end: f64,
}

/// One parsed row.
struct Row {
    line: u64,
    /// The task name: `Table::names[name.0..name.1]`.
    name: (u32, u32),
    instances: Option<f64>,
    status: usize,
    start: Option<f64>,
    end: Option<f64>,
    plan_empty: bool,
    plan_mem: Option<f64>,
}

/// All rows, grouped by job in order of first appearance.
struct Table {
    rows: Vec<Row>,
    /// All task names, concatenated.
    names: String,
    job_names: Vec<String>,
    /// Row indices grouped by job: job `j` owns `order[job_start[j]..job_start[j + 1]]`,
    /// in file order.
    order: Vec<usize>,
    job_start: Vec<usize>,
    statuses: Vec<String>,
}

fn number(text: &str, what: &str, line: u64, source: &str) -> Result<Option<f64>> {
    if text.is_empty() {
        return Ok(None);
    }
    if let Ok(v) = text.parse::<i64>() {
        return Ok(Some(v as f64));
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(DagError::Parse {
            file: source.to_owned(),
            line: line as usize,
            message: format!("{what} `{text}` is not a finite number"),
        }),
    }
}

impl Table {
    fn name(&self, row: &Row) -> &str {
        &self.names[row.name.0 as usize..row.name.1 as usize]
    }

    /// Parses the rows of `bytes` (the whole input).
    fn parse(bytes: &[u8], source: &str) -> Result<Self> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes);
        let mut rec = csv::StringRecord::new();
        let mut lines = csv_table::LineCounter::new();
        // Trace rows are about 45 bytes, 5 of them the task name.
        let mut rows = Vec::with_capacity(bytes.len() / 40);
        let mut row_job = Vec::with_capacity(bytes.len() / 40);
        let mut job_names: Vec<String> = Vec::new();
        let mut job_index: HashMap<String, usize> = HashMap::new();
        let mut statuses: Vec<String> = Vec::new();
        let mut status_index: HashMap<String, usize> = HashMap::new();
        let mut names = String::with_capacity(bytes.len() / 6);
        let mut last_job = usize::MAX;
        loop {
            let more = rdr.read_record(&mut rec).map_err(|e| DagError::Parse {
                file: source.to_owned(),
                line: e.position().map_or(0, |p| lines.at(bytes, p.byte())),
                message: e.to_string(),
            })?;
            if !more {
                break;
            }
            // (The CSV reader's own line count passes over blank lines.)
            let line = rec
                .position()
                .map_or(0, |p| lines.at(bytes, p.byte()) as u64);
            if rec.len() == 1 && rec[0].is_empty() {
                continue; // blank line
            }
            if rec.len() != 9 {
                return Err(DagError::Parse {
                    file: source.to_owned(),
                    line: line as usize,
                    message: format!(
                        "{} fields, expected 9 (task_name,instance_num,job_name,task_type,\
                         status,start_time,end_time,plan_cpu,plan_mem)",
                        rec.len()
                    ),
                });
            }
            let name = &rec[0];
            let job = &rec[2];
            if name.is_empty() || job.is_empty() {
                return Err(DagError::Parse {
                    file: source.to_owned(),
                    line: line as usize,
                    message: "empty task_name or job_name".into(),
                });
            }
            let instances = number(&rec[1], "instance_num", line, source)?;
            if instances.is_some_and(|v| v < 0.0) {
                return Err(DagError::Parse {
                    file: source.to_owned(),
                    line: line as usize,
                    message: format!("task `{name}`: negative instance_num"),
                });
            }
            let status = &rec[4];
            let start = number(&rec[5], "start_time", line, source)?;
            let end = number(&rec[6], "end_time", line, source)?;
            let plan_cpu = number(&rec[7], "plan_cpu", line, source)?;
            let plan_mem = number(&rec[8], "plan_mem", line, source)?;
            // Few distinct statuses in the trace: try the first ones before hashing (a file
            // of distinct statuses stays linear).
            let status = match statuses.iter().take(4).position(|s| s == status) {
                Some(i) => i,
                None => match status_index.get(status) {
                    Some(&i) => i,
                    None => {
                        statuses.push(status.to_owned());
                        status_index.insert(status.to_owned(), statuses.len() - 1);
                        statuses.len() - 1
                    }
                },
            };
            // Rows of a job are usually consecutive: try the last job before hashing.
            let j = if job_names.get(last_job).is_some_and(|n| n == job) {
                last_job
            } else {
                match job_index.get(job) {
                    Some(&j) => j,
                    None => {
                        job_names.push(job.to_owned());
                        job_index.insert(job.to_owned(), job_names.len() - 1);
                        job_names.len() - 1
                    }
                }
            };
            last_job = j;
            let name_start = names.len();
            names.push_str(name);
            if names.len() > u32::MAX as usize {
                return Err(DagError::Parse {
                    file: source.to_owned(),
                    line: line as usize,
                    message: "more than 4 GiB of task names".into(),
                });
            }
            row_job.push(j);
            rows.push(Row {
                line,
                name: (name_start as u32, names.len() as u32),
                instances,
                status,
                start,
                end,
                plan_empty: plan_cpu.is_none() || plan_mem.is_none(),
                plan_mem,
            });
        }
        // Counting sort of rows by job, stable (file order inside a job).
        let mut job_start = vec![0usize; job_names.len() + 1];
        for &j in &row_job {
            job_start[j + 1] += 1;
        }
        for j in 0..job_names.len() {
            job_start[j + 1] += job_start[j];
        }
        let mut fill = job_start.clone();
        let mut order = vec![0usize; rows.len()];
        for (r, &j) in row_job.iter().enumerate() {
            order[fill[j]] = r;
            fill[j] += 1;
        }
        Ok(Self {
            rows,
            names,
            job_names,
            order,
            job_start,
            statuses,
        })
    }
}

/// Length limit of `task_name` in the trace: longer names were cut to it.
pub const NAME_LIMIT: usize = 50;

/// A dependency token of a DAG task name, after the task's own id.
enum Dep {
    Id(u64),
    Pseudo,
}

/// A DAG task name split into its id, its dependency tokens, and the last token of a name
/// cut at [`NAME_LIMIT`] characters (unreliable, so not used).
struct DagName<'a> {
    id: u64,
    deps: &'a str,
    cut: Option<&'a str>,
}

impl<'a> DagName<'a> {
    /// `None` for an independent task (a name whose first token is not letters + digits).
    fn parse(name: &'a str) -> Option<Self> {
        let (head, rest) = match name.split_once('_') {
            Some((h, r)) => (h, Some(r)),
            None => (name, None),
        };
        let digits_at = head.find(|c: char| c.is_ascii_digit())?;
        let (letters, digits) = head.split_at(digits_at);
        if letters.is_empty()
            || !letters.bytes().all(|b| b.is_ascii_alphabetic())
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let id = digits.parse::<u64>().ok()?;
        let (deps, cut) = match rest {
            None => ("", None),
            Some(r) if name.len() >= NAME_LIMIT => match r.rsplit_once('_') {
                Some((a, b)) => (a, Some(b)),
                None => ("", Some(r)),
            },
            Some(r) => (r, None),
        };
        Some(Self { id, deps, cut })
    }

    fn deps(&self) -> impl Iterator<Item = (&'a str, Dep)> + use<'a> {
        let deps = self.deps;
        deps.split('_').filter(move |_| !deps.is_empty()).map(|t| {
            let dep = if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse::<u64>().map_or(Dep::Pseudo, Dep::Id)
            } else {
                Dep::Pseudo
            };
            (t, dep)
        })
    }
}

/// Tokens of one task name met under one repair reason: `text` lists them, `, `-separated.
#[derive(Default)]
struct Tokens {
    text: String,
    n: usize,
}

impl Tokens {
    fn clear(&mut self) {
        self.text.clear();
        self.n = 0;
    }

    fn push(&mut self, token: std::fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        if self.n > 0 {
            self.text.push_str(", ");
        }
        let _ = self.text.write_fmt(token);
        self.n += 1;
    }
}

/// Jobs up to this many rows are checked for repeated names and ids by linear scans
/// instead of hashing (faster for the small jobs that dominate the trace).
const SMALL_JOB: usize = 32;

/// Reusable per-job buffers.
#[derive(Default)]
struct JobScratch<'t> {
    /// Kept rows (indices into `Table::rows`), file order.
    rows: Vec<usize>,
    names: std::collections::HashSet<&'t str>,
    /// Task id -> position in `rows` (large jobs).
    ids: HashMap<u64, usize>,
    /// (task id, position in `rows`) (small jobs).
    id_list: Vec<(u64, usize)>,
    /// Edges as positions in `rows`.
    edges: Vec<(usize, usize)>,
    /// `parent_of[p] == pos + 1` once row `p` is a parent of row `pos` (finds a repeated
    /// dependency of one name in O(1), however many tokens the name has).
    parent_of: Vec<usize>,
    /// Repairs to report if the job is kept: one item per task and reason, with the number
    /// of occurrences it stands for.
    repairs: Vec<(Reason, String, usize)>,
    indeg: Vec<u32>,
    queue: Vec<usize>,
    out_start: Vec<usize>,
    out_list: Vec<usize>,
}

/// Checks one job's times, ids, dependencies and acyclicity, filling `s.edges` and
/// `s.repairs`; `Err((reason, detail))` drops the job.
fn check_job<'t>(
    table: &'t Table,
    job: &str,
    s: &mut JobScratch<'t>,
) -> std::result::Result<(), (Reason, String)> {
    for &r in &s.rows {
        let row = &table.rows[r];
        let (st, en) = (row.start.unwrap_or(0.0), row.end.unwrap_or(0.0));
        if st <= 0.0 || en <= 0.0 {
            return Err((
                Reason::MissingTime,
                format!(
                    "{} (line {}) start_time {} end_time {}",
                    table.name(row),
                    row.line,
                    row.start.map_or("empty".into(), num),
                    row.end.map_or("empty".into(), num)
                ),
            ));
        }
        if en < st {
            return Err((
                Reason::NegativeDuration,
                format!(
                    "{} (line {}) ends at {} before start {}",
                    table.name(row),
                    row.line,
                    num(en),
                    num(st)
                ),
            ));
        }
    }
    s.ids.clear();
    s.id_list.clear();
    let small = s.rows.len() <= SMALL_JOB;
    for (pos, &r) in s.rows.iter().enumerate() {
        let row = &table.rows[r];
        if let Some(DagName { id, .. }) = DagName::parse(table.name(row)) {
            let clash = if small {
                match s.id_list.iter().find(|e| e.0 == id) {
                    Some(&(_, other)) => Some(other),
                    None => {
                        s.id_list.push((id, pos));
                        None
                    }
                }
            } else {
                match s.ids.entry(id) {
                    Entry::Occupied(e) => Some(*e.get()),
                    Entry::Vacant(e) => {
                        e.insert(pos);
                        None
                    }
                }
            };
            if let Some(other) = clash {
                let other = table.name(&table.rows[s.rows[other]]);
                return Err((
                    Reason::DuplicateTaskId,
                    format!("{other} and {} both have id {id}", table.name(row)),
                ));
            }
        }
    }
    s.edges.clear();
    s.repairs.clear();
    s.parent_of.clear();
    s.parent_of.resize(s.rows.len(), 0);
    // The tokens of one name met under each repair reason, listed in one item per reason
    // (the name is copied once per reason, not once per token).
    let mut pseudo = Tokens::default();
    let mut missing = Tokens::default();
    let mut repeated = Tokens::default();
    for (pos, &r) in s.rows.iter().enumerate() {
        let row = &table.rows[r];
        let Some(name) = DagName::parse(table.name(row)) else {
            continue;
        };
        let at = || format!("{job}/{} (line {})", table.name(row), row.line);
        if let Some(cut) = name.cut {
            s.repairs.push((
                Reason::TruncatedName,
                format!("{}: last token `{cut}` ignored", at()),
                1,
            ));
        }
        pseudo.clear();
        missing.clear();
        repeated.clear();
        for (token, dep) in name.deps() {
            match dep {
                Dep::Pseudo => pseudo.push(format_args!("`{token}`")),
                Dep::Id(k) if k == name.id => {
                    return Err((
                        Reason::Cycle,
                        format!("{} depends on itself", table.name(row)),
                    ));
                }
                Dep::Id(k) => match if small {
                    s.id_list.iter().find(|e| e.0 == k).map(|e| &e.1)
                } else {
                    s.ids.get(&k)
                } {
                    None => missing.push(format_args!("{k}")),
                    Some(&p) => {
                        if s.parent_of[p] == pos + 1 {
                            repeated.push(format_args!("{k}"));
                        } else {
                            s.parent_of[p] = pos + 1;
                            s.edges.push((p, pos));
                        }
                    }
                },
            }
        }
        for (reason, tokens, what) in [
            (Reason::PseudoTaskDependency, &pseudo, ""),
            (Reason::MissingDependency, &missing, "task"),
            (Reason::DuplicateDependency, &repeated, "task"),
        ] {
            if tokens.n > 0 {
                let plural = if tokens.n > 1 && !what.is_empty() {
                    "s"
                } else {
                    ""
                };
                let sep = if what.is_empty() { "" } else { " " };
                s.repairs.push((
                    reason,
                    format!("{}: {what}{plural}{sep}{}", at(), tokens.text),
                    tokens.n,
                ));
            }
        }
    }
    // Kahn's algorithm on the job; leftovers hold a cycle.
    let n = s.rows.len();
    s.indeg.clear();
    s.indeg.resize(n, 0);
    for &(_, v) in &s.edges {
        s.indeg[v] += 1;
    }
    s.queue.clear();
    s.queue.extend((0..n).filter(|&v| s.indeg[v] == 0));
    // Successor lists (CSR) of the job.
    s.out_start.clear();
    s.out_start.resize(n + 1, 0);
    for &(u, _) in &s.edges {
        s.out_start[u + 1] += 1;
    }
    for u in 0..n {
        s.out_start[u + 1] += s.out_start[u];
    }
    s.out_list.clear();
    s.out_list.resize(s.edges.len(), 0);
    let mut fill = s.out_start.clone();
    for &(u, v) in &s.edges {
        s.out_list[fill[u]] = v;
        fill[u] += 1;
    }
    let mut head = 0;
    while head < s.queue.len() {
        let u = s.queue[head];
        head += 1;
        for i in s.out_start[u]..s.out_start[u + 1] {
            let v = s.out_list[i];
            s.indeg[v] -= 1;
            if s.indeg[v] == 0 {
                s.queue.push(v);
            }
        }
    }
    if s.queue.len() < n {
        // Walk predecessors among the leftovers until a task repeats (predecessor lists as
        // CSR, so that a long cycle is found in linear time).
        let mut in_start = vec![0usize; n + 1];
        for &(_, v) in &s.edges {
            in_start[v + 1] += 1;
        }
        for v in 0..n {
            in_start[v + 1] += in_start[v];
        }
        let mut in_list = vec![0usize; s.edges.len()];
        let mut fill = in_start.clone();
        for &(u, v) in &s.edges {
            in_list[fill[v]] = u;
            fill[v] += 1;
        }
        let mut seen = vec![usize::MAX; n];
        let mut path = Vec::new();
        let mut v = (0..n).find(|&v| s.indeg[v] > 0).unwrap_or(0);
        while seen[v] == usize::MAX {
            seen[v] = path.len();
            path.push(v);
            match in_list[in_start[v]..in_start[v + 1]]
                .iter()
                .find(|&&a| s.indeg[a] > 0)
            {
                Some(&a) => v = a,
                None => break,
            }
        }
        let start = if seen[v] == usize::MAX { 0 } else { seen[v] };
        let mut cycle: Vec<&str> = path[start..]
            .iter()
            .rev()
            .map(|&p| table.name(&table.rows[s.rows[p]]))
            .collect();
        cycle.push(cycle[0]);
        return Err((Reason::Cycle, cycle.join(" -> ")));
    }
    Ok(())
}

/// Adds a checked job to the builder and commits its repairs to the report; `biggest` is
/// updated with the task of largest work.
///
/// Errors: [`DagError::Parse`] naming the line and `job/task` of a row whose work or memory
/// need overflows (or is otherwise rejected by the builder).
fn add_job(
    table: &Table,
    job: &str,
    s: &mut JobScratch<'_>,
    opts: &AlibabaOptions,
    builder: &mut WorkloadBuilder,
    report: &mut LoadReport,
    biggest: &mut Option<Biggest>,
) -> Result<()> {
    let j = builder.add_job(job).map_err(|e| DagError::Parse {
        file: report.source.clone(),
        line: s.rows.first().map_or(0, |&r| table.rows[r].line as usize),
        message: e.to_string(),
    })?;
    let base = builder.n_tasks();
    for &r in &s.rows {
        let row = &table.rows[r];
        let (st, en) = (row.start.unwrap_or(0.0), row.end.unwrap_or(0.0));
        let mut duration = en - st;
        if duration == 0.0 {
            duration = opts.min_duration;
            report.add(
                Reason::ZeroDuration,
                format!("{job}/{} (line {})", table.name(row), row.line),
            );
        }
        let mut work = duration * opts.work_scale;
        if opts.work_model == WorkModel::DurationTimesInstances {
            let k = row.instances.unwrap_or_else(|| {
                report.add(
                    Reason::EmptyInstanceNum,
                    format!("{job}/{} (line {})", table.name(row), row.line),
                );
                1.0
            });
            work *= k;
        }
        if row.plan_empty {
            report.add(
                Reason::EmptyPlanFields,
                format!("{job}/{} (line {})", table.name(row), row.line),
            );
        }
        let mem = opts
            .mem_gib_per_plan_mem
            .and_then(|g| row.plan_mem.filter(|&m| m > 0.0).map(|m| m * g));
        builder
            .add_task_unique(j, table.name(row), work, mem)
            .map_err(|e| DagError::Parse {
                file: report.source.clone(),
                line: row.line as usize,
                message: match e {
                    DagError::InvalidName { .. } => e.to_string(),
                    e => format!("{e} (start_time {}, end_time {})", num(st), num(en)),
                },
            })?;
        if biggest.as_ref().is_none_or(|b| work > b.work) {
            *biggest = Some(Biggest {
                work,
                line: row.line,
                task: format!("{job}/{}", table.name(row)),
                start: st,
                end: en,
            });
        }
    }
    for &(u, v) in &s.edges {
        builder.add_edge(TaskId::new(base + u), TaskId::new(base + v), 0.0)?;
    }
    for (reason, item, n) in s.repairs.drain(..) {
        report.add_n(reason, item, n);
    }
    Ok(())
}

#[cfg(test)]
mod release_tests {
    use super::*;

    /// j_2 appears first but starts later; j_3 has a Waiting row (dropped, no start time).
    const ROWS: &str = "M1,1,j_2,1,Terminated,1050,1100,100,0.3\n\
                        R2_1,1,j_2,1,Terminated,1000,1020,100,0.3\n\
                        task_x,1,j_1,1,Terminated,400,460,100,0.3\n\
                        M1,1,j_3,1,Waiting,0,0,,\n\
                        M1,1,j_4,1,Terminated,2500,2600,100,0.3\n";

    fn releases(opts: &AlibabaOptions) -> Vec<(String, f64)> {
        let (w, _) = read(ROWS.as_bytes(), "rel.csv", opts).unwrap();
        w.jobs()
            .iter()
            .map(|j| (j.name.clone(), j.release))
            .collect()
    }

    #[test]
    fn releases_are_first_starts_minus_the_earliest() {
        assert_eq!(
            releases(&AlibabaOptions::default()),
            [
                ("j_2".to_owned(), 600.0),
                ("j_1".to_owned(), 0.0),
                ("j_4".to_owned(), 2100.0)
            ]
        );
    }

    #[test]
    fn releases_shift_to_the_first_kept_job() {
        // Filters apply first: without j_1 the earliest kept start is j_2's 1000.
        assert_eq!(
            releases(&AlibabaOptions::default().jobs(["j_2", "j_4"])),
            [("j_2".to_owned(), 0.0), ("j_4".to_owned(), 1500.0)]
        );
        assert_eq!(
            releases(&AlibabaOptions::default().first_jobs(1)),
            [("j_2".to_owned(), 0.0)]
        );
    }
}
