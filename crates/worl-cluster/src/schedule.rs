//! [`Schedule`]: per task GPU, start and finish; per GPU timeline.

use crate::error::{ClusterError, Result};
use crate::ids::GpuId;
use crate::plan::Plan;
use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use worl_dag::TaskId;

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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ScheduleData {
    n_gpus: usize,
    tasks: Vec<ScheduledTask>,
}

/// A schedule: a [`ScheduledTask`] per task (indexed by [`TaskId::index`]) and, per GPU, its
/// tasks sorted by start time (ties by finish, then id).
///
/// Built by the [`Evaluator`](crate::Evaluator), a
/// [`PartialSchedule`](crate::PartialSchedule), or by any scheduler from its own entries
/// with [`Schedule::new`]. Construction checks only what the type needs (GPU ids in range,
/// finite intervals); whether it is feasible for a problem is [`validate`](Self::validate)'s
/// job. Serialises to JSON as `{"n_gpus": m, "tasks": [{"gpu", "start", "finish"}, ...]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScheduleData", into = "ScheduleData")]
pub struct Schedule {
    n_gpus: usize,
    tasks: Vec<ScheduledTask>,
    timelines: Vec<Vec<TaskId>>,
    makespan: f64,
}

impl TryFrom<ScheduleData> for Schedule {
    type Error = ClusterError;
    fn try_from(d: ScheduleData) -> Result<Self> {
        Self::new(d.n_gpus, d.tasks)
    }
}

impl From<Schedule> for ScheduleData {
    fn from(s: Schedule) -> Self {
        Self {
            n_gpus: s.n_gpus,
            tasks: s.tasks,
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
        })
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

    /// The tasks on `gpu`, sorted by start time (ties: finish, then id).
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

    /// Busy time of `gpu`: `Σ (F_v − S_v)` over its tasks, s.
    ///
    /// # Panics
    /// If `gpu` is out of range.
    pub fn busy_time(&self, gpu: GpuId) -> f64 {
        self.timelines[gpu.index()]
            .iter()
            .map(|t| self.tasks[t.index()].finish - self.tasks[t.index()].start)
            .sum()
    }

    /// The plan of this schedule: each task's GPU, tasks ordered by start time (ties by
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
        Plan {
            gpu: self.tasks[..g.n_tasks()].iter().map(|t| t.gpu).collect(),
            order,
        }
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
