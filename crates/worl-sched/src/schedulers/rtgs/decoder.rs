//! The plan-generation step of RTGS as an extension point: [`PlanDecoder`] turns a hope
//! vector into a plan. RTGS uses the [`GreedyDecoder`](super::GreedyDecoder); WORL-RTGS plugs
//! in a Double DQN agent.

use worl_cluster::{GpuId, Policy, Problem};
use worl_dag::TaskId;
use worl_woa::{Move, WhaleRng};

use super::whale::RtgsWhale;

/// What a decoder is given to build one plan (one whale's move in one WOA iteration).
#[derive(Clone, Copy, Debug)]
pub struct DecodeInput<'a> {
    /// The problem.
    pub problem: &'a Problem,
    /// The order in which tasks must be assigned: the problem's placement order
    /// ([`RtgsProblem::order`](super::RtgsProblem::order), a topological order: upward rank
    /// by default, see [`TaskOrder`](super::TaskOrder)), the order in which the evaluator
    /// places them, so a decoder that simulates placement as it goes sees every predecessor
    /// placed and the schedule the fitness will see.
    pub order: &'a [TaskId],
    /// The hope `hope_v` of every task (its desired running time, s), indexed by
    /// [`TaskId::index`] ([`HopeRule`](super::HopeRule): by default
    /// `hope_v = RT_v(T) − A·|C·RT_v(T) − RT_v(X)|`).
    pub hope: &'a [f64],
    /// The moving whale `X`.
    pub whale: &'a RtgsWhale,
    /// The whale `X` moves towards: the leader for encircling and spiral moves, the random
    /// whale for search moves (with per-dimension random whales: the first one drawn).
    pub target: &'a RtgsWhale,
    /// The WOA move (kind, `A`, `C`, `l`, `b`, step factor `F`, iteration and whale index).
    pub mv: &'a Move,
}

/// Builds a plan (a GPU for every task) from a hope vector: the plan-generation step of
/// RTGS and WORL-RTGS (§4–5).
///
/// The split between [`RtgsProblem`](super::RtgsProblem) and a decoder:
/// * the problem owns the whale representation (plan + per-GPU running times), the WOA
///   move (hope vector), the placement order, the fitness (makespan through the
///   [`Evaluator`](worl_cluster::Evaluator)) and the population bookkeeping;
/// * the decoder only maps a hope vector to a GPU per task.
///
/// # Contract
/// * `decode` writes a GPU into every entry of `out` (indexed by [`TaskId::index`]); every
///   task must be assigned a GPU it fits ([`Problem::fits`]).
/// * Its result depends only on the input, `self` and the random draws from `rng` (never on
///   what a previous call left in `scratch`, nor on the thread): the WOA engine runs decoders
///   on several threads and promises bit-identical results.
/// * Learning decoders (WORL-RTGS's agent) change state through interior mutability; to stay
///   reproducible they record what they learn from in [`PlanDecoder::plan_evaluated`] keyed by
///   the move's `(iteration, whale)` and consume it in [`PlanDecoder::after_iteration`],
///   which runs on one thread between iterations.
///
/// # Plugging in another decoder
/// A decoder that needs the partial schedule (data-ready times, EFTs) keeps a
/// [`PartialSchedule`](worl_cluster::PartialSchedule) in its scratch and places each task as
/// it assigns it, in [`DecodeInput::order`]. Here a decoder that picks, among the GPUs of
/// each class with the smallest running time, the one whose earliest finish time is nearest
/// the hope:
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuId, PartialSchedule, Policy, Problem};
/// use worl_dag::generators::layered::{layered, LayeredParams};
/// use worl_sched::schedulers::rtgs::{run_rtgs, DecodeInput, PlanDecoder, RtgsConfig};
/// use worl_sched::RunContext;
/// use worl_woa::WhaleRng;
///
/// struct NearestEft<'p>(&'p Problem);
///
/// impl<'p> PlanDecoder for NearestEft<'p> {
///     type Scratch = PartialSchedule<'p>;
///     fn scratch(&self) -> PartialSchedule<'p> {
///         PartialSchedule::new(self.0)
///     }
///     fn decode(&self, input: &DecodeInput<'_>, _rng: &mut WhaleRng,
///               partial: &mut PartialSchedule<'p>, out: &mut [GpuId]) {
///         partial.reset();
///         for &task in input.order {
///             let hope = input.hope[task.index()];
///             let best = (0..self.0.n_gpus())
///                 .map(GpuId::new)
///                 .filter(|&k| self.0.fits(task, k))
///                 .min_by(|&a, &b| {
///                     let gap = |k| (partial.eft(task, k, Policy::Append).unwrap() - hope).abs();
///                     gap(a).total_cmp(&gap(b))
///                 })
///                 .unwrap();
///             partial.place(task, best, Policy::Append).unwrap();
///             out[task.index()] = best;
///         }
///     }
/// }
///
/// let workload = Arc::new(layered(&LayeredParams::new(40), 1)?);
/// let problem = Problem::new(workload, Arc::new(presets::pai_mix(6, 2)?))?;
/// let config = RtgsConfig { whales: 8, iterations: 10, ..RtgsConfig::default() };
/// let outcome = run_rtgs(&problem, NearestEft(&problem), &config, &mut RunContext::new(3))?;
/// assert!(outcome.schedule.validate(&problem).is_empty());
/// assert_eq!(outcome.schedule.makespan(), outcome.result.best_fitness);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The Double DQN decoder of WORL-RTGS
/// ([`DdqnDecoder`](crate::schedulers::worl_rtgs::DdqnDecoder)) does the same: it scores the
/// GPUs of the greedy decoder's window by finish time, running-time gap to the hope and
/// costs, takes an ε-greedy action drawn from `rng`, records sampled decisions with their
/// local rewards, and adds the terminal reward in [`PlanDecoder::plan_evaluated`].
pub trait PlanDecoder: Sync {
    /// Per-worker reusable memory (`()` if none); one per thread of a parallel run.
    type Scratch: Send;

    /// A fresh scratch space.
    fn scratch(&self) -> Self::Scratch;

    /// Assigns a GPU to every task (see the trait's contract). `out` has `n_tasks` entries,
    /// indexed by [`TaskId::index`]; its previous content is arbitrary.
    fn decode(
        &self,
        input: &DecodeInput<'_>,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
        out: &mut [GpuId],
    );

    /// The makespan of the plan the last [`decode`](Self::decode) with `scratch` built, s,
    /// when the decoder placed its tasks as the fitness does ([`DecodeInput::order`] under
    /// `policy`, through a [`PartialSchedule`](worl_cluster::PartialSchedule)): RTGS then
    /// takes it as the plan's fitness instead of evaluating the plan again. It must equal
    /// what the [`Evaluator`](worl_cluster::Evaluator) gives. Default: `None` (the plan is
    /// evaluated).
    fn decoded_makespan(&self, scratch: &Self::Scratch, policy: Policy) -> Option<f64> {
        let _ = (scratch, policy);
        None
    }

    /// With gang tasks ([`Problem::has_gangs`]): the GPU sets of the gang tasks of the plan
    /// the last [`decode`](Self::decode) with `scratch` built, as the fitness places them
    /// (lead first, concatenated in task-id order, see
    /// [`RtgsWhale::gang_sets`](super::RtgsWhale::gang_sets)), written into `out`; returns
    /// whether it did. RTGS then takes them for the whale's running times instead of
    /// placing the plan again. Default: `false` (the plan is placed).
    fn decoded_sets(&self, scratch: &Self::Scratch, out: &mut Vec<GpuId>) -> bool {
        let _ = (scratch, out);
        false
    }

    /// Called after the plan decoded for move `(iteration, whale)` (see
    /// [`Move::iteration`], [`Move::whale`]) was evaluated: its makespan, s. Called on the
    /// worker that decoded it, with the same scratch. Default: nothing.
    fn plan_evaluated(
        &self,
        origin: (usize, usize),
        whale: &RtgsWhale,
        makespan: f64,
        scratch: &mut Self::Scratch,
    ) {
        let _ = (origin, whale, makespan, scratch);
    }

    /// Called on the calling thread after the initial population (iteration 0) and after
    /// every WOA iteration, with the population and its makespans. Default: nothing.
    fn after_iteration(&self, iteration: usize, population: &[RtgsWhale], makespans: &[f64]) {
        let _ = (iteration, population, makespans);
    }
}

/// A shared reference decodes as the decoder itself, so a caller can keep a learning
/// decoder (and its agent) after [`run_rtgs`](super::run_rtgs) consumed the reference.
impl<D: PlanDecoder> PlanDecoder for &D {
    type Scratch = D::Scratch;

    fn scratch(&self) -> Self::Scratch {
        (**self).scratch()
    }

    fn decode(
        &self,
        input: &DecodeInput<'_>,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
        out: &mut [GpuId],
    ) {
        (**self).decode(input, rng, scratch, out)
    }

    fn decoded_makespan(&self, scratch: &Self::Scratch, policy: Policy) -> Option<f64> {
        (**self).decoded_makespan(scratch, policy)
    }

    fn decoded_sets(&self, scratch: &Self::Scratch, out: &mut Vec<GpuId>) -> bool {
        (**self).decoded_sets(scratch, out)
    }

    fn plan_evaluated(
        &self,
        origin: (usize, usize),
        whale: &RtgsWhale,
        makespan: f64,
        scratch: &mut Self::Scratch,
    ) {
        (**self).plan_evaluated(origin, whale, makespan, scratch)
    }

    fn after_iteration(&self, iteration: usize, population: &[RtgsWhale], makespans: &[f64]) {
        (**self).after_iteration(iteration, population, makespans)
    }
}
