//! The SPD–FTG study (Du et al., J. Supercomputing 81:911, 2025; Du et al., Big Data Cogn.
//! Comput. 9(11):284, 2025): is the
//! **scheduling plan distance** (SPD) between two plans correlated with their **finish time
//! gap** (FTG)? A positive correlation is what justifies moving whales in running-time space
//! (RTGS): a whale brought closer to the leader should finish closer to the leader's
//! makespan. The authors report Pearson correlations of 0.4–0.5 on Alibaba and synthetic DAGs.
//!
//! Definitions (the papers do not give the exact formulas; these are ours):
//! * a plan `X` is a GPU per task, placed in topological order; its running-time vector is
//!   `RT(X)` with `RT_v = loads[π(v)]` ([`running_times`]);
//! * `SPD(X, Y) = ‖RT(X) − RT(Y)‖₂` ([`PlanDistance::Euclidean`], the default), or the L1
//!   distance of the RT vectors, or the Hamming distance (tasks mapped to different GPUs);
//! * `FTG(X, Y) = |makespan(X) − makespan(Y)|`.
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuModel, Problem};
//! use worl_dag::generators::shapes;
//! use worl_experiment::study::{spd_ftg_study, SpdFtgConfig};
//!
//! // 60 independent tasks on 6 identical GPUs: the makespan is the largest load, so plans
//! // further apart in running time tend to differ more in makespan.
//! let w = Arc::new(shapes::wide(60, 10.0)?);
//! let p = Problem::new(w, Arc::new(presets::homogeneous(6, &GpuModel::t4())?))?;
//! let study = spd_ftg_study(&p, &SpdFtgConfig { pairs: 300, ..SpdFtgConfig::default() });
//! assert_eq!(study.pairs.len(), 300);
//! assert!(study.pearson_r.unwrap() > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use rand::Rng;
use rand::seq::index::sample;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use worl_cluster::{GpuId, Policy, Problem};
use worl_dag::TaskId;
use worl_woa::whale_rng;

use worl_sched::schedulers::search::{FeasibleGpus, PlanEvaluator, running_times};

/// How the distance between two plans is measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanDistance {
    /// Euclidean distance of the running-time vectors, s (RTGS's position space; default).
    #[default]
    Euclidean,
    /// L1 (Manhattan) distance of the running-time vectors, s.
    L1,
    /// Number of tasks mapped to different GPUs (ignores running times).
    Hamming,
}

serde_plain::derive_fromstr_from_deserialize!(PlanDistance);
serde_plain::derive_display_from_serialize!(PlanDistance);

impl PlanDistance {
    /// The distance between plans `x` and `y` (GPU per task) whose running-time vectors
    /// (one entry per task) are `rt_x` and `rt_y`.
    pub fn between(&self, x: &[GpuId], y: &[GpuId], rt_x: &[f64], rt_y: &[f64]) -> f64 {
        match self {
            PlanDistance::Euclidean => rt_x
                .iter()
                .zip(rt_y)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt(),
            PlanDistance::L1 => rt_x.iter().zip(rt_y).map(|(a, b)| (a - b).abs()).sum(),
            PlanDistance::Hamming => x.iter().zip(y).filter(|(a, b)| a != b).count() as f64,
        }
    }
}

/// How plan pairs are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairSampler {
    /// `X` uniform random (a uniformly drawn GPU per task among those it fits); `Y` is `X`
    /// with `k` tasks moved, `k` uniform in `1..=n`, the tasks drawn without replacement,
    /// each moved to a uniformly drawn *other* GPU it fits (it stays if it fits only one).
    /// Pairs span every distance from neighbours to unrelated plans, as whales do over a run
    /// (default).
    #[default]
    Perturbation,
    /// `X` and `Y` independent uniform random plans: distances concentrate around the
    /// typical distance of two random plans.
    Independent,
}

serde_plain::derive_fromstr_from_deserialize!(PairSampler);
serde_plain::derive_display_from_serialize!(PairSampler);

/// Configuration of [`spd_ftg_study`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpdFtgConfig {
    /// Number of plan pairs (default 1,000).
    pub pairs: usize,
    /// The SPD measure (default Euclidean on running-time vectors).
    pub distance: PlanDistance,
    /// How pairs are drawn (default: random plan and a perturbation of it).
    pub sampler: PairSampler,
    /// Placement policy of the makespan (default append).
    pub policy: Policy,
    /// Seed; pair `i` draws from [`whale_rng`]`(seed, 0, i)`.
    pub seed: u64,
    /// Evaluate pairs on the rayon pool (same result either way).
    pub parallel: bool,
}

impl Default for SpdFtgConfig {
    fn default() -> Self {
        SpdFtgConfig {
            pairs: 1000,
            distance: PlanDistance::Euclidean,
            sampler: PairSampler::Perturbation,
            policy: Policy::Append,
            seed: 0,
            parallel: false,
        }
    }
}

/// One sampled plan pair.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanPair {
    /// Scheduling plan distance (unit of the [`PlanDistance`]).
    pub spd: f64,
    /// Finish time gap `|makespan(X) − makespan(Y)|`, s.
    pub ftg: f64,
    /// Makespan of `X`, s.
    pub makespan_x: f64,
    /// Makespan of `Y`, s.
    pub makespan_y: f64,
    /// Tasks on different GPUs in `X` and `Y`.
    pub differing_tasks: usize,
}

/// The result of [`spd_ftg_study`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpdFtgStudy {
    /// The pairs, in sampling order.
    pub pairs: Vec<PlanPair>,
    /// Pearson's correlation coefficient of (SPD, FTG) over the pairs ([`pearson`]); `None`
    /// if undefined (fewer than two pairs, or a constant SPD or FTG).
    pub pearson_r: Option<f64>,
    /// Two-sided p-value of `r` under the null hypothesis of no correlation (Student's t with
    /// `pairs − 2` degrees of freedom, `t = r·√((N − 2)/(1 − r²))`); `None` when `r` is `None` or
    /// with fewer than three pairs.
    pub p_value: Option<f64>,
}

/// Pearson's correlation coefficient `r = Σ(x−x̄)(y−ȳ) / √(Σ(x−x̄)² Σ(y−ȳ)²)` of paired
/// samples (K. Pearson, 1895); `None` if the lengths differ, there are fewer than two
/// pairs, or either sample is constant.
///
/// ```
/// let r = worl_experiment::study::pearson(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 5.0, 9.0]).unwrap();
/// assert!((r - 11.0 / 130f64.sqrt()).abs() < 1e-15);
/// ```
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// Two-sided p-value of Pearson's `r` over `n` pairs (Student's t, `n − 2` degrees of freedom).
fn p_value(r: f64, n: usize) -> Option<f64> {
    if n < 3 {
        return None;
    }
    let df = (n - 2) as f64;
    if r.abs() >= 1.0 {
        return Some(0.0);
    }
    let t = r * (df / (1.0 - r * r)).sqrt();
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(2.0 * dist.sf(t.abs()))
}

/// Per-thread buffers.
struct Buffers<'p> {
    evaluator: PlanEvaluator<'p>,
    x: Vec<GpuId>,
    y: Vec<GpuId>,
    loads_x: Vec<f64>,
    loads_y: Vec<f64>,
    rt_x: Vec<f64>,
    rt_y: Vec<f64>,
}

/// Samples `config.pairs` plan pairs of `problem` and measures SPD, FTG and their Pearson
/// correlation (see the module docs). `O(pairs · (n + |E|))` time, `O(n + m)` memory per
/// thread besides the result.
pub fn spd_ftg_study(problem: &Problem, config: &SpdFtgConfig) -> SpdFtgStudy {
    let feasible = FeasibleGpus::new(problem);
    let n = problem.n_tasks();
    let buffers = || Buffers {
        evaluator: PlanEvaluator::new(problem, config.policy),
        x: vec![GpuId::new(0); n],
        y: vec![GpuId::new(0); n],
        loads_x: Vec::new(),
        loads_y: Vec::new(),
        rt_x: Vec::new(),
        rt_y: Vec::new(),
    };
    let one = |i: usize, b: &mut Buffers<'_>| -> PlanPair {
        let mut rng = whale_rng(config.seed, 0, i);
        feasible.random_plan(&mut rng, &mut b.x);
        match config.sampler {
            PairSampler::Independent => feasible.random_plan(&mut rng, &mut b.y),
            PairSampler::Perturbation => {
                b.y.copy_from_slice(&b.x);
                let k = rng.random_range(1..=n);
                for v in sample(&mut rng, n, k) {
                    let list = feasible.of(TaskId::new(v));
                    if list.len() > 1 {
                        // A uniformly drawn GPU other than the current one.
                        let cur = list.iter().position(|&g| g == b.x[v]).unwrap_or(0);
                        let j = rng.random_range(0..list.len() - 1);
                        b.y[v] = list[if j >= cur { j + 1 } else { j }];
                    }
                }
            }
        }
        running_times(problem, &b.x, &mut b.loads_x);
        running_times(problem, &b.y, &mut b.loads_y);
        b.rt_x.clear();
        b.rt_x.extend(b.x.iter().map(|g| b.loads_x[g.index()]));
        b.rt_y.clear();
        b.rt_y.extend(b.y.iter().map(|g| b.loads_y[g.index()]));
        let makespan_x = b.evaluator.makespan(&b.x);
        let makespan_y = b.evaluator.makespan(&b.y);
        PlanPair {
            spd: config.distance.between(&b.x, &b.y, &b.rt_x, &b.rt_y),
            ftg: (makespan_x - makespan_y).abs(),
            makespan_x,
            makespan_y,
            differing_tasks: b.x.iter().zip(&b.y).filter(|(a, c)| a != c).count(),
        }
    };
    let pairs: Vec<PlanPair> = if config.parallel {
        (0..config.pairs)
            .into_par_iter()
            .map_init(buffers, |b, i| one(i, b))
            .collect()
    } else {
        let mut b = buffers();
        (0..config.pairs).map(|i| one(i, &mut b)).collect()
    };
    let spd: Vec<f64> = pairs.iter().map(|p| p.spd).collect();
    let ftg: Vec<f64> = pairs.iter().map(|p| p.ftg).collect();
    let pearson_r = pearson(&spd, &ftg);
    SpdFtgStudy {
        p_value: pearson_r.and_then(|r| p_value(r, pairs.len())),
        pairs,
        pearson_r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: x̄ = 2.5, ȳ = 5; Σdxdy = 4.5 + 0.5 + 0 + 6 = 11, Σdx² = 5, Σdy² = 26:
    /// r = 11/√130 = 0.96476…
    #[test]
    fn pearson_by_hand_and_undefined_cases() {
        let r = pearson(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 5.0, 9.0]).unwrap();
        assert!((r - 0.964_763_821_237_732_2).abs() < 1e-15, "{r}");
        let r = pearson(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap();
        assert!((r + 1.0).abs() < 1e-15);
        assert_eq!(pearson(&[1.0], &[2.0]), None);
        assert_eq!(pearson(&[1.0, 1.0], &[2.0, 3.0]), None);
        assert_eq!(pearson(&[1.0, 2.0], &[2.0]), None);
    }

    /// r = 0.5 over 27 pairs: t = 0.5·√(25/0.75) = 2.8868, two-sided p = 0.00793
    /// (a t table with 25 degrees of freedom gives p ≈ 0.008).
    #[test]
    fn p_value_of_r_matches_the_t_distribution() {
        let p = p_value(0.5, 27).unwrap();
        assert!((p - 0.0079).abs() < 2e-4, "{p}");
        assert_eq!(p_value(0.5, 2), None);
        assert_eq!(p_value(1.0, 10), Some(0.0));
    }

    #[test]
    fn distances_on_a_small_pair() {
        let x = [GpuId::new(0), GpuId::new(1), GpuId::new(1)];
        let y = [GpuId::new(0), GpuId::new(0), GpuId::new(1)];
        let (rx, ry) = ([1.0, 5.0, 5.0], [4.0, 4.0, 2.0]);
        assert_eq!(
            PlanDistance::Euclidean.between(&x, &y, &rx, &ry),
            (9.0f64 + 1.0 + 9.0).sqrt()
        );
        assert_eq!(PlanDistance::L1.between(&x, &y, &rx, &ry), 7.0);
        assert_eq!(PlanDistance::Hamming.between(&x, &y, &rx, &ry), 1.0);
    }
}
