//! Loader of the pod lists of Alibaba's GPU cluster trace v2023 (alibaba/clusterdata
//! `cluster-trace-gpu-v2023`, the `openb_pod_list_*.csv` files of the FGD paper, Weng et al.,
//! USENIX ATC'23).
//!
//! Header: `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
//! deletion_time,scheduled_time` (columns are found by name; `name`, `num_gpu`,
//! `creation_time`, `deletion_time` and `scheduled_time` are required, `gpu_milli` is read
//! when present, the others are not read). Times are in seconds from the trace start.
//!
//! **Mapping.** Each pod with `num_gpu >= 1` is a job of one task, both named after the pod:
//! * `gpus = num_gpu` ([`Task::gpus`](crate::Task::gpus); default [`GangParams`]:
//!   one machine, efficiency 1, no synchronisation), since a pod's GPUs are on its node;
//! * `work = (deletion_time − scheduled_time) · num_gpu · work_scale` reference GPU-seconds
//!   (its wall time on its GPUs, `work_scale` 1.0 taking a trace second as a reference
//!   GPU-second);
//! * its job's release ([`Job::release`](crate::Job::release)) is `creation_time` minus the
//!   smallest `creation_time` of the loaded pods (the first pod arrives at 0).
//!
//! **Skipped and noted** (in the [`LoadReport`], one item per row naming the pod and its
//! line): a pod with `num_gpu` 0 or empty (CPU-only) is dropped ([`Reason::NoGpu`]); a pod without a
//! run time — `scheduled_time`, `deletion_time` or `creation_time` empty (Pending pods were
//! never scheduled), or `deletion_time < scheduled_time` — is dropped ([`Reason::NoRunTime`]);
//! a pod sharing its GPU (`gpu_milli` < 1000) is loaded with whole GPUs and noted
//! ([`Reason::SharedGpu`]). Running pods carry the trace's end as `deletion_time`: their run
//! time is cut there, as the trace records it. CPU and host memory requests (`cpu_milli`,
//! `memory_mib`) and GPU-model constraints (`gpu_spec`) are not part of the model.
//!
//! ```
//! use worl_dag::formats::{Reason, openb};
//! let csv = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
//!            p0,12000,16384,1,1000,,LS,Running,100,1100,100\n\
//!            p1,6000,12288,8,1000,,LS,Succeeded,160,260,200\n\
//!            p2,6000,12288,1,460,,LS,Failed,170,270,170\n\
//!            p3,88000,0,0,0,,BE,Running,180,1100,180\n\
//!            p4,6000,12288,1,1000,,BE,Pending,190,195,\n";
//! let (w, report) = openb::read(csv.as_bytes(), "pods.csv", &openb::OpenbOptions::default())?;
//! assert_eq!((w.n_jobs(), report.records, report.records_skipped), (3, 5, 2));
//! let t = w.graph().task(w.find_task("p1", "p1").unwrap());
//! assert_eq!((t.gpus, t.work), (8, 480.0)); // 60 s on 8 GPUs
//! assert_eq!(w.jobs()[1].release, 60.0); // created 60 s after p0
//! assert_eq!(report.items(Reason::NoGpu), ["p3 (line 5)"]);
//! assert_eq!(report.items(Reason::SharedGpu), ["p2 (line 4): gpu_milli 460"]);
//! # Ok::<(), worl_dag::DagError>(())
//! ```

use crate::error::{DagError, Result, num};
use crate::formats::report::{LoadReport, Reason, short};
use crate::formats::{csv_table, gang, in_file, open, source_name};
use crate::task::GangParams;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "alibaba-gpu-v2023";

/// The header of the trace's pod lists.
pub const HEADER: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                          creation_time,deletion_time,scheduled_time";

/// The columns read, in [`COLUMNS`] order: the first five are required.
const COLUMNS: [&str; 6] = [
    "name",
    "num_gpu",
    "creation_time",
    "deletion_time",
    "scheduled_time",
    "gpu_milli",
];
const REQUIRED: [bool; 6] = [true, true, true, true, true, false];

/// Options of the pod-list loader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenbOptions {
    /// Reference GPU-seconds per trace GPU-second. Default 1.0.
    pub work_scale: f64,
}

impl Default for OpenbOptions {
    fn default() -> Self {
        Self { work_scale: 1.0 }
    }
}

/// Whether `line` (a file's first line) is a pod-list header: it names the required columns
/// `name`, `num_gpu`, `gpu_milli`, `creation_time`, `deletion_time` and `scheduled_time`.
/// (No Alibaba v2018 row can: those have no header and numbers in those places.)
pub fn is_header(line: &str) -> bool {
    csv_table::has_columns(line, &COLUMNS)
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, opts: &OpenbOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), opts)
}

/// A pod kept.
struct Pod<'a> {
    name: &'a str,
    gpus: u32,
    work: f64,
    created: f64,
    line: usize,
}

/// Loads a pod list from any reader; `source` names it in errors and in the report, and its
/// file stem names the workload.
///
/// Errors: [`DagError::InvalidParameter`] for a `work_scale` that is not finite and `> 0`;
/// [`DagError::Parse`] naming the file and the line for a missing column (line 1), a row with
/// another field count than the header, an empty pod name, a pod named twice (both lines), a
/// time, `num_gpu` or `gpu_milli` that is not a finite number, a `num_gpu` that is not a whole
/// number in `0..=4096` or a negative `gpu_milli` (naming the pod), and invalid UTF-8;
/// [`DagError::Parse`] naming the pod for a work that overflows; [`DagError::Empty`] when no
/// pod is left.
pub fn read(
    reader: impl Read,
    source: &str,
    opts: &OpenbOptions,
) -> Result<(Workload, LoadReport)> {
    if !(opts.work_scale.is_finite() && opts.work_scale > 0.0) {
        return Err(DagError::InvalidParameter {
            name: "work_scale",
            reason: format!("{} is not finite and > 0", num(opts.work_scale)),
        });
    }
    let table = csv_table::read(reader, source, &COLUMNS, &REQUIRED)?;
    let col = |i: usize| table.columns[i];
    let err = |line: usize, message: String| DagError::Parse {
        file: source.to_owned(),
        line,
        message,
    };
    let mut report = LoadReport::new(source, FORMAT);
    report.records = table.rows.len();
    let mut first_line: HashMap<&str, usize> = HashMap::with_capacity(table.rows.len());
    let mut pods: Vec<Pod<'_>> = Vec::with_capacity(table.rows.len());
    for (line, rec) in &table.rows {
        let line = *line;
        let field = |i: usize| col(i).map_or("", |c| rec[c].trim());
        let name = field(0);
        if name.is_empty() {
            return Err(err(line, "empty pod name".into()));
        }
        if let Some(first) = first_line.insert(name, line) {
            return Err(err(
                line,
                format!(
                    "pod `{}` is listed twice (first on line {first})",
                    clip(name)
                ),
            ));
        }
        let at = format!("pod `{}`", clip(name));
        let number = |i: usize| csv_table::number(field(i), COLUMNS[i], &at, line, source);
        let num_gpu = number(1)?;
        let (created, deleted, scheduled) = (number(2)?, number(3)?, number(4)?);
        let milli = number(5)?;
        let gpus = match num_gpu {
            None | Some(0.0) => 0,
            Some(g) => gang::gpus_from_f64("num_gpu", g)
                .map_err(|reason| err(line, format!("{at}: {reason}")))?,
        };
        if milli.is_some_and(|m| m < 0.0) {
            return Err(err(
                line,
                format!("{at}: gpu_milli {} is negative", num(milli.unwrap_or(0.0))),
            ));
        }
        let item = || format!("{} (line {line})", short(name));
        if gpus == 0 {
            report.skip(Reason::NoGpu, item());
            continue;
        }
        let (Some(created), Some(deleted), Some(scheduled)) = (created, deleted, scheduled) else {
            let empty = csv_table::empty_columns(&[
                (COLUMNS[2], created),
                (COLUMNS[3], deleted),
                (COLUMNS[4], scheduled),
            ]);
            report.skip(
                Reason::NoRunTime,
                format!("{}: {} empty", item(), empty.unwrap_or_default()),
            );
            continue;
        };
        if deleted < scheduled {
            report.skip(
                Reason::NoRunTime,
                format!(
                    "{}: deletion_time {} < scheduled_time {}",
                    item(),
                    num(deleted),
                    num(scheduled)
                ),
            );
            continue;
        }
        if let Some(m) = milli.filter(|&m| m < 1000.0) {
            report.add(
                Reason::SharedGpu,
                format!("{}: gpu_milli {}", item(), num(m)),
            );
        }
        pods.push(Pod {
            name,
            gpus,
            work: (deleted - scheduled) * f64::from(gpus) * opts.work_scale,
            created,
            line,
        });
    }
    let first = pods.iter().map(|p| p.created).fold(f64::INFINITY, f64::min);
    let mut b = WorkloadBuilder::new(source_name(source));
    for p in &pods {
        let job = b.add_job(p.name).map_err(|e| err(p.line, e.to_string()))?;
        let task = b
            .add_task(job, p.name, p.work, None)
            .map_err(|e| err(p.line, e.to_string()))?;
        if p.gpus > 1 {
            b.set_gang(task, p.gpus, GangParams::default())
                .map_err(|e| err(p.line, e.to_string()))?;
        }
        b.set_release(job, p.created - first)
            .map_err(|e| err(p.line, e.to_string()))?;
    }
    Ok((b.build().map_err(in_file(source))?, report))
}

/// A name as an error message quotes it.
fn clip(name: &str) -> std::borrow::Cow<'_, str> {
    crate::error::clip(name)
}
