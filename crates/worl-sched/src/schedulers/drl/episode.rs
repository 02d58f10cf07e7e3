//! One list-scheduling episode as a Markov decision process: the decisions (a group of ready
//! tasks of one job, each with its candidate GPUs), their features, the placement of the
//! chosen GPUs and the rewards.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use worl_cluster::{GpuId, PartialSchedule, Policy, Problem};
use worl_dag::TaskId;

use crate::error::Result;
use crate::schedulers::agents::{TaskScales, squash};
use crate::schedulers::list::{GapIndex, fits_no_gpu};

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

    /// `task`'s rank as an integer in the order of [`f64::total_cmp`]: larger keys are
    /// larger ranks, so `(key, Reverse(id))` is decreasing in [`by_rank`](Self::by_rank).
    #[inline]
    fn rank_key(&self, task: TaskId) -> u64 {
        total_order_key(self.rank(task))
    }
}

/// `x` as a `u64` whose unsigned order is [`f64::total_cmp`]'s (the sign-magnitude bits
/// turned two's-complement, then offset), so integer comparisons order ranks exactly as
/// the sort by [`Statics::by_rank`] did (NaN and `-0.0` included).
#[inline]
fn total_order_key(x: f64) -> u64 {
    let bits = x.to_bits() as i64;
    let ordered = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
    (ordered as u64) ^ (1 << 63)
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

/// The state of one episode: the partial schedule (with HEFT's gap index for its slot
/// queries), the unplaced predecessors of each task and the ready set.
///
/// The ready set is kept in decision order, decreasing upward rank with ties to the smaller
/// id ([`Statics::by_rank`]): a binary heap of `(rank key, Reverse(id))` with lazy deletion
/// (a placed task is dropped when it reaches the top) and, for decisions of 2 or more
/// branches, one ordered set per job. A decision thus costs `O(log ready + branches)` for
/// its tasks, plus its candidates' slot queries; a placement `O(log ready)`.
pub(crate) struct Episode<'p> {
    statics: &'p Statics,
    partial: PartialSchedule<'p>,
    index: GapIndex,
    policy: Policy,
    missing: Vec<u32>,
    /// The ready tasks (and placed ones not yet popped), the next decision's first on top.
    heap: BinaryHeap<(u64, Reverse<u32>)>,
    /// Ready tasks not yet placed.
    n_ready: usize,
    /// Per job, its ready tasks as `(!rank key, id)`, in decision order; built at the first
    /// decision of 2 or more branches.
    by_job: Option<Vec<BTreeSet<(u64, u32)>>>,
    on_gpu: Vec<u32>,
    scored: Vec<(f64, GpuId, f64, f64)>,
    cands: Vec<CandidateTimes>,
}

impl<'p> Episode<'p> {
    /// A new episode: nothing placed, the source tasks ready. `branches` is the largest
    /// decision to come (the per-job ready sets are kept from the start when it is 2 or
    /// more).
    pub(crate) fn new(
        problem: &'p Problem,
        statics: &'p Statics,
        policy: Policy,
        branches: usize,
    ) -> Self {
        let g = problem.graph();
        let missing: Vec<u32> = g.task_ids().map(|v| g.preds(v).len() as u32).collect();
        let heap: BinaryHeap<(u64, Reverse<u32>)> = g
            .task_ids()
            .filter(|v| missing[v.index()] == 0)
            .map(|v| (statics.rank_key(v), Reverse(v.index() as u32)))
            .collect();
        let mut ep = Episode {
            statics,
            partial: PartialSchedule::new(problem),
            index: GapIndex::new(problem),
            policy,
            missing,
            n_ready: heap.len(),
            heap,
            by_job: None,
            on_gpu: vec![0; problem.n_gpus()],
            scored: Vec::new(),
            cands: Vec::new(),
        };
        if branches >= 2 {
            ep.build_by_job();
        }
        ep
    }

    /// Builds the per-job ready sets from the heap's unplaced tasks.
    fn build_by_job(&mut self) {
        let n_jobs = self.partial.problem().workload().jobs().len();
        let mut by_job = vec![BTreeSet::new(); n_jobs];
        for &(key, Reverse(id)) in &self.heap {
            let v = TaskId::new(id as usize);
            if !self.partial.is_placed(v) {
                by_job[self.statics.job(v) as usize].insert((!key, id));
            }
        }
        self.by_job = Some(by_job);
    }

    /// The ready task the next decision starts with (highest rank, ties to the smaller
    /// id), dropping placed tasks from the top of the heap; `None` when none is ready.
    fn top(&mut self) -> Option<TaskId> {
        while let Some(&(_, Reverse(id))) = self.heap.peek() {
            let v = TaskId::new(id as usize);
            if !self.partial.is_placed(v) {
                return Some(v);
            }
            self.heap.pop();
        }
        None
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
        let Some(first) = self.top() else {
            return Ok(false);
        };
        let s = self.statics;
        out.tasks.clear();
        if branches <= 1 {
            out.tasks.push(first);
        } else {
            if self.by_job.is_none() {
                self.build_by_job();
            }
            let job_ready = &self.by_job.as_ref().expect("built above")[s.job(first) as usize];
            out.tasks.extend(
                job_ready
                    .iter()
                    .take(branches)
                    .map(|&(_, id)| TaskId::new(id as usize)),
            );
        }
        let problem = self.partial.problem();
        let ctx = DecisionContext {
            placed: self.partial.n_placed(),
            n_tasks: problem.n_tasks(),
            ready: self.n_ready,
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
                let slot = self.index.slot(&self.partial, task, gpu, self.policy)?;
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
            let slot = self.index.slot(&self.partial, task, gpu, self.policy)?;
            self.commit(slot)?;
            rewards.push(reward(self.partial.makespan() - before, lb));
        }
        Ok(())
    }

    /// HEFT's step, for an episode the budget has cut: places the next decision's first
    /// task (the ready task of highest rank) on its GPU of smallest EFT (ties: smaller GPU
    /// id), exactly the placement of a one-task, one-candidate decision and its row 0, at
    /// one slot query per GPU that fits and no feature work. Returns `false` when every
    /// task is placed.
    ///
    /// Errors: [`ScheduleError::Cluster`](crate::ScheduleError::Cluster) for a task no GPU
    /// fits.
    pub(crate) fn place_best(&mut self) -> Result<bool> {
        let Some(task) = self.top() else {
            return Ok(false);
        };
        let problem = self.partial.problem();
        let mut best: Option<worl_cluster::Slot> = None;
        for gpu in problem.cluster().gpu_ids() {
            if !problem.fits(task, gpu) {
                continue;
            }
            let slot = self.index.slot(&self.partial, task, gpu, self.policy)?;
            // The order of the candidates' sort: EFT by `total_cmp`, then the smaller GPU
            // (GPUs come in increasing id, so only a strictly smaller EFT replaces).
            if best.is_none_or(|b| slot.finish().total_cmp(&b.finish()).is_lt()) {
                best = Some(slot);
            }
        }
        match best {
            Some(slot) => {
                self.commit(slot)?;
                Ok(true)
            }
            None => Err(fits_no_gpu(problem, task)),
        }
    }

    /// Commits `slot` (through the gap index) and updates the ready set: its task leaves
    /// it, the successors whose last predecessor it was join it.
    fn commit(&mut self, slot: worl_cluster::Slot) -> Result<()> {
        let task = slot.task();
        self.index.commit(&mut self.partial, slot)?;
        self.on_gpu[slot.gpu().index()] += 1;
        self.n_ready -= 1;
        let s = self.statics;
        if let Some(by_job) = &mut self.by_job {
            by_job[s.job(task) as usize].remove(&(!s.rank_key(task), task.index() as u32));
        }
        let problem = self.partial.problem();
        for succ in problem.graph().succs(task) {
            let v = succ.task;
            let c = &mut self.missing[v.index()];
            *c -= 1;
            if *c == 0 {
                let key = s.rank_key(v);
                let id = v.index() as u32;
                self.heap.push((key, Reverse(id)));
                self.n_ready += 1;
                if let Some(by_job) = &mut self.by_job {
                    by_job[s.job(v) as usize].insert((!key, id));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;
    use worl_cluster::presets;
    use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};

    #[test]
    fn rank_keys_order_as_total_cmp() {
        let mut xs = vec![
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            1.0,
            1.0,
            -1.0,
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        xs.extend((0..200).map(|_| rng.random_range(-1.0e6..1.0e6)));
        xs.extend((0..50).map(|_| f64::from_bits(rng.random())));
        for &a in &xs {
            for &b in &xs {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a:e} vs {b:e}"
                );
            }
        }
    }

    /// The reference the ready set replaced: the ready list sorted by rank at every
    /// decision, filtered to the first task's job, slots by the timeline walk.
    struct Reference<'p> {
        partial: PartialSchedule<'p>,
        missing: Vec<u32>,
        ready: Vec<TaskId>,
    }

    impl<'p> Reference<'p> {
        fn new(p: &'p Problem) -> Self {
            let g = p.graph();
            let missing: Vec<u32> = g.task_ids().map(|v| g.preds(v).len() as u32).collect();
            let ready = g.task_ids().filter(|v| missing[v.index()] == 0).collect();
            Reference {
                partial: PartialSchedule::new(p),
                missing,
                ready,
            }
        }

        fn group(&mut self, s: &Statics, branches: usize) -> Vec<TaskId> {
            self.ready.sort_unstable_by(|a, b| s.by_rank(*a, *b));
            let job = s.job(self.ready[0]);
            let ready = self.ready.iter().copied();
            ready.filter(|&v| s.job(v) == job).take(branches).collect()
        }

        /// The `k` GPUs of smallest EFT (ties: smaller id).
        fn candidates(&self, task: TaskId, k: usize, policy: Policy) -> Vec<GpuId> {
            let p = self.partial.problem();
            let mut scored: Vec<(f64, GpuId)> = p
                .cluster()
                .gpu_ids()
                .filter(|&g| p.fits(task, g))
                .map(|g| (self.partial.eft(task, g, policy).unwrap(), g))
                .collect();
            scored.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            scored.into_iter().take(k).map(|(_, g)| g).collect()
        }

        fn place(&mut self, task: TaskId, gpu: GpuId, policy: Policy) {
            self.partial.place(task, gpu, policy).unwrap();
            self.ready.retain(|&v| v != task);
            for succ in self.partial.problem().graph().succs(task) {
                let c = &mut self.missing[succ.task.index()];
                *c -= 1;
                if *c == 0 {
                    self.ready.push(succ.task);
                }
            }
        }
    }

    /// Random multi-job problems; random actions: every decision (its tasks, state and
    /// candidate GPUs) and every cut-mode placement equal the reference's, and so do the
    /// final schedules, to the bit.
    #[test]
    fn decisions_equal_the_sorted_ready_list() {
        for seed in 0..12u64 {
            let w = alibaba_like(&AlibabaLikeParams::new(25), seed).unwrap();
            let c = presets::pai_mix(3 + (seed as usize % 6), seed).unwrap();
            let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
            let s = Statics::new(&p);
            let policy = if seed % 3 == 2 {
                Policy::Append
            } else {
                Policy::Insertion
            };
            let branches = [1, 2, 4][seed as usize % 3];
            let k = 2 + seed as usize % 3;
            // The last third of the tasks in cut mode.
            let cut_after = p.n_tasks() * 2 / 3;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut ep = Episode::new(&p, &s, policy, branches);
            let mut r = Reference::new(&p);
            let mut d = Decision::default();
            let mut rewards = Vec::new();
            let (mut decisions, mut grouped) = (0, 0);
            while ep.partial().n_placed() < cut_after {
                assert!(ep.next_decision(branches, k, &mut d).unwrap());
                let ready = r.ready.len();
                let group = r.group(&s, branches);
                assert_eq!(d.tasks(), &group[..], "seed {seed}, decision {decisions}");
                let ctx = DecisionContext {
                    placed: r.partial.n_placed(),
                    n_tasks: p.n_tasks(),
                    ready,
                    n_gpus: p.n_gpus(),
                    group: group.len(),
                    branches,
                    partial_makespan: r.partial.makespan(),
                    lower_bound: s.lower_bound(),
                };
                assert_eq!(d.state(), &ctx.state()[..]);
                let mut actions = Vec::new();
                for (b, &task) in group.iter().enumerate() {
                    assert_eq!(d.gpus(b), &r.candidates(task, k, policy)[..]);
                    actions.push(rng.random_range(0..d.gpus(b).len()));
                }
                ep.apply(&d, &actions, &mut rewards).unwrap();
                for (b, &task) in group.iter().enumerate() {
                    r.place(task, d.gpu(b, actions[b]), policy);
                }
                decisions += 1;
                grouped += usize::from(group.len() > 1);
            }
            while ep.place_best().unwrap() {
                let task = r.group(&s, 1)[0];
                let gpu = r.candidates(task, 1, policy)[0];
                r.place(task, gpu, policy);
                assert_eq!(ep.partial().gpu_of(task), Some(gpu), "seed {seed}");
            }
            assert!(!ep.next_decision(branches, k, &mut d).unwrap());
            assert!(r.ready.is_empty());
            let (a, b) = (ep.partial().to_schedule().unwrap(), r.partial.to_schedule());
            assert_eq!(a, b.unwrap(), "seed {seed}");
            assert!(decisions > 0);
            // Decisions of several tasks of one job were compared too.
            assert_eq!(branches > 1, grouped > 0, "seed {seed}");
        }
    }

    #[test]
    fn rewards_are_finite_on_extreme_values() {
        assert_eq!(reward(2.0, 4.0), -0.5);
        assert_eq!(reward(f64::NAN, 1.0), 0.0);
        assert_eq!(reward(f64::INFINITY, 1.0), -1.0e6);
        assert_eq!(reward(1.0, 1.0e-300), -1.0e6);
    }
}
