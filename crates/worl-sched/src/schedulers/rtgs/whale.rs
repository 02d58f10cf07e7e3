//! RTGS as a [`WhaleProblem`]: whales are plans ([`RtgsWhale`]), positions are running-time
//! vectors, moves build a hope vector and hand it to a [`PlanDecoder`].

use rand::RngCore;
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem};
use worl_dag::TaskId;
use worl_woa::{Move, MoveKind, Target, WhaleProblem, WhaleRng, WoaError};

use super::decoder::{DecodeInput, PlanDecoder};
use super::hope::HopeRule;
use crate::schedulers::search::{FeasibleGpus, PlanEvaluator, TaskOrder, running_times};

/// A whale of RTGS: a plan (one GPU per task; tasks are placed in the problem's
/// [`TaskOrder`]) and its per-GPU running times, from which its position, the running-time
/// vector `RT_v = loads[π(v)]`, is read.
///
/// **Gang tasks** (only when [`Problem::has_gangs`]): a gang task's GPU is the lead of its
/// set; the whale also keeps the sets its plan's placement gave the gang tasks
/// ([`gang_sets`](Self::gang_sets)), and a gang occupies every GPU of its set: each gets
/// the gang's run time [`Problem::exec_time_on`] in its running time.
#[derive(Debug)]
pub struct RtgsWhale {
    gpu: Vec<GpuId>,
    loads: Vec<f64>,
    /// The sets of the gang tasks, lead first, concatenated in task-id order (empty
    /// without gang tasks).
    sets: Vec<GpuId>,
    origin: Option<(usize, usize)>,
    /// The makespan its decoder computed while building it, if any (see
    /// [`PlanDecoder::decoded_makespan`]).
    makespan: Option<f64>,
}

/// Whales are equal when their plans, running times and origins are.
impl PartialEq for RtgsWhale {
    fn eq(&self, other: &Self) -> bool {
        self.gpu == other.gpu
            && self.loads == other.loads
            && self.sets == other.sets
            && self.origin == other.origin
    }
}

impl Clone for RtgsWhale {
    fn clone(&self) -> Self {
        RtgsWhale {
            gpu: self.gpu.clone(),
            loads: self.loads.clone(),
            sets: self.sets.clone(),
            origin: self.origin,
            makespan: self.makespan,
        }
    }

    /// Reuses the buffers (the WOA engine copies carried whales every iteration).
    fn clone_from(&mut self, source: &Self) {
        self.gpu.clone_from(&source.gpu);
        self.loads.clone_from(&source.loads);
        self.sets.clone_from(&source.sets);
        self.origin = source.origin;
        self.makespan = source.makespan;
    }
}

impl RtgsWhale {
    /// The whale of the assignment `gpu` (one GPU per task, by [`TaskId::index`]), with its
    /// running times computed by [`running_times`]. Check it with
    /// [`RtgsProblem`]'s `check_initial_whale` (done by every run) before trusting it.
    ///
    /// With gang tasks the plan is first placed in the graph's topological order under
    /// append ([`PartialSchedule::place`]: each gang on the set
    /// [`best_set`](PartialSchedule::best_set) gives around its lead) for the gangs' sets,
    /// and the running times count each gang on every GPU of its set
    /// ([`gang_running_times`]); a plan that cannot be placed (a gang on a GPU that cannot
    /// lead it) keeps no sets and lead-only running times, and fails the check.
    pub fn from_assignment(problem: &Problem, gpu: Vec<GpuId>) -> Self {
        let mut loads = Vec::with_capacity(problem.n_gpus());
        let mut sets = Vec::new();
        if gpu.len() == problem.n_tasks() && gpu.iter().all(|g| g.index() < problem.n_gpus()) {
            if problem.has_gangs()
                && place_sets(
                    problem,
                    &gpu,
                    problem.graph().topo_order(),
                    Policy::Append,
                    &mut sets,
                )
            {
                gang_running_times(problem, &gpu, &sets, &mut loads);
            } else {
                sets.clear();
                running_times(problem, &gpu, &mut loads);
            }
        }
        RtgsWhale {
            gpu,
            loads,
            sets,
            origin: None,
            makespan: None,
        }
    }

    /// The GPU sets of the whale's gang tasks (a task needing `g > 1` GPUs), lead first,
    /// concatenated in task-id order: the sets its plan's placement gave them (empty
    /// without gang tasks).
    pub fn gang_sets(&self) -> &[GpuId] {
        &self.sets
    }

    /// The `g` GPUs of [`gang_sets`](Self::gang_sets) from `offset` (see [`gang_offsets`]),
    /// if the whale has them.
    #[inline]
    pub(crate) fn gang_set_at(&self, offset: usize, g: usize) -> Option<&[GpuId]> {
        self.sets.get(offset..offset + g)
    }

    /// The GPU of each task, indexed by [`TaskId::index`].
    pub fn gpus(&self) -> &[GpuId] {
        &self.gpu
    }

    /// Running time of each GPU, s: its ready time plus the execution times of its tasks.
    pub fn loads(&self) -> &[f64] {
        &self.loads
    }

    /// The running time `RT_v` of task `v`: the running time of its GPU, s.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn rt(&self, task: TaskId) -> f64 {
        self.loads[self.gpu[task.index()].index()]
    }

    /// The running-time vector `RT` (one entry per task, by task index), written into `out`.
    pub fn rt_vector(&self, out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.gpu.iter().map(|g| self.loads[g.index()]));
    }

    /// The move `(iteration, whale)` whose decoding produced this whale; `None` for initial
    /// whales.
    pub fn origin(&self) -> Option<(usize, usize)> {
        self.origin
    }
}

/// Per task, where its set starts in a whale's [`RtgsWhale::gang_sets`]: the GPUs needed
/// by the gang tasks (`g > 1`) before it in task-id order. `O(n)`.
pub(crate) fn gang_offsets(problem: &Problem) -> Vec<u32> {
    let mut offset = 0u32;
    problem
        .graph()
        .task_ids()
        .map(|v| {
            let at = offset;
            let g = problem.gpus(v);
            if g > 1 {
                offset += g;
            }
            at
        })
        .collect()
}

/// Places plan `gpu` in `order` under `policy` in a fresh [`PartialSchedule`] and writes
/// the sets of its gang tasks (lead first, in task-id order) into `sets`; `false` when the
/// plan cannot be placed (`order` not a topological order of all tasks, a GPU that cannot
/// lead its gang).
fn place_sets(
    problem: &Problem,
    gpu: &[GpuId],
    order: &[TaskId],
    policy: Policy,
    sets: &mut Vec<GpuId>,
) -> bool {
    sets.clear();
    let mut partial = PartialSchedule::new(problem);
    for &v in order {
        if partial.place(v, gpu[v.index()], policy).is_err() {
            return false;
        }
    }
    if !partial.is_complete() {
        return false;
    }
    for v in problem.graph().task_ids() {
        if let Some(set) = partial.gang_set(v) {
            sets.extend_from_slice(set);
        }
    }
    true
}

/// The running times of plan `gpu` whose gang tasks have the sets `sets` (as
/// [`RtgsWhale::gang_sets`]): `loads[k] = r_k + Σ_{v: k ∈ S_v} exec(v, S_v)`, s, with
/// `S_v = {π(v)}` for a task on one GPU ([`Problem::exec_time_on`]: `exec(v, π(v))`), so a
/// gang occupies every GPU of its set. Without gang tasks this is [`running_times`].
/// Falls back to [`running_times`] (lead only) when `sets` does not hold every gang's set.
pub fn gang_running_times(problem: &Problem, gpu: &[GpuId], sets: &[GpuId], loads: &mut Vec<f64>) {
    let needed: usize = problem
        .graph()
        .task_ids()
        .map(|v| problem.gpus(v) as usize)
        .filter(|&g| g > 1)
        .sum();
    if !problem.has_gangs() || sets.len() != needed {
        running_times(problem, gpu, loads);
        return;
    }
    loads.clear();
    loads.extend_from_slice(problem.ready_times());
    let mut offset = 0;
    for (v, &k) in gpu[..problem.n_tasks()].iter().enumerate() {
        let task = TaskId::new(v);
        let g = problem.gpus(task) as usize;
        if g > 1 {
            let set = &sets[offset..offset + g];
            offset += g;
            let d = problem.exec_time_on(task, set);
            for &l in set {
                loads[l.index()] += d;
            }
        } else {
            loads[k.index()] += problem.exec_time(task, k);
        }
    }
}

/// Per-worker buffers of an [`RtgsProblem`]: the plan evaluator, the hope vector, sign bits,
/// a centroid for the diversity, and the decoder's own scratch.
pub struct RtgsScratch<'p, S> {
    evaluator: PlanEvaluator<'p>,
    hope: Vec<f64>,
    signs: Vec<u64>,
    centroid: Vec<f64>,
    /// The decoder's scratch.
    pub decoder: S,
}

/// RTGS (Du et al., J. Supercomputing 81:911, 2025) as a [`WhaleProblem`], generic over the
/// plan-generation step `D`.
///
/// * **Random whale:** a GPU drawn uniformly per task among those it fits.
/// * **Move** of whale `X` towards target `T` (the leader, or a random whale for search
///   moves): a hope per task from the running times `RT_v(T)`, `RT_v(X)` and the move's
///   coefficients ([`HopeRule`]: canonical WOA in running-time space by default,
///   `hope_v = RT_v(T) − A·|C·RT_v(T) − RT_v(X)|`; or the authors'
///   `RT_v(T) + s_v·F·(RT_v(T) − RT_v(X))` with random signs `s_v = ±1`); then the decoder
///   assigns the tasks in the [`TaskOrder`] (upward rank by default). Search moves honour
///   per-dimension random whales ([`Target::component_whale`] per task).
/// * **Fitness:** the makespan of the plan (tasks placed in the same order) under the
///   chosen [`Policy`], through the allocation-free [`Evaluator`](worl_cluster::Evaluator)
///   path, or the one the decoder computed while placing the tasks the same way
///   ([`PlanDecoder::decoded_makespan`]: the window decoder).
/// * **Distance / diversity:** Euclidean distance of running-time vectors (the SPD of
///   the SPD–FTG study of `worl-experiment`); diversity = mean distance of the population's RT vectors to
///   their centroid.
pub struct RtgsProblem<'p, D> {
    problem: &'p Problem,
    decoder: D,
    feasible: FeasibleGpus,
    policy: Policy,
    hope: HopeRule,
    order: Vec<TaskId>,
}

impl<'p, D: PlanDecoder> RtgsProblem<'p, D> {
    /// RTGS on `problem` with `decoder`, evaluating plans under `policy`, with the
    /// [canonical hope](HopeRule::Canonical) and tasks in [upward-rank
    /// order](TaskOrder::UpwardRank) (change them with [`with_hope`](Self::with_hope) and
    /// [`with_order`](Self::with_order)).
    pub fn new(problem: &'p Problem, decoder: D, policy: Policy) -> Self {
        RtgsProblem {
            problem,
            decoder,
            feasible: FeasibleGpus::new(problem),
            policy,
            hope: HopeRule::default(),
            order: TaskOrder::default().tasks(problem),
        }
    }

    /// The same problem with the hope rule `hope`.
    pub fn with_hope(mut self, hope: HopeRule) -> Self {
        self.hope = hope;
        self
    }

    /// The same problem decoding and placing tasks in `order` (`O((n + |E|) log n)`).
    pub fn with_order(mut self, order: TaskOrder) -> Self {
        self.order = order.tasks(self.problem);
        self
    }

    /// The hope rule.
    pub fn hope_rule(&self) -> HopeRule {
        self.hope
    }

    /// The order in which tasks are decoded and placed (topological).
    pub fn order(&self) -> &[TaskId] {
        &self.order
    }

    /// The scheduling problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The decoder.
    pub fn decoder(&self) -> &D {
        &self.decoder
    }

    /// The placement policy of the fitness.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The GPUs each task fits.
    pub fn feasible(&self) -> &FeasibleGpus {
        &self.feasible
    }

    /// Writes the hope vector of moving `whale` towards `target` with `mv` into `hope`, one
    /// entry per task by [`TaskId::index`] ([`HopeRule::hope`] of the task's running times).
    /// Under [`HopeRule::Authors`] it draws the signs first (one bit per task, from 64-bit
    /// words, in task order); then, for search moves with per-dimension random whales, one
    /// component whale per task.
    pub fn hope_into(
        &self,
        whale: &RtgsWhale,
        target: &Target<'_, RtgsWhale>,
        mv: &Move,
        rng: &mut WhaleRng,
        signs: &mut Vec<u64>,
        hope: &mut Vec<f64>,
    ) {
        let n = self.problem.n_tasks();
        signs.clear();
        if self.hope.uses_signs() {
            signs.extend((0..n.div_ceil(64)).map(|_| rng.next_u64()));
        }
        hope.clear();
        let per_task = mv.kind() == MoveKind::Search;
        let fixed = target.whale();
        for v in 0..n {
            let t = if per_task {
                target.component_whale(rng)
            } else {
                fixed
            };
            let task = TaskId::new(v);
            let sign = signs.get(v / 64).is_some_and(|w| (w >> (v % 64)) & 1 == 1);
            hope.push(self.hope.hope(mv, t.rt(task), whale.rt(task), sign));
        }
    }
}

impl<'p, D: PlanDecoder> WhaleProblem for RtgsProblem<'p, D> {
    type Whale = RtgsWhale;
    type Scratch = RtgsScratch<'p, D::Scratch>;

    fn scratch(&self) -> Self::Scratch {
        let n = self.problem.n_tasks();
        RtgsScratch {
            evaluator: PlanEvaluator::new(self.problem, self.policy).with_order(&self.order),
            hope: Vec::with_capacity(n),
            signs: Vec::with_capacity(n.div_ceil(64)),
            centroid: Vec::with_capacity(n),
            decoder: self.decoder.scratch(),
        }
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut Self::Scratch) -> RtgsWhale {
        let mut gpu = vec![GpuId::new(0); self.problem.n_tasks()];
        self.feasible.random_plan(rng, &mut gpu);
        RtgsWhale::from_assignment(self.problem, gpu)
    }

    fn fitness(&self, whale: &RtgsWhale, scratch: &mut Self::Scratch) -> f64 {
        let makespan = match whale.makespan {
            Some(m) => m,
            None => scratch.evaluator.makespan(&whale.gpu),
        };
        if let Some(origin) = whale.origin {
            self.decoder
                .plan_evaluated(origin, whale, makespan, &mut scratch.decoder);
        }
        makespan
    }

    fn moved(
        &self,
        whale: &RtgsWhale,
        target: &Target<'_, RtgsWhale>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
    ) -> RtgsWhale {
        let mut out = whale.clone();
        self.move_into(whale, target, mv, rng, scratch, &mut out);
        out
    }

    fn move_into(
        &self,
        whale: &RtgsWhale,
        target: &Target<'_, RtgsWhale>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
        out: &mut RtgsWhale,
    ) {
        self.hope_into(
            whale,
            target,
            mv,
            rng,
            &mut scratch.signs,
            &mut scratch.hope,
        );
        let input = DecodeInput {
            problem: self.problem,
            order: &self.order,
            hope: &scratch.hope,
            whale,
            target: target.whale(),
            mv,
        };
        out.gpu.clear();
        out.gpu.resize(self.problem.n_tasks(), GpuId::new(0));
        self.decoder
            .decode(&input, rng, &mut scratch.decoder, &mut out.gpu);
        let p = self.problem;
        if p.has_gangs() {
            // the sets the fitness's placement gives the gangs: the decoder's, or placed here
            if !self.decoder.decoded_sets(&scratch.decoder, &mut out.sets)
                && !place_sets(p, &out.gpu, &self.order, self.policy, &mut out.sets)
            {
                out.sets.clear();
            }
            gang_running_times(p, &out.gpu, &out.sets, &mut out.loads);
        } else {
            running_times(p, &out.gpu, &mut out.loads);
        }
        out.origin = Some((mv.iteration(), mv.whale()));
        out.makespan = self.decoder.decoded_makespan(&scratch.decoder, self.policy);
    }

    fn distance(&self, a: &RtgsWhale, b: &RtgsWhale) -> Option<f64> {
        let n = self.problem.n_tasks();
        let sq: f64 = (0..n)
            .map(|v| {
                let d = a.rt(TaskId::new(v)) - b.rt(TaskId::new(v));
                d * d
            })
            .sum();
        Some(sq.sqrt())
    }

    fn diversity(&self, population: &[RtgsWhale], scratch: &mut Self::Scratch) -> Option<f64> {
        let n = self.problem.n_tasks();
        let count = population.len() as f64;
        let c = &mut scratch.centroid;
        c.clear();
        c.resize(n, 0.0);
        for w in population {
            for (v, x) in c.iter_mut().enumerate() {
                *x += w.rt(TaskId::new(v));
            }
        }
        c.iter_mut().for_each(|x| *x /= count);
        let total: f64 = population
            .iter()
            .map(|w| {
                (0..n)
                    .map(|v| {
                        let d = w.rt(TaskId::new(v)) - c[v];
                        d * d
                    })
                    .sum::<f64>()
                    .sqrt()
            })
            .sum();
        Some(total / count)
    }

    fn after_iteration(&self, iteration: usize, population: &[RtgsWhale], fitness: &[f64]) {
        self.decoder.after_iteration(iteration, population, fitness);
    }

    fn check_initial_whale(&self, index: usize, whale: &RtgsWhale) -> Result<(), WoaError> {
        let p = self.problem;
        let invalid = |reason: String| WoaError::InvalidInitialWhale { index, reason };
        if whale.gpu.len() != p.n_tasks() {
            return Err(invalid(format!(
                "it assigns {} tasks, the problem has {}",
                whale.gpu.len(),
                p.n_tasks()
            )));
        }
        for (v, &k) in whale.gpu.iter().enumerate() {
            let task = TaskId::new(v);
            if k.index() >= p.n_gpus() {
                return Err(invalid(format!(
                    "task `{}` is on unknown GPU {k} (the cluster has {})",
                    p.task_label(task),
                    p.n_gpus()
                )));
            }
            if !p.fits(task, k) {
                return Err(invalid(format!(
                    "task `{}` needs {} GiB, GPU {k} has {} GiB",
                    p.task_label(task),
                    p.mem_need(task),
                    p.gpu_mem(k)
                )));
            }
            if p.gpus(task) > 1 && !p.can_lead(task, k) {
                return Err(invalid(format!(
                    "gang task `{}` needs {} GPUs, GPU {k} cannot lead its set (span machine: \
                     its machine has too few GPUs with the task's memory)",
                    p.task_label(task),
                    p.gpus(task)
                )));
            }
        }
        let fresh = RtgsWhale::from_assignment(p, whale.gpu.clone());
        if fresh.loads != whale.loads || fresh.sets != whale.sets {
            return Err(invalid(
                "its running times do not match its plan (build it with RtgsWhale::from_assignment)"
                    .to_owned(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulers::rtgs::{GreedyDecoder, Lookahead};
    use rand::SeedableRng;
    use std::sync::Arc;
    use worl_cluster::presets;
    use worl_dag::generators::layered::{LayeredParams, layered};

    fn problem() -> Problem {
        let w = Arc::new(layered(&LayeredParams::new(30), 2).unwrap());
        Problem::new(w, Arc::new(presets::pai_mix(6, 2).unwrap())).unwrap()
    }

    /// A whale moved towards itself: the authors' hope is its own running-time vector
    /// (whatever the signs), the canonical one `RT·(1 − A·|C − 1|)`.
    #[test]
    fn hopes_of_a_whale_moving_towards_itself() {
        let p = problem();
        let mut rng = WhaleRng::seed_from_u64(4);
        let base = RtgsProblem::new(
            &p,
            GreedyDecoder::new(&p, Lookahead::Target),
            Policy::Append,
        );
        let x = base.random_whale(&mut rng, &mut base.scratch());
        let mut rt = Vec::new();
        x.rt_vector(&mut rt);
        let mv = Move::new(MoveKind::Encircle, 1.0, 0.5, 1.6, 0.0, 1.0);
        let (mut signs, mut hope) = (Vec::new(), Vec::new());
        for (rule, factor) in [
            (HopeRule::Authors, 1.0),
            (HopeRule::Canonical, 1.0 - 0.5 * 0.6),
        ] {
            let rtgs = RtgsProblem::new(
                &p,
                GreedyDecoder::new(&p, Lookahead::Target),
                Policy::Append,
            )
            .with_hope(rule);
            rtgs.hope_into(&x, &Target::fixed(&x), &mv, &mut rng, &mut signs, &mut hope);
            assert_eq!(signs.len(), if rule == HopeRule::Authors { 1 } else { 0 });
            for (h, r) in hope.iter().zip(&rt) {
                assert!((h - r * factor).abs() <= 1e-9 * r, "{rule:?}: {h} vs {r}");
            }
        }
    }

    /// A window decoder's makespan is the evaluator's (so the plan is not evaluated again),
    /// for both policies; without a window, or with another policy than the decoder's, the
    /// plan is evaluated.
    #[test]
    fn decoded_makespans_are_the_evaluators() {
        let p = problem();
        let mut rng = WhaleRng::seed_from_u64(9);
        for policy in [Policy::Append, Policy::Insertion] {
            for window in [0.0, 2.0] {
                let d = GreedyDecoder::new(&p, Lookahead::Target).with_window(window, policy);
                let rtgs = RtgsProblem::new(&p, d, policy);
                let mut s = rtgs.scratch();
                let x = rtgs.random_whale(&mut rng, &mut s);
                let t = rtgs.random_whale(&mut rng, &mut s);
                let mv = Move::new(MoveKind::Spiral, 1.0, 0.4, 0.7, -0.3, 1.0);
                let mut out = x.clone();
                rtgs.move_into(&x, &Target::fixed(&t), &mv, &mut rng, &mut s, &mut out);
                let mut eval = PlanEvaluator::new(&p, policy).with_order(rtgs.order());
                let want = eval.makespan(out.gpus());
                assert_eq!(out.makespan, (window > 0.0).then_some(want), "{policy:?}");
                assert_eq!(rtgs.fitness(&out, &mut s), want);
            }
            // The decoder simulates append, the fitness inserts: evaluated.
            let d = GreedyDecoder::new(&p, Lookahead::Target).with_window(2.0, Policy::Append);
            let rtgs = RtgsProblem::new(&p, d, Policy::Insertion);
            let mut s = rtgs.scratch();
            let x = rtgs.random_whale(&mut rng, &mut s);
            let mv = Move::new(MoveKind::Encircle, 1.0, 0.4, 0.7, 0.0, 1.0);
            let mut out = x.clone();
            rtgs.move_into(&x, &Target::fixed(&x), &mv, &mut rng, &mut s, &mut out);
            assert_eq!(out.makespan, None);
        }
    }

    /// The placement order is upward rank by default, topological on request, and the
    /// evaluator uses it.
    #[test]
    fn the_order_is_the_evaluators() {
        let p = problem();
        let d = || GreedyDecoder::new(&p, Lookahead::Target);
        let rank = RtgsProblem::new(&p, d(), Policy::Append);
        assert_eq!(rank.order(), TaskOrder::UpwardRank.tasks(&p));
        let topo = RtgsProblem::new(&p, d(), Policy::Append).with_order(TaskOrder::Topological);
        assert_eq!(topo.order(), p.graph().topo_order());
        let mut s = rank.scratch();
        assert_eq!(s.evaluator.order(), rank.order());
        let _ = rank.fitness(
            &rank.random_whale(&mut WhaleRng::seed_from_u64(1), &mut s),
            &mut s,
        );
    }
}
