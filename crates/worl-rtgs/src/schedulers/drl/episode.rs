//! One list-scheduling episode as a Markov decision process: the decisions (a group of ready
//! tasks of one job, each with its candidate GPUs), their features, the placement of the
//! chosen GPUs and the rewards.

use worl_cluster::{GpuId, PartialSchedule, Policy, Problem};
use worl_dag::TaskId;

use crate::error::Result;
use crate::schedulers::agents::{TaskScales, squash};
use crate::schedulers::list::fits_no_gpu;

/// Length of the state vector of a decision:
/// `[placed/n, ln(1 + ready/m), group size/branches, ln(1 + partial makespan/LB)]`.
pub const STATE_DIM: usize = 4;

/// Features of one candidate GPU for one task, before the branch code (see the
/// [module docs](super) for the list).
pub const FEATURE_DIM: usize = 8;

/// A reward `−Δ / lb` as a finite `f32`: NaN is 0, and the magnitude is capped at 10⁶.
#[inline]
fn reward(delta: f64, lb: f64) -> f32 {
    let r = -delta / lb;
    if r.is_nan() {
        0.0
    } else {
        r.clamp(-1.0e6, 1.0e6) as f32
    }
}

/// Per-problem constants of both deep-RL schedulers and of an online dispatcher driven by
/// their agents: each task's scales (the unit of its time features, its upward rank — the
/// decision order — and that rank over the largest), each task's job, and the makespan
/// lower bound (the unit of the rewards and of the partial-makespan state feature).
#[derive(Clone, Debug)]
pub struct Statics {
    scales: TaskScales,
    job_of: Vec<u32>,
    lower_bound: f64,
}

impl Statics {
    /// The constants of `problem`: `O(n + e)` plus the upward ranks (HEFT's `rank_u` on
    /// mean costs) and the lower bound ([`Problem::lower_bound`]).
    pub fn new(problem: &Problem) -> Self {
        let mut job_of = vec![0u32; problem.n_tasks()];
        for (j, job) in problem.workload().jobs().iter().enumerate() {
            for t in &job.tasks {
                job_of[t.index()] = j as u32;
            }
        }
        let lb = problem.lower_bound().value;
        Statics {
            scales: TaskScales::new(problem),
            job_of,
            lower_bound: if lb > 0.0 { lb } else { 1.0 },
        }
    }

    /// The unit of `task`'s time features: its mean execution time over the GPUs, s (1
    /// where it is 0).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn unit(&self, task: TaskId) -> f64 {
        self.scales.unit[task.index()]
    }

    /// `task`'s upward rank `rank_u`, s: decisions take ready tasks in decreasing rank
    /// (ties: smaller id).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn rank(&self, task: TaskId) -> f64 {
        self.scales.rank[task.index()]
    }

    /// `task`'s upward rank over the largest one (0 where not finite), the candidate
    /// feature 7.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn rank_norm(&self, task: TaskId) -> f32 {
        self.scales.rank_norm[task.index()]
    }

    /// The index of `task`'s job (a decision groups ready tasks of one job).
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn job(&self, task: TaskId) -> u32 {
        self.job_of[task.index()]
    }

    /// The problem's makespan lower bound, s (1 when it is 0).
    #[inline]
    pub fn lower_bound(&self) -> f64 {
        self.lower_bound
    }

    /// Orders tasks by decreasing upward rank, ties to the smaller id: the order in which
    /// decisions take ready tasks.
    #[inline]
    pub fn by_rank(&self, a: TaskId, b: TaskId) -> std::cmp::Ordering {
        self.rank(b).total_cmp(&self.rank(a)).then(a.cmp(&b))
    }
}

/// One candidate GPU of a task, the quantities its feature row is computed from (times in
/// s, absolute). In the static episode they come from the partial schedule; an online
/// dispatcher gives their online analogues (estimated GPU free times, realised parents'
/// finishes).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CandidateTimes {
    /// The GPU.
    pub gpu: GpuId,
    /// Earliest (estimated) finish time of the task on the GPU, s.
    pub eft: f64,
    /// The start that finish assumes, s (`eft − start` is the execution time).
    pub start: f64,
    /// When every input of the task would be on the GPU, s (0 without parents).
    pub data_ready: f64,
    /// When the GPU is free of the work already on it, s.
    pub free: f64,
    /// Tasks placed (dispatched) on the GPU so far.
    pub tasks_on_gpu: u32,
}

/// What one decision's state and feature rows are computed from besides the candidates:
/// the progress of the episode (or run) and the decision's size. One implementation
/// ([`state`](Self::state), [`push_rows`](Self::push_rows)) serves the static episode and
/// online dispatchers, so their features cannot drift apart.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct DecisionContext {
    /// Tasks placed (dispatched) so far.
    pub placed: usize,
    /// Tasks of the problem, `n`.
    pub n_tasks: usize,
    /// Ready tasks not yet placed when the decision is made (those of the decision
    /// included).
    pub ready: usize,
    /// GPUs of the cluster, `m`.
    pub n_gpus: usize,
    /// Tasks in the decision (`1..=branches`).
    pub group: usize,
    /// Branches of the agent's network (1 for `dqn`).
    pub branches: usize,
    /// The partial makespan, s (the largest finish of the tasks placed so far; 0 before
    /// any).
    pub partial_makespan: f64,
    /// The problem's makespan lower bound, s ([`Statics::lower_bound`]).
    pub lower_bound: f64,
}

impl DecisionContext {
    /// Floats per candidate row: [`FEATURE_DIM`], plus `branches` for the one-hot branch
    /// code when there are 2 or more branches.
    #[inline]
    pub fn row_dim(&self) -> usize {
        FEATURE_DIM + self.selector()
    }

    #[inline]
    fn selector(&self) -> usize {
        if self.branches >= 2 { self.branches } else { 0 }
    }

    /// The state vector, [`STATE_DIM`] floats: `[placed/n, ln(1 + ready/m),
    /// group/branches, ln(1 + partial makespan/LB)]` (the logarithms as
    /// `sign(x)·ln(1 + |x|)`, always finite).
    pub fn state(&self) -> [f32; STATE_DIM] {
        [
            self.placed as f32 / self.n_tasks.max(1) as f32,
            squash(self.ready as f64 / self.n_gpus.max(1) as f64),
            self.group as f32 / self.branches as f32,
            squash(self.partial_makespan / self.lower_bound),
        ]
    }

    /// Appends the candidate rows of `task` as branch `branch` of the decision to `out`,
    /// [`row_dim`](Self::row_dim) floats per candidate: `cands` are the task's candidates in
    /// increasing EFT (the first has the smallest), `latest` the latest finish of its
    /// parents, s (0 without parents). Per candidate `i` of `k`, times over the task's
    /// [unit](Statics::unit) `u`, squashed (`sign(x)·ln(1 + |x|)`): `(eft − eft₀)/u`,
    /// `(eft − start)/u`, `max(start − free, 0)/u`, `max(data_ready − latest, 0)/u`,
    /// `(free − latest)/u`, then `i/k`, the task's [`rank_norm`](Statics::rank_norm), and
    /// the squashed `tasks on the GPU / (1 + placed/m)`; then the one-hot code of `branch`
    /// when there are 2 or more branches.
    pub fn push_rows(
        &self,
        statics: &Statics,
        task: TaskId,
        latest: f64,
        branch: usize,
        cands: &[CandidateTimes],
        out: &mut Vec<f32>,
    ) {
        let Some(first) = cands.first() else {
            return;
        };
        let u = statics.unit(task);
        let k = cands.len();
        let min_eft = first.eft;
        let placed_per_gpu = 1.0 + self.placed as f64 / self.n_gpus.max(1) as f64;
        let selector = self.selector();
        for (i, c) in cands.iter().enumerate() {
            let exec = c.eft - c.start;
            out.extend_from_slice(&[
                squash((c.eft - min_eft) / u),
                squash(exec / u),
                squash((c.start - c.free).max(0.0) / u),
                squash((c.data_ready - latest).max(0.0) / u),
                squash((c.free - latest) / u),
                i as f32 / k as f32,
                statics.rank_norm(task),
                squash(f64::from(c.tasks_on_gpu) / placed_per_gpu),
            ]);
            for code in 0..selector {
                out.push(f32::from(u8::from(code == branch)));
            }
        }
    }
}

/// One joint decision: the tasks of the group in branch order, the shared state, and per
/// branch its candidate rows (`row_dim` floats each: [`FEATURE_DIM`] features, then the
/// one-hot branch code when there are 2 or more branches) and their GPUs.
#[derive(Clone, Debug, Default)]
pub struct Decision {
    pub(crate) tasks: Vec<TaskId>,
    pub(crate) state: Vec<f32>,
    rows: Vec<f32>,
    gpus: Vec<GpuId>,
    /// Row offsets of the branches, `tasks.len() + 1` entries.
    offsets: Vec<usize>,
    row_dim: usize,
}

impl Decision {
    /// The tasks of the decision, in branch order.
    pub fn tasks(&self) -> &[TaskId] {
        &self.tasks
    }

    /// The state vector, [`STATE_DIM`] floats.
    pub fn state(&self) -> &[f32] {
        &self.state
    }

    /// Floats per candidate row.
    pub fn row_dim(&self) -> usize {
        self.row_dim
    }

    /// The candidate GPUs of branch `b`, in increasing EFT.
    ///
    /// # Panics
    /// If `b` is not a branch of the decision.
    pub fn gpus(&self, b: usize) -> &[GpuId] {
        &self.gpus[self.offsets[b]..self.offsets[b + 1]]
    }

    /// The candidate rows of branch `b`, row-major `[k_b, row_dim]`.
    ///
    /// # Panics
    /// If `b` is not a branch of the decision.
    pub fn rows(&self, b: usize) -> &[f32] {
        &self.rows[self.offsets[b] * self.row_dim..self.offsets[b + 1] * self.row_dim]
    }

    /// Row `i` of branch `b`.
    ///
    /// # Panics
    /// If `b` or `i` is out of range.
    pub fn row(&self, b: usize, i: usize) -> &[f32] {
        let r = self.offsets[b] + i;
        &self.rows[r * self.row_dim..(r + 1) * self.row_dim]
    }

    /// The GPU of row `i` of branch `b`.
    ///
    /// # Panics
    /// If `b` or `i` is out of range.
    pub fn gpu(&self, b: usize, i: usize) -> GpuId {
        self.gpus[self.offsets[b] + i]
    }
}

/// The state of one episode: the partial schedule, the unplaced predecessors of each task
/// and the ready set.
pub(crate) struct Episode<'p> {
    statics: &'p Statics,
    partial: PartialSchedule<'p>,
    policy: Policy,
    missing: Vec<u32>,
    ready: Vec<TaskId>,
    on_gpu: Vec<u32>,
    scored: Vec<(f64, GpuId, f64, f64)>,
    cands: Vec<CandidateTimes>,
}

impl<'p> Episode<'p> {
    pub(crate) fn new(problem: &'p Problem, statics: &'p Statics, policy: Policy) -> Self {
        let g = problem.graph();
        let missing: Vec<u32> = g.task_ids().map(|v| g.preds(v).len() as u32).collect();
        let ready = g.task_ids().filter(|v| missing[v.index()] == 0).collect();
        Episode {
            statics,
            partial: PartialSchedule::new(problem),
            policy,
            missing,
            ready,
            on_gpu: vec![0; problem.n_gpus()],
            scored: Vec::new(),
            cands: Vec::new(),
        }
    }

    /// The partial schedule so far.
    pub(crate) fn partial(&self) -> &PartialSchedule<'p> {
        &self.partial
    }

    /// Fills `out` with the next decision: the ready task of highest upward rank (ties:
    /// smaller id) and, after it, the other ready tasks of its job by rank, `branches` at
    /// most; for each, the `candidates` GPUs of smallest EFT in the partial schedule (ties:
    /// smaller GPU id) that fit it. Returns `false` when every task is placed.
    ///
    /// Errors: [`ScheduleError::Cluster`](crate::ScheduleError::Cluster) for a task no GPU
    /// fits.
    pub(crate) fn next_decision(
        &mut self,
        branches: usize,
        candidates: usize,
        out: &mut Decision,
    ) -> Result<bool> {
        if self.ready.is_empty() {
            return Ok(false);
        }
        let s = self.statics;
        self.ready.sort_unstable_by(|a, b| s.by_rank(*a, *b));
        let job = s.job(self.ready[0]);
        out.tasks.clear();
        out.tasks.extend(
            self.ready
                .iter()
                .copied()
                .filter(|&v| s.job(v) == job)
                .take(branches),
        );
        let problem = self.partial.problem();
        let ctx = DecisionContext {
            placed: self.partial.n_placed(),
            n_tasks: problem.n_tasks(),
            ready: self.ready.len(),
            n_gpus: problem.n_gpus(),
            group: out.tasks.len(),
            branches,
            partial_makespan: self.partial.makespan(),
            lower_bound: s.lower_bound(),
        };
        out.row_dim = ctx.row_dim();
        out.state.clear();
        out.state.extend_from_slice(&ctx.state());
        out.rows.clear();
        out.gpus.clear();
        out.offsets.clear();
        out.offsets.push(0);
        for (b, &task) in out.tasks.iter().enumerate() {
            let latest = problem
                .graph()
                .preds(task)
                .iter()
                .filter_map(|p| self.partial.finish(p.task))
                .fold(0.0f64, f64::max);
            self.scored.clear();
            for gpu in problem.cluster().gpu_ids() {
                if !problem.fits(task, gpu) {
                    continue;
                }
                let slot = self.partial.slot(task, gpu, self.policy)?;
                let ready_at = self.partial.data_ready_time(task, gpu)?;
                self.scored
                    .push((slot.finish(), gpu, slot.start(), ready_at));
            }
            if self.scored.is_empty() {
                return Err(fits_no_gpu(problem, task));
            }
            self.scored
                .sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            let k = self.scored.len().min(candidates);
            self.cands.clear();
            self.cands.extend(
                self.scored[..k]
                    .iter()
                    .map(|&(eft, gpu, start, data_ready)| CandidateTimes {
                        gpu,
                        eft,
                        start,
                        data_ready,
                        free: self.partial.available(gpu),
                        tasks_on_gpu: self.on_gpu[gpu.index()],
                    }),
            );
            ctx.push_rows(s, task, latest, b, &self.cands, &mut out.rows);
            out.gpus.extend(self.cands.iter().map(|c| c.gpu));
            out.offsets.push(out.gpus.len());
        }
        Ok(true)
    }

    /// Places the decision's tasks in branch order, task `b` on the GPU of its row
    /// `actions[b]` at its earliest slot under the policy (so a later branch queues behind an
    /// earlier one that took the same GPU), and writes each branch's reward: the growth of
    /// the partial makespan its placement caused, over the lower bound, negated (the rewards
    /// of an episode sum to `−makespan / LB`).
    ///
    /// Errors: [`ScheduleError::Cluster`](crate::ScheduleError::Cluster) if a placement is
    /// refused (not expected: candidates fit their task).
    pub(crate) fn apply(
        &mut self,
        decision: &Decision,
        actions: &[usize],
        rewards: &mut Vec<f32>,
    ) -> Result<()> {
        rewards.clear();
        let lb = self.statics.lower_bound;
        for (b, (&task, &a)) in decision.tasks.iter().zip(actions).enumerate() {
            let gpu = decision.gpu(b, a);
            let before = self.partial.makespan();
            self.partial.place(task, gpu, self.policy)?;
            rewards.push(reward(self.partial.makespan() - before, lb));
            self.on_gpu[gpu.index()] += 1;
            self.ready.retain(|&v| v != task);
            let problem = self.partial.problem();
            for succ in problem.graph().succs(task) {
                let c = &mut self.missing[succ.task.index()];
                *c -= 1;
                if *c == 0 {
                    self.ready.push(succ.task);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_are_finite_on_extreme_values() {
        assert_eq!(reward(2.0, 4.0), -0.5);
        assert_eq!(reward(f64::NAN, 1.0), 0.0);
        assert_eq!(reward(f64::INFINITY, 1.0), -1.0e6);
        assert_eq!(reward(1.0, 1.0e-300), -1.0e6);
    }
}
