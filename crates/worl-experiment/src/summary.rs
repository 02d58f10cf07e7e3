//! Summaries of [`Results`]: per group and scheduler ([`Summary`]), one scheduler against each
//! other ([`Comparison`]), makespans normalised per problem ([`NormalisedTable`]), and the
//! Friedman/Nemenyi [`RankTest`] over independent blocks.
//!
//! **Across problems, only normalised makespans are summarised.** Makespans of different
//! workloads have different scales, so their mean (and standard deviation) says nothing; each
//! scheduler's mean makespan (over seeds) on a problem is divided by the best one of any
//! scheduler on that problem, and by the baseline's (HEFT's, when present), and these ratios
//! are summarised by their geometric mean ([`Summary::to_best`], [`Summary::to_baseline`],
//! [`Results::normalised`]).
//!
//! **Blocks of a rank test must be independent problems.** Variants of one workload (the same
//! DAG on an idle and on a busy cluster, say) are not: give them one block name with
//! [`NamedProblem::block`](crate::NamedProblem::block) and the rank test merges them into one
//! block (the geometric mean of each scheduler's mean makespans over the block's problems).
//! Problems without a block name are blocks of their own.

use crate::error::{ExperimentError, Result};
use crate::problems::BLOCK_TAG;
use crate::run::{Results, RunRecord};
use crate::stats::{Alpha, RankTest, Stats, rank_test_note, ties};
use serde::{Deserialize, Serialize};

/// How runs are grouped into summary rows and rank tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GroupBy {
    /// One group per problem.
    Problem,
    /// One group per value of tag `key` (`-` for problems without it).
    Tag(String),
    /// One group, `all`.
    All,
}

impl GroupBy {
    /// The group of record `r`.
    pub fn key(&self, r: &RunRecord) -> String {
        match self {
            GroupBy::Problem => r.problem.clone(),
            GroupBy::Tag(k) => r.tags.get(k).cloned().unwrap_or_else(|| "-".into()),
            GroupBy::All => "all".into(),
        }
    }

    /// A tag grouping (`GroupBy::Tag(key)`).
    pub fn tag(key: impl Into<String>) -> Self {
        GroupBy::Tag(key.into())
    }
}

/// A per-run quantity of a [`RunRecord`], for plots and custom summaries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// Makespan, s.
    Makespan,
    /// `makespan / lower bound`.
    Gap,
    /// Schedule length ratio.
    Slr,
    /// Scheduler wall time, s.
    WallTime,
}

impl Metric {
    /// The value of this metric in `r`.
    pub fn of(self, r: &RunRecord) -> f64 {
        match self {
            Metric::Makespan => r.makespan,
            Metric::Gap => r.gap,
            Metric::Slr => r.slr,
            Metric::WallTime => r.wall_time_s,
        }
    }

    /// Axis label, with unit.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Makespan => "makespan (s)",
            Metric::Gap => "makespan / lower bound",
            Metric::Slr => "SLR",
            Metric::WallTime => "scheduler wall time (s)",
        }
    }
}

/// One scheduler's runs in one group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The group.
    pub group: String,
    /// The scheduler's label.
    pub scheduler: String,
    /// Number of distinct problems.
    pub problems: usize,
    /// Number of runs.
    pub runs: usize,
    /// Makespan over the runs, s.
    pub makespan: Stats,
    /// `makespan / lower bound` over the runs.
    pub gap: Stats,
    /// SLR over the runs.
    pub slr: Stats,
    /// Speedup over the runs.
    pub speedup: Stats,
    /// Efficiency over the runs.
    pub efficiency: Stats,
    /// Utilisation over the runs.
    pub utilisation: Stats,
    /// Scheduler wall time over the runs, s.
    pub wall_time_s: Stats,
    /// Plan evaluations over the runs.
    pub evaluations: Stats,
    /// Geometric mean over the group's problems of the scheduler's mean makespan (over
    /// seeds) divided by the best mean makespan of any scheduler on that problem: 1 when it
    /// is the best everywhere. The summary across problems that does not depend on their
    /// scales (the makespan [`Stats`] above mix them when the group has several problems).
    pub to_best: f64,
    /// The baseline's label ([`Results::default_baseline`]: HEFT when present).
    pub baseline: Option<String>,
    /// Geometric mean over the group's problems of the scheduler's mean makespan divided by
    /// the baseline's (`None` without baseline or where the baseline ran on none of them).
    pub to_baseline: Option<f64>,
}

/// A reference scheduler against another one in one group, per problem on the mean makespan
/// over each one's runs (seeds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The group.
    pub group: String,
    /// The reference scheduler.
    pub reference: String,
    /// The other scheduler.
    pub other: String,
    /// Number of problems both ran on.
    pub problems: usize,
    /// Mean over problems of the makespan reduction `(M_other − M_ref) / M_other · 100` %
    /// (`M` the mean makespan over seeds); negative when the reference is worse.
    pub improvement_mean_pct: f64,
    /// Largest per-problem reduction, %.
    pub improvement_max_pct: f64,
    /// Problems where the reference's mean makespan is smaller (beyond
    /// [`TIE_TOLERANCE`](crate::stats::TIE_TOLERANCE)).
    pub wins: usize,
    /// Problems where they tie.
    pub ties: usize,
    /// Problems where the reference's is larger.
    pub losses: usize,
}

/// Groups in order of first appearance, with the records of each.
fn groups<'a>(records: &'a [RunRecord], by: &GroupBy) -> Vec<(String, Vec<&'a RunRecord>)> {
    let mut out: Vec<(String, Vec<&RunRecord>)> = Vec::new();
    for r in records {
        let k = by.key(r);
        match out.iter_mut().find(|(g, _)| *g == k) {
            Some((_, v)) => v.push(r),
            None => out.push((k, vec![r])),
        }
    }
    out
}

/// Problem names of `records` in order of first appearance.
fn problem_names<'a>(records: &[&'a RunRecord]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for r in records {
        if !out.contains(&r.problem.as_str()) {
            out.push(&r.problem);
        }
    }
    out
}

/// The block of a record: its [`BLOCK_TAG`] tag, else its problem.
pub(crate) fn block_of(r: &RunRecord) -> &str {
    r.tags
        .get(BLOCK_TAG)
        .map_or(r.problem.as_str(), String::as_str)
}

/// Number of distinct names.
pub(crate) fn count_distinct<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.collect::<std::collections::BTreeSet<_>>().len()
}

/// `a / b` for makespans: 1 when both are 0, infinite when only `b` is.
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else if a == b {
        1.0
    } else {
        f64::INFINITY
    }
}

/// Geometric mean of positive `values` (`None` if empty; exactly the value for one value).
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    match values {
        [] => None,
        [v] => Some(*v),
        _ => Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()),
    }
}

fn stats(rs: &[&RunRecord], f: impl Fn(&RunRecord) -> f64) -> Stats {
    let v: Vec<f64> = rs.iter().map(|r| f(r)).collect();
    Stats::of(&v).expect("a summary has at least one run")
}

/// Mean makespan of `scheduler` on `problem` among `records`, if it ran there.
fn mean_makespan(records: &[&RunRecord], problem: &str, scheduler: &str) -> Option<f64> {
    let v: Vec<f64> = records
        .iter()
        .filter(|r| r.problem == problem && r.scheduler == scheduler)
        .map(|r| r.makespan)
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

impl Results {
    /// One [`Summary`] per group and scheduler with runs there (groups in order of first
    /// appearance, schedulers in experiment order). Standard deviations are sample ones over
    /// the group's runs, so within one problem they measure the seed-to-seed spread.
    pub fn summaries(&self, by: &GroupBy) -> Vec<Summary> {
        let baseline = self.default_baseline();
        let table = self
            .normalised(baseline.as_deref())
            .expect("the default baseline is a scheduler of the results");
        let mut out = Vec::new();
        for (group, recs) in groups(self.records(), by) {
            let problems = problem_names(&recs);
            let rows: Vec<&NormalisedRow> = table
                .rows
                .iter()
                .filter(|row| problems.contains(&row.problem.as_str()))
                .collect();
            for (j, s) in self.schedulers().iter().enumerate() {
                let rs: Vec<&RunRecord> =
                    recs.iter().copied().filter(|r| &r.scheduler == s).collect();
                if rs.is_empty() {
                    continue;
                }
                let to_best: Vec<f64> = rows.iter().filter_map(|row| row.to_best(j)).collect();
                let to_baseline: Vec<f64> =
                    rows.iter().filter_map(|row| row.to_baseline(j)).collect();
                out.push(Summary {
                    group: group.clone(),
                    scheduler: s.clone(),
                    problems: problem_names(&rs).len(),
                    runs: rs.len(),
                    makespan: stats(&rs, |r| r.makespan),
                    gap: stats(&rs, |r| r.gap),
                    slr: stats(&rs, |r| r.slr),
                    speedup: stats(&rs, |r| r.speedup),
                    efficiency: stats(&rs, |r| r.efficiency),
                    utilisation: stats(&rs, |r| r.utilisation),
                    wall_time_s: stats(&rs, |r| r.wall_time_s),
                    evaluations: stats(&rs, |r| r.evaluations as f64),
                    to_best: geometric_mean(&to_best).expect("the scheduler ran in the group"),
                    baseline: baseline.clone(),
                    to_baseline: geometric_mean(&to_baseline),
                });
            }
        }
        out
    }

    /// The baseline of normalised makespans: the scheduler labelled `HEFT` (any case), if
    /// present.
    pub fn default_baseline(&self) -> Option<String> {
        self.schedulers()
            .iter()
            .find(|s| s.eq_ignore_ascii_case("heft"))
            .cloned()
    }

    /// Problems × schedulers of mean makespans (over seeds) normalised per problem to the
    /// best scheduler's and to `baseline`'s (see [`NormalisedTable`]); problems and
    /// schedulers in experiment order. Pass [`default_baseline`](Self::default_baseline) for
    /// HEFT when present.
    ///
    /// Errors: [`ExperimentError::NoScheduler`] if `baseline` is not a scheduler of the results.
    pub fn normalised(&self, baseline: Option<&str>) -> Result<NormalisedTable> {
        if let Some(b) = baseline
            && !self.schedulers().iter().any(|s| s == b)
        {
            return Err(ExperimentError::NoScheduler {
                role: "baseline ",
                name: b.to_string(),
                have: self.schedulers().iter().map(ToString::to_string).collect(),
            });
        }
        let recs: Vec<&RunRecord> = self.records().iter().collect();
        let mut rows = Vec::new();
        for p in problem_names(&recs) {
            let makespan: Vec<Option<f64>> = self
                .schedulers()
                .iter()
                .map(|s| mean_makespan(&recs, p, s))
                .collect();
            let best = makespan
                .iter()
                .flatten()
                .copied()
                .fold(f64::INFINITY, f64::min);
            rows.push(NormalisedRow {
                problem: p.to_owned(),
                best,
                baseline: baseline.and_then(|b| mean_makespan(&recs, p, b)),
                makespan,
            });
        }
        Ok(NormalisedTable {
            schedulers: self.schedulers().to_vec(),
            baseline: baseline.map(str::to_owned),
            rows,
        })
    }

    /// The scheduler the examples compare the others against: the best hybrid present
    /// (label containing `WORL`, else `RTGS`, case-insensitive), else the one of the smallest
    /// mean gap to the lower bound over all runs; `None` without records.
    pub fn default_reference(&self) -> Option<String> {
        for want in ["worl", "rtgs"] {
            if let Some(l) = self
                .schedulers()
                .iter()
                .find(|l| l.to_ascii_lowercase().contains(want))
            {
                return Some(l.clone());
            }
        }
        self.summaries(&GroupBy::All)
            .into_iter()
            .min_by(|a, b| a.gap.mean.total_cmp(&b.gap.mean))
            .map(|s| s.scheduler)
    }

    /// `reference` against every other scheduler, per group (see [`Comparison`]); only
    /// problems where both ran count.
    ///
    /// Errors: [`ExperimentError::NoScheduler`] if `reference` is not a scheduler of the results.
    pub fn compare(&self, reference: &str, by: &GroupBy) -> Result<Vec<Comparison>> {
        if !self.schedulers().iter().any(|s| s == reference) {
            return Err(ExperimentError::NoScheduler {
                role: "",
                name: reference.to_string(),
                have: self.schedulers().iter().map(ToString::to_string).collect(),
            });
        }
        let mut out = Vec::new();
        for (group, recs) in groups(self.records(), by) {
            let problems = problem_names(&recs);
            for other in self.schedulers().iter().filter(|s| *s != reference) {
                let mut c = Comparison {
                    group: group.clone(),
                    reference: reference.to_owned(),
                    other: other.clone(),
                    problems: 0,
                    improvement_mean_pct: 0.0,
                    improvement_max_pct: f64::NEG_INFINITY,
                    wins: 0,
                    ties: 0,
                    losses: 0,
                };
                let mut sum = 0.0;
                for p in &problems {
                    let (Some(a), Some(b)) = (
                        mean_makespan(&recs, p, reference),
                        mean_makespan(&recs, p, other),
                    ) else {
                        continue;
                    };
                    c.problems += 1;
                    let red = if b > 0.0 { (b - a) / b * 100.0 } else { 0.0 };
                    sum += red;
                    c.improvement_max_pct = c.improvement_max_pct.max(red);
                    if ties(a, b) {
                        c.ties += 1;
                    } else if a < b {
                        c.wins += 1;
                    } else {
                        c.losses += 1;
                    }
                }
                if c.problems == 0 {
                    continue;
                }
                c.improvement_mean_pct = sum / c.problems as f64;
                out.push(c);
            }
        }
        Ok(out)
    }

    /// The blocks of a rank test over the records `filter` accepts: block names and
    /// `blocks[b][j]` = scheduler `j`'s value on block `b` (schedulers in experiment order).
    ///
    /// A block is a problem, or the problems sharing a block name
    /// ([`NamedProblem::block`](crate::NamedProblem::block); blocks in order of first
    /// appearance). The value is the scheduler's mean makespan over seeds on the problem;
    /// for a block of several problems, the geometric mean of these over its problems (so
    /// each variant counts by its ratios, whatever its scale).
    ///
    /// Errors: [`ExperimentError::Ranks`] if no record passes or a scheduler has no run on
    /// one of the problems.
    pub fn blocks(
        &self,
        filter: &dyn Fn(&RunRecord) -> bool,
    ) -> Result<(Vec<String>, Vec<Vec<f64>>)> {
        let recs: Vec<&RunRecord> = self.records().iter().filter(|r| filter(r)).collect();
        let problems = problem_names(&recs);
        if problems.is_empty() {
            return Err(ExperimentError::Ranks {
                reason: "no run to rank".into(),
            });
        }
        // blocks in order of first appearance, each with its problems
        let mut members: Vec<(&str, Vec<&str>)> = Vec::new();
        for r in &recs {
            let b = block_of(r);
            match members.iter_mut().find(|(name, _)| *name == b) {
                Some((_, ps)) => {
                    if !ps.contains(&r.problem.as_str()) {
                        ps.push(&r.problem);
                    }
                }
                None => members.push((b, vec![&r.problem])),
            }
        }
        let mut blocks = Vec::with_capacity(members.len());
        for (_, ps) in &members {
            let mut row = Vec::with_capacity(self.schedulers().len());
            for s in self.schedulers() {
                let mut values = Vec::with_capacity(ps.len());
                for p in ps {
                    values.push(mean_makespan(&recs, p, s).ok_or_else(|| {
                        ExperimentError::Ranks {
                            reason: format!(
                                "scheduler `{s}` has no run on problem `{p}`: ranks need complete \
                             blocks"
                            ),
                        }
                    })?);
                }
                row.push(geometric_mean(&values).expect("a block has a problem"));
            }
            blocks.push(row);
        }
        Ok((
            members.into_iter().map(|(b, _)| b.to_owned()).collect(),
            blocks,
        ))
    }

    /// Number of blocks among the records `filter` accepts (see [`blocks`](Self::blocks)).
    pub fn n_blocks(&self, filter: &dyn Fn(&RunRecord) -> bool) -> usize {
        count_distinct(self.records().iter().filter(|r| filter(r)).map(block_of))
    }

    /// Why [`rank_test`](Self::rank_test) over the records `filter` accepts cannot run
    /// (fewer than 2 schedulers or 2 blocks; [`rank_test_note`]), or `None` when it can.
    /// Report without the test, printing the note, rather than failing.
    pub fn rank_test_note(&self, filter: &dyn Fn(&RunRecord) -> bool) -> Option<String> {
        rank_test_note(self.schedulers().len(), self.n_blocks(filter))
    }

    /// Friedman test and Nemenyi critical difference over the blocks of the records
    /// `filter` accepts (blocks: independent problems, [`blocks`](Self::blocks); values:
    /// mean makespan over seeds; every scheduler of the results). Check
    /// [`rank_test_note`](Self::rank_test_note) first to report a one-scheduler or
    /// one-problem run without the test.
    ///
    /// Errors: as [`blocks`](Self::blocks) and [`RankTest::new`] (fewer than 2 problems or
    /// schedulers).
    pub fn rank_test(&self, filter: &dyn Fn(&RunRecord) -> bool, alpha: Alpha) -> Result<RankTest> {
        let (names, blocks) = self.blocks(filter)?;
        RankTest::new(self.schedulers().to_vec(), names, &blocks, alpha)
    }

    /// A [`rank_test`](Self::rank_test) per group of `by` (groups in order of first
    /// appearance; a group with fewer than 2 problems gets its error).
    pub fn rank_tests(&self, by: &GroupBy, alpha: Alpha) -> Vec<(String, Result<RankTest>)> {
        groups(self.records(), by)
            .into_iter()
            .map(|(g, _)| {
                let t = self.rank_test(&|r| by.key(r) == g, alpha);
                (g, t)
            })
            .collect()
    }
}

/// One problem of a [`NormalisedTable`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NormalisedRow {
    /// The problem.
    pub problem: String,
    /// The best mean makespan (over seeds) of any scheduler on the problem, s.
    pub best: f64,
    /// The baseline's mean makespan on the problem, s (`None` without baseline or run).
    pub baseline: Option<f64>,
    /// Each scheduler's mean makespan over seeds, s (`None` where it did not run), in the
    /// order of [`NormalisedTable::schedulers`].
    pub makespan: Vec<Option<f64>>,
}

impl NormalisedRow {
    /// Scheduler `j`'s mean makespan over the best one (`>= 1`; 1 for the best).
    pub fn to_best(&self, j: usize) -> Option<f64> {
        self.makespan
            .get(j)
            .copied()
            .flatten()
            .map(|m| ratio(m, self.best))
    }

    /// Scheduler `j`'s mean makespan over the baseline's.
    pub fn to_baseline(&self, j: usize) -> Option<f64> {
        let m = self.makespan.get(j).copied().flatten()?;
        Some(ratio(m, self.baseline?))
    }
}

/// Problems × schedulers of mean makespans normalised per problem, to the best scheduler's
/// and to a baseline's (HEFT's, [`Results::default_baseline`]), with geometric means over
/// problems: the scale-free way to summarise makespans across different workloads.
/// Built by [`Results::normalised`]; rendered by
/// [`report::markdown_normalised`](crate::report::markdown_normalised) and
/// [`report::write_normalised_csv`](crate::report::write_normalised_csv).
///
/// ```
/// use std::collections::BTreeMap;
/// use worl_experiment::{Results, RunRecord};
/// let rec = |problem: &str, scheduler: &str, makespan: f64| RunRecord {
///     problem: problem.into(), tags: BTreeMap::new(), tasks: 1, gpus: 1,
///     scheduler: scheduler.into(), stochastic: false, seed: 1, makespan, slr: 1.0,
///     speedup: 1.0, efficiency: 1.0, utilisation: 1.0, lower_bound: 1.0, gap: makespan,
///     mean_job_time: makespan, load_imbalance: 0.0, cost: 0.0,
///     wall_time_s: 0.0, evaluations: 0, convergence: vec![],
/// };
/// // two workloads of very different scales
/// let res = Results::from_records(vec![
///     rec("small", "HEFT", 10.0), rec("small", "X", 8.0),
///     rec("large", "HEFT", 1000.0), rec("large", "X", 1250.0),
/// ]);
/// let t = res.normalised(res.default_baseline().as_deref())?;
/// assert_eq!(t.rows[0].to_baseline(1), Some(0.8));
/// assert_eq!(t.rows[1].to_best(0), Some(1.0));
/// let gm = t.geomean_to_baseline(1).unwrap(); // √(0.8 · 1.25) = 1
/// assert!((gm - 1.0).abs() < 1e-15);
/// let gm = t.geomean_to_best(1).unwrap(); // √(1 · 1.25)
/// assert!((gm - 1.25f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), worl_experiment::ExperimentError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NormalisedTable {
    /// Scheduler labels, in experiment order.
    pub schedulers: Vec<String>,
    /// The baseline's label, if any.
    pub baseline: Option<String>,
    /// One row per problem, in experiment order.
    pub rows: Vec<NormalisedRow>,
}

impl NormalisedTable {
    /// Geometric mean over problems of scheduler `j`'s makespan over the best one (over the
    /// problems where it ran; `None` if none).
    pub fn geomean_to_best(&self, j: usize) -> Option<f64> {
        let v: Vec<f64> = self.rows.iter().filter_map(|r| r.to_best(j)).collect();
        geometric_mean(&v)
    }

    /// Geometric mean over problems of scheduler `j`'s makespan over the baseline's (over
    /// the problems where both ran; `None` if none or without baseline).
    pub fn geomean_to_baseline(&self, j: usize) -> Option<f64> {
        let v: Vec<f64> = self.rows.iter().filter_map(|r| r.to_baseline(j)).collect();
        geometric_mean(&v)
    }
}
