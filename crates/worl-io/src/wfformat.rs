//! A schedule as a WfCommons WfFormat 1.5 document: the workload's `specification` and an
//! `execution` section recording, per task, the machine it runs on (`machines: [name]`),
//! its start (`executedAt`, a timestamp), its run time (`runtimeInSeconds`) and its GPU, so
//! that WfCommons tools (WfSim, the `wfcommons` Python package) can read a worl schedule.
//! The layout, the task ids and the extra `gpuId` / `gpuIndex` / `gpuModel` task
//! properties are those of [`worl_dag::formats::wfcommons::to_string`]. A gang task's record
//! carries its whole GPU set: `gpuId` is its lead, the extra property `gpuIds` lists the
//! set's GPU ids lead first, `machines` lists each machine of the set once (the lead's
//! first: one name for a gang on one machine), and `gpuCount` its GPU count. Without gang
//! tasks the document is what it was before sets were written, byte for byte.
//!
//! [`from_json_str`] reads such a document back as a [`ScheduleFile`] (what `worl validate`
//! and [`ScheduleFile::read`] do with a `.json` file that has a `workflow`): one row per
//! `execution.tasks[]` entry, naming its task by WfFormat id
//! ([`task_ids`](worl_dag::formats::wfcommons::task_ids) of the problem's workload), with
//! start = `executedAt` − the run's `executedAt`, finish = start + `runtimeInSeconds`, the
//! machine of `machines` (the first, for a gang across machines), the GPU of `gpuId` /
//! `gpuIndex` / `gpuModel` where given, and a gang's GPU set from `gpuIds`
//! ([`ScheduleFile::gpu_sets`]; checked against the row's GPU when the file is matched to
//! its problem, as every file's sets are).

use crate::schedule_file::{ScheduleFile, ScheduleMeta, ScheduleRow};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use worl_cluster::{ClusterError, GpuId, Problem, Result, Schedule};
use worl_dag::TaskId;
use worl_dag::formats::wfcommons::write::seconds_between;
use worl_dag::formats::wfcommons::{self, EPOCH, ExecutedGpu, ExecutedTask, Execution};

/// The `execution` section of `schedule` on `problem`: every machine of the cluster, each
/// task's machine, GPU, start and run time (`finish - start`), and the makespan; a gang
/// task's record also names the other GPUs of its set ([`Schedule::gpus`], lead first) with
/// their machines ([`ExecutedTask::others`]). The run starts at [`EPOCH`]: start times are
/// seconds after the start of the schedule.
///
/// Errors: [`ClusterError::ShapeMismatch`] if the schedule's task or GPU count is not the
/// problem's.
pub fn execution(problem: &Problem, schedule: &Schedule) -> Result<Execution> {
    if schedule.n_tasks() != problem.n_tasks() || schedule.n_gpus() != problem.n_gpus() {
        return Err(ClusterError::ShapeMismatch {
            what: "schedule (tasks, GPUs)",
            expected: (problem.n_tasks(), problem.n_gpus()),
            actual: (schedule.n_tasks(), schedule.n_gpus()),
        });
    }
    let c = problem.cluster();
    let tasks = schedule
        .tasks()
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let task = TaskId::new(i);
            let (machine, gpu) = executed_gpu(problem, e.gpu);
            ExecutedTask {
                task,
                start: e.start,
                runtime: e.finish - e.start,
                machine,
                gpu: Some(gpu),
                others: schedule.gpus(task)[1..]
                    .iter()
                    .map(|&k| executed_gpu(problem, k))
                    .collect(),
            }
        })
        .collect();
    Ok(Execution {
        makespan: schedule.makespan(),
        executed_at: EPOCH.to_owned(),
        machines: c.machines().to_vec(),
        tasks,
    })
}

/// GPU `k` of `problem`'s cluster as an execution record names it: its machine's name, its
/// id, position on that machine and model.
fn executed_gpu(problem: &Problem, k: GpuId) -> (String, ExecutedGpu) {
    let c = problem.cluster();
    let g = c.gpu(k);
    let gpu = ExecutedGpu {
        id: k.index(),
        index: c
            .gpus_of(g.machine)
            .iter()
            .position(|&j| j == k)
            .unwrap_or(0),
        model: g.model.clone(),
    };
    (c.machines()[g.machine.index()].clone(), gpu)
}

/// `schedule` on `problem` as a WfFormat 1.5 JSON document (see the module docs).
///
/// Errors: as [`execution`]; [`ClusterError::Parse`] naming the workload if the document
/// cannot be written (it can for every valid schedule).
pub fn to_string(problem: &Problem, schedule: &Schedule) -> Result<String> {
    let x = execution(problem, schedule)?;
    wfcommons::to_string(problem.workload(), Some(&x)).map_err(|e| ClusterError::Parse {
        file: problem.workload().name().to_owned(),
        line: 0,
        message: e.to_string(),
    })
}

/// Writes [`to_string`]'s text to the file `path` (created or truncated), streamed
/// ([`wfcommons::save`]); the file is not touched when the schedule is refused.
///
/// Errors: as [`to_string`]; [`ClusterError::Io`] naming the file.
pub fn save(problem: &Problem, schedule: &Schedule, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let x = execution(problem, schedule)?;
    wfcommons::save(problem.workload(), Some(&x), path).map_err(|e| match e {
        worl_dag::DagError::Io { source, .. } => ClusterError::Io {
            path: path.to_owned(),
            source,
        },
        other => ClusterError::Parse {
            file: problem.workload().name().to_owned(),
            line: 0,
            message: other.to_string(),
        },
    })
}

// ----- reading -----

#[derive(Deserialize)]
struct Doc {
    #[serde(default)]
    name: String,
    #[serde(rename = "runtimeSystem", default)]
    runtime_system: Option<RuntimeSystem>,
    workflow: Workflow,
}

#[derive(Deserialize)]
struct RuntimeSystem {
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct Workflow {
    #[serde(default)]
    execution: Option<Exec>,
}

#[derive(Deserialize)]
struct Exec {
    #[serde(rename = "makespanInSeconds", default)]
    makespan: Option<f64>,
    #[serde(rename = "executedAt")]
    executed_at: String,
    tasks: Vec<ExecTask>,
}

#[derive(Deserialize)]
struct ExecTask {
    id: String,
    #[serde(rename = "runtimeInSeconds")]
    runtime: f64,
    #[serde(rename = "executedAt", default)]
    executed_at: Option<String>,
    #[serde(default)]
    machines: Vec<String>,
    #[serde(rename = "gpuId", default)]
    gpu_id: Option<usize>,
    #[serde(rename = "gpuIndex", default)]
    gpu_index: Option<usize>,
    #[serde(rename = "gpuModel", default)]
    gpu_model: Option<String>,
    #[serde(rename = "gpuIds", default)]
    gpu_ids: Option<Vec<usize>>,
}

/// A WfFormat document with an `execution` section, as a schedule file (see the module
/// docs). Rows name their task by WfFormat id and have no job; [`ScheduleFile::validate`]
/// matches them to the problem's tasks by [`task_ids`](wfcommons::task_ids). The header:
/// workload = the document's `name`, scheduler = its `runtimeSystem.name`, makespan =
/// `makespanInSeconds`; no cluster name, options, seed or lower bound.
///
/// Errors: [`ClusterError::NotAScheduleFile`] for a WfFormat workflow without an
/// `execution` section or whose execution gives no task an `executedAt` (a workload, as
/// [`wfcommons::to_string`] writes one without a plan); [`ClusterError::Parse`] (file `<memory>`; line of the JSON error,
/// else 0 naming the task) for malformed JSON, a run `executedAt` that is not a timestamp,
/// a task without `executedAt` or whose `executedAt` is not a timestamp, a task on more
/// machines than the GPUs of its `gpuIds` (one without), a `gpuIds` whose first GPU is not
/// its `gpuId`, and what [`ScheduleFile::from_json_str`] refuses in rows (times that
/// are not a valid interval, ids beyond [`MAX_ID`](crate::schedule_file::MAX_ID)).
pub fn from_json_str(text: &str) -> Result<ScheduleFile> {
    parse(text, "<memory>")
}

pub(crate) fn parse(text: &str, origin: &str) -> Result<ScheduleFile> {
    let bad = |line: usize, message: String| ClusterError::Parse {
        file: origin.to_owned(),
        line,
        message,
    };
    let doc: Doc =
        serde_json::from_str(text).map_err(|e| bad(e.line(), format!("WfFormat document: {e}")))?;
    let Some(x) = doc.workflow.execution else {
        return Err(ClusterError::NotAScheduleFile {
            file: origin.to_owned(),
            reason: "a WfFormat workflow without an `execution` section (a workload; \
                     `worl schedule --out plan.wf.json` writes one with the plan)"
                .to_owned(),
        });
    };
    if x.tasks.iter().all(|t| t.executed_at.is_none()) {
        return Err(ClusterError::NotAScheduleFile {
            file: origin.to_owned(),
            reason: "a WfFormat workflow whose `execution` gives no task a start time \
                     (`executedAt`): a workload, not a plan"
                .to_owned(),
        });
    }
    if worl_dag::formats::wfcommons::write::parse_timestamp(&x.executed_at).is_none() {
        return Err(bad(
            0,
            format!(
                "execution: `executedAt` `{}` is not a timestamp (YYYY-MM-DDThh:mm:ssZ)",
                x.executed_at
            ),
        ));
    }
    let mut rows = Vec::with_capacity(x.tasks.len());
    let mut gpu_sets = BTreeMap::new();
    for (i, t) in x.tasks.into_iter().enumerate() {
        let at = |what: String| bad(0, format!("execution task {} (`{}`): {what}", i + 1, t.id));
        let Some(when) = &t.executed_at else {
            return Err(at("no `executedAt` (its start)".to_owned()));
        };
        let start = seconds_between(&x.executed_at, when).ok_or_else(|| {
            at(format!(
                "`executedAt` `{when}` is not a timestamp (YYYY-MM-DDThh:mm:ss[.f]Z)"
            ))
        })?;
        let set = t.gpu_ids.unwrap_or_default();
        if t.machines.len() > set.len().max(1) {
            return Err(at(format!(
                "runs on {} machines but on {} GPU(s) (`gpuIds` lists a gang's GPU set; \
                 without it a task runs on one GPU)",
                t.machines.len(),
                set.len().max(1)
            )));
        }
        let gpu_id = match (t.gpu_id, set.first()) {
            (Some(lead), Some(&first)) if lead != first => {
                return Err(at(format!(
                    "`gpuIds` {set:?} does not start with its `gpuId` {lead} (the lead GPU)"
                )));
            }
            (lead, first) => lead.or(first.copied()),
        };
        if !set.is_empty() {
            gpu_sets.insert(rows.len(), set);
        }
        rows.push(ScheduleRow {
            task_id: None,
            task: t.id.clone(),
            job: String::new(),
            gpu_id,
            machine: t.machines.into_iter().next().unwrap_or_default(),
            gpu_index: t.gpu_index,
            model: t.gpu_model.unwrap_or_default(),
            start,
            finish: start + t.runtime,
        });
    }
    let mut f = ScheduleFile::from_wfformat_parts(
        origin,
        doc.name,
        ScheduleMeta {
            scheduler: doc.runtime_system.map(|r| r.name).unwrap_or_default(),
            options: String::new(),
            seed: None,
        },
        x.makespan,
        rows,
    )?;
    f.gpu_sets = gpu_sets;
    Ok(f)
}
