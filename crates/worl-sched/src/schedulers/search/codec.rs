//! The continuous search spaces of the WOA, PSO and GA baselines: [`SearchSpace`], either
//! the random-key list decoder ([`ListDecoder`], default) or [`PositionCodec`] (one
//! coordinate per task floored to a GPU, the original baselines), chosen by
//! [`SearchDecoderConfig`] (options `decoder`, `policy`, `heft-seed` and the list decoder's).

use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use worl_cluster::{GpuId, Policy, Problem, Schedule};
use worl_dag::TaskId;

use super::list_decoder::{ListDecoder, ListDecoderConfig, ListScratch};
use super::plan::{FeasibleGpus, PlanEvaluator};
use crate::error::Result;
use crate::options::{OptionDoc, Options};
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::list::Heft;

/// How the WOA, PSO and GA baselines decode a continuous position into a schedule.
///
/// Text form (option `decoder`, serde, `FromStr`/`Display`): `list`, `position`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchDecoderKind {
    /// Random keys decoded by a list scheduler ([`ListDecoder`]): `2n` keys in `[0, 1]`.
    /// Default policy insertion, HEFT seed on.
    #[default]
    List,
    /// One coordinate per task floored to a GPU, tasks in topological order
    /// ([`PositionCodec`]): the original baselines, kept for reproductions. Default policy
    /// append, HEFT seed off.
    Position,
}

serde_plain::derive_fromstr_from_deserialize!(SearchDecoderKind);
serde_plain::derive_display_from_serialize!(SearchDecoderKind);

/// The decoding settings shared by WOA, PSO and GA: the decoder, the placement policy, the
/// HEFT seed and the list decoder's settings.
///
/// Defaults: [`SearchDecoderKind::List`], the decoder's policy and seed (insertion and HEFT seed
/// for the list decoder; append and no seed for the position decoder), the default
/// [`ListDecoderConfig`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchDecoderConfig {
    /// Decoder (option `decoder`).
    pub decoder: SearchDecoderKind,
    /// Placement policy (option `policy`); `None` = the decoder's default.
    pub policy: Option<Policy>,
    /// Whether the first individual (whale, particle) is the HEFT position (option
    /// `heft-seed`, `true`/`false`); `None` = the decoder's default. With the list decoder
    /// this guarantees a schedule no worse than HEFT under the same policy; with the position
    /// decoder the seed is HEFT's GPU assignment, decoded in topological order (no such
    /// guarantee).
    pub heft_seed: Option<bool>,
    /// The list decoder's settings (options `priority`, `sigma`, `gpu-threshold`,
    /// `gpu-choices`; ignored by the position decoder).
    pub list: ListDecoderConfig,
}

impl SearchDecoderConfig {
    /// The original baselines: the position decoder, append policy, no HEFT seed.
    pub fn position() -> Self {
        SearchDecoderConfig {
            decoder: SearchDecoderKind::Position,
            ..SearchDecoderConfig::default()
        }
    }

    /// The placement policy: [`policy`](Self::policy), or insertion (list) / append
    /// (position).
    pub fn policy(&self) -> Policy {
        self.policy.unwrap_or(match self.decoder {
            SearchDecoderKind::List => Policy::Insertion,
            SearchDecoderKind::Position => Policy::Append,
        })
    }

    /// Whether the HEFT position seeds the search: [`heft_seed`](Self::heft_seed), or
    /// `true` (list) / `false` (position).
    pub fn heft_seed(&self) -> bool {
        self.heft_seed
            .unwrap_or(self.decoder == SearchDecoderKind::List)
    }

    /// The decoding options besides [`ListDecoderConfig::OPTIONS`] (option `decoder`, `policy`, `heft-seed`).
    pub const OPTIONS: [OptionDoc; 3] = [
        OptionDoc::new(
            "decoder",
            "list|position",
            "list",
            "how a position becomes a schedule: random keys decoded by a list scheduler, or one coordinate per task floored to a GPU (the original baselines)",
        ),
        OptionDoc::new(
            "policy",
            "append|insertion",
            "(insertion; append with decoder=position)",
            "placement policy of the decoded schedules",
        ),
        OptionDoc::new(
            "heft-seed",
            "true|false",
            "(true; false with decoder=position)",
            "whether one member starts at HEFT's position",
        ),
    ];

    /// Takes `decoder`, `policy`, `heft-seed`, `priority`, `sigma`, `gpu-threshold`,
    /// `gpu-choices` from `opts`.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) naming
    /// the option.
    pub(crate) fn take(opts: &mut Options) -> Result<Self> {
        Ok(SearchDecoderConfig {
            decoder: opts.take_or("decoder", SearchDecoderKind::List)?,
            policy: opts.take("policy")?,
            heft_seed: opts.take("heft-seed")?,
            list: ListDecoderConfig::take(opts)?,
        })
    }

    /// The search space of `problem` under these settings.
    pub fn space<'p>(&self, problem: &'p Problem) -> SearchSpace<'p> {
        match self.decoder {
            SearchDecoderKind::List => {
                SearchSpace::List(ListDecoder::new(problem, self.policy(), self.list.clone()))
            }
            SearchDecoderKind::Position => {
                SearchSpace::Position(PositionCodec::new(problem, self.policy()))
            }
        }
    }

    /// The initial individuals of a search in `space`: the HEFT position when
    /// [`heft_seed`](Self::heft_seed) holds, else none (the rest are drawn at random).
    ///
    /// Errors: HEFT's (none for a [`Problem`]).
    pub fn seeds(&self, space: &SearchSpace<'_>) -> Result<Vec<Vec<f64>>> {
        Ok(if self.heft_seed() {
            vec![space.heft_position()?]
        } else {
            Vec::new()
        })
    }
}

/// A continuous search space and its decoding: the list decoder or the position codec.
#[derive(Clone, Debug)]
pub enum SearchSpace<'p> {
    /// Random keys, list-scheduling decoder.
    List(ListDecoder<'p>),
    /// One coordinate per task, floored to a GPU.
    Position(PositionCodec<'p>),
}

/// Per-thread buffers of a [`SearchSpace`].
#[derive(Clone, Debug)]
pub enum SpaceScratch<'p> {
    /// Of a [`ListDecoder`] (boxed: the partial schedule and gap index are large).
    List(Box<ListScratch<'p>>),
    /// Of a [`PositionCodec`] (boxed: it holds an evaluator).
    Position(Box<PositionScratch<'p>>),
}

impl<'p> SearchSpace<'p> {
    /// Dimension of a position (`2n` for the list decoder, `n` for the position codec).
    pub fn dim(&self) -> usize {
        match self {
            SearchSpace::List(d) => d.dim(),
            SearchSpace::Position(c) => c.dim(),
        }
    }

    /// Upper bound of every coordinate (1 or `m`; the lower bound is 0).
    pub fn upper(&self) -> f64 {
        match self {
            SearchSpace::List(_) => 1.0,
            SearchSpace::Position(c) => c.upper(),
        }
    }

    /// A uniform random position in `[0, upper)^dim`, written into `out`.
    pub fn random_position(&self, rng: &mut impl Rng, out: &mut Vec<f64>) {
        match self {
            SearchSpace::List(d) => d.random_position(rng, out),
            SearchSpace::Position(c) => c.random_position(rng, out),
        }
    }

    /// Clamps a position into `[0, upper]`.
    pub fn clamp(&self, x: &mut [f64]) {
        match self {
            SearchSpace::List(d) => d.clamp(x),
            SearchSpace::Position(c) => c.clamp(x),
        }
    }

    /// A scratch for [`makespan`](Self::makespan); one per thread.
    pub fn scratch(&self) -> SpaceScratch<'p> {
        match self {
            SearchSpace::List(d) => SpaceScratch::List(Box::new(d.scratch())),
            SearchSpace::Position(c) => SpaceScratch::Position(Box::new(c.scratch())),
        }
    }

    /// The makespan of the schedule `x` decodes to, s (`+∞` for a position the decoder
    /// rejects). Allocates nothing.
    ///
    /// # Panics
    /// If `scratch` was made by a space of the other kind.
    pub fn makespan(&self, x: &[f64], scratch: &mut SpaceScratch<'p>) -> f64 {
        match (self, scratch) {
            (SearchSpace::List(d), SpaceScratch::List(s)) => d.makespan(x, s),
            (SearchSpace::Position(c), SpaceScratch::Position(s)) => c.makespan(x, s),
            _ => panic!("a scratch of another search space"),
        }
    }

    /// The schedule `x` decodes to.
    ///
    /// Errors: the decoder's (none for a position of the right length).
    pub fn schedule(&self, x: &[f64]) -> Result<Schedule> {
        match self {
            SearchSpace::List(d) => d.schedule(x),
            SearchSpace::Position(c) => c.schedule(x),
        }
    }

    /// The HEFT position: for the list decoder one that decodes to HEFT's schedule
    /// ([`ListDecoder::heft_position`]); for the position codec HEFT's GPU assignment, each
    /// coordinate in the middle of its GPU's range ([`PositionCodec::position_of`]).
    ///
    /// Errors: HEFT's (none for a [`Problem`]).
    pub fn heft_position(&self) -> Result<Vec<f64>> {
        match self {
            SearchSpace::List(d) => Ok(d.heft_position()),
            SearchSpace::Position(c) => {
                let heft = Heft::new()
                    .with_policy(c.policy)
                    .schedule(c.problem, &mut RunContext::new(0))?;
                let gpu: Vec<GpuId> = heft.tasks().iter().map(|t| t.gpu).collect();
                Ok(c.position_of(&gpu))
            }
        }
    }

    /// Runs `f(i, &mut items[i], scratch)` for every item: on the rayon pool with one scratch
    /// per work split when `parallel`, else in index order with `scratch`. `f` must depend on
    /// its arguments only (not on the scratch contents) for both to agree.
    pub fn for_each<T: Send>(
        &self,
        items: &mut [T],
        parallel: bool,
        scratch: &mut SpaceScratch<'p>,
        f: impl Fn(usize, &mut T, &mut SpaceScratch<'p>) + Sync,
    ) {
        for_each_with(items, parallel, scratch, || self.scratch(), f);
    }
}

/// The continuous search space of the position-based baselines and its decoding.
///
/// A position has one coordinate `x_v ∈ [0, m]` per task (`m` GPUs). Coordinate `x_v`
/// selects the GPU `F_v[⌊x_v · |F_v| / m⌋]` (the last one for `x_v = m`), `F_v` being the
/// GPUs task `v` fits in id order ([`FeasibleGpus`]). When `v` fits every GPU this is plain
/// flooring, `⌊x_v⌋`; otherwise the GPUs `v` does not fit are skipped and the range is
/// shared evenly among the others (flooring and then moving to the next fitting GPU would
/// give the GPU after a run of non-fitting ones that run's share). Tasks are placed in
/// topological order and the plan evaluated by [`PlanEvaluator`].
#[derive(Clone, Debug)]
pub struct PositionCodec<'p> {
    problem: &'p Problem,
    feasible: FeasibleGpus,
    policy: Policy,
}

impl<'p> PositionCodec<'p> {
    /// The codec of `problem`, evaluating under `policy`.
    pub fn new(problem: &'p Problem, policy: Policy) -> Self {
        PositionCodec {
            problem,
            feasible: FeasibleGpus::new(problem),
            policy,
        }
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Dimension of a position: the number of tasks.
    pub fn dim(&self) -> usize {
        self.problem.n_tasks()
    }

    /// Upper bound `m` of every coordinate (the lower bound is 0).
    pub fn upper(&self) -> f64 {
        self.problem.n_gpus() as f64
    }

    /// The GPU coordinate `x` selects for `task` (NaN counts as 0).
    #[inline]
    pub fn gpu_at(&self, task: TaskId, x: f64) -> GpuId {
        let list = self.feasible.of(task);
        let k = (x.max(0.0) * list.len() as f64 / self.upper()) as usize;
        list[k.min(list.len() - 1)]
    }

    /// Decodes a position (one coordinate per task, by task index) into `out`.
    pub fn decode(&self, x: &[f64], out: &mut [GpuId]) {
        for (v, (g, &xv)) in out.iter_mut().zip(x).enumerate() {
            *g = self.gpu_at(TaskId::new(v), xv);
        }
    }

    /// The position whose coordinates sit in the middle of the ranges that select `gpu`
    /// (one GPU per task, by task index; a GPU the task does not fit is read as its first
    /// fitting GPU), so that [`decode`](Self::decode) gives `gpu` back.
    pub fn position_of(&self, gpu: &[GpuId]) -> Vec<f64> {
        let m = self.upper();
        gpu.iter()
            .enumerate()
            .map(|(v, g)| {
                let list = self.feasible.of(TaskId::new(v));
                let i = list.iter().position(|k| k == g).unwrap_or(0);
                (i as f64 + 0.5) * m / list.len() as f64
            })
            .collect()
    }

    /// A uniform random position in `[0, m)^n`.
    pub fn random_position(&self, rng: &mut impl Rng, out: &mut Vec<f64>) {
        let m = self.upper();
        out.clear();
        out.extend((0..self.dim()).map(|_| rng.random::<f64>() * m));
    }

    /// Clamps a position into `[0, m]` (NaN to 0).
    pub fn clamp(&self, x: &mut [f64]) {
        let m = self.upper();
        for v in x {
            *v = if v.is_nan() { 0.0 } else { v.clamp(0.0, m) };
        }
    }

    /// A scratch for [`makespan`](Self::makespan); one per thread.
    pub fn scratch(&self) -> PositionScratch<'p> {
        PositionScratch {
            evaluator: PlanEvaluator::new(self.problem, self.policy),
            gpu: vec![GpuId::new(0); self.dim()],
        }
    }

    /// The makespan of the plan position `x` decodes to, s.
    pub fn makespan(&self, x: &[f64], scratch: &mut PositionScratch<'p>) -> f64 {
        self.decode(x, &mut scratch.gpu);
        scratch.evaluator.makespan(&scratch.gpu)
    }

    /// The schedule of the plan position `x` decodes to.
    ///
    /// Errors: the evaluator's (none for a position of the right length).
    pub fn schedule(&self, x: &[f64]) -> Result<Schedule> {
        let mut gpu = vec![GpuId::new(0); self.dim()];
        self.decode(x, &mut gpu);
        PlanEvaluator::new(self.problem, self.policy).schedule(&gpu)
    }

    /// Runs `f(i, &mut items[i], scratch)` for every item: on the rayon pool with one scratch
    /// per work split when `parallel`, else in index order with `scratch`. `f` must depend on
    /// its arguments only (not on the scratch contents) for both to agree.
    pub fn for_each<T: Send>(
        &self,
        items: &mut [T],
        parallel: bool,
        scratch: &mut PositionScratch<'p>,
        f: impl Fn(usize, &mut T, &mut PositionScratch<'p>) + Sync,
    ) {
        for_each_with(items, parallel, scratch, || self.scratch(), f);
    }
}

/// Per-thread buffers of a [`PositionCodec`].
#[derive(Clone, Debug)]
pub struct PositionScratch<'p> {
    evaluator: PlanEvaluator<'p>,
    gpu: Vec<GpuId>,
}

/// NaN makespans rank as `+∞`.
pub(crate) fn sanitize(f: f64) -> f64 {
    if f.is_nan() { f64::INFINITY } else { f }
}

/// Runs `f(i, &mut items[i], scratch)` for every item: on the rayon pool with one scratch
/// from `make` per work split when `parallel`, else in index order with `scratch`.
fn for_each_with<T: Send, S>(
    items: &mut [T],
    parallel: bool,
    scratch: &mut S,
    make: impl Fn() -> S + Sync + Send,
    f: impl Fn(usize, &mut T, &mut S) + Sync,
) {
    if parallel {
        items
            .par_iter_mut()
            .enumerate()
            .for_each_init(&make, |s, (i, item)| f(i, item, s));
    } else {
        for (i, item) in items.iter_mut().enumerate() {
            f(i, item, scratch);
        }
    }
}
