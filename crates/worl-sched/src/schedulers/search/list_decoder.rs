//! [`ListDecoder`]: a random-key list-scheduling decoder for the WOA, PSO and GA baselines.
//!
//! Random keys come from J. C. Bean, *Genetics and sequencing: a key to sequencing and
//! optimization*, ORSA J. Computing 6(2):154–160, 1994: a chromosome of real keys in
//! `[0, 1)` is decoded into a feasible solution, so every crossover or move of a continuous
//! search gives a feasible schedule. For DAG scheduling the keys drive a list scheduler
//! (task priorities perturbed around HEFT's, then a processor selection near the minimum
//! earliest finish time), so the search explores the neighbourhood of a strong heuristic
//! instead of raw task → GPU assignments.
//!
//! **Position.** `2n` coordinates in `[0, 1]` (`n` tasks): `x[v]` is task `v`'s priority
//! key, `x[n + v]` its GPU-preference key.
//!
//! **Decoding** (one [`PartialSchedule`] pass, nothing allocated):
//!
//! 1. *Order*: a ready list (a task becomes ready when all its predecessors are placed, so
//!    every order respects precedence) served by decreasing priority, ties by smaller task
//!    id. With [`ListPriority::PerturbedRank`] (default) the priority of `v` is
//!    `rank_u(v) · (1 + σ · (x[v] − 0.5))` ([`upward_ranks`], HEFT's upward rank); with
//!    [`ListPriority::Keys`] it is `x[v]` itself.
//! 2. *GPU*: the GPU-preference key `p = x[n + v]` selects a rank `r` in the list of the GPUs
//!    that fit `v`, sorted by earliest finish time (EFT, ties by smaller GPU id) under the
//!    placement policy: `r = 0` (HEFT's minimum-EFT GPU) for `p < τ`, else
//!    `r = min(K − 1, ⌊(p − τ) / (1 − τ) · K⌋)` among the `K` best (`K` = `gpu_choices`,
//!    at most the number of fitting GPUs). The larger the key, the further from the best EFT.
//!
//! **HEFT position.** With keys all 0.5 every priority is exactly `rank_u(v)` (the factor is
//! exactly 1) and, for `K = 1` (default) or `τ ≥ 0.5`, every GPU is the minimum-EFT one, ties
//! to the smaller id:
//! HEFT's order and selection, so the decoded schedule is HEFT's under the same policy
//! ([`ListDecoder::heft_position`] gives this position, or an equivalent one for other
//! settings). Seeding a search with it guarantees a result no worse than HEFT.
//!
//! **Measured** (`tests/list_decoder.rs`, `measure_decoders`, run with `--ignored`): mean
//! makespan / HEFT's (insertion) over seeds 0..5, at an equal budget of 3,000 evaluations
//! (30 individuals, evaluation budget 3,000), default settings of each search otherwise.
//! "Position" is the original baseline (one coordinate per task floored to a GPU, tasks in
//! topological order); every list row uses the HEFT seed unless it says "no seed". PSO's
//! list rows use the full-range velocity limit `vmax = 1`, except the default row (PSO's list
//! default `vmax = 0.1`, see [`PsoConfig`](super::PsoConfig)).
//!
//! A: layered DAGs of 100 tasks (generator defaults: CCR 1 at 10 Gbit/s) on
//! `presets::pai_mix(16, seed)`. B: layered DAGs of 100 tasks with CCR 5 at 500 Mbit/s on
//! `presets::paper_pool(8, 500, seed)` (8 GPUs of the PAI mix, one per machine, links up to
//! 500 Mbit/s).
//!
//! | decoder | A: WOA | A: PSO | A: GA | B: WOA | B: PSO | B: GA |
//! |---|---|---|---|---|---|---|
//! | position, append (the old default) | 2.049 | 3.068 | 1.557 | 1.183 | 2.316 | 1.790 |
//! | position, insertion | 1.780 | 2.863 | 1.606 | 1.082 | 2.171 | 1.652 |
//! | list, priority = keys, `K = 3`, no seed | 1.076 | 1.061 | 1.031 | 0.842 | 1.056 | 0.936 |
//! | list, `K = 3`, no seed | 0.970 | 1.011 | 0.992 | 0.829 | 1.020 | 0.883 |
//! | list, priority = keys, `K = 3` | 0.969 | 0.995 | 0.956 | 0.810 | 0.965 | 0.837 |
//! | list, `K = 3` | 0.964 | 0.993 | 0.954 | 0.820 | 0.959 | 0.831 |
//! | list, `K = 3`, `σ = 0.3` | 0.970 | 0.988 | 0.962 | 0.832 | 0.953 | 0.807 |
//! | list, `K = 2` | 0.966 | 0.993 | 0.958 | 0.828 | 0.911 | 0.832 |
//! | list, `K = 3`, `τ = 0.8` | 0.965 | 0.989 | 0.957 | 0.816 | 0.900 | 0.813 |
//! | list, `K = 3`, `τ = 0.9` | 0.966 | 0.986 | 0.954 | 0.811 | 0.886 | 0.811 |
//! | list, `K = 2`, `τ = 0.95` | 0.966 | 0.994 | 0.957 | 0.806 | 0.852 | 0.817 |
//! | list, `K = 1`, no seed | 0.967 | 0.971 | 0.963 | 0.813 | 0.802 | 0.811 |
//! | list, `K = 1`, `σ = 1.5` | 0.967 | 0.990 | 0.965 | 0.814 | 0.792 | 0.793 |
//! | list, `K = 1` | 0.964 | 0.974 | 0.958 | 0.808 | 0.801 | 0.817 |
//! | **list, `K = 1`, PSO `vmax = 0.1` (default)** | **0.964** | **0.961** | **0.958** | **0.808** | **0.788** | **0.817** |
//!
//! What the table says: the list decoder turns the three baselines from 1.1–3.1× HEFT into
//! searches that beat HEFT (by 4 % on A, 18–21 % on B, where communication dominates and
//! HEFT's greedy placement is far from optimal). Perturbed ranks beat raw keys as priorities
//! (without the seed clearly: raw keys start from random topological orders, perturbed ranks
//! from HEFT-like ones). Letting GPU keys pick a worse-than-minimum EFT GPU (`K ≥ 2`) does
//! not pay at this budget: it mostly adds noise, PSO suffers most, and the closer the rule
//! gets to "always the minimum-EFT GPU" (larger `τ`, smaller `K`) the better; hence the
//! default `K = 1`, where the search explores task orders and every task goes to its
//! minimum-EFT GPU (GPU keys are then ignored; `gpu-choices` turns them on).
//!
//!
//! [`PartialSchedule`]: worl_cluster::PartialSchedule

use crate::schedulers::list::queue::Ready;
use std::collections::BinaryHeap;

use rand::Rng;
use serde::{Deserialize, Serialize};
use worl_cluster::{GpuId, PartialSchedule, Policy, Problem, Schedule, Slot};
use worl_dag::TaskId;

use super::options::{take_count, take_in_range};
use crate::error::Result;
use crate::options::{OptionDoc, Options};
use crate::schedulers::list::{GapIndex, lead_ok, upward_ranks};

/// How a [`ListDecoder`] turns priority keys into task priorities.
///
/// Text form (option `priority`, serde, `FromStr`/`Display`): `perturbed-rank` (also read:
/// `rank`), `keys`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ListPriority {
    /// `rank_u(v) · (1 + σ · (key − 0.5))`: HEFT's upward rank scaled by the key; keys of
    /// 0.5 give HEFT's order. Our default (see the measurements in the module docs).
    #[default]
    #[serde(alias = "rank")]
    PerturbedRank,
    /// The key itself: the ready task of largest key goes first (Bean's random keys as
    /// priorities, with the ready list keeping precedence).
    Keys,
}

serde_plain::derive_fromstr_from_deserialize!(ListPriority);
serde_plain::derive_display_from_serialize!(ListPriority);

/// Settings of a [`ListDecoder`].
///
/// Defaults: perturbed rank with `σ = 1` (priorities within `[0.5, 1.5] · rank_u`),
/// `τ = 0.5`, `K = 1` (always the minimum-EFT GPU: the search explores task orders only;
/// measured better than `K = 2, 3` at 3,000 evaluations, see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListDecoderConfig {
    /// Priority rule (option `priority`).
    pub priority: ListPriority,
    /// Perturbation strength `σ` of [`ListPriority::PerturbedRank`] (option `sigma`, in
    /// `[0, 1.9]`, so that priorities stay positive multiples of `rank_u`).
    pub sigma: f64,
    /// GPU-key threshold `τ` below which the minimum-EFT GPU is taken (option
    /// `gpu-threshold`, in `[0, 1]`; 1 = always the minimum-EFT GPU).
    pub gpu_threshold: f64,
    /// Number `K` of best-EFT GPUs a GPU key can select among (option `gpu-choices`, at
    /// least 1; 1 = always the minimum-EFT GPU).
    pub gpu_choices: usize,
}

impl Default for ListDecoderConfig {
    fn default() -> Self {
        ListDecoderConfig {
            priority: ListPriority::PerturbedRank,
            sigma: 1.0,
            gpu_threshold: 0.5,
            gpu_choices: 1,
        }
    }
}

impl ListDecoderConfig {
    /// The options it is read from (`priority`, `sigma`, `gpu-threshold`, `gpu-choices`).
    pub const OPTIONS: [OptionDoc; 4] = [
        OptionDoc::new(
            "priority",
            "perturbed-rank|keys",
            "perturbed-rank",
            "task priorities: rank_u scaled by 1 + sigma·(key − 0.5), or the keys themselves",
        ),
        OptionDoc::new(
            "sigma",
            "[0, 1.9]",
            "1",
            "rank perturbation of the perturbed-rank priority",
        ),
        OptionDoc::new(
            "gpu-threshold",
            "[0, 1]",
            "0.5",
            "a GPU key below it takes the minimum-EFT GPU, above it one of the `gpu-choices` best",
        ),
        OptionDoc::new(
            "gpu-choices",
            ">= 1",
            "1",
            "GPUs of smallest EFT a key may choose among (1: always the minimum-EFT GPU)",
        ),
    ];

    /// Takes `priority`, `sigma`, `gpu-threshold`, `gpu-choices` from `opts` (defaults for
    /// absent keys).
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) naming
    /// the option.
    pub(crate) fn take(opts: &mut Options) -> Result<Self> {
        let d = ListDecoderConfig::default();
        Ok(ListDecoderConfig {
            priority: opts.take_or("priority", d.priority)?,
            sigma: take_in_range(opts, "sigma", d.sigma, 0.0, 1.9)?,
            gpu_threshold: take_in_range(opts, "gpu-threshold", d.gpu_threshold, 0.0, 1.0)?,
            gpu_choices: take_count(opts, "gpu-choices", d.gpu_choices, 1, usize::MAX)?,
        })
    }

    /// The rank (0 = minimum EFT) that GPU key `p` selects among `fitting` GPUs.
    #[inline]
    fn choice(&self, p: f64, fitting: usize) -> usize {
        let k = self.gpu_choices.min(fitting).max(1);
        let tau = self.gpu_threshold;
        if k == 1 || p < tau || tau >= 1.0 {
            return 0;
        }
        let r = ((p - tau) / (1.0 - tau) * k as f64) as usize;
        r.min(k - 1)
    }
}

/// A key as the decoder reads it: clamped into `[0, 1]`, NaN read as 0.5.
#[inline]
fn key(x: f64) -> f64 {
    if x.is_nan() { 0.5 } else { x.clamp(0.0, 1.0) }
}

/// The random-key list-scheduling decoder (see the [module docs](self)): a position of `2n`
/// keys in `[0, 1]` → a schedule.
#[derive(Clone, Debug)]
pub struct ListDecoder<'p> {
    problem: &'p Problem,
    policy: Policy,
    config: ListDecoderConfig,
    /// `rank_u` per task, s.
    ranks: Vec<f64>,
    /// Predecessor count per task.
    in_degree: Vec<u32>,
}

impl<'p> ListDecoder<'p> {
    /// The decoder of `problem`, placing under `policy` with `config`. `O(n + |E|)`.
    pub fn new(problem: &'p Problem, policy: Policy, config: ListDecoderConfig) -> Self {
        let graph = problem.graph();
        ListDecoder {
            problem,
            policy,
            config,
            ranks: upward_ranks(problem),
            in_degree: graph
                .task_ids()
                .map(|v| graph.preds(v).len() as u32)
                .collect(),
        }
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The placement policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The settings.
    pub fn config(&self) -> &ListDecoderConfig {
        &self.config
    }

    /// Dimension of a position: `2n`.
    pub fn dim(&self) -> usize {
        2 * self.problem.n_tasks()
    }

    /// A position that decodes to HEFT's schedule under this decoder's policy: every key
    /// 0.5 for [`ListPriority::PerturbedRank`] with `τ ≥ 0.5` (the defaults); otherwise
    /// priority keys `rank_u(v) / max rank_u` ([`ListPriority::Keys`], exact unless two
    /// different ranks round to the same quotient) and GPU keys below `τ`.
    pub fn heft_position(&self) -> Vec<f64> {
        let n = self.problem.n_tasks();
        let mut x = vec![0.5; 2 * n];
        if self.config.priority == ListPriority::Keys {
            let top = self.ranks.iter().copied().fold(0.0, f64::max);
            for (xv, &r) in x.iter_mut().zip(&self.ranks) {
                *xv = if top > 0.0 { r / top } else { 0.5 };
            }
        }
        if self.config.gpu_threshold < 0.5 {
            x[n..].fill(self.config.gpu_threshold / 2.0);
        }
        x
    }

    /// A uniform random position in `[0, 1)^{2n}`, written into `out`.
    pub fn random_position(&self, rng: &mut impl Rng, out: &mut Vec<f64>) {
        out.clear();
        out.extend((0..self.dim()).map(|_| rng.random::<f64>()));
    }

    /// Clamps a position into `[0, 1]` (NaN to 0.5).
    pub fn clamp(&self, x: &mut [f64]) {
        for v in x {
            *v = key(*v);
        }
    }

    /// A scratch for [`decode`](Self::decode) and [`makespan`](Self::makespan); one per
    /// thread. `O(n + m)` memory, allocated here once.
    pub fn scratch(&self) -> ListScratch<'p> {
        let (n, m) = (self.problem.n_tasks(), self.problem.n_gpus());
        ListScratch {
            partial: PartialSchedule::new(self.problem),
            index: GapIndex::new(self.problem),
            heap: BinaryHeap::with_capacity(n),
            missing: vec![0; n],
            candidates: Vec::with_capacity(m),
        }
    }

    /// Decodes `x` into `scratch`'s partial schedule (complete on success; read it with
    /// [`ListScratch::partial`]). Allocates nothing.
    ///
    /// Errors: [`WoaError::DimensionMismatch`](worl_woa::WoaError::DimensionMismatch) (as
    /// [`ScheduleError::Woa`](crate::ScheduleError::Woa)) if `x` does not have
    /// [`dim`](Self::dim) coordinates; the placement errors of [`GapIndex`] (none for a
    /// [`Problem`], whose tasks all fit a GPU).
    pub fn decode(&self, x: &[f64], scratch: &mut ListScratch<'p>) -> Result<()> {
        let n = self.problem.n_tasks();
        if x.len() != 2 * n {
            return Err(worl_woa::WoaError::DimensionMismatch {
                index: 0,
                expected: 2 * n,
                found: x.len(),
            }
            .into());
        }
        let ListScratch {
            partial,
            index,
            heap,
            missing,
            candidates,
        } = scratch;
        partial.reset();
        for gpu in self.problem.cluster().gpu_ids() {
            index.refresh(partial, gpu);
        }
        heap.clear();
        missing.copy_from_slice(&self.in_degree);
        let priority = |v: usize| match self.config.priority {
            ListPriority::PerturbedRank => {
                self.ranks[v] * (1.0 + self.config.sigma * (key(x[v]) - 0.5))
            }
            ListPriority::Keys => key(x[v]),
        };
        for (v, &d) in self.in_degree.iter().enumerate() {
            if d == 0 {
                heap.push(Ready {
                    priority: priority(v),
                    task: v as u32,
                });
            }
        }
        let graph = self.problem.graph();
        while let Some(Ready { task, .. }) = heap.pop() {
            let v = TaskId::new(task as usize);
            let slot = self.select(partial, index, candidates, v, key(x[n + v.index()]))?;
            index.commit(partial, slot)?;
            for s in graph.succs(v) {
                let w = s.task.index();
                missing[w] -= 1;
                if missing[w] == 0 {
                    heap.push(Ready {
                        priority: priority(w),
                        task: w as u32,
                    });
                }
            }
        }
        Ok(())
    }

    /// The slot of `task` its GPU key `p` selects.
    fn select(
        &self,
        partial: &PartialSchedule<'p>,
        index: &GapIndex,
        candidates: &mut Vec<Slot>,
        task: TaskId,
        p: f64,
    ) -> Result<Slot> {
        let p_ = self.problem;
        if self.config.choice(p, self.config.gpu_choices) == 0 {
            return index.best_slot(partial, task, self.policy, |_| 0.0);
        }
        candidates.clear();
        for k in 0..p_.n_gpus() {
            let gpu = GpuId::new(k);
            if lead_ok(p_, task, gpu) {
                candidates.push(index.slot(partial, task, gpu, self.policy)?);
            }
        }
        let r = self.config.choice(p, candidates.len());
        if r == 0 {
            return index.best_slot(partial, task, self.policy, |_| 0.0);
        }
        let (_, &mut slot, _) = candidates.select_nth_unstable_by(r, |a, b| {
            a.finish()
                .total_cmp(&b.finish())
                .then_with(|| a.gpu().cmp(&b.gpu()))
        });
        Ok(slot)
    }

    /// The makespan of the schedule `x` decodes to, s (`+∞` for a position of the wrong
    /// length). Allocates nothing.
    pub fn makespan(&self, x: &[f64], scratch: &mut ListScratch<'p>) -> f64 {
        match self.decode(x, scratch) {
            Ok(()) => scratch.partial.makespan(),
            Err(_) => f64::INFINITY,
        }
    }

    /// The schedule `x` decodes to.
    ///
    /// Errors: as [`decode`](Self::decode).
    pub fn schedule(&self, x: &[f64]) -> Result<Schedule> {
        let mut scratch = self.scratch();
        self.decode(x, &mut scratch)?;
        Ok(scratch.partial.to_schedule()?)
    }
}

/// Per-thread buffers of a [`ListDecoder`]: the partial schedule, its gap index, the ready
/// heap, the missing-predecessor counts and the candidate slots.
#[derive(Clone, Debug)]
pub struct ListScratch<'p> {
    partial: PartialSchedule<'p>,
    index: GapIndex,
    heap: BinaryHeap<Ready>,
    missing: Vec<u32>,
    candidates: Vec<Slot>,
}

impl<'p> ListScratch<'p> {
    /// The schedule of the last [`ListDecoder::decode`].
    pub fn partial(&self) -> &PartialSchedule<'p> {
        &self.partial
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_keys_select_ranks_by_threshold_and_choices() {
        let c = ListDecoderConfig {
            gpu_choices: 3,
            ..ListDecoderConfig::default()
        }; // τ = 0.5, K = 3
        // Below τ + (1 − τ)/K = 0.6667: the best; then thirds of [0.5, 1].
        assert_eq!(c.choice(0.0, 16), 0);
        assert_eq!(c.choice(0.5, 16), 0);
        assert_eq!(c.choice(0.66, 16), 0);
        assert_eq!(c.choice(0.67, 16), 1);
        assert_eq!(c.choice(0.84, 16), 2);
        assert_eq!(c.choice(1.0, 16), 2);
        // Two fitting GPUs: halves of [0.5, 1].
        assert_eq!(c.choice(0.74, 2), 0);
        assert_eq!(c.choice(0.76, 2), 1);
        // One GPU, K = 1 or τ = 1: always the best.
        assert_eq!(c.choice(0.99, 1), 0);
        let k1 = ListDecoderConfig {
            gpu_choices: 1,
            ..c.clone()
        };
        assert_eq!(k1.choice(0.99, 16), 0);
        let t1 = ListDecoderConfig {
            gpu_threshold: 1.0,
            ..c
        };
        assert_eq!(t1.choice(1.0, 16), 0);
    }

    #[test]
    fn keys_are_clamped_and_nan_is_neutral() {
        assert_eq!(key(-3.0), 0.0);
        assert_eq!(key(7.0), 1.0);
        assert_eq!(key(f64::NAN), 0.5);
        assert_eq!(key(0.25), 0.25);
    }

    #[test]
    fn options_parse_and_reject() {
        let mut o = Options::new("woa")
            .with("priority", "keys")
            .with("sigma", 0.4)
            .with("gpu-choices", 5);
        let c = ListDecoderConfig::take(&mut o).unwrap();
        assert_eq!(c.priority, ListPriority::Keys);
        assert_eq!((c.sigma, c.gpu_threshold, c.gpu_choices), (0.4, 0.5, 5));
        for (k, v) in [
            ("priority", "random"),
            ("sigma", "2"),
            ("sigma", "-0.1"),
            ("gpu-threshold", "1.5"),
            ("gpu-choices", "0"),
        ] {
            let mut o = Options::new("woa").with(k, v);
            let err = ListDecoderConfig::take(&mut o).unwrap_err().to_string();
            assert!(err.contains(k), "{k}={v}: {err}");
        }
        assert_eq!(
            "rank".parse::<ListPriority>().unwrap(),
            ListPriority::PerturbedRank
        );
        assert_eq!(ListPriority::Keys.to_string(), "keys");
    }
}
