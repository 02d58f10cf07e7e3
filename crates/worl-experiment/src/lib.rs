//! # worl-experiment: the experiment harness of worl
//!
//! Problems × schedulers × seeds → validated runs → summaries, statistical tests (Friedman,
//! Nemenyi critical difference; Demšar, JMLR 7, 2006), tables, CSV/JSON and SVG plots; and the
//! SPD–FTG correlation study behind RTGS. Schedulers come from
//! [`worl_sched`]'s [`Registry`](worl_sched::Registry) (by spec string) or from your own
//! factories.
//!
//! | module | holds |
//! |---|---|
//! | [`problems`] | [`NamedProblem`] (a [`Problem`](worl_cluster::Problem) with name, tags, seeds), [`ProblemSet`] |
//! | [`spec`] | [`SchedulerSpec`]: a registry spec string or a [`Factory`], label, reuse |
//! | [`run`] | [`Experiment`] (builder, [`Experiment::run`]), [`RunRecord`], [`Results`], [`KeepSchedules`] |
//! | [`shard`] | grids on many machines: [`Experiment::shard`], resumable JSON-lines results ([`Shard::run_into`]), [`shard::merge`] |
//! | [`summary`] | [`GroupBy`], [`Summary`], [`Comparison`], [`Metric`]; `Results::{summaries, compare, rank_test}` |
//! | [`gaps`] | [`GapTable`]: each scheduler's gap to the best known makespan and to proven optima |
//! | [`stats`] | [`Stats`], ranks, [`Friedman`](stats::Friedman), Nemenyi `q_α` and CD, [`RankTest`] (Demšar 2006) |
//! | [`report`] | Markdown tables, CSV (runs, summaries, curves), JSON |
//! | [`simulation`] | [`SimStudy`](simulation::SimStudy): policies × problems × seeds executed by `worl-sim` (arrivals, noise, contention, failures), recorded as [`RunRecord`]s and every simulation measure |
//! | `plot` (feature `plots`, default on) | SVG: Gantt chart, convergence curves, mean ± std against size, critical-difference diagram, CDFs (JCT) |
//! | [`study`] | the SPD–FTG correlation study behind RTGS |
//! | [`error`] | [`ExperimentError`] |
//!
//! Every run's schedule is validated ([`Schedule::validate`](worl_cluster::Schedule::validate));
//! an infeasible schedule stops the experiment with an error naming the scheduler, problem,
//! seed and first violation, so no reported number comes from an invalid schedule.
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuId, PartialSchedule, Policy, Problem, Schedule};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//! use worl_experiment::{report, Experiment, GroupBy, NamedProblem, ProblemSet, SchedulerSpec};
//! use worl_sched::{RunContext, Scheduler};
//!
//! /// Each task in topological order on the GPU where it finishes earliest (no insertion).
//! struct Eft;
//! impl Scheduler for Eft {
//!     fn name(&self) -> &str { "EFT" }
//!     fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
//!         let mut s = PartialSchedule::new(p);
//!         for &t in p.graph().topo_order() {
//!             let mut best = (GpuId::new(0), f64::INFINITY);
//!             for g in p.cluster().gpu_ids() {
//!                 let f = s.eft(t, g, Policy::Append)?;
//!                 if f < best.1 { best = (g, f); }
//!             }
//!             s.place(t, best.0, Policy::Append)?;
//!         }
//!         Ok(s.to_schedule()?)
//!     }
//! }
//!
//! let mut problems = ProblemSet::new();
//! for n in [50, 100] {
//!     let w = Arc::new(layered(&LayeredParams::new(n), 1)?);
//!     let p = Problem::new(w, Arc::new(presets::pai_mix(8, 1)?))?;
//!     problems.push(NamedProblem::new(format!("layered-{n}"), p).tag("size", n))?;
//! }
//! let results = Experiment::new(problems)
//!     .scheduler(SchedulerSpec::factory("EFT", || Ok(Box::new(Eft))))
//!     .quiet(true)
//!     .run()?;
//! assert!(results.records().iter().all(|r| r.gap >= 1.0));
//! let table = report::markdown_table(&results, &GroupBy::Problem, None)?;
//! assert!(table.contains("| EFT |"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod error;
pub mod gaps;
#[cfg(feature = "plots")]
pub mod plot;
pub mod problems;
pub mod report;
pub mod run;
pub mod simulation;
pub mod spec;
pub mod stats;
pub mod study;
pub mod summary;

pub use error::{ExperimentError, Result};
pub use gaps::{GapRow, GapTable};

pub use problems::{NamedProblem, ProblemSet};
pub use run::shard;
pub use run::shard::{RunId, Shard, ShardLine, ShardReport};
pub use run::{ConvergencePoint, Experiment, KeepSchedules, Results, RunRecord};
pub use spec::{Factory, SchedulerSpec};
pub use stats::{Alpha, RankTest, Stats};
pub use summary::{Comparison, GroupBy, Metric, NormalisedRow, NormalisedTable, Summary};
