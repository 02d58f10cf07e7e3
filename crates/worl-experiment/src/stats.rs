//! Statistics of an experiment: sample [`Stats`], within-block ranks, the Friedman test with
//! the Iman–Davenport correction, and the Nemenyi critical difference.
//!
//! Method: J. Demšar, "Statistical comparisons of classifiers over multiple data sets",
//! *Journal of Machine Learning Research* 7:1–30, 2006, §3.2.2. With `k` algorithms on `N`
//! blocks (problem instances), `R_j` the average rank of algorithm `j` (rank 1 = smallest
//! makespan, ties get the average of the ranks they span):
//!
//! * Friedman: `χ²_F = 12N / (k(k+1)) · (Σ_j R_j² − k(k+1)²/4)`, χ² with `k − 1` degrees of
//!   freedom;
//! * Iman–Davenport: `F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F)`, F with `k − 1` and
//!   `(k − 1)(N − 1)` degrees of freedom (less conservative than χ²_F);
//! * Nemenyi: two algorithms differ significantly when their average ranks differ by at least
//!   `CD = q_α · sqrt(k(k+1) / (6N))`, `q_α` the studentized range quantile over `√2`
//!   ([`q_alpha`]).
//!
//! p-values come from `statrs` (ChiSquared, FisherSnedecor survival functions).

use crate::error::{ExperimentError, Result};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, ContinuousCDF, FisherSnedecor};

/// Relative tolerance under which two values count as tied:
/// `|a − b| <= TIE_TOLERANCE · max(|a|, |b|)`, i.e. one part per million.
///
/// It is used everywhere the harness compares two results: within-block ranks ([`ranks`],
/// hence the Friedman test, the Nemenyi critical difference and the CD diagram) and the
/// wins/ties/losses of [`Results::compare`](crate::Results::compare). Makespans computed
/// along different floating-point paths for the same or an equivalent schedule (two
/// schedulers both reaching the lower bound, say) differ by 1e-9 to 1e-8 relative, which
/// is no win; a real difference between schedules is orders of magnitude larger (a
/// millisecond on a 1,000 s makespan is still 1e-6).
pub const TIE_TOLERANCE: f64 = 1e-6;

/// Whether `a` and `b` tie (see [`TIE_TOLERANCE`]): the one comparison behind every rank
/// and win/tie/loss count of the harness.
///
/// ```
/// use worl_experiment::stats::ties;
/// // two schedulers both at the lower bound, along different floating-point paths
/// assert!(ties(1000.0, 1000.0 * (1.0 + 1.8e-8)));
/// assert!(!ties(1000.0, 1000.01));
/// ```
pub fn ties(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= TIE_TOLERANCE * a.abs().max(b.abs())
}

/// Why a Friedman test (and Nemenyi critical difference) cannot be computed for `k`
/// schedulers over `n` independent blocks, or `None` when it can (`k >= 2` and `n >= 2`).
/// A one-scheduler or one-problem run reports its tables without the test; the examples
/// print this note instead.
///
/// ```
/// use worl_experiment::stats::rank_test_note;
/// assert_eq!(rank_test_note(3, 10), None);
/// assert_eq!(
///     rank_test_note(1, 10).unwrap(),
///     "Friedman test skipped: it needs at least 2 schedulers and 2 independent problems \
///      (blocks), this run has 1 scheduler(s) and 10 block(s)"
/// );
/// ```
pub fn rank_test_note(k: usize, n: usize) -> Option<String> {
    (k < 2 || n < 2).then(|| {
        format!(
            "Friedman test skipped: it needs at least 2 schedulers and 2 independent problems \
             (blocks), this run has {k} scheduler(s) and {n} block(s)"
        )
    })
}

/// Summary of a sample: size, mean, sample standard deviation, coefficient of variation,
/// minimum and maximum.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor `n − 1`; 0 for one value).
    pub std: f64,
    /// Coefficient of variation `std / mean` (0 when the mean is 0).
    pub cv: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Stats {
    /// The statistics of `values`, or `None` if empty.
    ///
    /// ```
    /// let s = worl_experiment::Stats::of(&[2.0, 4.0, 6.0]).unwrap();
    /// assert_eq!((s.mean, s.std, s.min, s.max), (4.0, 2.0, 2.0, 6.0));
    /// assert_eq!(s.cv, 0.5);
    /// ```
    pub fn of(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let std = if n > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let (min, max) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        Some(Stats {
            n,
            mean,
            std,
            cv: if mean != 0.0 { std / mean.abs() } else { 0.0 },
            min,
            max,
        })
    }
}

/// Ranks of `values` within one block, 1 = smallest; tied values (see [`ties`]; a group is
/// the run of sorted values tying with its smallest) share the average of their ranks.
///
/// ```
/// use worl_experiment::stats::ranks;
/// assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
/// ```
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let first = values[order[i]];
        let mut j = i + 1;
        while j < order.len() && ties(first, values[order[j]]) {
            j += 1;
        }
        // positions i..j hold ranks i+1..=j
        let avg = (i + 1 + j) as f64 / 2.0;
        for &o in &order[i..j] {
            out[o] = avg;
        }
        i = j;
    }
    out
}

/// Average rank of each of `k` algorithms over `N` blocks: `blocks[b][j]` is algorithm `j`'s
/// value on block `b` (lower is better).
///
/// Errors: [`ExperimentError::Ranks`] if there is no block, a block's length differs from
/// the first's, or a value is NaN.
pub fn average_ranks(blocks: &[Vec<f64>]) -> Result<Vec<f64>> {
    let Some(first) = blocks.first() else {
        return Err(ExperimentError::Ranks {
            reason: "no block to rank".into(),
        });
    };
    let k = first.len();
    let mut sum = vec![0.0; k];
    for (b, row) in blocks.iter().enumerate() {
        if row.len() != k {
            return Err(ExperimentError::Ranks {
                reason: format!("block {b} has {} values, block 0 has {k}", row.len()),
            });
        }
        if let Some(j) = row.iter().position(|v| v.is_nan()) {
            return Err(ExperimentError::Ranks {
                reason: format!("block {b}, algorithm {j}: value is NaN"),
            });
        }
        for (s, r) in sum.iter_mut().zip(ranks(row)) {
            *s += r;
        }
    }
    Ok(sum.into_iter().map(|s| s / blocks.len() as f64).collect())
}

/// The Friedman test of `k` algorithms over `N` blocks (Demšar 2006, §3.2.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Friedman {
    /// Number of blocks `N` (problem instances).
    pub blocks: usize,
    /// Number of algorithms `k`.
    pub k: usize,
    /// Average rank `R_j` per algorithm (1 = best), in input order.
    pub average_ranks: Vec<f64>,
    /// Friedman's statistic `χ²_F`.
    pub chi2: f64,
    /// p-value of `χ²_F` (χ² with `k − 1` degrees of freedom).
    pub chi2_p_value: f64,
    /// Iman–Davenport statistic `F_F` (infinite when every block ranks the algorithms
    /// identically and without ties).
    pub f: f64,
    /// p-value of `F_F` (F with `k − 1`, `(k − 1)(N − 1)` degrees of freedom).
    pub f_p_value: f64,
    /// Degrees of freedom of `F_F`: `(k − 1, (k − 1)(N − 1))`.
    pub f_df: (f64, f64),
}

/// The Friedman test on `blocks[b][j]` = algorithm `j`'s value on block `b` (lower is better).
///
/// ```
/// use worl_experiment::stats::friedman;
/// // three blocks ranking A < B < C every time: maximal χ²_F = N(k − 1) = 6
/// let f = friedman(&[vec![1.0, 2.0, 3.0], vec![1.5, 2.5, 9.0], vec![0.1, 0.2, 0.3]])?;
/// assert_eq!(f.average_ranks, vec![1.0, 2.0, 3.0]);
/// assert!((f.chi2 - 6.0).abs() < 1e-12);
/// assert!(f.f.is_infinite() && f.f_p_value == 0.0);
/// # Ok::<(), worl_experiment::ExperimentError>(())
/// ```
///
/// Errors: [`ExperimentError::Ranks`] for fewer than 2 algorithms or 2 blocks, and as
/// [`average_ranks`].
pub fn friedman(blocks: &[Vec<f64>]) -> Result<Friedman> {
    let avg = average_ranks(blocks)?;
    let (n, k) = (blocks.len(), avg.len());
    if k < 2 || n < 2 {
        return Err(ExperimentError::Ranks {
            reason: format!(
                "the Friedman test needs at least 2 algorithms and 2 blocks, got {k} and {n}"
            ),
        });
    }
    let (nf, kf) = (n as f64, k as f64);
    let sum_sq: f64 = avg.iter().map(|r| r * r).sum();
    let chi2 = (12.0 * nf / (kf * (kf + 1.0)) * (sum_sq - kf * (kf + 1.0).powi(2) / 4.0)).max(0.0);
    let df1 = kf - 1.0;
    let df2 = (kf - 1.0) * (nf - 1.0);
    let chi2_p_value = ChiSquared::new(df1).map(|d| d.sf(chi2)).unwrap_or(f64::NAN);
    let denom = nf * (kf - 1.0) - chi2;
    let (f, f_p_value) = if denom <= 1e-12 * nf * kf {
        (f64::INFINITY, 0.0)
    } else {
        let f = (nf - 1.0) * chi2 / denom;
        let p = FisherSnedecor::new(df1, df2)
            .map(|d| d.sf(f))
            .unwrap_or(f64::NAN);
        (f, p)
    };
    Ok(Friedman {
        blocks: n,
        k,
        average_ranks: avg,
        chi2,
        chi2_p_value,
        f,
        f_p_value,
        f_df: (df1, df2),
    })
}

/// Significance levels with a tabulated Nemenyi critical value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Alpha {
    /// α = 0.05.
    P05,
    /// α = 0.10.
    P10,
}

impl Alpha {
    /// The level as a number.
    pub fn value(self) -> f64 {
        match self {
            Alpha::P05 => 0.05,
            Alpha::P10 => 0.10,
        }
    }
}

/// `q_α` for k = 2..=20 at α = 0.05: Demšar (2006), Table 5(a), for k ≤ 10; for k = 11..20
/// the studentized range quantile with infinite degrees of freedom divided by `√2`, computed
/// by numerical integration (the same values as Orange's `compute_CD` table; a test
/// recomputes every entry).
const Q_05: [f64; 19] = [
    1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164, 3.219, 3.268, 3.313, 3.354,
    3.391, 3.426, 3.458, 3.489, 3.517, 3.544,
];

/// `q_α` for k = 2..=20 at α = 0.10 (sources as [`Q_05`]).
const Q_10: [f64; 19] = [
    1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920, 2.978, 3.030, 3.077, 3.120,
    3.159, 3.196, 3.230, 3.261, 3.291, 3.319,
];

/// The two-tailed Nemenyi critical value `q_α` for `k` algorithms (Demšar 2006, Table 5(a);
/// `None` outside `k = 2..=20`).
///
/// ```
/// use worl_experiment::stats::{q_alpha, Alpha};
/// assert_eq!(q_alpha(4, Alpha::P05), Some(2.569));
/// assert_eq!(q_alpha(21, Alpha::P05), None);
/// ```
pub fn q_alpha(k: usize, alpha: Alpha) -> Option<f64> {
    let table = match alpha {
        Alpha::P05 => &Q_05,
        Alpha::P10 => &Q_10,
    };
    k.checked_sub(2).and_then(|i| table.get(i)).copied()
}

/// The Nemenyi critical difference `CD = q_α · sqrt(k(k+1) / (6N))` for `k` algorithms over
/// `n` blocks (`None` if `k` is outside `2..=20` or `n == 0`).
///
/// ```
/// use worl_experiment::stats::{critical_difference, Alpha};
/// // Demšar (2006), §3.2.2: four classifiers on 14 data sets, CD = 1.25 at α = 0.05
/// let cd = critical_difference(4, 14, Alpha::P05).unwrap();
/// assert!((cd - 1.2536).abs() < 1e-4);
/// ```
pub fn critical_difference(k: usize, n: usize, alpha: Alpha) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let q = q_alpha(k, alpha)?;
    Some(q * (k as f64 * (k as f64 + 1.0) / (6.0 * n as f64)).sqrt())
}

/// A Friedman test with its Nemenyi post-hoc analysis, over named algorithms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankTest {
    /// Algorithm names, in the order of [`Friedman::average_ranks`].
    pub names: Vec<String>,
    /// Names of the blocks (problem instances).
    pub block_names: Vec<String>,
    /// The Friedman test.
    pub friedman: Friedman,
    /// Significance level.
    pub alpha: f64,
    /// `q_α` (`None` for more than 20 algorithms).
    pub q_alpha: Option<f64>,
    /// Nemenyi critical difference (`None` for more than 20 algorithms).
    pub cd: Option<f64>,
}

impl RankTest {
    /// Friedman + Nemenyi on `blocks[b][j]` (lower is better) for algorithms `names`.
    ///
    /// Errors: as [`friedman`], and [`ExperimentError::Ranks`] if `names` does not match
    /// the blocks' width.
    pub fn new(
        names: Vec<String>,
        block_names: Vec<String>,
        blocks: &[Vec<f64>],
        alpha: Alpha,
    ) -> Result<Self> {
        let friedman = friedman(blocks)?;
        if names.len() != friedman.k {
            return Err(ExperimentError::Ranks {
                reason: format!("{} names for {} algorithms", names.len(), friedman.k),
            });
        }
        Ok(Self {
            names,
            block_names,
            q_alpha: q_alpha(friedman.k, alpha),
            cd: critical_difference(friedman.k, friedman.blocks, alpha),
            alpha: alpha.value(),
            friedman,
        })
    }

    /// Average rank of algorithm `name`, if present.
    pub fn rank_of(&self, name: &str) -> Option<f64> {
        let j = self.names.iter().position(|n| n == name)?;
        Some(self.friedman.average_ranks[j])
    }

    /// Whether the Friedman null hypothesis (all algorithms equivalent) is rejected at
    /// [`alpha`](Self::alpha) by the Iman–Davenport statistic.
    pub fn rejects_null(&self) -> bool {
        self.friedman.f_p_value < self.alpha
    }

    /// Whether algorithms `i` and `j` differ significantly by Nemenyi (rank difference at
    /// least CD; `false` without a CD).
    pub fn significant(&self, i: usize, j: usize) -> bool {
        let r = &self.friedman.average_ranks;
        self.cd.is_some_and(|cd| (r[i] - r[j]).abs() >= cd)
    }

    /// Algorithm indices sorted by average rank (best first; ties by input order).
    pub fn order(&self) -> Vec<usize> {
        let r = &self.friedman.average_ranks;
        let mut o: Vec<usize> = (0..r.len()).collect();
        o.sort_by(|&a, &b| r[a].total_cmp(&r[b]).then(a.cmp(&b)));
        o
    }

    /// Maximal groups of algorithms whose average ranks all lie within less than CD of each
    /// other (the thick bars of a critical-difference diagram), as positions in
    /// [`order`](Self::order) `(first, last)`, `first < last`; single algorithms are omitted.
    pub fn cliques(&self) -> Vec<(usize, usize)> {
        let Some(cd) = self.cd else {
            return Vec::new();
        };
        let r = &self.friedman.average_ranks;
        let sorted: Vec<f64> = self.order().into_iter().map(|i| r[i]).collect();
        let mut out: Vec<(usize, usize)> = Vec::new();
        for i in 0..sorted.len() {
            let mut j = i;
            while j + 1 < sorted.len() && sorted[j + 1] - sorted[i] < cd {
                j += 1;
            }
            if j > i && out.last().is_none_or(|&(_, last)| j > last) {
                out.push((i, j));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_one_value_has_zero_spread() {
        let s = Stats::of(&[5.0]).unwrap();
        assert_eq!(
            (s.n, s.mean, s.std, s.cv, s.min, s.max),
            (1, 5.0, 0.0, 0.0, 5.0, 5.0)
        );
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn ranks_average_ties_and_tolerate_ulps() {
        assert_eq!(ranks(&[1.0, 1.0, 1.0]), vec![2.0, 2.0, 2.0]);
        let a = 0.1 + 0.2;
        assert_eq!(ranks(&[a, 0.3, 0.5]), vec![1.5, 1.5, 3.0]);
        assert_eq!(ranks(&[4.0, 3.0, 2.0, 1.0]), vec![4.0, 3.0, 2.0, 1.0]);
    }

    #[test]
    fn cliques_of_a_ladder() {
        // ranks 1, 1.5, 3 with CD 1.0: {0, 1} together, 2 alone
        let t = RankTest {
            names: vec!["a".into(), "b".into(), "c".into()],
            block_names: vec![],
            friedman: Friedman {
                blocks: 10,
                k: 3,
                average_ranks: vec![1.0, 1.5, 3.0],
                chi2: 0.0,
                chi2_p_value: 1.0,
                f: 0.0,
                f_p_value: 1.0,
                f_df: (2.0, 18.0),
            },
            alpha: 0.05,
            q_alpha: Some(2.343),
            cd: Some(1.0),
        };
        assert_eq!(t.cliques(), vec![(0, 1)]);
        assert!(t.significant(0, 2) && t.significant(1, 2) && !t.significant(0, 1));
    }
}
