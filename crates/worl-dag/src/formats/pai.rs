//! Loader of task tables derived from Alibaba's PAI GPU trace v2020 (alibaba/clusterdata
//! `cluster-trace-gpu-v2020`, Weng et al., "MLaaS in the Wild", NSDI'22) that give a task's
//! run time per GPU type, such as CedTrainScheduler's `case_random_1000_tasks.csv`.
//!
//! Header (pandas, with an unnamed index column): `,job_name,task_name,inst_num,status,
//! start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type,runtime,runtime_T4,runtime_P100,
//! runtime_V100`. Columns are found by name: `job_name`, `task_name`, `inst_num`,
//! `start_time` and the run-time column ([`PaiOptions::runtime_column`], default
//! `runtime_V100`) are required, `plan_gpu` is read when present, the others are not read.
//! Times are in seconds (shifted by a constant in the trace).
//!
//! **Mapping.** One job per `job_name` (in order of first appearance), one task per row named
//! `task_name`:
//! * `gpus = inst_num` (PAI runs a task as `inst_num` instances of one GPU each when
//!   `plan_gpu` is 100; written as a float, `8.0`, it must be a whole number `>= 1`) with the
//!   default [`GangParams`] (one machine);
//! * `work = runtime_V100 · inst_num · work_scale` reference GPU-seconds: the run-time column
//!   is the task's wall time on V100s (the reference GPU), on `inst_num` of them;
//! * the job's release ([`Job::release`](crate::Job::release)) is the `start_time` of its
//!   earliest loaded task minus the earliest `start_time` of all loaded tasks.
//!
//! **Skipped and repaired** (in the [`LoadReport`], one item per row): a row with an empty
//! `start_time` or run time, or a negative run time, is dropped ([`Reason::NoRunTime`]); a
//! task name repeated in its job (the derived case replaced PAI's role names by model names)
//! is renamed `name-2`, `name-3`, ... (the first suffix that no row of the job is named
//! with; [`Reason::RenamedTask`]); a `plan_gpu` below 100 (a
//! GPU shared) is loaded as a whole GPU per instance and noted ([`Reason::SharedGpu`]). The
//! `status` is not filtered (the derived case holds Terminated tasks only).
//!
//! ```
//! use worl_dag::formats::{Reason, pai};
//! let csv = ",job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type,runtime,runtime_T4,runtime_P100,runtime_V100\n\
//!            0,j1,ResNet50,8.0,Terminated,1000.0,2000.0,600.0,29.3,100.0,V100,1000.0,1900.0,1700.0,1000.0\n\
//!            1,j1,ResNet50,1.0,Terminated,1500.0,2500.0,600.0,29.3,100.0,T4,1000.0,1000.0,900.0,500.0\n\
//!            2,j2,BERT,2.0,Terminated,1200.0,1300.0,600.0,29.3,100.0,P100,100.0,110.0,100.0,60.0\n";
//! let (w, report) = pai::read(csv.as_bytes(), "case.csv", &pai::PaiOptions::default())?;
//! let t = w.graph().task(w.find_task("j1", "ResNet50").unwrap());
//! assert_eq!((t.gpus, t.work), (8, 8000.0)); // 1000 s on 8 V100s
//! assert!(w.find_task("j1", "ResNet50-2").is_some());
//! assert_eq!(report.items(Reason::RenamedTask), ["j1/ResNet50 (line 3) -> j1/ResNet50-2"]);
//! assert_eq!((w.jobs()[0].release, w.jobs()[1].release), (0.0, 200.0));
//! # Ok::<(), worl_dag::DagError>(())
//! ```

use crate::error::{DagError, Result, num};
use crate::formats::report::{LoadReport, Reason, short};
use crate::formats::{csv_table, gang, in_file, open, source_name};
use crate::ids::JobId;
use crate::task::GangParams;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "alibaba-pai-v2020";

/// Options of the PAI task loader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaiOptions {
    /// The column holding a task's wall time, in seconds, on the reference GPU. Default
    /// `runtime_V100` (the reference GPU is a V100); `runtime` is the time measured on the
    /// task's own `gpu_type`.
    pub runtime_column: String,
    /// Reference GPU-seconds per GPU-second of the run-time column. Default 1.0.
    pub work_scale: f64,
}

impl Default for PaiOptions {
    fn default() -> Self {
        Self {
            runtime_column: "runtime_V100".into(),
            work_scale: 1.0,
        }
    }
}

/// The columns every file needs besides the run-time column.
const REQUIRED: [&str; 4] = ["job_name", "task_name", "inst_num", "start_time"];

/// Whether `line` (a file's first line) is the header of such a table: it names `job_name`,
/// `task_name`, `inst_num`, `start_time` and `runtime_V100`. (No Alibaba v2018 row can.)
pub fn is_header(line: &str) -> bool {
    csv_table::has_columns(line, &REQUIRED) && csv_table::has_columns(line, &["runtime_V100"])
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, opts: &PaiOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), opts)
}

/// A row kept.
struct Row<'a> {
    job: usize,
    name: &'a str,
    gpus: u32,
    work: f64,
    start: f64,
    line: usize,
}

/// Loads a PAI task table from any reader; `source` names it in errors and in the report, and
/// its file stem names the workload.
///
/// Errors: [`DagError::InvalidParameter`] for a `work_scale` that is not finite and `> 0`;
/// [`DagError::Parse`] naming the file and the line for a missing column (line 1), a row with
/// another field count than the header, an empty job or task name, a number that is not
/// finite, and (naming the task `job/task`) an `inst_num` that is not a whole number in
/// `1..=4096` (`2.5`, `0`) or a negative `plan_gpu`; [`DagError::Parse`] naming the line for a
/// work that overflows; [`DagError::Empty`] when no row is left.
pub fn read(reader: impl Read, source: &str, opts: &PaiOptions) -> Result<(Workload, LoadReport)> {
    if !(opts.work_scale.is_finite() && opts.work_scale > 0.0) {
        return Err(DagError::InvalidParameter {
            name: "work_scale",
            reason: format!("{} is not finite and > 0", num(opts.work_scale)),
        });
    }
    let columns = [
        REQUIRED[0],
        REQUIRED[1],
        REQUIRED[2],
        REQUIRED[3],
        opts.runtime_column.as_str(),
        "plan_gpu",
    ];
    let table = csv_table::read(
        reader,
        source,
        &columns,
        &[true, true, true, true, true, false],
    )?;
    let err = |line: usize, message: String| DagError::Parse {
        file: source.to_owned(),
        line,
        message,
    };
    let mut report = LoadReport::new(source, FORMAT);
    report.records = table.rows.len();
    let mut job_names: Vec<&str> = Vec::new();
    let mut job_index: HashMap<&str, usize> = HashMap::new();
    let mut rows: Vec<Row<'_>> = Vec::with_capacity(table.rows.len());
    for (line, rec) in &table.rows {
        let line = *line;
        let field = |i: usize| table.columns[i].map_or("", |c| rec[c].trim());
        let (job, name) = (field(0), field(1));
        if job.is_empty() || name.is_empty() {
            return Err(err(line, "empty job_name or task_name".into()));
        }
        let at = format!("task `{}/{}`", clip(job), clip(name));
        let number = |i: usize| csv_table::number(field(i), columns[i], &at, line, source);
        let gpus = match number(2)? {
            Some(x) => gang::gpus_from_f64("inst_num", x),
            None => Err("inst_num is empty".to_owned()),
        }
        .map_err(|reason| err(line, format!("{at}: {reason}")))?;
        let (start, runtime, plan_gpu) = (number(3)?, number(4)?, number(5)?);
        if let Some(p) = plan_gpu.filter(|&p| p < 0.0) {
            return Err(err(line, format!("{at}: plan_gpu {} is negative", num(p))));
        }
        let item = || format!("{}/{} (line {line})", short(job), short(name));
        let (Some(start), Some(runtime)) = (start, runtime) else {
            let empty = csv_table::empty_columns(&[(columns[3], start), (columns[4], runtime)]);
            report.skip(
                Reason::NoRunTime,
                format!("{}: {} empty", item(), empty.unwrap_or_default()),
            );
            continue;
        };
        if runtime < 0.0 {
            report.skip(
                Reason::NoRunTime,
                format!("{}: {} {} is negative", item(), columns[4], num(runtime)),
            );
            continue;
        }
        if let Some(p) = plan_gpu.filter(|&p| p < 100.0) {
            report.add(
                Reason::SharedGpu,
                format!("{}: plan_gpu {}", item(), num(p)),
            );
        }
        let j = *job_index.entry(job).or_insert_with(|| {
            job_names.push(job);
            job_names.len() - 1
        });
        rows.push(Row {
            job: j,
            name,
            gpus,
            work: runtime * f64::from(gpus) * opts.work_scale,
            start,
            line,
        });
    }
    // Jobs with at least one row kept, in order of first appearance; their releases.
    let first = rows.iter().map(|r| r.start).fold(f64::INFINITY, f64::min);
    let mut job_start = vec![f64::INFINITY; job_names.len()];
    for r in &rows {
        job_start[r.job] = job_start[r.job].min(r.start);
    }
    let mut b = WorkloadBuilder::new(source_name(source));
    let mut ids: Vec<Option<JobId>> = vec![None; job_names.len()];
    let mut taken: HashSet<(usize, String)> = HashSet::with_capacity(rows.len());
    let mut next_suffix: HashMap<(usize, &str), usize> = HashMap::new();
    let given: HashSet<(usize, &str)> = rows.iter().map(|r| (r.job, r.name)).collect();
    for r in &rows {
        let job = match ids[r.job] {
            Some(id) => id,
            None => {
                let id = b
                    .add_job(job_names[r.job])
                    .map_err(|e| err(r.line, e.to_string()))?;
                b.set_release(id, job_start[r.job] - first)
                    .map_err(|e| err(r.line, e.to_string()))?;
                ids[r.job] = Some(id);
                id
            }
        };
        let mut name = r.name.to_owned();
        if taken.contains(&(r.job, name.clone())) {
            // The next suffix to try for this name: each is tried once per name, so that
            // many repeats stay linear. A name given in the file is never taken by a
            // renamed row, whichever comes first.
            let k = next_suffix.entry((r.job, r.name)).or_insert(2);
            loop {
                let candidate = format!("{}-{k}", r.name);
                if !taken.contains(&(r.job, candidate.clone()))
                    && !given.contains(&(r.job, candidate.as_str()))
                {
                    break;
                }
                *k += 1;
            }
            name = format!("{}-{k}", r.name);
            *k += 1;
            let job_name = short(job_names[r.job]);
            report.add(
                Reason::RenamedTask,
                format!(
                    "{job_name}/{} (line {}) -> {job_name}/{}",
                    short(r.name),
                    r.line,
                    short(&name)
                ),
            );
        }
        let task = b
            .add_task(job, name.as_str(), r.work, None)
            .map_err(|e| err(r.line, e.to_string()))?;
        taken.insert((r.job, name));
        if r.gpus > 1 {
            b.set_gang(task, r.gpus, GangParams::default())
                .map_err(|e| err(r.line, e.to_string()))?;
        }
    }
    Ok((b.build().map_err(in_file(source))?, report))
}

/// A name as an error message quotes it.
fn clip(name: &str) -> std::borrow::Cow<'_, str> {
    crate::error::clip(name)
}
