//! A schedule as a WfCommons WfFormat 1.5 document: the workload's `specification` and an
//! `execution` section recording, per task, the machine it runs on, its start and run time
//! and its GPU, so that WfCommons tools (WfSim, the `wfcommons` Python package) can read a
//! worl schedule. The layout, the task ids and the extra `startInSeconds` / `gpuId` /
//! `gpuIndex` / `gpuModel` fields are those of [`worl_dag::formats::wfcommons::to_string`].

use crate::error::{ClusterError, Result};
use crate::problem::Problem;
use crate::schedule::Schedule;
use std::path::Path;
use worl_dag::TaskId;
use worl_dag::formats::wfcommons::{self, EPOCH, ExecutedGpu, ExecutedTask, Execution};

/// The `execution` section of `schedule` on `problem`: every machine of the cluster, each
/// task's machine, GPU, start and run time (`finish - start`), and the makespan. The run
/// starts at [`EPOCH`]: start times are seconds after the start of the schedule.
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
            let g = c.gpu(e.gpu);
            ExecutedTask {
                task: TaskId::new(i),
                start: e.start,
                runtime: e.finish - e.start,
                machine: c.machines()[g.machine.index()].clone(),
                gpu: Some(ExecutedGpu {
                    id: e.gpu.index(),
                    index: c
                        .gpus_of(g.machine)
                        .iter()
                        .position(|&k| k == e.gpu)
                        .unwrap_or(0),
                    model: g.model.clone(),
                }),
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

/// Writes [`to_string`] to the file `path` (created or truncated).
///
/// Errors: as [`to_string`]; [`ClusterError::Io`] naming the file.
pub fn save(problem: &Problem, schedule: &Schedule, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, to_string(problem, schedule)?).map_err(|source| ClusterError::Io {
        path: path.to_owned(),
        source,
    })
}
