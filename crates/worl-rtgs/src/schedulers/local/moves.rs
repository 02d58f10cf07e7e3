//! The state of a plan-based local search and its moves: a [`Plan`] (GPU per task and a
//! placement order), its evaluation, its critical chain, and the neighbourhood moves that
//! the iterated local search ([`super::Ils`]) draws at random and WORL-RTGS's agent chooses
//! among.

use rand::Rng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};
use worl_cluster::{Evaluator, GpuId, Plan, Policy, Problem, Schedule};
use worl_dag::TaskId;

use crate::error::Result;
use crate::schedulers::list::lead_ok;
use crate::schedulers::search::FeasibleGpus;

/// A neighbourhood move of a critical task `v` (a task on the critical chain of the current
/// plan, [`LocalState::critical_chain`]). Every move keeps the plan feasible: GPUs are drawn
/// from the GPUs `v` fits, and the order stays topological.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Move {
    /// `v` to the GPU of one of its predecessors (its transfer becomes local).
    PredecessorGpu,
    /// `v` to the GPU of one of its successors.
    SuccessorGpu,
    /// `v` to a GPU drawn uniformly among those it fits.
    RandomGpu,
    /// `v` to the GPU where it runs fastest among a few drawn ones (at most 4, ties by
    /// smaller GPU id).
    FastGpu,
    /// Swap the GPUs of `v` and of a task drawn uniformly (when each fits the other's GPU).
    Swap,
    /// Move `v` earlier in the placement order, past up to 8 tasks that are not its
    /// predecessors, so it runs before them on a shared GPU.
    Advance,
}

impl Move {
    /// Every move, in a fixed order (the agent's action index).
    pub const ALL: [Move; 6] = [
        Move::PredecessorGpu,
        Move::SuccessorGpu,
        Move::RandomGpu,
        Move::FastGpu,
        Move::Swap,
        Move::Advance,
    ];
}

/// What [`LocalState::apply`] changed, to undo it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Undo {
    /// Nothing changed (the move had no effect).
    None,
    /// Task `.0` was on GPU `.1`.
    Gpu(TaskId, GpuId),
    /// Tasks `.0` and `.2` were on GPUs `.1` and `.3`.
    Swap(TaskId, GpuId, TaskId, GpuId),
    /// The task at order position `.0` was moved to position `.1`.
    Order(usize, usize),
}

/// A plan under local search: the [`Plan`], its makespan, and the placements of its last
/// evaluation (start and finish per task) from which the critical chain is read.
///
/// Evaluation is the [`Evaluator`]'s, `O(n + |E|)` under the append policy (plus the gap
/// search per task under insertion); nothing is allocated after construction.
#[derive(Clone, Debug)]
pub struct LocalState<'p> {
    problem: &'p Problem,
    evaluator: Evaluator<'p>,
    feasible: &'p FeasibleGpus,
    policy: Policy,
    /// The plan.
    pub plan: Plan,
    /// Position of each task in `plan.order`.
    pos: Vec<usize>,
    /// Makespan of `plan`, s (`+∞` until evaluated).
    makespan: f64,
    /// Scratch: previous task on each task's GPU in the last evaluation.
    prev_on_gpu: Vec<Option<TaskId>>,
    /// Plan evaluations made.
    evaluations: u64,
}

impl<'p> LocalState<'p> {
    /// The state of `plan` on `problem` under `policy`, evaluated. The plan's explicit
    /// gang sets ([`Plan::gangs`]) are dropped: a gang task's GPU is its lead and the
    /// evaluator chooses the set around it ([`PartialSchedule::best_set`](worl_cluster::PartialSchedule::best_set)), so a move of
    /// the lead moves the whole gang.
    ///
    /// Errors: the evaluator's for a plan of the wrong length, a non-topological order or an
    /// infeasible GPU.
    pub fn new(
        problem: &'p Problem,
        feasible: &'p FeasibleGpus,
        policy: Policy,
        mut plan: Plan,
    ) -> Result<Self> {
        plan.gangs.clear();
        let mut pos = vec![0; problem.n_tasks()];
        for (i, t) in plan.order.iter().enumerate() {
            pos[t.index()] = i;
        }
        let mut s = LocalState {
            problem,
            evaluator: Evaluator::new(problem),
            feasible,
            policy,
            plan,
            pos,
            makespan: f64::INFINITY,
            prev_on_gpu: vec![None; problem.n_tasks()],
            evaluations: 0,
        };
        s.makespan = s.evaluator.makespan(&s.plan, policy)?;
        s.evaluations = 1;
        Ok(s)
    }

    /// The plan of `schedule` ([`Schedule::to_plan`]) as a state.
    ///
    /// Errors: as [`new`](Self::new).
    pub fn from_schedule(
        problem: &'p Problem,
        feasible: &'p FeasibleGpus,
        policy: Policy,
        schedule: &Schedule,
    ) -> Result<Self> {
        Self::new(problem, feasible, policy, schedule.to_plan(problem))
    }

    /// The makespan of the plan, s.
    pub fn makespan(&self) -> f64 {
        self.makespan
    }

    /// Plan evaluations made by this state.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Re-evaluates the plan (after [`apply`](Self::apply) or a change to
    /// [`plan`](Self::plan)'s GPUs) and returns the makespan; `+∞` for a plan the evaluator
    /// rejects.
    pub fn evaluate(&mut self) -> f64 {
        self.evaluations += 1;
        self.makespan = self
            .evaluator
            .makespan(&self.plan, self.policy)
            .unwrap_or(f64::INFINITY);
        self.makespan
    }

    /// Copies `other`'s plan and makespan into `self` (same problem), without evaluating.
    pub fn copy_from(&mut self, other: &LocalState<'p>) {
        self.plan.gpu.copy_from_slice(&other.plan.gpu);
        self.plan.order.copy_from_slice(&other.plan.order);
        self.pos.copy_from_slice(&other.pos);
        self.makespan = other.makespan;
    }

    /// Moves task `v` to GPU `g` in the plan (no evaluation); returns the undo record.
    pub fn set_gpu(&mut self, v: TaskId, g: GpuId) -> Undo {
        let old = self.plan.gpu[v.index()];
        if old == g {
            return Undo::None;
        }
        self.plan.gpu[v.index()] = g;
        Undo::Gpu(v, old)
    }

    /// Undoes a change and restores the makespan `makespan` it had before.
    pub fn undo(&mut self, undo: Undo, makespan: f64) {
        match undo {
            Undo::None => {}
            Undo::Gpu(v, g) => self.plan.gpu[v.index()] = g,
            Undo::Swap(a, ga, b, gb) => {
                self.plan.gpu[a.index()] = ga;
                self.plan.gpu[b.index()] = gb;
            }
            Undo::Order(from, to) => self.shift(to, from),
        }
        self.makespan = makespan;
    }

    /// Moves the task at order position `from` to position `to`, shifting the ones between.
    fn shift(&mut self, from: usize, to: usize) {
        let order = &mut self.plan.order;
        if from > to {
            order[to..=from].rotate_right(1);
        } else {
            order[from..=to].rotate_left(1);
        }
        let (lo, hi) = (from.min(to), from.max(to));
        for (i, t) in order.iter().enumerate().take(hi + 1).skip(lo) {
            self.pos[t.index()] = i;
        }
    }

    /// The critical chain of the last evaluated plan, into `out` (from the last-finishing
    /// task back to a task that waited for nothing): each task's binding predecessor is the
    /// data predecessor whose data arrived last, or the task before it on its GPU when that
    /// one finished later. `O(n + |E|)`. Must follow an evaluation of the current plan.
    pub fn critical_chain(&mut self, out: &mut Vec<TaskId>) {
        out.clear();
        let st = self.evaluator.state();
        if !st.is_complete() {
            return;
        }
        let p = self.problem;
        for g in p.cluster().gpu_ids() {
            let mut prev = None;
            for t in st.timeline(g) {
                self.prev_on_gpu[t.index()] = prev;
                prev = Some(t);
            }
        }
        let finish = |t: TaskId| st.finish(t).unwrap_or(0.0);
        let mut v = p
            .graph()
            .task_ids()
            .max_by(|&a, &b| finish(a).total_cmp(&finish(b)).then(b.cmp(&a)))
            .expect("a workload has a task");
        loop {
            out.push(v);
            let gv = self.plan.gpu[v.index()];
            let mut best: Option<(TaskId, f64)> = None;
            for u in p.graph().preds(v) {
                let arrival =
                    finish(u.task) + p.comm_time(u.bytes, self.plan.gpu[u.task.index()], gv);
                if best.is_none_or(|(_, b)| arrival > b) {
                    best = Some((u.task, arrival));
                }
            }
            if let Some(prev) = self.prev_on_gpu[v.index()] {
                let free = finish(prev);
                if best.is_none_or(|(_, b)| free > b) {
                    best = Some((prev, free));
                }
            }
            match best {
                Some((u, t)) if t > 0.0 && out.len() <= p.n_tasks() => v = u,
                _ => break,
            }
        }
    }

    /// Applies move `m` to task `v` with random draws from `rng`; returns the undo record
    /// ([`Undo::None`] when the move cannot change the plan, e.g. `v` has no predecessor).
    /// The plan is not evaluated.
    pub fn apply(&mut self, m: Move, v: TaskId, rng: &mut impl Rng) -> Undo {
        let p = self.problem;
        // a gang task's GPU is its lead: it must be able to lead the set (`can_lead`)
        let fits = |t: TaskId, g: GpuId| lead_ok(p, t, g);
        match m {
            Move::PredecessorGpu | Move::SuccessorGpu => {
                let list = if m == Move::PredecessorGpu {
                    p.graph().preds(v)
                } else {
                    p.graph().succs(v)
                };
                match list.choose(rng) {
                    Some(u) => {
                        let g = self.plan.gpu[u.task.index()];
                        if fits(v, g) {
                            self.set_gpu(v, g)
                        } else {
                            Undo::None
                        }
                    }
                    None => Undo::None,
                }
            }
            Move::RandomGpu => {
                let g = *self
                    .feasible
                    .of(v)
                    .choose(rng)
                    .expect("every task fits a GPU");
                self.set_gpu(v, g)
            }
            Move::FastGpu => {
                let list = self.feasible.of(v);
                let mut best: Option<(GpuId, f64)> = None;
                for _ in 0..4.min(list.len()) {
                    let g = *list.choose(rng).expect("non-empty");
                    if g == self.plan.gpu[v.index()] {
                        continue;
                    }
                    let e = p.exec_time(v, g);
                    if best.is_none_or(|(bg, be)| e < be || (e == be && g < bg)) {
                        best = Some((g, e));
                    }
                }
                match best {
                    Some((g, _)) => self.set_gpu(v, g),
                    None => Undo::None,
                }
            }
            Move::Swap => {
                let u = TaskId::new(rng.random_range(0..p.n_tasks()));
                let (gv, gu) = (self.plan.gpu[v.index()], self.plan.gpu[u.index()]);
                if u == v || gv == gu || !fits(v, gu) || !fits(u, gv) {
                    return Undo::None;
                }
                self.plan.gpu[v.index()] = gu;
                self.plan.gpu[u.index()] = gv;
                Undo::Swap(v, gv, u, gu)
            }
            Move::Advance => {
                let from = self.pos[v.index()];
                let steps = rng.random_range(1..=8usize);
                let mut to = from;
                let preds = p.graph().preds(v);
                while to > 0 && from - to < steps {
                    let before = self.plan.order[to - 1];
                    if preds.iter().any(|u| u.task == before) {
                        break;
                    }
                    to -= 1;
                }
                if to == from {
                    return Undo::None;
                }
                self.shift(from, to);
                Undo::Order(from, to)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::{RunContext, Scheduler};
    use crate::schedulers::list::Heft;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;
    use worl_cluster::presets;
    use worl_dag::generators::layered::{LayeredParams, layered};

    fn problem() -> Problem {
        let w = Arc::new(layered(&LayeredParams::new(40), 3).unwrap());
        Problem::new(w, Arc::new(presets::pai_mix(6, 2).unwrap())).unwrap()
    }

    #[test]
    fn the_heft_plan_evaluates_to_at_most_heft_and_moves_undo_exactly() {
        let p = problem();
        let f = FeasibleGpus::new(&p);
        let heft = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
        let mut s = LocalState::from_schedule(&p, &f, Policy::Append, &heft).unwrap();
        assert!(s.makespan() <= heft.makespan() * (1.0 + 1e-12));
        let (gpu0, order0, ms0) = (s.plan.gpu.clone(), s.plan.order.clone(), s.makespan());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut chain = Vec::new();
        s.critical_chain(&mut chain);
        assert!(!chain.is_empty());
        for (i, m) in Move::ALL.iter().cycle().take(120).enumerate() {
            let v = chain[i % chain.len()];
            let undo = s.apply(*m, v, &mut rng);
            let ms = s.evaluate();
            assert!(ms.is_finite(), "{m:?} made an invalid plan");
            s.undo(undo, ms0);
            assert_eq!(s.plan.gpu, gpu0, "{m:?}");
            assert_eq!(s.plan.order, order0, "{m:?}");
        }
        assert_eq!(s.evaluate(), ms0);
    }

    #[test]
    fn the_critical_chain_ends_at_the_makespan_and_is_tight() {
        let p = problem();
        let f = FeasibleGpus::new(&p);
        let heft = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
        let mut s = LocalState::from_schedule(&p, &f, Policy::Append, &heft).unwrap();
        let mut chain = Vec::new();
        s.critical_chain(&mut chain);
        let sched = s.evaluator.schedule(&s.plan, Policy::Append).unwrap();
        let last = chain[0];
        assert_eq!(sched.tasks()[last.index()].finish, s.makespan());
        // Along the chain each task starts when its binding predecessor's data or GPU frees.
        for w in chain.windows(2) {
            let (v, u) = (w[0], w[1]);
            let (tv, tu) = (&sched.tasks()[v.index()], &sched.tasks()[u.index()]);
            assert!(tu.finish <= tv.start + 1e-9 * tv.start.max(1.0));
        }
    }
}
