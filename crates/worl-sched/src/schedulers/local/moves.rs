//! The state of a plan-based local search and its moves: a [`Plan`] (GPU per task and a
//! placement order), its evaluation, its critical chain, and the neighbourhood moves that
//! the iterated local search ([`super::Ils`]) draws at random and WORL-RTGS's agent chooses
//! among.

use rand::Rng;
use rand::seq::IndexedRandom;
use serde::{Deserialize, Serialize};
use worl_cluster::{Evaluator, GpuId, Plan, Policy, Problem, Schedule};
use worl_dag::TaskId;

use super::heads_tails::HeadsTails;
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
    /// Swap the GPUs of `v` and of a task drawn uniformly among the tasks at most 16 places
    /// from `v` in the placement order (a task that runs about when `v` does), when each
    /// fits the other's GPU.
    Swap,
    /// Move `v` earlier in the placement order, past up to 8 tasks that are not its
    /// predecessors, so it runs before them on a shared GPU.
    Advance,
}

serde_plain::derive_fromstr_from_deserialize!(Move);
serde_plain::derive_display_from_serialize!(Move);

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

/// What [`LocalState::try_move`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tried {
    /// The move could not change the plan (e.g. the task has no predecessor); nothing was
    /// evaluated.
    NoChange,
    /// The move made the makespan grow; the plan is as it was.
    Worse,
    /// The move was kept: the new makespan, s (at most the one before).
    Kept(f64),
    /// The move only changed the placement order between tasks on different GPUs: the
    /// schedule, makespan and critical chain are the same (the move is kept; nothing was
    /// evaluated).
    Reordered,
}

/// How a [`LocalState`] evaluates its plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evaluation {
    /// Heads and tails kept up to date (module `heads_tails`): a move is rejected from the
    /// longest path through the moved task in `O(degree)` when it can be, else evaluated by
    /// propagating the changed starts; the same makespans as `full`, bit for bit. Used
    /// under the append policy for problems without gang tasks or busy windows; elsewhere
    /// it falls back to `full`.
    #[default]
    Incremental,
    /// Every tried move re-evaluates the whole plan ([`Evaluator`], `O(n + |E|)`).
    Full,
}

serde_plain::derive_fromstr_from_deserialize!(Evaluation);
serde_plain::derive_display_from_serialize!(Evaluation);

/// Relative margin above the makespan past which the longest path through a moved task
/// rejects the move without evaluating it (far above the rounding of a sum along a path).
const BOUND_MARGIN: f64 = 1e-9;

/// How far in the placement order [`Move::Swap`] looks for the other task.
const SWAP_REACH: usize = 16;

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
/// Evaluation is incremental where it can be ([`Evaluation`]); otherwise the
/// [`Evaluator`]'s, `O(n + |E|)` under the append policy (plus the gap search per task under
/// insertion).
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
    /// Plan evaluations made (tried moves included).
    evaluations: u64,
    /// Heads and tails of the plan, under incremental evaluation.
    fast: Option<Box<HeadsTails>>,
    /// Whether the evaluator's placements are of another plan than `plan` (full
    /// evaluation, after an undo).
    stale: bool,
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
            fast: None,
            stale: false,
        };
        s.makespan = s.evaluator.makespan(&s.plan, policy)?;
        s.evaluations = 1;
        s.set_evaluation(Evaluation::Incremental);
        Ok(s)
    }

    /// Chooses how the plan is evaluated from now on ([`Evaluation`]; incremental only
    /// where it applies). The plan must be evaluated ([`evaluate`](Self::evaluate)).
    pub fn set_evaluation(&mut self, how: Evaluation) {
        let p = self.problem;
        let applies = self.policy == Policy::Append && !p.has_gangs() && !p.has_windows();
        self.fast = (how == Evaluation::Incremental && applies)
            .then(|| Box::new(HeadsTails::new(p, &self.plan)));
    }

    /// The heads and tails under incremental evaluation.
    #[cfg(test)]
    pub(crate) fn heads_tails(&self) -> Option<&HeadsTails> {
        self.fast.as_deref()
    }

    /// How the plan is evaluated now.
    pub fn evaluation(&self) -> Evaluation {
        if self.fast.is_some() {
            Evaluation::Incremental
        } else {
            Evaluation::Full
        }
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
        if let Some(fast) = &mut self.fast {
            fast.rebuild(self.problem, &self.plan);
            self.makespan = fast.makespan();
            return self.makespan;
        }
        self.stale = false;
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
        match (&mut self.fast, &other.fast) {
            (Some(a), Some(b)) => a.copy_from(b),
            (Some(a), None) => a.rebuild(self.problem, &self.plan),
            (None, _) => self.stale = true,
        }
    }

    /// Applies move `m` to task `v` ([`apply`](Self::apply)), evaluates the plan, and keeps
    /// the move when the makespan does not grow (ties are kept), else undoes it. Counts one
    /// evaluation unless the move could not change the plan.
    ///
    /// Under incremental evaluation ([`Evaluation`]) a move of one task to another GPU is
    /// rejected from the longest path through it when that path is longer than the
    /// makespan, in `O(degree)`; every other move is evaluated by propagating the changed
    /// starts. The outcome is the full evaluation's, bit for bit.
    pub fn try_move(&mut self, m: Move, v: TaskId, rng: &mut impl Rng) -> Tried {
        let undo = self.apply(m, v, rng);
        self.try_change(undo)
    }

    /// Moves task `v` to GPU `g` and keeps the move when the makespan does not grow, as
    /// [`try_move`](Self::try_move) does for a drawn move.
    pub fn try_gpu(&mut self, v: TaskId, g: GpuId) -> Tried {
        let undo = self.set_gpu(v, g);
        self.try_change(undo)
    }

    /// The longest path through `v` if `v` alone moved to GPU `g`, s, under incremental
    /// evaluation (`None` under full evaluation): a lower bound of the makespan after the
    /// move, and that makespan when it exceeds the current one (module `heads_tails`).
    /// `O(deg v + log n)`; the plan is not changed.
    pub fn gpu_bound(&self, v: TaskId, g: GpuId) -> Option<f64> {
        let fast = self.fast.as_ref()?;
        let at = self.pos[v.index()];
        Some(fast.bound_through(self.problem, &self.plan, &self.pos, v, g, at))
    }

    /// The finish of `v` in the current plan's schedule, s, under incremental evaluation.
    pub fn finish(&self, v: TaskId) -> Option<f64> {
        self.fast.as_ref().map(|f| f.finish(v))
    }

    /// Tasks placed on GPU `g` by the plan, under incremental evaluation.
    pub fn tasks_on(&self, g: GpuId) -> Option<usize> {
        self.fast.as_ref().map(|f| f.tasks_on(g))
    }

    /// Evaluates a change already applied (`undo` restores it) and keeps it when the
    /// makespan does not grow (the body of [`try_move`](Self::try_move)).
    fn try_change(&mut self, undo: Undo) -> Tried {
        if undo == Undo::None {
            return Tried::NoChange;
        }
        let v = match undo {
            Undo::Gpu(t, _) | Undo::Swap(t, ..) => t,
            Undo::Order(_, to) => self.plan.order[to],
            Undo::None => unreachable!("handled above"),
        };
        let before = self.makespan;
        if let Undo::Order(from, to) = undo {
            let g = self.plan.gpu[self.plan.order[to].index()];
            let order = &self.plan.order[to + 1..=from];
            if order.iter().all(|t| self.plan.gpu[t.index()] != g) {
                return Tried::Reordered;
            }
        }
        if self.fast.is_none() {
            let ms = self.evaluate();
            if ms <= before {
                return Tried::Kept(ms);
            }
            self.undo(undo, before);
            return Tried::Worse;
        }
        self.evaluations += 1;
        let p = self.problem;
        let mut touched = [(v, GpuId::new(0), GpuId::new(0)); 2];
        let (touched, window, bound) = match undo {
            Undo::Gpu(t, old) => {
                let g = self.plan.gpu[t.index()];
                touched[0] = (t, old, g);
                let at = self.pos[t.index()];
                let bound = self.gpu_bound(t, g).expect("incremental");
                (&touched[..1], (at, at), bound)
            }
            Undo::Swap(a, ga, b, gb) => {
                touched[0] = (a, ga, gb);
                touched[1] = (b, gb, ga);
                let (pa, pb) = (self.pos[a.index()], self.pos[b.index()]);
                (&touched[..], (pa.min(pb), pa.max(pb)), 0.0)
            }
            Undo::Order(from, to) => {
                let t = self.plan.order[to];
                let g = self.plan.gpu[t.index()];
                touched[0] = (t, g, g);
                (&touched[..1], (to.min(from), to.max(from)), 0.0)
            }
            Undo::None => unreachable!("handled above"),
        };
        if bound > before * (1.0 + BOUND_MARGIN) {
            self.undo(undo, before);
            return Tried::Worse;
        }
        let fast = self.fast.as_mut().expect("incremental");
        if let Some(ms) = fast.try_change(
            p,
            &self.plan,
            &self.pos,
            touched,
            window,
            before,
            BOUND_MARGIN,
        ) {
            self.makespan = ms;
            return Tried::Kept(ms);
        }
        self.undo(undo, before);
        let fast = self.fast.as_mut().expect("incremental");
        fast.restore(&self.pos, touched);
        Tried::Worse
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
        if self.fast.is_none() {
            self.stale = true;
        }
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
        if let Some(fast) = &self.fast {
            let p = self.problem;
            let prev = |t: TaskId| fast.prev_on_gpu(t);
            binding_chain(p, &self.plan, fast.last(), |t| fast.finish(t), prev, out);
            return;
        }
        if self.stale {
            self.stale = false;
            self.makespan = self
                .evaluator
                .makespan(&self.plan, self.policy)
                .unwrap_or(f64::INFINITY);
        }
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
        let last = p
            .graph()
            .task_ids()
            .max_by(|&a, &b| finish(a).total_cmp(&finish(b)).then(b.cmp(&a)))
            .expect("a workload has a task");
        let prev = &self.prev_on_gpu;
        binding_chain(p, &self.plan, last, finish, |t| prev[t.index()], out);
    }

    /// The GPU that move `m` (one of the four moves of `v` alone to another GPU:
    /// [`Move::PredecessorGpu`], [`Move::SuccessorGpu`], [`Move::RandomGpu`],
    /// [`Move::FastGpu`]) draws for task `v` with `rng`, without changing the plan; `None`
    /// when the move cannot apply (no such neighbour, a GPU `v` cannot take, the move is not
    /// a reassignment). The GPU may be `v`'s own.
    pub fn propose_gpu(&self, m: Move, v: TaskId, rng: &mut impl Rng) -> Option<GpuId> {
        let p = self.problem;
        match m {
            Move::PredecessorGpu | Move::SuccessorGpu => {
                let list = if m == Move::PredecessorGpu {
                    p.graph().preds(v)
                } else {
                    p.graph().succs(v)
                };
                let g = self.plan.gpu[list.choose(rng)?.task.index()];
                lead_ok(p, v, g).then_some(g)
            }
            Move::RandomGpu => self.feasible.of(v).choose(rng).copied(),
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
                best.map(|(g, _)| g)
            }
            Move::Swap | Move::Advance => None,
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
            Move::PredecessorGpu | Move::SuccessorGpu | Move::RandomGpu | Move::FastGpu => {
                match self.propose_gpu(m, v, rng) {
                    Some(g) => self.set_gpu(v, g),
                    None => Undo::None,
                }
            }
            Move::Swap => {
                let at = self.pos[v.index()];
                let (lo, hi) = (
                    at.saturating_sub(SWAP_REACH),
                    (at + SWAP_REACH).min(p.n_tasks() - 1),
                );
                if hi == lo {
                    return Undo::None;
                }
                let mut k = rng.random_range(lo..hi);
                if k >= at {
                    k += 1;
                }
                let u = self.plan.order[k];
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

/// The critical chain from `last` back (see [`LocalState::critical_chain`]), from the
/// tasks' finishes and each task's previous task on its GPU.
fn binding_chain(
    p: &Problem,
    plan: &Plan,
    last: TaskId,
    finish: impl Fn(TaskId) -> f64,
    prev_on_gpu: impl Fn(TaskId) -> Option<TaskId>,
    out: &mut Vec<TaskId>,
) {
    let mut v = last;
    loop {
        out.push(v);
        let gv = plan.gpu[v.index()];
        let mut best: Option<(TaskId, f64)> = None;
        for u in p.graph().preds(v) {
            let arrival = finish(u.task) + p.comm_time(u.bytes, plan.gpu[u.task.index()], gv);
            if best.is_none_or(|(_, b)| arrival > b) {
                best = Some((u.task, arrival));
            }
        }
        if let Some(prev) = prev_on_gpu(v) {
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
