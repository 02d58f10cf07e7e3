//! Gaps to the best known makespan and to proven optima: how far each scheduler's mean
//! makespan is from the best makespan any run found on the problem (the yardstick of
//! equal-budget comparisons, where no optimum is known) and, where an exact solver proved
//! one, from the optimum.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::run::Results;

/// One problem's row of a [`GapTable`].
#[derive(Clone, Debug, PartialEq)]
pub struct GapRow {
    /// The problem's name.
    pub problem: String,
    /// The best makespan over every run of every scheduler on the problem, s.
    pub best_known: f64,
    /// The proven optimum, s, where one was given.
    pub optimum: Option<f64>,
    /// Per scheduler (in [`GapTable::schedulers`] order): mean makespan over its runs /
    /// `best_known` − 1 (`None` where it has no run).
    pub to_best: Vec<Option<f64>>,
    /// Per scheduler: mean makespan / `optimum` − 1 (`None` without an optimum or a run).
    pub to_optimum: Vec<Option<f64>>,
}

/// Gaps of every scheduler on every problem of a [`Results`].
#[derive(Clone, Debug, PartialEq)]
pub struct GapTable {
    /// Scheduler labels, in experiment order.
    pub schedulers: Vec<String>,
    /// One row per problem, in order of first appearance.
    pub rows: Vec<GapRow>,
}

impl GapTable {
    /// The gaps of `results`; `optima` maps problem names to proven optimal makespans (s),
    /// e.g. from the `exact` scheduler's proofs.
    ///
    /// A run can beat a given "optimum" only through rounding; the gap is then clamped at 0.
    pub fn new(results: &Results, optima: &BTreeMap<String, f64>) -> Self {
        let schedulers = results.schedulers().to_vec();
        let mut rows = Vec::new();
        for problem in results.problems() {
            let runs = || {
                results
                    .records()
                    .iter()
                    .filter(move |r| r.problem == problem)
            };
            let best_known = runs().map(|r| r.makespan).fold(f64::INFINITY, f64::min);
            let optimum = optima.get(problem).copied();
            let mean = |s: &str| {
                let v: Vec<f64> = runs()
                    .filter(|r| r.scheduler == s)
                    .map(|r| r.makespan)
                    .collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            };
            let means: Vec<Option<f64>> = schedulers.iter().map(|s| mean(s)).collect();
            rows.push(GapRow {
                problem: problem.to_owned(),
                best_known,
                optimum,
                to_best: means
                    .iter()
                    .map(|m| m.map(|m| m / best_known - 1.0))
                    .collect(),
                to_optimum: means
                    .iter()
                    .map(|m| Some((m.as_ref()? / optimum? - 1.0).max(0.0)))
                    .collect(),
            });
        }
        GapTable { schedulers, rows }
    }

    /// Geometric mean over problems of `1 + gap to best known` of scheduler `j`, minus 1
    /// (`None` if it ran nowhere).
    pub fn mean_to_best(&self, j: usize) -> Option<f64> {
        let v: Vec<f64> = self.rows.iter().filter_map(|r| r.to_best[j]).collect();
        (!v.is_empty())
            .then(|| (v.iter().map(|g| (1.0 + g).ln()).sum::<f64>() / v.len() as f64).exp() - 1.0)
    }

    /// The table as Markdown: one row per problem (best known, optimum or `–`) and one
    /// column per scheduler with its gap to the best known in percent (and to the optimum
    /// in parentheses where known), then the geometric-mean row.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("| problem | best known (s) | optimum (s) |");
        for s in &self.schedulers {
            let _ = write!(out, " {s} |");
        }
        out.push_str("\n|---|---:|---:|");
        out.push_str(&"---:|".repeat(self.schedulers.len()));
        out.push('\n');
        for r in &self.rows {
            let opt = r.optimum.map_or("–".to_owned(), |o| format!("{o:.2}"));
            let _ = write!(out, "| {} | {:.2} | {opt} |", r.problem, r.best_known);
            for (b, o) in r.to_best.iter().zip(&r.to_optimum) {
                match (b, o) {
                    (Some(b), Some(o)) => {
                        let _ = write!(out, " {:.2} % ({:.2} %) |", 100.0 * b, 100.0 * o);
                    }
                    (Some(b), None) => {
                        let _ = write!(out, " {:.2} % |", 100.0 * b);
                    }
                    _ => out.push_str(" – |"),
                }
            }
            out.push('\n');
        }
        out.push_str("| geometric mean | | |");
        for j in 0..self.schedulers.len() {
            match self.mean_to_best(j) {
                Some(g) => {
                    let _ = write!(out, " {:.2} % |", 100.0 * g);
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunRecord;

    fn rec(problem: &str, scheduler: &str, seed: u64, makespan: f64) -> RunRecord {
        RunRecord {
            problem: problem.into(),
            tags: Default::default(),
            tasks: 3,
            gpus: 2,
            scheduler: scheduler.into(),
            stochastic: true,
            seed,
            makespan,
            slr: 1.0,
            speedup: 1.0,
            efficiency: 1.0,
            utilisation: 1.0,
            lower_bound: 1.0,
            gap: makespan,
            mean_job_time: makespan,
            load_imbalance: 0.0,
            cost: 0.0,
            wall_time_s: 0.0,
            evaluations: 0,
            convergence: Vec::new(),
        }
    }

    #[test]
    fn gaps_are_to_the_best_run_and_to_the_optimum() {
        let results = Results::from_records(vec![
            rec("p", "A", 1, 10.0),
            rec("p", "A", 2, 12.0),
            rec("p", "B", 1, 11.0),
            rec("q", "A", 1, 4.0),
        ]);
        let optima = BTreeMap::from([("p".to_owned(), 10.0)]);
        let t = GapTable::new(&results, &optima);
        assert_eq!(t.rows[0].best_known, 10.0);
        // A: mean 11 over best 10; B: 11 / 10.
        assert!((t.rows[0].to_best[0].unwrap() - 0.1).abs() < 1e-12);
        assert!((t.rows[0].to_optimum[1].unwrap() - 0.1).abs() < 1e-12);
        assert_eq!(t.rows[1].to_best, vec![Some(0.0), None]);
        assert_eq!(t.rows[1].to_optimum, vec![None, None]);
        // geometric mean of 1.1 and 1.0, minus 1
        assert!((t.mean_to_best(0).unwrap() - (1.1f64.sqrt() - 1.0)).abs() < 1e-12);
        let md = t.to_markdown();
        assert!(
            md.contains("| p | 10.00 | 10.00 | 10.00 % (10.00 %) | 10.00 % (10.00 %) |"),
            "{md}"
        );
        assert!(md.contains("| q | 4.00 | – | 0.00 % | – |"), "{md}");
    }
}
