//! Summaries of [`Results`]: per group and scheduler ([`Summary`]), one scheduler against each
//! other ([`Comparison`]), and the Friedman/Nemenyi [`RankTest`] over problem instances.

use crate::error::{ExperimentError, Result};
use crate::run::{Results, RunRecord};
use crate::stats::{Alpha, RankTest, Stats, ties};
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
        let mut out = Vec::new();
        for (group, recs) in groups(self.records(), by) {
            for s in self.schedulers() {
                let rs: Vec<&RunRecord> =
                    recs.iter().copied().filter(|r| &r.scheduler == s).collect();
                if rs.is_empty() {
                    continue;
                }
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
                });
            }
        }
        out
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
    /// Errors: [`ExperimentError::Invalid`] if `reference` is not a scheduler of the results.
    pub fn compare(&self, reference: &str, by: &GroupBy) -> Result<Vec<Comparison>> {
        if !self.schedulers().iter().any(|s| s == reference) {
            return Err(ExperimentError::Invalid(format!(
                "no scheduler `{reference}` in the results (have: {})",
                self.schedulers().join(", ")
            )));
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

    /// The blocks of a rank test over the problems of the records `filter` accepts: problem
    /// names and `blocks[b][j]` = scheduler `j`'s mean makespan over seeds on problem `b`
    /// (schedulers in experiment order).
    ///
    /// Errors: [`ExperimentError::Invalid`] if no record passes or a scheduler has no run on
    /// one of the problems.
    pub fn blocks(
        &self,
        filter: &dyn Fn(&RunRecord) -> bool,
    ) -> Result<(Vec<String>, Vec<Vec<f64>>)> {
        let recs: Vec<&RunRecord> = self.records().iter().filter(|r| filter(r)).collect();
        let problems = problem_names(&recs);
        if problems.is_empty() {
            return Err(ExperimentError::Invalid("no run to rank".into()));
        }
        let mut blocks = Vec::with_capacity(problems.len());
        for p in &problems {
            let mut row = Vec::with_capacity(self.schedulers().len());
            for s in self.schedulers() {
                row.push(mean_makespan(&recs, p, s).ok_or_else(|| {
                    ExperimentError::Invalid(format!(
                        "scheduler `{s}` has no run on problem `{p}`: ranks need complete blocks"
                    ))
                })?);
            }
            blocks.push(row);
        }
        Ok((problems.into_iter().map(str::to_owned).collect(), blocks))
    }

    /// Friedman test and Nemenyi critical difference over the problems of the records
    /// `filter` accepts (blocks: problems; values: mean makespan over seeds; every scheduler
    /// of the results).
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
