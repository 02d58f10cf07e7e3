//! [`Schedule`]: per task GPU, start and finish; per GPU timeline.

use crate::error::{ClusterError, Result};
use crate::ids::GpuId;
use crate::plan::Plan;
use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use worl_dag::TaskId;

/// A GPU set as `g0,g1,g2` (its ids joined by commas), as messages and schedule files write
/// it.
pub fn set_label(gpus: &[GpuId]) -> String {
    gpus.iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Where and when one task runs.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduledTask {
    /// The GPU `π(v)`.
    pub gpu: GpuId,
    /// Start time `S_v`, s.
    pub start: f64,
    /// Finish time `F_v`, s.
    pub finish: f64,
}

/// The GPU set of one gang task in a schedule's or plan's serialized form: `{"task": 3,
/// "gpus": [0, 1, 2, 3]}`, the lead GPU first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GpuSet {
    /// The task.
    pub task: TaskId,
    /// Its GPUs, the lead ([`ScheduledTask::gpu`], [`Plan::gpu`]) first.
    pub gpus: Vec<GpuId>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ScheduleData {
    n_gpus: usize,
    tasks: Vec<ScheduledTask>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sets: Vec<GpuSet>,
}

/// A schedule: a [`ScheduledTask`] per task (indexed by [`TaskId::index`]) and, per GPU, its
/// tasks sorted by start time (ties by finish, then id).
///
/// Built by the [`Evaluator`](crate::Evaluator), a
/// [`PartialSchedule`](crate::PartialSchedule), or by any scheduler from its own entries
/// with [`Schedule::new`]. Construction checks only what the type needs (GPU ids in range,
/// finite intervals); whether it is feasible for a problem is [`validate`](Self::validate)'s
/// job. Serialises to JSON as `{"n_gpus": m, "tasks": [{"gpu", "start", "finish"}, ...]}`,
/// plus `"sets": [{"task", "gpus"}, ...]` when a gang task runs on several GPUs (omitted
/// otherwise, so files without it read as before).
///
/// A gang task (one needing `g > 1` GPUs) runs on a GPU set: its entry's
/// [`gpu`](ScheduledTask::gpu) is the set's first GPU (the lead), the whole set is in a
/// sparse side table ([`gpus`](Self::gpus), built by [`with_sets`](Self::with_sets)), and
/// the task is on the [`timeline`](Self::timeline) of every GPU of its set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScheduleData", into = "ScheduleData")]
pub struct Schedule {
    n_gpus: usize,
    tasks: Vec<ScheduledTask>,
    timelines: Vec<Vec<TaskId>>,
    makespan: f64,
    /// The GPU sets of more than one GPU, by task.
    sets: BTreeMap<TaskId, Vec<GpuId>>,
}

impl TryFrom<ScheduleData> for Schedule {
    type Error = ClusterError;
    fn try_from(d: ScheduleData) -> Result<Self> {
        Self::with_sets(d.n_gpus, d.tasks, d.sets)
    }
}

impl From<Schedule> for ScheduleData {
    fn from(s: Schedule) -> Self {
        Self {
            n_gpus: s.n_gpus,
            tasks: s.tasks,
            sets: s
                .sets
                .into_iter()
                .map(|(task, gpus)| GpuSet { task, gpus })
                .collect(),
        }
    }
}

impl Schedule {
    /// A schedule on `n_gpus` GPUs from one entry per task (entry `i` is task `i`).
    ///
    /// Errors: [`ClusterError::TooManyGpus`] for `n_gpus` beyond
    /// [`MAX_GPUS`](crate::MAX_GPUS) (checked before anything is allocated);
    /// [`ClusterError::UnknownId`] for a GPU `>= n_gpus`;
    /// [`ClusterError::InvalidInterval`] for a non-finite start or finish or `finish < start`.
    pub fn new(n_gpus: usize, tasks: Vec<ScheduledTask>) -> Result<Self> {
        Self::with_sets(n_gpus, tasks, Vec::new())
    }

    /// A schedule whose gang tasks run on GPU sets: as [`new`](Self::new), plus one
    /// [`GpuSet`] per task that runs on more than one GPU, its lead (first GPU) equal to the
    /// task's entry's [`gpu`](ScheduledTask::gpu). A one-GPU set is the entry itself and is
    /// not kept. Repeated GPUs in a set are kept as given (the task is listed once on each
    /// GPU's timeline; [`validate`](Self::validate) reports the repetition).
    ///
    /// Errors: as [`new`](Self::new); [`ClusterError::UnknownId`] for a set's task beyond
    /// the entries or a GPU `>= n_gpus`; [`ClusterError::InvalidGpuSet`] naming the task for
    /// an empty set, a set whose first GPU is not the entry's, or a task given two sets.
    pub fn with_sets(
        n_gpus: usize,
        tasks: Vec<ScheduledTask>,
        sets: impl IntoIterator<Item = GpuSet>,
    ) -> Result<Self> {
        let mut kept = BTreeMap::new();
        for GpuSet { task, gpus } in sets {
            let Some(entry) = tasks.get(task.index()) else {
                return Err(ClusterError::UnknownId {
                    kind: "task",
                    index: task.index(),
                    len: tasks.len(),
                });
            };
            let bad = |reason: String| ClusterError::InvalidGpuSet {
                task: task.to_string(),
                gpus: set_label(&gpus),
                reason,
            };
            if gpus.first() != Some(&entry.gpu) {
                return Err(bad(format!(
                    "its first GPU must be the task's GPU {}",
                    entry.gpu
                )));
            }
            if let Some(k) = gpus.iter().find(|k| k.index() >= n_gpus) {
                return Err(ClusterError::UnknownId {
                    kind: "GPU",
                    index: k.index(),
                    len: n_gpus,
                });
            }
            if kept.contains_key(&task) {
                return Err(bad("the task has two GPU sets".to_owned()));
            }
            if gpus.len() > 1 {
                kept.insert(task, gpus);
            }
        }
        let mut s = Self::build(n_gpus, tasks, &kept)?;
        s.sets = kept;
        Ok(s)
    }

    fn build(
        n_gpus: usize,
        tasks: Vec<ScheduledTask>,
        sets: &BTreeMap<TaskId, Vec<GpuId>>,
    ) -> Result<Self> {
        if n_gpus > crate::cluster::MAX_GPUS {
            return Err(ClusterError::TooManyGpus {
                item: "schedule".to_owned(),
                count: n_gpus,
                limit: crate::cluster::MAX_GPUS,
            });
        }
        let mut timelines = vec![Vec::new(); n_gpus];
        let mut makespan = 0.0f64;
        for (i, t) in tasks.iter().enumerate() {
            if t.gpu.index() >= n_gpus {
                return Err(ClusterError::UnknownId {
                    kind: "GPU",
                    index: t.gpu.index(),
                    len: n_gpus,
                });
            }
            if !(t.start.is_finite() && t.finish.is_finite() && t.finish >= t.start) {
                return Err(ClusterError::InvalidInterval {
                    task: TaskId::new(i),
                    start: t.start,
                    finish: t.finish,
                });
            }
            timelines[t.gpu.index()].push(TaskId::new(i));
            makespan = makespan.max(t.finish);
        }
        for (&task, gpus) in sets {
            for (i, k) in gpus.iter().enumerate().skip(1) {
                // once per distinct GPU (the lead is listed above)
                if !gpus[..i].contains(k) {
                    timelines[k.index()].push(task);
                }
            }
        }
        for tl in &mut timelines {
            tl.sort_unstable_by(|&a, &b| {
                let (x, y) = (&tasks[a.index()], &tasks[b.index()]);
                x.start
                    .total_cmp(&y.start)
                    .then(x.finish.total_cmp(&y.finish))
                    .then(a.cmp(&b))
            });
        }
        Ok(Self {
            n_gpus,
            tasks,
            timelines,
            makespan,
            sets: BTreeMap::new(),
        })
    }

    /// The GPUs `task` runs on: its GPU set for a gang task scheduled on several GPUs (lead
    /// first), else the one-element slice of its entry's GPU (`O(log s)`, `s` the number of
    /// sets).
    ///
    /// # Panics
    /// If `task` is out of range.
    pub fn gpus(&self, task: TaskId) -> &[GpuId] {
        match self.sets.get(&task) {
            Some(set) => set,
            None => std::slice::from_ref(&self.tasks[task.index()].gpu),
        }
    }

    /// Whether some task runs on more than one GPU.
    pub fn has_sets(&self) -> bool {
        !self.sets.is_empty()
    }

    /// The GPU sets of the tasks that run on more than one GPU, in task order.
    pub fn sets(&self) -> impl Iterator<Item = (TaskId, &[GpuId])> + '_ {
        self.sets.iter().map(|(&t, s)| (t, s.as_slice()))
    }

    /// Number of scheduled tasks.
    pub fn n_tasks(&self) -> usize {
        self.tasks.len()
    }

    /// Number of GPUs.
    pub fn n_gpus(&self) -> usize {
        self.n_gpus
    }

    /// All entries, indexed by [`TaskId::index`].
    pub fn tasks(&self) -> &[ScheduledTask] {
        &self.tasks
    }

    /// The entry of `task`.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn task(&self, task: TaskId) -> &ScheduledTask {
        &self.tasks[task.index()]
    }

    /// The tasks on `gpu`, sorted by start time (ties: finish, then id); a gang task is on
    /// the timeline of every GPU of its set.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn timeline(&self, gpu: GpuId) -> &[TaskId] {
        &self.timelines[gpu.index()]
    }

    /// Makespan `max_v F_v`, s (0 without tasks).
    #[inline]
    pub fn makespan(&self) -> f64 {
        self.makespan
    }

    /// Busy time of `gpu`: `Σ (F_v − S_v)` over its tasks (gang tasks on every GPU of their
    /// set), s.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn busy_time(&self, gpu: GpuId) -> f64 {
        self.timelines[gpu.index()]
            .iter()
            .map(|t| self.tasks[t.index()].finish - self.tasks[t.index()].start)
            .sum()
    }

    /// The plan of this schedule: each task's GPU (and GPU set for a gang task, in
    /// [`Plan::gangs`]), tasks ordered by start time (ties by
    /// finish time, then by the graph's topological order, so a feasible schedule gives a
    /// topological order). A schedule made by the [`Evaluator`](crate::Evaluator) with the
    /// insertion policy decodes from this plan to itself; with the append policy too when
    /// every task takes time (append places zero-duration tasks after the GPU's last placed
    /// task, so their order among equal start times matters).
    ///
    /// # Panics
    /// If the schedule has fewer tasks than `problem`.
    pub fn to_plan(&self, problem: &Problem) -> Plan {
        let g = problem.graph();
        let mut topo_pos = vec![0usize; g.n_tasks()];
        for (i, &t) in g.topo_order().iter().enumerate() {
            topo_pos[t.index()] = i;
        }
        let mut order: Vec<TaskId> = g.task_ids().collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.tasks[a.index()], &self.tasks[b.index()]);
            x.start
                .total_cmp(&y.start)
                .then(x.finish.total_cmp(&y.finish))
                .then(topo_pos[a.index()].cmp(&topo_pos[b.index()]))
        });
        let mut plan = Plan::new(
            self.tasks[..g.n_tasks()].iter().map(|t| t.gpu).collect(),
            order,
        );
        for (&task, gpus) in self.sets.range(..TaskId::new(g.n_tasks())) {
            plan.gangs.insert(task, gpus.clone());
        }
        plan
    }

    /// The schedule as JSON.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).expect("a schedule serialises to JSON")
    }

    /// A schedule from JSON.
    ///
    /// Errors: [`ClusterError::Parse`] (file `<memory>`, with line) for malformed JSON or an
    /// invalid schedule.
    pub fn from_json_str(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| ClusterError::Parse {
            file: "<memory>".to_owned(),
            line: e.line(),
            message: e.to_string(),
        })
    }
}
