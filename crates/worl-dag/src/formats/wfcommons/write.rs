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
//!   per edge, `<parent id>.<child id>.data`, of `sizeInBytes` = the edge's bytes rounded to
//!   an integer (the schema's type), written by the parent and read by the child, so that
//!   the reader ([`super::read`]) gives the edge its bytes back;
//! * `workflow.execution`: `makespanInSeconds`, `executedAt`, `tasks[]` = `{id,
//!   runtimeInSeconds, machine?}` and `machines[]` = `{nodeName}`.
//!
//! Without an [`Execution`], `runtimeInSeconds` is the task's work (its run time on the
//! reference GPU of speed 1.0) and `makespanInSeconds` the critical-path length with those
//! run times and free transfers; with one, each task's planned run time, machine and start.
//! The start time has no field in the schema; it is written as `startInSeconds` (seconds
//! after `executedAt`), with the GPU as `gpuId`, `gpuIndex` and `gpuModel`: the schema
//! allows extra properties, and WfCommons' readers ignore them.
//!
//! Task ids must match `^[0-9a-zA-Z-_.]*$` where they are referenced. They are the task
//! names when every name is valid and unique in the workload; otherwise `job.task` with
//! every other character replaced by `_` and `-2`, `-3`, ... appended on collisions
//! ([`task_ids`]). The reader names a task by its id and puts every task in one job named
//! after the file, so a one-job workload with valid names and whole-byte edges reads back
//! identical up to the workload's and job's name; task memory needs are not written
//! (WfFormat's `memoryInBytes` is a process's resident set, not a GPU memory need).

use crate::error::{DagError, Result};
use crate::ids::TaskId;
use crate::workload::Workload;
use serde::Serialize;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

/// Where and when one task ran, for the `execution` section.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutedTask {
    /// The task.
    pub task: TaskId,
    /// Start, s after the workflow's start (`startInSeconds`).
    pub start: f64,
    /// Run time, s (`runtimeInSeconds`).
    pub runtime: f64,
    /// Name of the machine it ran on (`machine`; one of [`Execution::machines`]).
    pub machine: String,
    /// The GPU it ran on, if known.
    pub gpu: Option<ExecutedGpu>,
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
    /// `executedAt`: the start of the run, ISO 8601.
    pub executed_at: String,
    /// Machine names (`machines[].nodeName`), in the order written.
    pub machines: Vec<String>,
    /// One record per task, any order (written in task id order).
    pub tasks: Vec<ExecutedTask>,
}

#[derive(Serialize)]
struct Doc<'a> {
    name: &'a str,
    description: String,
    #[serde(rename = "createdAt")]
    created_at: &'static str,
    #[serde(rename = "schemaVersion")]
    schema_version: &'static str,
    #[serde(rename = "runtimeSystem")]
    runtime_system: RuntimeSystem,
    workflow: Wf<'a>,
}

#[derive(Serialize)]
struct RuntimeSystem {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Wf<'a> {
    specification: Spec<'a>,
    execution: Exec<'a>,
}

#[derive(Serialize)]
struct Spec<'a> {
    tasks: Vec<SpecTask<'a>>,
    files: Vec<SpecFile>,
}

#[derive(Serialize)]
struct SpecTask<'a> {
    name: &'a str,
    id: &'a str,
    parents: Vec<&'a str>,
    children: Vec<&'a str>,
    #[serde(rename = "inputFiles")]
    input_files: Vec<String>,
    #[serde(rename = "outputFiles")]
    output_files: Vec<String>,
}

#[derive(Serialize)]
struct SpecFile {
    id: String,
    #[serde(rename = "sizeInBytes")]
    size: u64,
}

#[derive(Serialize)]
struct Exec<'a> {
    #[serde(rename = "makespanInSeconds")]
    makespan: f64,
    #[serde(rename = "executedAt")]
    executed_at: &'a str,
    tasks: Vec<ExecTask<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    machines: Vec<Machine<'a>>,
}

#[derive(Serialize)]
struct ExecTask<'a> {
    id: &'a str,
    #[serde(rename = "runtimeInSeconds")]
    runtime: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    machine: Option<&'a str>,
    #[serde(rename = "startInSeconds", skip_serializing_if = "Option::is_none")]
    start: Option<f64>,
    #[serde(rename = "gpuId", skip_serializing_if = "Option::is_none")]
    gpu_id: Option<usize>,
    #[serde(rename = "gpuIndex", skip_serializing_if = "Option::is_none")]
    gpu_index: Option<usize>,
    #[serde(rename = "gpuModel", skip_serializing_if = "Option::is_none")]
    gpu_model: Option<&'a str>,
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

/// The WfFormat 1.5 document of `w`, with the `execution` section of `execution` or, for
/// `None`, the reference run times (module docs).
///
/// Errors: [`DagError::InvalidParameter`] (`execution`) naming the task when `execution`
/// names a task twice, misses one, names a task outside the workload, or gives a
/// non-finite or negative time, or a machine not in its `machines`.
pub fn to_string(w: &Workload, execution: Option<&Execution>) -> Result<String> {
    let g = w.graph();
    let ids = task_ids(w);
    let n = g.n_tasks();
    let file = |u: TaskId, v: TaskId| format!("{}.{}.data", ids[u.index()], ids[v.index()]);
    let mut files = Vec::with_capacity(g.n_edges());
    let tasks: Vec<SpecTask<'_>> = g
        .tasks()
        .map(|(v, t)| SpecTask {
            name: &t.name,
            id: &ids[v.index()],
            parents: g
                .preds(v)
                .iter()
                .map(|p| ids[p.task.index()].as_str())
                .collect(),
            children: g
                .succs(v)
                .iter()
                .map(|s| ids[s.task.index()].as_str())
                .collect(),
            input_files: g.preds(v).iter().map(|p| file(p.task, v)).collect(),
            output_files: g.succs(v).iter().map(|s| file(v, s.task)).collect(),
        })
        .collect();
    for e in g.edges() {
        files.push(SpecFile {
            id: file(e.from, e.to),
            size: e.bytes.round() as u64,
        });
    }
    let bad = |task: String, reason: String| DagError::InvalidParameter {
        name: "execution",
        reason: format!("task `{task}`: {reason}"),
    };
    let exec = match execution {
        None => Exec {
            makespan: g.critical_path(|v| g.task(v).work, |_, _, _| 0.0).length,
            executed_at: EPOCH,
            tasks: g
                .tasks()
                .map(|(v, t)| ExecTask {
                    id: &ids[v.index()],
                    runtime: t.work,
                    machine: None,
                    start: None,
                    gpu_id: None,
                    gpu_index: None,
                    gpu_model: None,
                })
                .collect(),
            machines: Vec::new(),
        },
        Some(x) => {
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
                if !machines.contains(r.machine.as_str()) {
                    return Err(bad(
                        label(),
                        format!("machine `{}` is not in the machine list", r.machine),
                    ));
                }
                *slot = Some(r);
            }
            if let Some(v) = by_task.iter().position(Option::is_none) {
                return Err(bad(w.task_label(TaskId::new(v)), "not recorded".into()));
            }
            Exec {
                makespan: x.makespan,
                executed_at: &x.executed_at,
                tasks: by_task
                    .iter()
                    .flatten()
                    .map(|r| ExecTask {
                        id: &ids[r.task.index()],
                        runtime: r.runtime,
                        machine: Some(&r.machine),
                        start: Some(r.start),
                        gpu_id: r.gpu.as_ref().map(|g| g.id),
                        gpu_index: r.gpu.as_ref().map(|g| g.index),
                        gpu_model: r.gpu.as_ref().map(|g| g.model.as_str()),
                    })
                    .collect(),
                machines: x
                    .machines
                    .iter()
                    .map(|m| Machine { node_name: m })
                    .collect(),
            }
        }
    };
    let doc = Doc {
        name: w.name(),
        description: match execution {
            None => format!("workload {} written by worl", w.name()),
            Some(_) => format!("a schedule of workload {} planned by worl", w.name()),
        },
        created_at: EPOCH,
        schema_version: "1.5",
        runtime_system: RuntimeSystem {
            name: "worl",
            version: env!("CARGO_PKG_VERSION"),
        },
        workflow: Wf {
            specification: Spec { tasks, files },
            execution: exec,
        },
    };
    serde_json::to_string_pretty(&doc).map_err(|e| DagError::Parse {
        file: w.name().to_owned(),
        line: 0,
        message: e.to_string(),
    })
}

/// Writes [`to_string`] to `writer`.
///
/// Errors: as [`to_string`]; [`DagError::Io`] (path `<writer>`) if writing fails.
pub fn write(w: &Workload, execution: Option<&Execution>, mut writer: impl Write) -> Result<()> {
    let text = to_string(w, execution)?;
    writer
        .write_all(text.as_bytes())
        .map_err(|source| DagError::Io {
            path: "<writer>".into(),
            source,
        })
}

/// Writes [`to_string`] to the file `path` (created or truncated).
///
/// Errors: as [`to_string`]; [`DagError::Io`] naming the file.
pub fn save(w: &Workload, execution: Option<&Execution>, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, to_string(w, execution)?).map_err(|source| DagError::Io {
        path: path.to_owned(),
        source,
    })
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
        assert_eq!(e["tasks"][3]["startInSeconds"], 8.5);
        assert_eq!(e["tasks"][1]["machine"], "m1");
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
}
