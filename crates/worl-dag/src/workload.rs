//! [`Workload`]: a forest of jobs as one [`TaskGraph`], and its [`WorkloadBuilder`].

use crate::error::{DagError, Result};
use crate::graph::TaskGraph;
use crate::ids::{JobId, TaskId};
use crate::task::{Edge, GangParams, Job, Task};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// A workload: many jobs (DAGs) held as one forest, as a cluster sees them.
///
/// Every task carries its [`JobId`]; edges never need to cross jobs, but may. Build one with
/// [`WorkloadBuilder`], a loader or a generator.
///
/// ```
/// use worl_dag::WorkloadBuilder;
/// let mut b = WorkloadBuilder::new("demo");
/// let job = b.add_job("j1")?;
/// let a = b.add_task(job, "M1", 4.0, None)?;
/// let c = b.add_task(job, "R2_1", 2.0, Some(8.0))?;
/// b.add_edge(a, c, 1.0e6)?;
/// let w = b.build()?;
/// assert_eq!(w.graph().n_tasks(), 2);
/// assert_eq!(w.task_label(c), "j1/R2_1");
/// # Ok::<(), worl_dag::DagError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Workload {
    name: String,
    jobs: Vec<Job>,
    graph: TaskGraph,
}

impl Workload {
    /// Name of the workload (e.g. the file or generator it came from).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The jobs, indexed by [`JobId::index`].
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Number of jobs.
    pub fn n_jobs(&self) -> usize {
        self.jobs.len()
    }

    /// The job `id`.
    ///
    /// # Panics
    /// If `id` is not a job of this workload.
    pub fn job(&self, id: JobId) -> &Job {
        &self.jobs[id.index()]
    }

    /// The task graph (all jobs as one DAG).
    pub fn graph(&self) -> &TaskGraph {
        &self.graph
    }

    /// A task rendered as `job/task` for messages and reports.
    pub fn task_label(&self, id: TaskId) -> String {
        let t = self.graph.task(id);
        format!("{}/{}", self.jobs[t.job.index()].name, t.name)
    }

    /// The id of the task named `task` in job `job`, if any (linear in the job's size).
    pub fn find_task(&self, job: &str, task: &str) -> Option<TaskId> {
        let j = self.jobs.iter().find(|j| j.name == job)?;
        j.tasks
            .iter()
            .copied()
            .find(|&t| self.graph.task(t).name == task)
    }

    /// A builder holding this workload's jobs, tasks and edges with the same ids, to edit
    /// (e.g. re-draw edge bytes with [`WorkloadBuilder::set_edge_bytes`]) and build again.
    pub fn to_builder(&self) -> WorkloadBuilder {
        let mut b = WorkloadBuilder::new(self.name.clone());
        for j in &self.jobs {
            let id = b
                .add_job(&j.name)
                .expect("job names of a workload are unique");
            b.jobs[id.index()].release = j.release;
        }
        for (_, t) in self.graph.tasks() {
            let id = b
                .add_task(t.job, &t.name, t.work, t.mem_gib)
                .expect("tasks of a workload are valid");
            b.copy_gang(id, t);
        }
        b.edges.extend(self.graph.edges());
        b
    }

    /// Whether any task is a gang task (`gpus > 1`); cached by the graph
    /// ([`TaskGraph::has_gangs`]). Schedulers take their single-GPU fast path when false.
    #[inline]
    pub fn has_gangs(&self) -> bool {
        self.graph.has_gangs()
    }

    /// The same workload under another name.
    ///
    /// Errors: [`DagError::InvalidName`] if `name` holds a control character (as
    /// [`WorkloadBuilder::build`]).
    pub fn renamed(mut self, name: impl Into<String>) -> Result<Self> {
        let name = name.into();
        check_name("workload", &name, "")?;
        self.name = name;
        Ok(self)
    }

    /// The jobs `jobs` of this workload (in the given order) as a workload of their own
    /// named `name`: same job and task names, work, memory, gang demand, and the edges among
    /// them.
    ///
    /// Errors: [`DagError::Empty`] when `jobs` is empty; [`DagError::DuplicateJob`] when a
    /// job is named twice.
    ///
    /// # Panics
    /// Never for ids of this workload; a [`JobId`] of another workload out of range panics
    /// as an index would.
    pub fn select_jobs(&self, jobs: &[JobId], name: impl Into<String>) -> Result<Workload> {
        let g = &self.graph;
        let mut b = WorkloadBuilder::new(name);
        let mut map: Vec<Option<TaskId>> = vec![None; g.n_tasks()];
        for &j in jobs {
            let job = self.job(j);
            let nj = b.add_job(&job.name)?;
            b.jobs[nj.index()].release = job.release;
            for &t in &job.tasks {
                let task = g.task(t);
                let id = b.add_task(nj, &task.name, task.work, task.mem_gib)?;
                b.copy_gang(id, task);
                map[t.index()] = Some(id);
            }
        }
        for e in g.edges() {
            if let (Some(a), Some(c)) = (map[e.from.index()], map[e.to.index()]) {
                b.add_edge(a, c, e.bytes)?;
            }
        }
        b.build()
    }

    /// Whole jobs of this workload drawn in a random order seeded by `seed`, DAG jobs (2 or
    /// more tasks) first, kept while they fit, until exactly `tasks` tasks; returned in their
    /// order in this workload, named `name` ([`select_jobs`](Self::select_jobs)). How a
    /// trace's jobs become test workloads of a given size.
    ///
    /// Errors: [`DagError::InvalidParameter`] (`tasks`) when whole jobs cannot make exactly
    /// `tasks` tasks (e.g. more than the workload holds, or 0).
    pub fn sample_jobs(
        &self,
        tasks: usize,
        seed: u64,
        name: impl Into<String>,
    ) -> Result<Workload> {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut order: Vec<JobId> = (0..self.n_jobs()).map(JobId::new).collect();
        order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let mut left = tasks;
        let mut picked = Vec::new();
        for dag_jobs in [true, false] {
            for &j in &order {
                let size = self.job(j).tasks.len();
                if left > 0 && (size >= 2) == dag_jobs && size <= left {
                    picked.push(j);
                    left -= size;
                }
            }
        }
        if left > 0 || tasks == 0 {
            return Err(DagError::InvalidParameter {
                name: "tasks",
                reason: format!(
                    "whole jobs of `{}` cannot make exactly {tasks} tasks",
                    self.name
                ),
            });
        }
        picked.sort_unstable();
        self.select_jobs(&picked, name)
    }

    /// Merges workloads into one forest named `name`, keeping each job's tasks and edges;
    /// ids are renumbered in input order (the jobs of the first workload come first).
    ///
    /// Errors: [`DagError::DuplicateJob`] if two inputs hold a job of the same name,
    /// [`DagError::Empty`] if there is no task at all.
    pub fn merge<'a>(
        name: impl Into<String>,
        parts: impl IntoIterator<Item = &'a Workload>,
    ) -> Result<Self> {
        let mut b = WorkloadBuilder::new(name);
        for w in parts {
            let job_base = b.jobs.len();
            let task_base = b.tasks.len();
            for j in &w.jobs {
                let id = b.add_job(&j.name)?;
                b.jobs[id.index()].release = j.release;
            }
            for (_, t) in w.graph.tasks() {
                let job = JobId::new(job_base + t.job.index());
                let id = b.add_task(job, &t.name, t.work, t.mem_gib)?;
                b.copy_gang(id, t);
            }
            for e in w.graph.edges() {
                b.edges.push(Edge {
                    from: TaskId::new(task_base + e.from.index()),
                    to: TaskId::new(task_base + e.to.index()),
                    bytes: e.bytes,
                });
            }
        }
        b.build()
    }
}

/// Two workloads are equal when they have the same name, the same jobs, the same tasks under
/// the same ids and the same edges with the same bytes (exact `f64` comparison).
impl PartialEq for Workload {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.jobs == other.jobs
            && self.graph.n_tasks() == other.graph.n_tasks()
            && self.graph.n_edges() == other.graph.n_edges()
            && self
                .graph
                .tasks()
                .zip(other.graph.tasks())
                .all(|(a, b)| a == b)
            && self.graph.edges().eq(other.graph.edges())
    }
}

/// [`DagError::InvalidName`] if `name` holds a control character (Unicode Cc: C0, DEL, C1);
/// `job` non-empty for a task, whose name is then reported as `job/name`.
fn check_name(kind: &'static str, name: &str, job: &str) -> Result<()> {
    match name.char_indices().find(|(_, c)| c.is_control()) {
        None => Ok(()),
        Some((offset, character)) => {
            let (name, offset) = if job.is_empty() {
                (name.to_owned(), offset)
            } else {
                (format!("{job}/{name}"), job.len() + 1 + offset)
            };
            Err(DagError::InvalidName {
                kind,
                name,
                character,
                offset,
            })
        }
    }
}

/// Incremental construction of a [`Workload`], validating every value as it is added and the
/// structure (acyclic, no duplicate edge) in [`build`](Self::build).
#[derive(Clone, Debug, Default)]
pub struct WorkloadBuilder {
    name: String,
    jobs: Vec<Job>,
    job_index: HashMap<String, JobId>,
    tasks: Vec<Task>,
    task_index: HashMap<(JobId, String), TaskId>,
    edges: Vec<Edge>,
}

impl WorkloadBuilder {
    /// An empty builder for a workload named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Adds a job.
    ///
    /// Errors: [`DagError::InvalidName`] if the name holds a control character,
    /// [`DagError::DuplicateJob`] if the name is taken.
    pub fn add_job(&mut self, name: impl Into<String>) -> Result<JobId> {
        let name = name.into();
        check_name("job", &name, "")?;
        let id = JobId::new(self.jobs.len());
        match self.job_index.entry(name) {
            Entry::Occupied(e) => Err(DagError::DuplicateJob {
                job: e.key().clone(),
            }),
            Entry::Vacant(e) => {
                self.jobs.push(Job {
                    name: e.key().clone(),
                    tasks: Vec::new(),
                    release: 0.0,
                });
                e.insert(id);
                Ok(id)
            }
        }
    }

    /// Sets the release (arrival) time of `job`, in seconds from the start of the schedule:
    /// none of its tasks may start earlier (honoured by the simulator, `worl-sim`).
    ///
    /// Errors: [`DagError::UnknownId`] for a missing job, [`DagError::InvalidRelease`] for a
    /// NaN, infinite or negative time.
    pub fn set_release(&mut self, job: JobId, seconds: f64) -> Result<()> {
        let Some(j) = self.jobs.get_mut(job.index()) else {
            return Err(DagError::UnknownId {
                kind: "job",
                index: job.index(),
                len: self.jobs.len(),
            });
        };
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(DagError::InvalidRelease {
                job: j.name.clone(),
                value: seconds,
            });
        }
        j.release = seconds;
        Ok(())
    }

    /// The id of job `name`, if added.
    pub fn job_id(&self, name: &str) -> Option<JobId> {
        self.job_index.get(name).copied()
    }

    /// Adds a task to `job` with `work` reference GPU-seconds and an optional memory need in
    /// GiB.
    ///
    /// Errors: [`DagError::UnknownId`] for a missing job, [`DagError::InvalidName`] if the
    /// name holds a control character, [`DagError::DuplicateTask`] if the job has a task of
    /// that name, [`DagError::InvalidWork`] / [`DagError::InvalidMemory`]
    /// for a NaN, infinite or negative work, or a memory need that is not finite and `> 0`.
    pub fn add_task(
        &mut self,
        job: JobId,
        name: impl Into<String>,
        work: f64,
        mem_gib: Option<f64>,
    ) -> Result<TaskId> {
        let name = name.into();
        self.check_task(job, &name, work, mem_gib)?;
        let job_name = &self.jobs[job.index()].name;
        let id = TaskId::new(self.tasks.len());
        match self.task_index.entry((job, name)) {
            Entry::Occupied(e) => Err(DagError::DuplicateTask {
                job: job_name.clone(),
                task: e.key().1.clone(),
            }),
            Entry::Vacant(e) => {
                self.tasks.push(Task {
                    name: e.key().1.clone(),
                    job,
                    work,
                    mem_gib,
                    gpus: 1,
                    gang: GangParams::default(),
                });
                self.jobs[job.index()].tasks.push(id);
                e.insert(id);
                Ok(id)
            }
        }
    }

    /// Checks that `job` exists and that `work` and `mem_gib` are valid for task `name`.
    fn check_task(&self, job: JobId, name: &str, work: f64, mem_gib: Option<f64>) -> Result<()> {
        let Some(j) = self.jobs.get(job.index()) else {
            return Err(DagError::UnknownId {
                kind: "job",
                index: job.index(),
                len: self.jobs.len(),
            });
        };
        check_name("task", name, &j.name)?;
        if !(work.is_finite() && work >= 0.0) {
            return Err(DagError::InvalidWork {
                task: format!("{}/{name}", j.name),
                value: work,
            });
        }
        if let Some(m) = mem_gib
            && !(m.is_finite() && m > 0.0)
        {
            return Err(DagError::InvalidMemory {
                task: format!("{}/{name}", j.name),
                value: m,
            });
        }
        Ok(())
    }

    /// [`add_task`](Self::add_task) for a caller that has already made sure no task of `job`
    /// has this name (e.g. a loader that removed repeated names): values are checked, but the
    /// task is not entered in the name index, so [`task_id`](Self::task_id) does not find it
    /// and repeated names are not detected. Saves a string copy and a hash per task.
    pub(crate) fn add_task_unique(
        &mut self,
        job: JobId,
        name: &str,
        work: f64,
        mem_gib: Option<f64>,
    ) -> Result<TaskId> {
        self.check_task(job, name, work, mem_gib)?;
        let id = TaskId::new(self.tasks.len());
        self.tasks.push(Task {
            name: name.to_owned(),
            job,
            work,
            mem_gib,
            gpus: 1,
            gang: GangParams::default(),
        });
        self.jobs[job.index()].tasks.push(id);
        Ok(id)
    }

    /// Makes `task` a gang task needing `gpus` GPUs at once, run as `params` says (`gpus = 1`
    /// with default `params` makes it an ordinary single-GPU task again).
    ///
    /// ```
    /// use worl_dag::{GangParams, Span, WorkloadBuilder};
    /// let mut b = WorkloadBuilder::new("ddp");
    /// let j = b.add_job("train")?;
    /// // 8 GPUs for 4 h of V100 time in total: 30 min on 8 reference GPUs.
    /// let t = b.add_task(j, "resnet50", 8.0 * 1800.0, None)?;
    /// b.set_gang(t, 8, GangParams { span: Span::Cluster, efficiency: 0.9, ..Default::default() })?;
    /// let w = b.build()?;
    /// assert!(w.has_gangs() && w.graph().task(t).is_gang());
    /// assert_eq!(w.graph().task(t).gpus, 8);
    /// # Ok::<(), worl_dag::DagError>(())
    /// ```
    ///
    /// Errors: [`DagError::UnknownId`] for a missing task; [`DagError::InvalidGang`] naming the
    /// task (`job/task`) when `gpus` is 0 or more than
    /// [`MAX_GANG_GPUS`](crate::task::MAX_GANG_GPUS), `params.efficiency` is not in `(0, 1]`
    /// (NaN included), or `params.sync_bytes` / `params.sync_steps` is negative, NaN or
    /// infinite ([`GangParams::check`]). On error the task is unchanged.
    pub fn set_gang(&mut self, task: TaskId, gpus: u32, params: GangParams) -> Result<()> {
        if task.index() >= self.tasks.len() {
            return Err(DagError::UnknownId {
                kind: "task",
                index: task.index(),
                len: self.tasks.len(),
            });
        }
        params.check(gpus).map_err(|reason| DagError::InvalidGang {
            task: self.label(task),
            reason,
        })?;
        let t = &mut self.tasks[task.index()];
        t.gpus = gpus;
        t.gang = params;
        Ok(())
    }

    /// Copies the (already validated) gang demand of `from` onto the new task `id`.
    fn copy_gang(&mut self, id: TaskId, from: &Task) {
        let t = &mut self.tasks[id.index()];
        t.gpus = from.gpus;
        t.gang = from.gang;
    }

    /// The id of task `name` in `job`, if added.
    pub fn task_id(&self, job: JobId, name: &str) -> Option<TaskId> {
        self.task_index.get(&(job, name.to_owned())).copied()
    }

    /// Number of tasks added so far.
    pub fn n_tasks(&self) -> usize {
        self.tasks.len()
    }

    /// Adds the dependency `from -> to` carrying `bytes` of data.
    ///
    /// Errors: [`DagError::UnknownId`] for a missing task, [`DagError::SelfLoop`],
    /// [`DagError::InvalidBytes`] for NaN, infinite or negative bytes. Duplicates and cycles
    /// are reported by [`build`](Self::build).
    pub fn add_edge(&mut self, from: TaskId, to: TaskId, bytes: f64) -> Result<()> {
        for t in [from, to] {
            if t.index() >= self.tasks.len() {
                return Err(DagError::UnknownId {
                    kind: "task",
                    index: t.index(),
                    len: self.tasks.len(),
                });
            }
        }
        if from == to {
            return Err(DagError::SelfLoop {
                task: self.label(from),
            });
        }
        if !(bytes.is_finite() && bytes >= 0.0) {
            return Err(DagError::InvalidBytes {
                from: self.label(from),
                to: self.label(to),
                value: bytes,
            });
        }
        self.edges.push(Edge { from, to, bytes });
        Ok(())
    }

    /// Sets the bytes of every edge added so far with `f(edge)` (e.g. to reach a target CCR).
    ///
    /// Errors: [`DagError::InvalidBytes`] if `f` returns a NaN, infinite or negative value.
    pub fn set_edge_bytes(&mut self, mut f: impl FnMut(&Edge) -> f64) -> Result<()> {
        for i in 0..self.edges.len() {
            let bytes = f(&self.edges[i]);
            if !(bytes.is_finite() && bytes >= 0.0) {
                let e = self.edges[i];
                return Err(DagError::InvalidBytes {
                    from: self.label(e.from),
                    to: self.label(e.to),
                    value: bytes,
                });
            }
            self.edges[i].bytes = bytes;
        }
        Ok(())
    }

    /// The edges added so far.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The tasks added so far, indexed by [`TaskId::index`].
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The jobs added so far, indexed by [`JobId::index`].
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    fn label(&self, id: TaskId) -> String {
        let t = &self.tasks[id.index()];
        format!("{}/{}", self.jobs[t.job.index()].name, t.name)
    }

    /// Validates the structure and builds the workload.
    ///
    /// Errors: [`DagError::InvalidName`] if the workload's name holds a control character,
    /// [`DagError::Empty`] without tasks, [`DagError::DuplicateEdge`],
    /// [`DagError::Cycle`] naming the tasks of one cycle.
    pub fn build(self) -> Result<Workload> {
        check_name("workload", &self.name, "")?;
        if self.tasks.is_empty() {
            return Err(DagError::Empty {
                workload: self.name,
            });
        }
        let Self {
            name,
            jobs,
            tasks,
            edges,
            ..
        } = self;
        let graph = TaskGraph::build(tasks, &edges, |t| {
            format!("{}/{}", jobs[t.job.index()].name, t.name)
        })?;
        Ok(Workload { name, jobs, graph })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{MAX_GANG_GPUS, Span};

    /// A builder with job `j` holding tasks `a` (work 4) and `b` (work 2), `a -> b`.
    fn two_tasks() -> (WorkloadBuilder, TaskId, TaskId) {
        let mut b = WorkloadBuilder::new("w");
        let j = b.add_job("j").unwrap();
        let t0 = b.add_task(j, "a", 4.0, None).unwrap();
        let t1 = b.add_task(j, "b", 2.0, Some(8.0)).unwrap();
        b.add_edge(t0, t1, 1.0e6).unwrap();
        (b, t0, t1)
    }

    #[test]
    fn tasks_default_to_one_gpu_and_no_gangs() {
        let (b, t0, _) = two_tasks();
        let w = b.build().unwrap();
        let t = w.graph().task(t0);
        assert_eq!(t.gpus, 1);
        assert_eq!(t.gang, GangParams::default());
        assert!(!t.is_gang() && !w.has_gangs() && !w.graph().has_gangs());
        assert_eq!(
            GangParams::default(),
            GangParams {
                span: Span::Machine,
                efficiency: 1.0,
                sync_bytes: 0.0,
                sync_steps: 0.0
            }
        );
    }

    #[test]
    fn set_gang_is_kept_and_survives_every_rebuild() {
        let (mut b, t0, t1) = two_tasks();
        let p = GangParams {
            span: Span::Cluster,
            efficiency: 0.8,
            sync_bytes: 1.0e8,
            sync_steps: 100.0,
        };
        b.set_gang(t1, 4, p).unwrap();
        let w = b.build().unwrap();
        assert!(w.has_gangs());
        assert!(!w.graph().task(t0).is_gang());
        let t = w.graph().task(t1);
        assert!(t.is_gang());
        assert_eq!((t.gpus, t.gang), (4, p));
        // to_builder, select_jobs, merge keep the demand.
        assert_eq!(w.to_builder().build().unwrap(), w);
        let sel = w.select_jobs(&[JobId::new(0)], "w").unwrap();
        assert_eq!(sel, w);
        let m = Workload::merge("w", [&w]).unwrap();
        assert_eq!(m, w);
        // gpus = 1 with default params makes it single again; the cache follows.
        let mut b = w.to_builder();
        b.set_gang(t1, 1, GangParams::default()).unwrap();
        assert!(!b.build().unwrap().has_gangs());
    }

    #[test]
    fn set_gang_refusals_name_the_task() {
        let ok = GangParams::default();
        let cases: [(u32, GangParams, &str); 9] = [
            (0, ok, "gpus = 0; a task needs at least 1 GPU"),
            (
                MAX_GANG_GPUS + 1,
                ok,
                "gpus = 4097 is more than 4096, the most one task may demand",
            ),
            (
                2,
                GangParams {
                    efficiency: 0.0,
                    ..ok
                },
                "efficiency 0 is not in (0, 1]",
            ),
            (
                2,
                GangParams {
                    efficiency: -0.5,
                    ..ok
                },
                "efficiency -0.5 is not in (0, 1]",
            ),
            (
                2,
                GangParams {
                    efficiency: 1.5,
                    ..ok
                },
                "efficiency 1.5 is not in (0, 1]",
            ),
            (
                2,
                GangParams {
                    efficiency: f64::NAN,
                    ..ok
                },
                "efficiency NaN is not in (0, 1]",
            ),
            (
                2,
                GangParams {
                    sync_bytes: -1.0,
                    ..ok
                },
                "sync_bytes -1 is not a finite number >= 0",
            ),
            (
                2,
                GangParams {
                    sync_bytes: f64::INFINITY,
                    ..ok
                },
                "sync_bytes inf is not a finite number >= 0",
            ),
            (
                2,
                GangParams {
                    sync_steps: f64::NAN,
                    ..ok
                },
                "sync_steps NaN is not a finite number >= 0",
            ),
        ];
        for (gpus, p, reason) in cases {
            let (mut b, _, t1) = two_tasks();
            let e = b.set_gang(t1, gpus, p).unwrap_err();
            assert!(matches!(e, DagError::InvalidGang { .. }), "{e:?}");
            assert_eq!(e.to_string(), format!("task `j/b`: invalid gang: {reason}"));
            // The task is unchanged.
            assert_eq!(b.tasks()[t1.index()].gpus, 1);
        }
        // Bounds themselves are accepted.
        let (mut b, _, t1) = two_tasks();
        b.set_gang(
            t1,
            MAX_GANG_GPUS,
            GangParams {
                efficiency: 1.0,
                ..ok
            },
        )
        .unwrap();
        b.set_gang(
            t1,
            2,
            GangParams {
                efficiency: 1e-9,
                ..ok
            },
        )
        .unwrap();
        let e = b.set_gang(TaskId::new(7), 2, ok).unwrap_err();
        assert_eq!(e.to_string(), "unknown task id 7 (only 2 exist)");
    }

    #[test]
    fn task_serde_skips_defaults_and_reads_partial_gang() {
        let (mut b, t0, t1) = two_tasks();
        b.set_gang(
            t1,
            8,
            GangParams {
                efficiency: 0.5,
                ..Default::default()
            },
        )
        .unwrap();
        let w = b.build().unwrap();
        let single = serde_json::to_string(w.graph().task(t0)).unwrap();
        assert_eq!(single, r#"{"name":"a","job":0,"work":4.0,"mem_gib":null}"#);
        let gang = serde_json::to_string(w.graph().task(t1)).unwrap();
        assert_eq!(
            gang,
            r#"{"name":"b","job":0,"work":2.0,"mem_gib":8.0,"gpus":8,"gang":{"span":"machine","efficiency":0.5,"sync_bytes":0.0,"sync_steps":0.0}}"#
        );
        let back: Task = serde_json::from_str(
            r#"{"name":"b","job":0,"work":2.0,"mem_gib":null,"gpus":2,"gang":{"span":"cluster"}}"#,
        )
        .unwrap();
        assert_eq!(back.gpus, 2);
        assert_eq!(back.gang.span, Span::Cluster);
        assert_eq!(back.gang.efficiency, 1.0);
        assert_eq!(Span::parse("CLUSTER"), Some(Span::Cluster));
        assert_eq!(Span::parse("rack"), None);
        assert_eq!(Span::Machine.to_string(), "machine");
    }
}
