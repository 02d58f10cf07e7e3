//! # worl-export: run worl schedules on real cluster engines
//!
//! A worl [`Schedule`] says on which GPU of which machine each task runs and when. This crate
//! turns one into a runnable artifact for a cluster engine, in which every task is **pinned
//! to its planned machine and GPU** and starts only after
//!
//! * every data predecessor (the workload's edges) finished, and
//! * the task planned just before it on the same GPU finished (the order of the tasks on one
//!   GPU is their planned start order: extra dependency edges).
//!
//! The engines:
//!
//! | [`Engine`] | artifact | pinning | ordering |
//! |---|---|---|---|
//! | [`Engine::Slurm`] | bash submit script ([`slurm::script`]) | `--nodelist=<host>`, `--gres=gpu:1`, `WORL_GPU` (and `CUDA_VISIBLE_DEVICES` under [`DevicePolicy::Planned`]) | `sbatch --dependency=afterok:<ids>` |
//! | [`Engine::Argo`] | Argo `Workflow` YAML ([`argo::workflow`]) | `nodeSelector` `kubernetes.io/hostname`, `nvidia.com/gpu: 1`, env `WORL_GPU` | DAG task `dependencies` |
//! | [`Engine::Ray`] | Python driver ([`ray::driver`]) | `NodeAffinitySchedulingStrategy`, `num_gpus=1`, `WORL_GPU` (and `CUDA_VISIBLE_DEVICES` under [`DevicePolicy::Planned`]) | object references passed as arguments |
//!
//! **Gang tasks** (a task needing `g > 1` GPUs at once, on the GPU set the schedule gives it,
//! [`Schedule::gpus`]) run as one job, pod or Ray task on their machine with `g` GPUs:
//! `--gres=gpu:<g>`, `nvidia.com/gpu: "<g>"`, `num_gpus=<g>`, and `WORL_GPU` (`{gpu}`, and
//! `CUDA_VISIBLE_DEVICES` under [`DevicePolicy::Planned`]) the planned indices,
//! comma-separated, lead first ([`ExportTask::gpu_list`]). A gang waits for the task before it
//! on each GPU of its set. A set across machines (span `cluster`) is refused with
//! [`ExportError::GangAcrossMachines`]: each engine runs a task's one command on one node.
//! Without gang tasks every artifact is byte for byte what it was before gangs existed.
//!
//! Who picks each task's physical GPU is [`ExportOptions::devices`]: the engine by default
//! ([`DevicePolicy::Engine`], right under Slurm's `ConstrainDevices=yes` and on shared
//! nodes), or the plan ([`DevicePolicy::Planned`]). A schedule must pass the checks of `worl
//! validate` ([`Schedule::validate`]; [`ExportError::Invalid`] lists the violations) unless
//! [`ExportOptions::allow_invalid`].
//!
//! **Names are data.** Workload, job, task, cluster, machine and host names may hold any
//! text (from files of unknown origin); each comes back from the artifact as the same data
//! and never as code: one bash word each (single quotes, or `$'...'` escapes for control
//! characters), here-document delimiters absent from their bodies, YAML and Python strings
//! and every comment in printable ASCII with escapes. The command template is the user's
//! code; [`CommandTemplate::new`] refuses placeholders where a value would not stay one
//! word. NUL is refused ([`ExportError::Nul`]). See `docs/threat-model.md`.
//!
//! Every artifact lists the tasks in one [dispatch order](ExportPlan::tasks): sorted by
//! planned `(start, finish, topological position)`, which is a topological order of both edge
//! kinds for any schedule where each task starts after its data predecessors finish. No edge
//! is dropped, except that a same-GPU predecessor that is also a data predecessor is listed
//! once; transitive edges are kept (engines handle them, and the artifact stays easy to
//! check against the schedule).
//!
//! A task's command comes from a [`CommandTemplate`] with the placeholders `{task}`, `{job}`,
//! `{gpu}`, `{machine}`, `{host}`, `{name}` and `{id}`; machine names map to host names
//! through a [`HostMap`] (default: the cluster's machine names). Engine names (Slurm job
//! names, Argo DNS-1123 task names) are made by [`names::unique`], deterministic and
//! collision-free.
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuId, GpuModel, Problem, Schedule, ScheduledTask};
//! use worl_dag::generators::shapes;
//! use worl_export::{Engine, ExportOptions, ExportPlan};
//!
//! // a chain of 3 tasks of 10 s on 2 GPUs of one machine, all on GPU 1
//! let w = Arc::new(shapes::chain(3, 10.0, 0.0)?);
//! let c = Arc::new(worl_cluster::ClusterSpec::new(1, 2, &GpuModel::v100_16gb()).build()?);
//! let p = Problem::new(w, c)?;
//! let at = |s: f64| ScheduledTask { gpu: GpuId::new(1), start: s, finish: s + 10.0 };
//! let s = Schedule::new(2, vec![at(0.0), at(10.0), at(20.0)])?;
//! let plan = ExportPlan::new(&p, &s, &ExportOptions::default())?;
//! assert_eq!(plan.tasks()[2].after, vec![1]);
//! let script = plan.render(Engine::Slurm);
//! assert!(script.contains("--dependency=afterok:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod argo;
pub mod names;
mod quote;
pub mod ray;
pub mod slurm;
mod template;
mod yaml;

pub use template::CommandTemplate;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use worl_cluster::{ClusterError, Problem, Schedule, Violation};
use worl_dag::TaskId;
use worl_io::{MatchError, ScheduleFile};

/// Everything that can go wrong exporting a schedule. Every variant names the offending
/// task, machine, placeholder or file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The schedule file does not match the workload or the cluster (unknown, renamed,
    /// repeated or missing task; unknown GPU).
    #[error("schedule does not match the workload and cluster: {0}")]
    Mismatch(Box<MatchError>),
    /// The schedule does not fit the problem: another task or GPU count
    /// ([`ClusterError::ShapeMismatch`], shape `(tasks, GPUs)`).
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// A data edge runs against the planned order: the child is planned to start before
    /// its parent finishes (relative tolerance `1e-9`), so no engine could run the
    /// schedule as planned.
    #[error(
        "task `{to}` starts at {start} s before its data predecessor `{from}` finishes at {finish} s"
    )]
    OrderConflict {
        /// The parent, as `job/task`.
        from: String,
        /// The child, as `job/task`.
        to: String,
        /// The parent's planned finish, s.
        finish: f64,
        /// The child's planned start, s.
        start: f64,
    },
    /// The schedule breaks constraints that `worl validate` checks (overlaps on a GPU,
    /// data used before it arrives, wrong durations, ...): an engine would run something
    /// other than what was validated. [`ExportOptions::allow_invalid`] exports anyway.
    #[error(
        "the schedule is not valid ({} violation(s), as `worl validate` reports; export anyway with --allow-invalid): {}",
        violations.len(),
        summary(explained)
    )]
    Invalid {
        /// Every violation found.
        violations: Vec<Violation>,
        /// Each violation as one line naming its tasks and GPUs
        /// ([`Violation::explain`]), in the same order.
        explained: Vec<String>,
    },
    /// Two machines of the cluster map to one host: their GPU indices would name the same
    /// devices, so the plan could not be kept.
    #[error(
        "host map: machines `{first}` and `{second}` both map to host `{host}` (each machine needs its own host)"
    )]
    SharedHost {
        /// The host.
        host: String,
        /// The first machine (cluster order).
        first: String,
        /// The second machine.
        second: String,
    },
    /// A machine has an empty host name: an empty machine name in the cluster, where the
    /// host map does not give it a host. An empty host would not pin its tasks anywhere
    /// (`--nodelist=` and an empty node selector place them on any node).
    #[error(
        "machine {index} of cluster `{cluster}` has an empty name, so its host would be empty and its tasks not pinned: name the machine in the cluster file, or give it a host with --hosts"
    )]
    EmptyHost {
        /// The machine's index in the cluster (0-based).
        index: usize,
        /// The cluster's name.
        cluster: String,
    },
    /// A gang task's GPU set spans machines (a `span = cluster` gang placed on several
    /// machines): every engine runs a task as one job, pod or Ray task on one node, with
    /// one command, so no artifact could start it on all of its GPUs. Schedule it with
    /// `span = machine` (or on a cluster where one machine holds it). Machine names are
    /// shown with control characters escaped (one line).
    #[error(
        "task `{task}` runs on {gpus} GPUs across machines {}: a gang across machines cannot be exported (each engine runs a task on one node); give it span `machine`",
        machine_list(machines)
    )]
    GangAcrossMachines {
        /// The task, as `job/task`.
        task: String,
        /// The GPUs of its set.
        gpus: u32,
        /// The machines of its set, in the set's order (lead's first), each once.
        machines: Vec<String>,
    },
    /// A task's GPU set in the schedule is not `gpus` distinct GPUs (only possible with
    /// [`ExportOptions::allow_invalid`]: `worl validate` reports it as a gang size or
    /// repetition violation). The engines would run it on other devices than planned.
    #[error(
        "task `{task}` needs {gpus} GPUs at once but the schedule gives it {given} ({set}); an engine would not run it on its planned GPUs"
    )]
    GangSet {
        /// The task, as `job/task`.
        task: String,
        /// The GPUs it needs (`Task::gpus`).
        gpus: u32,
        /// How many distinct GPUs the schedule gives it.
        given: usize,
        /// The schedule's set as `g0,g1,...` (cluster GPU ids).
        set: String,
    },
    /// A host map gives one machine twice.
    #[error("host map {origin}: machine `{machine}` is given twice")]
    DuplicateMachine {
        /// Where the map came from (`--hosts` or a file and line).
        origin: String,
        /// The machine.
        machine: String,
    },
    /// A name holds a NUL character, which no shell word, environment variable or
    /// command-line argument can carry.
    #[error("{what} contains a NUL character, which no engine can carry: {}", name.escape_debug())]
    Nul {
        /// What the name is (`task name of t3`, `host of machine `m0``, ...).
        what: String,
        /// The name.
        name: String,
    },
    /// A `--policy` entry other than `devices=planned|slurm|engine`.
    #[error("policy `{spec}`: {why}")]
    Policy {
        /// The entry.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// A host map names a machine the cluster does not have.
    #[error("host map: machine `{machine}` is not in cluster `{cluster}`")]
    UnknownMachine {
        /// The machine named.
        machine: String,
        /// The cluster's name.
        cluster: String,
    },
    /// A host map entry is not `machine=host` with non-empty, space-free sides.
    #[error("host map {origin}: entry `{entry}` is not `machine=host`")]
    BadHostEntry {
        /// Where the map came from (`--hosts` or a file and line).
        origin: String,
        /// The entry.
        entry: String,
    },
    /// A command template has an unknown placeholder or an unmatched brace. Displayed with
    /// control characters escaped: `\r`, `\n`, `\t`, `\u{1b}`.
    #[error(
        "command template `{}`: {}",
        template::printable(template),
        template::printable(why)
    )]
    Template {
        /// The template.
        template: String,
        /// What is wrong.
        why: String,
    },
    /// An engine name other than `slurm`, `argo` and `ray`.
    #[error("unknown engine `{0}` (known: slurm, argo, ray)")]
    UnknownEngine(String),
    /// Reading a host map file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl From<MatchError> for ExportError {
    fn from(e: MatchError) -> Self {
        Self::Mismatch(Box::new(e))
    }
}

/// The machines of [`ExportError::GangAcrossMachines`]: `` `a`, `b` `` with control
/// characters escaped.
fn machine_list(machines: &[String]) -> String {
    machines
        .iter()
        .map(|m| format!("`{}`", m.escape_debug()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first violations, joined, for [`ExportError::Invalid`].
fn summary(lines: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = lines
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if lines.len() > SHOWN {
        s.push_str(&format!("; and {} more", lines.len() - SHOWN));
    }
    s
}

/// Result alias of this crate.
pub type Result<T, E = ExportError> = std::result::Result<T, E>;

/// A cluster engine to export to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Slurm: a bash script of `sbatch` calls ([`slurm`]).
    Slurm,
    /// Argo Workflows on Kubernetes: a `Workflow` in YAML ([`argo`]).
    Argo,
    /// Ray: a Python driver script ([`ray`]).
    Ray,
}

impl Engine {
    /// Every engine.
    pub const ALL: [Engine; 3] = [Engine::Slurm, Engine::Argo, Engine::Ray];

    /// The lower-case name (`slurm`, `argo`, `ray`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Slurm => "slurm",
            Engine::Argo => "argo",
            Engine::Ray => "ray",
        }
    }

    /// The artifact's usual file name: `submit.sh`, `workflow.yaml` or `driver.py`.
    pub fn file_name(self) -> &'static str {
        match self {
            Engine::Slurm => "submit.sh",
            Engine::Argo => "workflow.yaml",
            Engine::Ray => "driver.py",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = ExportError;
    /// `slurm`, `argo` (or `kubernetes`, `k8s`) or `ray`, any case.
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "slurm" => Ok(Engine::Slurm),
            "argo" | "kubernetes" | "k8s" => Ok(Engine::Argo),
            "ray" => Ok(Engine::Ray),
            _ => Err(ExportError::UnknownEngine(s.to_owned())),
        }
    }
}

/// Machine name → host name (a Slurm node name, a Kubernetes `kubernetes.io/hostname`
/// label, a Ray node's hostname or IP). Machines not in the map keep their own name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostMap {
    map: BTreeMap<String, String>,
}

impl HostMap {
    /// The empty map: every machine is its own host.
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps `machine` to `host`.
    pub fn insert(&mut self, machine: impl Into<String>, host: impl Into<String>) {
        self.map.insert(machine.into(), host.into());
    }

    /// The host of `machine`.
    pub fn host<'a>(&'a self, machine: &'a str) -> &'a str {
        self.map.get(machine).map_or(machine, String::as_str)
    }

    /// The entries, by machine name.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.map.iter().map(|(m, h)| (m.as_str(), h.as_str()))
    }

    /// Parses `machine=host,machine=host,...` (entries also separated by whitespace or
    /// newlines; `#` starts a comment to the end of the line). `origin` names the text in
    /// errors.
    ///
    /// Errors: [`ExportError::BadHostEntry`] for an entry without `=` or with an empty or
    /// space-containing side; [`ExportError::DuplicateMachine`] for a machine given twice.
    /// (Two machines mapped to one host are refused by [`ExportPlan::new`], which knows
    /// the cluster's other machines.)
    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        let mut out = Self::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            for entry in line.split(|c: char| c == ',' || c.is_whitespace()) {
                if entry.is_empty() {
                    continue;
                }
                let bad = || ExportError::BadHostEntry {
                    origin: if text.lines().count() > 1 {
                        format!("{origin}:{}", n + 1)
                    } else {
                        origin.to_owned()
                    },
                    entry: entry.to_owned(),
                };
                let (m, h) = entry.split_once('=').ok_or_else(bad)?;
                if m.is_empty() || h.is_empty() {
                    return Err(bad());
                }
                if out.map.contains_key(m) {
                    return Err(ExportError::DuplicateMachine {
                        origin: if text.lines().count() > 1 {
                            format!("{origin}:{}", n + 1)
                        } else {
                            origin.to_owned()
                        },
                        machine: m.to_owned(),
                    });
                }
                out.insert(m, h);
            }
        }
        Ok(out)
    }

    /// [`parse`](Self::parse) of an existing file's text, else of `arg` itself.
    ///
    /// Errors: as [`parse`](Self::parse), naming the file and line; [`ExportError::Io`] for
    /// a file that cannot be read.
    pub fn from_arg(arg: &str) -> Result<Self> {
        let path = Path::new(arg);
        if !arg.contains('=') && path.is_file() {
            let text = std::fs::read_to_string(path).map_err(|source| ExportError::Io {
                path: arg.to_owned(),
                source,
            })?;
            return Self::parse(&text, arg);
        }
        Self::parse(arg, "--hosts")
    }
}

/// Who chooses the physical GPU a task runs on (`--policy devices=...`).
///
/// Every engine is asked for one GPU per task (`g` for a gang task of `g` GPUs), and the
/// same-GPU chains keep the plan's order and concurrency per GPU; the planned index (a
/// gang's comma-separated index list) is always in `WORL_GPU`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum DevicePolicy {
    /// The engine does (default; `devices=slurm` or `devices=engine`): Slurm's
    /// `--gres=gpu:1` allocation (its `CUDA_VISIBLE_DEVICES`), Ray's GPU assignment for
    /// `num_gpus=1`, the Kubernetes device plugin. Right wherever jobs only see their
    /// allocated devices (Slurm `ConstrainDevices=yes`, containers), and safe on shared
    /// nodes: no job touches a GPU the engine gave another job.
    #[default]
    Engine,
    /// The plan does (`devices=planned`): Slurm and Ray jobs set `CUDA_VISIBLE_DEVICES` to
    /// the planned index (a gang's index list), overriding the engine's choice. Only right
    /// where the exported schedule owns the nodes' GPUs and jobs see every device (no `ConstrainDevices`):
    /// then the tasks run on exactly the planned devices. Argo ignores it (a pod sees only
    /// its allocated device).
    Planned,
}

impl DevicePolicy {
    /// `engine` or `planned`.
    pub fn name(self) -> &'static str {
        match self {
            DevicePolicy::Engine => "engine",
            DevicePolicy::Planned => "planned",
        }
    }
}

impl fmt::Display for DevicePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DevicePolicy {
    type Err = ExportError;
    /// `planned`, or `slurm` / `engine` (the same: the engine chooses), any case.
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "planned" => Ok(DevicePolicy::Planned),
            "slurm" | "engine" => Ok(DevicePolicy::Engine),
            _ => Err(ExportError::Policy {
                spec: format!("devices={s}"),
                why: "the device policy is `planned` or `slurm` (also `engine`)".into(),
            }),
        }
    }
}

/// How to export: the command each task runs, the host names, the workflow's name, the
/// container image (Argo), who chooses the devices, and whether an invalid schedule may be
/// exported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    /// The command template; default [`CommandTemplate::DEFAULT`], a no-op `echo`.
    pub command: CommandTemplate,
    /// Machine → host names.
    pub hosts: HostMap,
    /// The workflow's name (Argo `generateName` prefix, comments); default the workload's.
    pub name: Option<String>,
    /// Container image of the Argo pods (default `busybox:1.36`, which has `sh`).
    pub image: String,
    /// Who chooses each task's physical GPU (default [`DevicePolicy::Engine`]).
    pub devices: DevicePolicy,
    /// Export a schedule that `worl validate` rejects (default `false`: refused with
    /// [`ExportError::Invalid`]). For schedules whose times come from another cost model:
    /// the engines only keep the order, which must still be consistent
    /// ([`ExportError::OrderConflict`]).
    pub allow_invalid: bool,
}

impl ExportOptions {
    /// Applies a `--policy` value: comma-separated `key=value` entries; the only key is
    /// `devices` (`planned`, or `slurm` / `engine`; see [`DevicePolicy`]).
    ///
    /// Errors: [`ExportError::Policy`] naming the entry; a key given twice is one (naming
    /// the key), not the last one winning.
    pub fn set_policy(&mut self, spec: &str) -> Result<()> {
        self.set_policies([spec])
    }

    /// Applies several `--policy` values ([`set_policy`](Self::set_policy)) as one: a key
    /// may be given once over all of them.
    ///
    /// Errors: [`ExportError::Policy`] naming the entry, and for a key given twice, the key
    /// and its first entry; on an error nothing is applied.
    pub fn set_policies<'a>(&mut self, specs: impl IntoIterator<Item = &'a str>) -> Result<()> {
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        let entries = specs
            .into_iter()
            .flat_map(|spec| spec.split(','))
            .map(str::trim)
            .filter(|e| !e.is_empty());
        let mut devices = self.devices;
        for entry in entries {
            if let Some((k, _)) = entry.split_once('=')
                && let Some(first) = seen.insert(k.trim(), entry)
            {
                return Err(ExportError::Policy {
                    spec: entry.to_owned(),
                    why: format!(
                        "policy key `{}` is given twice (first as `{first}`): give each key once",
                        k.trim()
                    ),
                });
            }
            let bad = |why: &str| ExportError::Policy {
                spec: entry.to_owned(),
                why: why.to_owned(),
            };
            let (k, v) = entry
                .split_once('=')
                .ok_or_else(|| bad("expected `key=value`, e.g. `devices=planned`"))?;
            match k.trim() {
                "devices" => devices = v.trim().parse()?,
                _ => return Err(bad("unknown key (known: devices)")),
            }
        }
        // applied only once every entry is good
        self.devices = devices;
        Ok(())
    }
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            command: CommandTemplate::default(),
            hosts: HostMap::new(),
            name: None,
            image: "busybox:1.36".to_owned(),
            devices: DevicePolicy::default(),
            allow_invalid: false,
        }
    }
}

/// One task of an [`ExportPlan`]: where it runs, what it runs and what it waits for.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportTask {
    /// The task in the workload.
    pub id: TaskId,
    /// The task's name in its job.
    pub task: String,
    /// Its job's name.
    pub job: String,
    /// The name the engines use: unique, `[A-Za-z0-9._-]`, the task name where that is
    /// unique (`job-task` in a workload of several jobs); see [`names::unique`].
    pub name: String,
    /// The machine's name in the cluster.
    pub machine: String,
    /// The machine's host name ([`HostMap`]).
    pub host: String,
    /// The GPU's index on its machine, 0-based (for a one-GPU task the value of
    /// `WORL_GPU`, and of `CUDA_VISIBLE_DEVICES` under [`DevicePolicy::Planned`]); for a
    /// gang task, the index of its lead GPU (the first of [`gpus`](Self::gpus)).
    pub gpu: usize,
    /// The GPU's id in the cluster (the lead's for a gang task).
    pub gpu_id: usize,
    /// The indices on the machine of every GPU the task runs on, 0-based, in the
    /// schedule's set order, lead first ([`Schedule::gpus`]): `[gpu]` for a one-GPU task,
    /// `g` indices for a gang task of `g` GPUs. The engines request `gpus.len()` GPUs, and
    /// `WORL_GPU` is [`gpu_list`](Self::gpu_list).
    pub gpus: Vec<usize>,
    /// The cluster ids of the same GPUs, in the same order.
    pub gpu_ids: Vec<usize>,
    /// Planned start, s.
    pub start: f64,
    /// Planned finish, s.
    pub finish: f64,
    /// The command, the template filled in, each value one POSIX shell word (as Argo's
    /// `sh -c` and Ray's `/bin/sh` run it; the Slurm script writes values with control
    /// characters as bash `$'...'` words instead).
    pub command: String,
    /// Positions (in [`ExportPlan::tasks`]) of the tasks this one waits for, ascending:
    /// its data predecessors and its same-GPU predecessors ([`gpu_prevs`](Self::gpu_prevs):
    /// one per GPU of a gang's set). Each is smaller than this task's own position.
    pub after: Vec<usize>,
    /// The position of the task planned just before it on the same GPU (a gang task's
    /// lead GPU), if any.
    pub gpu_prev: Option<usize>,
    /// Positions of the tasks planned just before it on each GPU it runs on, ascending,
    /// each once: `gpu_prev` alone for a one-GPU task; for a gang task one per GPU of its
    /// set that ran something before it.
    pub gpu_prevs: Vec<usize>,
    /// Positions of its data predecessors, ascending.
    pub data_preds: Vec<usize>,
}

impl ExportTask {
    /// Whether the task runs on more than one GPU (a gang task).
    pub fn is_gang(&self) -> bool {
        self.gpus.len() > 1
    }

    /// The planned GPU indices, comma-separated, lead first (`2` for a one-GPU task on
    /// GPU 2, `0,1,2,3` for a gang on GPUs 0 to 3): the value of `WORL_GPU`, of `{gpu}`
    /// and, under [`DevicePolicy::Planned`], of `CUDA_VISIBLE_DEVICES`.
    pub fn gpu_list(&self) -> String {
        self.gpus
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// A schedule ready to export: every task with its host, GPU index, command and the tasks
/// it waits for, in dispatch order. Render it with [`render`](Self::render).
#[derive(Clone, Debug, PartialEq)]
pub struct ExportPlan {
    name: String,
    workload: String,
    cluster: String,
    image: String,
    devices: DevicePolicy,
    template: CommandTemplate,
    tasks: Vec<ExportTask>,
}

impl ExportPlan {
    /// The plan of `schedule` on `problem`.
    ///
    /// The schedule must be valid: the same check as `worl validate`
    /// ([`Schedule::validate`]), unless [`ExportOptions::allow_invalid`]. The dispatch order
    /// sorts the tasks by planned start, then finish, then topological position; on each
    /// GPU the tasks keep that order, and each task waits for the one before it. Every data
    /// edge must go forward in that order (it does in every schedule where a task starts
    /// after its predecessors finish).
    ///
    /// Errors: [`ExportError::Cluster`] ([`ClusterError::ShapeMismatch`]) if the schedule's
    /// task or GPU count is not the problem's; [`ExportError::UnknownMachine`] for a host map entry of a machine the
    /// cluster lacks; [`ExportError::SharedHost`] for two machines with one host;
    /// [`ExportError::EmptyHost`] for a machine whose host name is empty;
    /// [`ExportError::Nul`] for a name (workload, job, task, cluster, machine, host,
    /// workflow name, image, command template) with a NUL character;
    /// [`ExportError::Invalid`] listing every violation of an invalid schedule;
    /// [`ExportError::OrderConflict`] for a task planned to start before a data
    /// predecessor finishes; [`ExportError::GangAcrossMachines`] for a gang task whose GPU
    /// set spans machines, and [`ExportError::GangSet`] for a task whose set is not its
    /// `gpus` distinct GPUs (both even with `allow_invalid`).
    pub fn new(problem: &Problem, schedule: &Schedule, options: &ExportOptions) -> Result<Self> {
        Self::check_shape(problem, schedule)?;
        if !options.allow_invalid {
            let violations = schedule.validate(problem);
            if !violations.is_empty() {
                return Err(invalid(problem, schedule, violations));
            }
        }
        Self::build(problem, schedule, options)
    }

    fn check_shape(problem: &Problem, schedule: &Schedule) -> Result<()> {
        if schedule.n_tasks() != problem.n_tasks() || schedule.n_gpus() != problem.n_gpus() {
            return Err(ClusterError::ShapeMismatch {
                what: "schedule (tasks, GPUs)",
                expected: (problem.n_tasks(), problem.n_gpus()),
                actual: (schedule.n_tasks(), schedule.n_gpus()),
            }
            .into());
        }
        Ok(())
    }

    /// Checks the names and the host map; orders and fills in the tasks.
    fn build(problem: &Problem, schedule: &Schedule, options: &ExportOptions) -> Result<Self> {
        Self::check_shape(problem, schedule)?;
        check_sets(problem, schedule)?;
        let w = problem.workload();
        let c = problem.cluster();
        let g = w.graph();
        for (m, _) in options.hosts.entries() {
            if !c.machines().iter().any(|x| x == m) {
                return Err(ExportError::UnknownMachine {
                    machine: m.to_owned(),
                    cluster: c.name().to_owned(),
                });
            }
        }
        let mut host_of: BTreeMap<&str, &str> = BTreeMap::new();
        for (index, m) in c.machines().iter().enumerate() {
            let host = options.hosts.host(m);
            if host.is_empty() {
                return Err(ExportError::EmptyHost {
                    index,
                    cluster: c.name().to_owned(),
                });
            }
            if let Some(first) = host_of.insert(host, m) {
                return Err(ExportError::SharedHost {
                    host: host.to_owned(),
                    first: first.to_owned(),
                    second: m.clone(),
                });
            }
        }
        check_names(problem, options)?;
        let n = problem.n_tasks();
        let mut topo_pos = vec![0usize; n];
        for (i, t) in g.topo_order().iter().enumerate() {
            topo_pos[t.index()] = i;
        }
        let mut order: Vec<usize> = (0..n).collect();
        let st = schedule.tasks();
        order.sort_by(|&a, &b| {
            st[a]
                .start
                .total_cmp(&st[b].start)
                .then(st[a].finish.total_cmp(&st[b].finish))
                .then(topo_pos[a].cmp(&topo_pos[b]))
        });
        let mut pos = vec![0usize; n];
        for (p, &t) in order.iter().enumerate() {
            pos[t] = p;
        }
        let label = |t: usize| w.task_label(TaskId::new(t));
        // data edges must go forward
        for &t in &order {
            for nb in g.preds(TaskId::new(t)) {
                let u = nb.task.index();
                let early = st[t].start < st[u].finish - 1e-9 * st[u].finish.abs().max(1.0);
                if early || pos[u] > pos[t] {
                    return Err(ExportError::OrderConflict {
                        from: label(u),
                        to: label(t),
                        finish: st[u].finish,
                        start: st[t].start,
                    });
                }
            }
        }
        let several_jobs = w.n_jobs() > 1;
        let bases: Vec<String> = order
            .iter()
            .map(|&t| {
                let task = g.task(TaskId::new(t));
                if several_jobs {
                    format!("{}-{}", w.job(task.job).name, task.name)
                } else {
                    task.name.clone()
                }
            })
            .collect();
        let engine_names = names::unique(&bases, names::slurm_name);
        let mut last_on_gpu: Vec<Option<usize>> = vec![None; problem.n_gpus()];
        let mut tasks = Vec::with_capacity(n);
        for (p, &t) in order.iter().enumerate() {
            let id = TaskId::new(t);
            let task = g.task(id);
            let e = &st[t];
            let gpu = c.gpu(e.gpu);
            let machine = c.machines()[gpu.machine.index()].clone();
            // on one machine (check_sets), lead first
            let set = schedule.gpus(id);
            let on_machine = c.gpus_of(gpu.machine);
            let gpus: Vec<usize> = set
                .iter()
                .map(|k| on_machine.iter().position(|x| x == k).unwrap_or(0))
                .collect();
            let gpu_index = gpus[0];
            let host = options.hosts.host(&machine).to_owned();
            let mut data_preds: Vec<usize> =
                g.preds(id).iter().map(|nb| pos[nb.task.index()]).collect();
            data_preds.sort_unstable();
            let gpu_prev = last_on_gpu[e.gpu.index()].replace(p);
            let mut gpu_prevs: Vec<usize> = gpu_prev.into_iter().collect();
            for k in &set[1..] {
                gpu_prevs.extend(last_on_gpu[k.index()].replace(p));
            }
            gpu_prevs.sort_unstable();
            gpu_prevs.dedup();
            let mut after = data_preds.clone();
            for &q in &gpu_prevs {
                if !after.contains(&q) {
                    after.push(q);
                }
            }
            after.sort_unstable();
            let gpu_list = gpus
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let job = w.job(task.job).name.clone();
            let name = engine_names[p].clone();
            let command = options.command.render(
                &template::Values {
                    task: &task.name,
                    job: &job,
                    gpu: &gpu_list,
                    machine: &machine,
                    host: &host,
                    name: &name,
                    id: t,
                },
                quote::shell_word,
            );
            tasks.push(ExportTask {
                id,
                task: task.name.clone(),
                job,
                name,
                machine,
                host,
                gpu: gpu_index,
                gpu_id: e.gpu.index(),
                gpu_ids: set.iter().map(|k| k.index()).collect(),
                gpus,
                start: e.start,
                finish: e.finish,
                command,
                after,
                gpu_prev,
                gpu_prevs,
                data_preds,
            });
        }
        Ok(Self {
            name: options.name.clone().unwrap_or_else(|| w.name().to_owned()),
            workload: w.name().to_owned(),
            cluster: c.name().to_owned(),
            image: options.image.clone(),
            devices: options.devices,
            template: options.command.clone(),
            tasks,
        })
    }

    /// The plan of a schedule file on `problem`: [`ScheduleFile::to_schedule`], the checks
    /// of `worl validate` ([`ScheduleFile::validate_with_schedule`]: also repeated rows and a
    /// wrong declared makespan) unless [`ExportOptions::allow_invalid`], then as
    /// [`new`](Self::new).
    ///
    /// Errors: [`ExportError::Mismatch`] (naming the file, row and task) when the file does
    /// not belong to the problem; [`ExportError::Invalid`] with every violation `worl
    /// validate` reports; then as [`new`](Self::new).
    pub fn from_file(
        problem: &Problem,
        file: &ScheduleFile,
        options: &ExportOptions,
    ) -> Result<Self> {
        let schedule = file.to_schedule(problem)?;
        if !options.allow_invalid {
            let (violations, checked) = file.validate_with_schedule(problem)?;
            if !violations.is_empty() {
                return Err(invalid(problem, &checked, violations));
            }
        }
        Self::build(problem, &schedule, options)
    }

    /// Who chooses the devices ([`ExportOptions::devices`]).
    pub fn devices(&self) -> DevicePolicy {
        self.devices
    }

    /// The command of the task at `position` with its values as bash words
    /// ([`quote::bash_word`]), for the Slurm batch script.
    pub(crate) fn bash_command(&self, position: usize) -> String {
        let t = &self.tasks[position];
        self.template.render(
            &template::Values {
                task: &t.task,
                job: &t.job,
                gpu: &t.gpu_list(),
                machine: &t.machine,
                host: &t.host,
                name: &t.name,
                id: t.id.index(),
            },
            quote::bash_word,
        )
    }

    /// The tasks in dispatch order.
    pub fn tasks(&self) -> &[ExportTask] {
        &self.tasks
    }

    /// Whether some task runs on more than one GPU ([`ExportTask::is_gang`]). Only then do
    /// the artifacts carry per-task GPU counts; without gang tasks they are as they were
    /// before gang tasks existed, byte for byte.
    pub fn has_gangs(&self) -> bool {
        self.tasks.iter().any(ExportTask::is_gang)
    }

    /// The workflow's name ([`ExportOptions::name`] or the workload's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The workload's name.
    pub fn workload(&self) -> &str {
        &self.workload
    }

    /// The cluster's name.
    pub fn cluster(&self) -> &str {
        &self.cluster
    }

    /// The container image of Argo pods.
    pub fn image(&self) -> &str {
        &self.image
    }

    /// The artifact for `engine`: [`slurm::script`], [`argo::workflow`] or [`ray::driver`].
    pub fn render(&self, engine: Engine) -> String {
        match engine {
            Engine::Slurm => slurm::script(self),
            Engine::Argo => argo::workflow(self),
            Engine::Ray => ray::driver(self),
        }
    }
}

/// [`ExportError::Invalid`] of `violations` found on `schedule`.
fn invalid(problem: &Problem, schedule: &Schedule, violations: Vec<Violation>) -> ExportError {
    let explained = violations
        .iter()
        .map(|v| v.explain(problem, schedule).to_string())
        .collect();
    ExportError::Invalid {
        violations,
        explained,
    }
}

/// [`ExportError::GangSet`] for the first task (by id) whose GPU set is not `gpus`
/// distinct GPUs, [`ExportError::GangAcrossMachines`] for the first whose set spans
/// machines. `O(n + Σ g log g)`.
fn check_sets(problem: &Problem, schedule: &Schedule) -> Result<()> {
    let c = problem.cluster();
    for (v, task) in problem.graph().tasks() {
        let set = schedule.gpus(v);
        let mut distinct: Vec<usize> = set.iter().map(|k| k.index()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() != set.len() || set.len() != task.gpus as usize {
            return Err(ExportError::GangSet {
                task: problem.task_label(v),
                gpus: task.gpus,
                given: distinct.len(),
                set: set
                    .iter()
                    .map(|k| format!("g{}", k.index()))
                    .collect::<Vec<_>>()
                    .join(","),
            });
        }
        let lead = problem.machine_of(set[0]);
        if set[1..].iter().any(|&k| problem.machine_of(k) != lead) {
            let mut machines: Vec<String> = Vec::new();
            for &k in set {
                let m = &c.machines()[problem.machine_of(k).index()];
                if !machines.contains(m) {
                    machines.push(m.clone());
                }
            }
            return Err(ExportError::GangAcrossMachines {
                task: problem.task_label(v),
                gpus: task.gpus,
                machines,
            });
        }
    }
    Ok(())
}

/// [`ExportError::Nul`] for the first name with a NUL character.
fn check_names(problem: &Problem, options: &ExportOptions) -> Result<()> {
    let w = problem.workload();
    let c = problem.cluster();
    let nul = |what: String, name: &str| {
        if name.contains('\0') {
            Err(ExportError::Nul {
                what,
                name: name.to_owned(),
            })
        } else {
            Ok(())
        }
    };
    nul("workload name".into(), w.name())?;
    nul("cluster name".into(), c.name())?;
    for (j, job) in w.jobs().iter().enumerate() {
        nul(format!("name of job {j}"), &job.name)?;
    }
    for t in w.graph().task_ids() {
        nul(format!("name of task {t}"), &w.graph().task(t).name)?;
    }
    for m in c.machines() {
        nul("machine name".into(), m)?;
        nul(
            format!("host of machine `{}`", m.escape_debug()),
            options.hosts.host(m),
        )?;
    }
    if let Some(n) = &options.name {
        nul("workflow name".into(), n)?;
    }
    nul("container image".into(), &options.image)?;
    nul("command template".into(), options.command.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_machine_name_without_a_host_is_refused() {
        use std::sync::Arc;
        use worl_cluster::{ClusterBuilder, GpuId, GpuModel, ScheduledTask};
        let mut w = worl_dag::WorkloadBuilder::new("w");
        let j = w.add_job("j").unwrap();
        w.add_task(j, "a", 1.0, None).unwrap();
        let mut c = ClusterBuilder::new("c");
        let m = c.add_machine("");
        c.add_gpu(m, &GpuModel::t4()).unwrap();
        let p = Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap();
        let exec = p.exec_time(TaskId::new(0), GpuId::new(0));
        let s = Schedule::new(
            1,
            vec![ScheduledTask {
                gpu: GpuId::new(0),
                start: 0.0,
                finish: exec,
            }],
        )
        .unwrap();
        let e = ExportPlan::new(&p, &s, &ExportOptions::default()).unwrap_err();
        assert!(
            matches!(&e, ExportError::EmptyHost { index: 0, cluster } if cluster == "c"),
            "{e}"
        );
        // a host for it pins its tasks again
        let mut o = ExportOptions::default();
        o.hosts.insert("", "gpu-0");
        let plan = ExportPlan::new(&p, &s, &o).unwrap();
        assert_eq!(plan.tasks()[0].host, "gpu-0");
    }

    #[test]
    fn a_repeated_policy_key_is_an_error_naming_the_key() {
        let mut o = ExportOptions::default();
        let e = o.set_policy("devices=planned, devices=slurm").unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy `devices=slurm`: policy key `devices` is given twice (first as \
             `devices=planned`): give each key once"
        );
        let mut o = ExportOptions::default();
        let e = o
            .set_policies(["devices=planned", "devices=planned"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("policy key `devices` is given twice"), "{e}");
        assert_eq!(
            o.devices,
            DevicePolicy::Engine,
            "nothing applied on an error"
        );
        let mut o = ExportOptions::default();
        o.set_policies(["devices=planned", ""]).unwrap();
        assert_eq!(o.devices, DevicePolicy::Planned);
    }
}
