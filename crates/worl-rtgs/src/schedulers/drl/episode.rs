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

/// Per-problem constants: the tasks' scales ([`TaskScales`]: units of the time features,
/// upward ranks — the decision order), each task's job, and the makespan lower bound (the
/// unit of the rewards).
#[derive(Clone, Debug)]
pub(crate) struct Statics {
    scales: TaskScales,
    job_of: Vec<u32>,
    lower_bound: f64,
}

impl Statics {
    pub(crate) fn new(problem: &Problem) -> Self {
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
}

/// One joint decision: the tasks of the group in branch order, the shared state, and per
/// branch its candidate rows (`row_dim` floats each: [`FEATURE_DIM`] features, then the
/// one-hot branch code when there are 2 or more branches) and their GPUs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Decision {
    pub tasks: Vec<TaskId>,
    pub state: Vec<f32>,
    rows: Vec<f32>,
    gpus: Vec<GpuId>,
    /// Row offsets of the branches, `tasks.len() + 1` entries.
    offsets: Vec<usize>,
    row_dim: usize,
}

impl Decision {
    /// The candidate rows of branch `b`, row-major `[k_b, row_dim]`.
    pub fn rows(&self, b: usize) -> &[f32] {
        &self.rows[self.offsets[b] * self.row_dim..self.offsets[b + 1] * self.row_dim]
    }

    /// Row `i` of branch `b`.
    pub fn row(&self, b: usize, i: usize) -> &[f32] {
        let r = self.offsets[b] + i;
        &self.rows[r * self.row_dim..(r + 1) * self.row_dim]
    }

    /// The GPU of row `i` of branch `b`.
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
        let by_rank = |a: &TaskId, b: &TaskId| {
            s.scales.rank[b.index()]
                .total_cmp(&s.scales.rank[a.index()])
                .then(a.cmp(b))
        };
        self.ready.sort_unstable_by(by_rank);
        let job = s.job_of[self.ready[0].index()];
        out.tasks.clear();
        out.tasks.extend(
            self.ready
                .iter()
                .copied()
                .filter(|v| s.job_of[v.index()] == job)
                .take(branches),
        );
        let problem = self.partial.problem();
        let (n, m) = (problem.n_tasks(), problem.n_gpus());
        let selector = if branches >= 2 { branches } else { 0 };
        out.row_dim = FEATURE_DIM + selector;
        out.state.clear();
        out.state.extend_from_slice(&[
            self.partial.n_placed() as f32 / n.max(1) as f32,
            squash(self.ready.len() as f64 / m.max(1) as f64),
            out.tasks.len() as f32 / branches as f32,
            squash(self.partial.makespan() / s.lower_bound),
        ]);
        out.rows.clear();
        out.gpus.clear();
        out.offsets.clear();
        out.offsets.push(0);
        let placed_per_gpu = 1.0 + self.partial.n_placed() as f64 / m.max(1) as f64;
        for (b, &task) in out.tasks.iter().enumerate() {
            let u = s.scales.unit[task.index()];
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
            let min_eft = self.scored[0].0;
            for (i, &(eft, gpu, start, data_ready)) in self.scored[..k].iter().enumerate() {
                let exec = eft - start;
                let free = self.partial.available(gpu);
                out.rows.extend_from_slice(&[
                    squash((eft - min_eft) / u),
                    squash(exec / u),
                    squash((start - free).max(0.0) / u),
                    squash((data_ready - latest).max(0.0) / u),
                    squash((free - latest) / u),
                    i as f32 / k as f32,
                    s.scales.rank_norm[task.index()],
                    squash(f64::from(self.on_gpu[gpu.index()]) / placed_per_gpu),
                ]);
                for c in 0..selector {
                    out.rows.push(f32::from(u8::from(c == b)));
                }
                out.gpus.push(gpu);
            }
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
