//! [`Replan`]: re-plans the open tasks with a static scheduler at each arrival and failure.

use super::round_robin::starts_run;
use crate::error::SimError;
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use ndarray::Array2;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use worl_cluster::{GpuId, Problem};
use worl_dag::{JobId, TaskId, WorkloadBuilder};
use worl_sched::{Budget, RunContext, Scheduler};

/// One re-planning decision of [`Replan`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ReplanRecord {
    /// Simulation time of the decision, s.
    pub time: f64,
    /// Tasks in the sub-problem given to the scheduler.
    pub tasks: usize,
    /// Wall-clock time of building the sub-problem and running the scheduler, s.
    pub wall_s: f64,
    /// CPU time of the process during the scheduler's run (all threads), s.
    pub cpu_s: f64,
    /// Planned makespan of the sub-problem, s from the decision.
    pub planned_makespan: f64,
}

/// Re-planning with a static scheduler (any [`Scheduler`] of `worl-sched`): the standard
/// way to run an offline list or search scheduler online (as in the online settings of
/// Decima, Mao et al., SIGCOMM 2019, and the round-based re-allocation of Gavel, Narayanan
/// et al., OSDI 2020).
///
/// **When.** At the first decision of a run and whenever jobs have arrived
/// ([`SimView::newly_released`]) or tasks were lost to a failure ([`SimView::newly_lost`])
/// since the previous decision. Between those it dispatches nothing: the plan made at the
/// last re-planning is already in the GPUs' queues.
///
/// **What.** The *open* tasks: tasks of released jobs that are not dispatched (dispatches
/// are final, so tasks already queued keep their place), in topological order; a task
/// with a parent in a job not released yet waits for that job's arrival (it cannot be
/// planned before its parent). They form a sub-problem on the whole cluster:
///
/// * times are relative to now; GPU `k` is ready at `gpu_free_at(k) − now`
///   ([`SimView::gpu_free_at`]: its running and queued tasks' nominal times); a GPU that
///   is down (its repair time unknown to the policy) is offered only after that time plus
///   a *horizon*: the latest ready time of the up GPUs plus the open tasks' run times on
///   their slowest GPU plus their edges' transfer times on the slowest link, so that a
///   whole serial run of the batch on any up GPU ends first, and a sensible scheduler uses
///   a down GPU only for a task that fits no up GPU's memory;
/// * edges between open tasks keep their bytes; **inputs from tasks outside the
///   sub-problem** (finished, or dispatched and still queued or running) are taken as
///   available on every GPU at time 0 of the sub-problem: neither their transfer time nor a
///   dispatched parent's remaining run time is seen by the scheduler. This is the
///   approximation: static schedulers plan one batch from a clean start, and the engine
///   enforces the true input arrivals (the plan's order stays valid, only its times slip);
/// * run times are the problem's (related or unrelated), memory needs and the network too.
///
/// The scheduler's plan is then dispatched in order of planned start
/// ([`Schedule::to_plan`](worl_cluster::Schedule::to_plan)) to the planned GPUs. Every
/// dispatch order so made is topological, so no GPU's queue head ever waits for a task
/// queued behind it.
///
/// **Gang tasks** (needing `g > 1` GPUs at once) keep their demand and gang parameters in
/// the sub-problem, and each is dispatched to the GPU set the scheduler planned
/// ([`Schedule::gpus`](worl_cluster::Schedule::gpus), [`OnlinePolicy::gang_set`]). A
/// scheduler that does not place gangs ([`Scheduler::supports_gangs`] false) makes the
/// first decision on a problem holding one fail with [`SimError::GangUnsupported`] naming
/// the policy and the first gang task.
///
/// The scheduler runs with `budget` and a seed derived from [`Replan::with_seed`]'s and the
/// decision's index (the same run gives the same plans unless a time budget cuts a search
/// short). The engine measures each decision's wall-clock time into the decision latency
/// metrics and, with [`SimConfig::charge_decision_time`](crate::SimConfig), delays the
/// dispatches by it; [`Replan::records`] keeps each re-planning's sizes, wall-clock and CPU
/// times.
pub struct Replan {
    scheduler: Box<dyn Scheduler>,
    budget: Budget,
    seed: u64,
    name: String,
    /// Tasks of released jobs not dispatched by this policy (or lost since).
    open: Vec<TaskId>,
    /// Position of each task in the graph's topological order (cached per problem).
    topo_pos: Vec<usize>,
    key: Option<(usize, usize)>,
    /// The largest latency (s) and inverse bandwidth (s/byte) of any link (cached per
    /// problem).
    worst_link: (f64, f64),
    /// Scratch: index in the sub-problem + 1 per task, 0 when not in it.
    sub_index: Vec<usize>,
    records: Vec<ReplanRecord>,
    /// The planned GPU sets of the gang tasks dispatched by the last decision.
    sets: HashMap<TaskId, Vec<GpuId>>,
}

impl std::fmt::Debug for Replan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replan")
            .field("scheduler", &self.scheduler.name())
            .field("budget", &self.budget)
            .field("seed", &self.seed)
            .field("open", &self.open.len())
            .field("records", &self.records.len())
            .finish()
    }
}

impl Replan {
    /// Re-planning with `scheduler` under `budget` (per re-planning), seed 0.
    pub fn new(scheduler: Box<dyn Scheduler>, budget: Budget) -> Self {
        let name = format!("replan({})", scheduler.name());
        Self {
            scheduler,
            budget,
            seed: 0,
            name,
            open: Vec::new(),
            topo_pos: Vec::new(),
            key: None,
            worst_link: (0.0, 0.0),
            sub_index: Vec::new(),
            records: Vec::new(),
            sets: HashMap::new(),
        }
    }

    /// The same with the scheduler seeded from `seed` (re-planning `i` of a run uses
    /// `seed ^ (i · 0x9E37_79B9_7F4A_7C15)`).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The re-plannings of the last run, in order.
    pub fn records(&self) -> &[ReplanRecord] {
        &self.records
    }

    fn ensure_problem(&mut self, problem: &Problem) {
        let key = super::problem_key(problem);
        if self.key != Some(key) || self.topo_pos.len() != problem.n_tasks() {
            self.topo_pos = vec![0; problem.n_tasks()];
            for (i, &t) in problem.graph().topo_order().iter().enumerate() {
                self.topo_pos[t.index()] = i;
            }
            self.sub_index = vec![0; problem.n_tasks()];
            // Over machine pairs (through one GPU of each): latency is comm(0 bytes), the
            // inverse bandwidth comm(1 byte) - latency.
            let c = problem.cluster();
            let reps: Vec<GpuId> = (0..c.n_machines())
                .filter_map(|a| c.gpus_of(worl_cluster::MachineId::new(a)).first().copied())
                .collect();
            let mut worst = (0.0f64, 0.0f64);
            for &a in &reps {
                for &b in &reps {
                    // Inside a machine: between two of its GPUs, if it has two.
                    let b = if a == b {
                        match c.gpus_of(c.gpu(a).machine).get(1) {
                            Some(&g) => g,
                            None => continue,
                        }
                    } else {
                        b
                    };
                    let lat = problem.comm_time(0.0, a, b);
                    let inv = (problem.comm_time(1e9, a, b) - lat) / 1e9;
                    worst = (worst.0.max(lat), worst.1.max(inv));
                }
            }
            self.worst_link = worst;
            self.key = Some(key);
        }
    }

    /// The sub-problem of `tasks` (topological order) at `view`'s time.
    fn sub_problem(&self, view: &SimView<'_>, tasks: &[TaskId]) -> Result<Problem, SimError> {
        let p = view.problem();
        let w = p.workload();
        let g = p.graph();
        let mut b = WorkloadBuilder::new(format!("{}@{}", w.name(), view.now()));
        let mut job_map: Vec<Option<JobId>> = vec![None; w.n_jobs()];
        for &t in tasks {
            let task = g.task(t);
            let j = match job_map[task.job.index()] {
                Some(j) => j,
                None => {
                    let j = b.add_job(w.job(task.job).name.clone())?;
                    job_map[task.job.index()] = Some(j);
                    j
                }
            };
            let v = b.add_task(j, task.name.clone(), task.work, task.mem_gib)?;
            if task.is_gang() {
                b.set_gang(v, task.gpus, task.gang)?;
            }
        }
        for (i, &t) in tasks.iter().enumerate() {
            for e in g.preds(t) {
                let s = self.sub_index[e.task.index()];
                if s > 0 {
                    b.add_edge(TaskId::new(s - 1), TaskId::new(i), e.bytes)?;
                }
            }
        }
        let workload = Arc::new(b.build()?);
        let now = view.now();
        let ready: Vec<f64> = p
            .cluster()
            .gpu_ids()
            .map(|k| (view.gpu_free_at(k) - now).max(0.0))
            .collect();
        let mut cluster = p.cluster().clone();
        if p.cluster().gpu_ids().any(|k| !view.gpu_up(k)) {
            let m = p.n_gpus();
            let latest_up = p
                .cluster()
                .gpu_ids()
                .filter(|&k| view.gpu_up(k))
                .map(|k| ready[k.index()])
                .fold(0.0, f64::max);
            let mut horizon = latest_up;
            for &t in tasks {
                horizon += (0..m)
                    .map(|k| p.exec_time(t, GpuId::new(k)))
                    .fold(0.0, f64::max);
                for e in g.preds(t) {
                    if self.sub_index[e.task.index()] > 0 {
                        horizon += self.worst_link.0 + e.bytes * self.worst_link.1;
                    }
                }
            }
            for k in p.cluster().gpu_ids().filter(|&k| !view.gpu_up(k)) {
                cluster.set_ready_time(k, ready[k.index()] + horizon)?;
            }
        }
        for k in p.cluster().gpu_ids().filter(|&k| view.gpu_up(k)) {
            cluster.set_ready_time(k, ready[k.index()])?;
        }
        let cluster = Arc::new(cluster);
        let sub = if p.is_unrelated() {
            // `with_exec_times` divides by 1 - background: undo it so that the times match.
            let gpus = p.cluster().gpus();
            let times = Array2::from_shape_fn((tasks.len(), p.n_gpus()), |(i, k)| {
                p.exec_time(tasks[i], GpuId::new(k)) * (1.0 - gpus[k].background)
            });
            Problem::with_exec_times(workload, cluster, times)?
        } else {
            Problem::new(workload, cluster)?
        };
        Ok(sub)
    }
}

impl OnlinePolicy for Replan {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        let p = view.problem();
        self.sets.clear();
        if !self.scheduler.supports_gangs() {
            crate::policy::refuse_gangs(&self.name, p)?;
        }
        self.ensure_problem(p);
        let w = p.workload();
        if starts_run(view) {
            // A full rescan: right at any decision, and the start of every run.
            self.records.clear();
            self.open.clear();
            for &j in view.released_jobs() {
                self.open.extend(
                    w.job(j)
                        .tasks
                        .iter()
                        .copied()
                        .filter(|&t| view.undispatched(t)),
                );
            }
        } else if view.newly_released().is_empty() && view.newly_lost().is_empty() {
            return Ok(());
        } else {
            for &j in view.newly_released() {
                self.open.extend(w.job(j).tasks.iter().copied());
            }
            self.open.extend_from_slice(view.newly_lost());
        }
        self.open.retain(|&t| view.undispatched(t));
        let topo = &self.topo_pos;
        self.open.sort_by_key(|t| topo[t.index()]);
        self.open.dedup();
        // Plannable: every parent dispatched, finished, or plannable itself.
        let mut tasks: Vec<TaskId> = Vec::with_capacity(self.open.len());
        let g = p.graph();
        for &t in &self.open {
            let ok = g
                .preds(t)
                .iter()
                .all(|e| !view.undispatched(e.task) || self.sub_index[e.task.index()] > 0);
            if ok {
                tasks.push(t);
                self.sub_index[t.index()] = tasks.len();
            }
        }
        if tasks.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let result = self.sub_problem(view, &tasks).and_then(|sub| {
            let i = self.records.len() as u64;
            let mut ctx = RunContext::new(self.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .with_budget(self.budget.clone());
            let schedule =
                self.scheduler
                    .schedule(&sub, &mut ctx)
                    .map_err(|e| SimError::Policy {
                        policy: self.name.clone(),
                        time: view.now(),
                        reason: format!(
                            "scheduler {} on {} open tasks: {e}",
                            self.scheduler.name(),
                            tasks.len()
                        ),
                    })?;
            Ok((sub, schedule, ctx.cpu_elapsed()))
        });
        if result.is_ok() {
            let sub_index = &self.sub_index;
            self.open.retain(|&t| sub_index[t.index()] == 0);
        }
        for &t in &tasks {
            self.sub_index[t.index()] = 0;
        }
        let (sub, schedule, cpu) = result?;
        if schedule.n_tasks() != tasks.len() {
            return Err(SimError::Policy {
                policy: self.name.clone(),
                time: view.now(),
                reason: format!(
                    "scheduler {} placed {} of {} tasks",
                    self.scheduler.name(),
                    schedule.n_tasks(),
                    tasks.len()
                ),
            });
        }
        let plan = schedule.to_plan(&sub);
        for (s, set) in &plan.gangs {
            self.sets.insert(tasks[s.index()], set.clone());
        }
        out.extend(plan.order.iter().map(|&s| Dispatch {
            task: tasks[s.index()],
            gpu: plan.gpu[s.index()],
        }));
        self.records.push(ReplanRecord {
            time: view.now(),
            tasks: tasks.len(),
            wall_s: started.elapsed().as_secs_f64(),
            cpu_s: cpu.as_secs_f64(),
            planned_makespan: schedule.makespan(),
        });
        Ok(())
    }

    fn gang_set(&self, task: TaskId) -> Option<Vec<GpuId>> {
        self.sets.get(&task).cloned()
    }
}
