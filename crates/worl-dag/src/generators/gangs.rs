//! Gang tasks for any workload: a seeded post-pass ([`assign`], [`GangAssignment::apply`]) that
//! makes a given fraction of the tasks gang tasks with uniformly drawn GPU counts, e.g. "a
//! 100,000-task workload, 20 % gang tasks of 2 to 8 GPUs" for a benchmark.
//!
//! **Model.** Exactly `k = round(fraction · n)` of the `n` tasks are drawn (a uniformly random
//! `k`-subset: a partial Fisher–Yates shuffle of the task ids), and each drawn task, in id
//! order, gets `gpus` uniform on `min_gpus..=max_gpus` and the configured [`GangParams`]. The
//! other tasks keep their demand. [`GangWork`] says whether a drawn task's `work` (its total
//! work) stays as it is — it then runs `gpus` times faster at efficiency 1 — or is multiplied
//! by `gpus`, so that its run time on its GPUs stays what it was (the generator's run time
//! read as a wall time, as a trace would record it). Names, jobs, releases, memory and edges
//! are unchanged, and so are the task ids.
//!
//! Draws come from `ChaCha8Rng::seed_from_u64(seed)`: the same workload, configuration and
//! seed give the same result on every platform.

use crate::error::{DagError, Result};
use crate::generators::check_unit;
use crate::task::{GangParams, MAX_GANG_GPUS, Span};
use crate::workload::{Workload, WorkloadBuilder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;

/// What happens to the `work` of a task made a gang of `g` GPUs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum GangWork {
    /// `work` is kept: it is the task's total work, so on `g` GPUs it runs `g` times faster
    /// (at efficiency 1). The workload's total work is unchanged. The default.
    #[default]
    Keep,
    /// `work` is multiplied by `g`: its run time on `g` GPUs is what it was on one (the
    /// generated run time read as a wall time on its GPUs, `work = d · g`).
    ScaleByGpus,
}

/// The gang post-pass: which fraction of the tasks, how many GPUs, how they run.
///
/// ```
/// use worl_dag::generators::gangs::GangAssignment;
/// use worl_dag::generators::shapes;
/// use worl_dag::Span;
/// let w = shapes::wide(10, 100.0)?;
/// let g = GangAssignment::new(0.2, 2..=8, Span::Machine).seed(7).apply(&w)?;
/// let gangs: Vec<u32> = g.graph().tasks().map(|(_, t)| t.gpus).filter(|&n| n > 1).collect();
/// assert_eq!(gangs.len(), 2); // 20 % of 10
/// assert!(gangs.iter().all(|n| (2..=8).contains(n)));
/// # Ok::<(), worl_dag::DagError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GangAssignment {
    /// Fraction of the tasks made gang tasks, in `[0, 1]`; `round(fraction · n)` tasks are.
    pub fraction: f64,
    /// Fewest GPUs of a drawn task, `>= 2`.
    pub min_gpus: u32,
    /// Most GPUs of a drawn task, `min_gpus..=`[`MAX_GANG_GPUS`].
    pub max_gpus: u32,
    /// How the drawn tasks run (span, efficiency, synchronisation); checked as
    /// [`GangParams::check`] checks it. Default [`GangParams::default`].
    pub params: GangParams,
    /// What happens to a drawn task's work. Default [`GangWork::Keep`].
    pub work: GangWork,
    /// Seed of the draws. Default 0.
    pub seed: u64,
}

impl GangAssignment {
    /// `fraction` of the tasks on `gpus` GPUs (uniform), with span `span`, the other
    /// parameters at their defaults, work kept, seed 0.
    pub fn new(fraction: f64, gpus: RangeInclusive<u32>, span: Span) -> Self {
        Self {
            fraction,
            min_gpus: *gpus.start(),
            max_gpus: *gpus.end(),
            params: GangParams {
                span,
                ..GangParams::default()
            },
            work: GangWork::Keep,
            seed: 0,
        }
    }

    /// The same configuration with seed `seed`.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same configuration with gang parameters `params`.
    pub fn params(mut self, params: GangParams) -> Self {
        self.params = params;
        self
    }

    /// The same configuration with work model `work`.
    pub fn work(mut self, work: GangWork) -> Self {
        self.work = work;
        self
    }

    /// Checks the configuration.
    ///
    /// Errors: [`DagError::InvalidParameter`] naming `fraction` (not in `[0, 1]`),
    /// `min_gpus` (below 2: a gang has at least 2 GPUs), `max_gpus` (below `min_gpus` or
    /// above [`MAX_GANG_GPUS`]) or `params` (what [`GangParams::check`] refuses).
    pub fn validate(&self) -> Result<()> {
        check_unit("fraction", self.fraction)?;
        let bad = |name, reason: String| Err(DagError::InvalidParameter { name, reason });
        if self.min_gpus < 2 {
            return bad(
                "min_gpus",
                format!(
                    "{} is below 2 (a gang task has at least 2 GPUs)",
                    self.min_gpus
                ),
            );
        }
        if self.max_gpus < self.min_gpus || self.max_gpus > MAX_GANG_GPUS {
            return bad(
                "max_gpus",
                format!(
                    "{} is not in min_gpus..={MAX_GANG_GPUS} ({}..={MAX_GANG_GPUS})",
                    self.max_gpus, self.min_gpus
                ),
            );
        }
        self.params
            .check(self.min_gpus)
            .or_else(|reason| bad("params", reason))
    }

    /// The tasks drawn for `n` tasks, ascending, each with its GPU count.
    fn draw(&self, n: usize) -> Vec<(usize, u32)> {
        let k = ((self.fraction * n as f64).round() as usize).min(n);
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        // Partial Fisher-Yates: the first k places hold a uniform k-subset.
        let mut ids: Vec<u32> = (0..n as u32).collect();
        for i in 0..k {
            let j = rng.random_range(i..n);
            ids.swap(i, j);
        }
        let mut chosen: Vec<u32> = ids[..k].to_vec();
        chosen.sort_unstable();
        chosen
            .into_iter()
            .map(|v| (v as usize, rng.random_range(self.min_gpus..=self.max_gpus)))
            .collect()
    }

    /// `w` with `round(fraction · n)` of its tasks made gang tasks (module docs).
    ///
    /// Errors: those of [`validate`](Self::validate); [`DagError::InvalidWork`] naming the
    /// task when [`GangWork::ScaleByGpus`] makes a work overflow.
    pub fn apply(&self, w: &Workload) -> Result<Workload> {
        self.validate()?;
        let g = w.graph();
        let n = g.n_tasks();
        if n > u32::MAX as usize {
            return Err(DagError::InvalidParameter {
                name: "workload",
                reason: format!("{n} tasks; the gang post-pass takes at most {}", u32::MAX),
            });
        }
        let mut demand: Vec<Option<u32>> = vec![None; n];
        for (v, gpus) in self.draw(n) {
            demand[v] = Some(gpus);
        }
        let mut b = WorkloadBuilder::new(w.name());
        for job in w.jobs() {
            let id = b.add_job(job.name.as_str())?;
            b.set_release(id, job.release)?;
        }
        for (v, t) in g.tasks() {
            let work = match (demand[v.index()], self.work) {
                (Some(gpus), GangWork::ScaleByGpus) => t.work * f64::from(gpus),
                _ => t.work,
            };
            let id = b.add_task(t.job, t.name.as_str(), work, t.mem_gib)?;
            match demand[v.index()] {
                Some(gpus) => b.set_gang(id, gpus, self.params)?,
                None if t.gpus != 1 || !t.gang.is_default() => b.set_gang(id, t.gpus, t.gang)?,
                None => {}
            }
        }
        for e in g.edges() {
            b.add_edge(e.from, e.to, e.bytes)?;
        }
        b.build()
    }
}

/// `w` with `round(fraction · n)` of its tasks made gang tasks of `gpus` GPUs (uniform) with
/// span `span` and otherwise default parameters, work kept, drawn with `seed`: shorthand for
/// [`GangAssignment::new`]`(fraction, gpus, span).seed(seed).apply(w)`.
///
/// Errors: those of [`GangAssignment::apply`].
pub fn assign(
    w: &Workload,
    fraction: f64,
    gpus: RangeInclusive<u32>,
    span: Span,
    seed: u64,
) -> Result<Workload> {
    GangAssignment::new(fraction, gpus, span)
        .seed(seed)
        .apply(w)
}
