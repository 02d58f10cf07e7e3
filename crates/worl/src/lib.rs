//! # worl: scheduling DAG-structured training workloads on heterogeneous GPU clusters
//!
//! **worl** turns a workload (a DAG of training tasks, or many jobs of them) and a GPU
//! cluster into a schedule: which GPU runs each task, and when. Its core is **WORL-RTGS**, a
//! Whale Optimization Algorithm whose plan-generation step is made by a Double Deep
//! Q-Network (N. Du, C. Wu, A. Hou, W. Nie, R. Song, *Efficient Scheduling for GPU-Based
//! Neural Network Training via Hybrid Reinforcement Learning and Metaheuristic
//! Optimization*, Big Data and Cognitive Computing 9(11):284, 2025), beside its predecessor
//! RTGS and the classic baselines, all behind one [`Scheduler`](prelude::Scheduler) trait.
//!
//! This crate is a thin facade: it re-exports the focused crates below and a
//! [`prelude`]. Depend on a focused crate directly to compile less.
//!
//! | module | crate | holds |
//! |---|---|---|
//! | [`dag`] | `worl-dag` | workload model: `TaskGraph`, jobs, loaders (Alibaba v2018, WfCommons, Pegasus DAX, STG, JSON), generators, DOT export |
//! | [`cluster`] | `worl-cluster` | GPU catalog, cluster and network, cost model, plan evaluator, schedule validator, metrics, lower bound, cluster formats and presets |
//! | [`io`] | `worl-io` | files spanning workload, cluster and schedule (saga instances, schedule files, WfFormat plans); `load_workload` / `load_cluster` by name and content, `save_workload` / `save_schedule` by name |
//! | [`woa`] | `worl-woa` | the Whale Optimization Algorithm engine (Mirjalili & Lewis 2016), continuous and over plans |
//! | `ddqn` (feature `ddqn`) | `worl-ddqn` | the Double DQN agent on burn (wgpu GPU backend with feature `wgpu`, flex CPU backend) |
//! | [`sched`] | `worl-sched` | the `Scheduler` trait, `Registry`, every scheduler by family, conformance check |
//! | [`sim`] | `worl-sim` | discrete-event execution: job releases, runtime noise, max-min fair link sharing, GPU failures; static plans replayed and online policies |
//! | `experiment` (feature `experiment`) | `worl-experiment` | harness: problems × schedulers × seeds, statistics, reports, plots (feature `plots`), SPD–FTG study |
//! | [`error`] | this crate | [`Error`]: every crate's error (converted with `?`) and a front end's own input errors, one type |
//!
//! Data flows one way: loaders → `Workload` + `Cluster` → `Problem` → `Scheduler` →
//! `Schedule` → validator / metrics / report.
//!
//! Features: `ddqn` (WORL-RTGS, DQN and MDTS; pulls burn with its flex CPU backend),
//! `experiment` (the harness), `plots` (SVG charts), all default on; `wgpu` (opt-in: the
//! agent on a GPU through burn's wgpu backend). `default-features = false` leaves the model,
//! the list schedulers, WOA/PSO/GA/ILS and RTGS.
//!
//! ```
//! use std::sync::Arc;
//! use worl::prelude::*;
//! use worl::dag::generators::layered::{layered, LayeredParams};
//!
//! let workload = Arc::new(layered(&LayeredParams::new(300), 1)?);
//! let cluster = Arc::new(presets::pai_mix(16, 1)?);
//! let problem = Problem::new(workload, cluster)?;
//! let registry = Registry::with_builtins();
//! for spec in ["heft", "peft", "rtgs[whales=10,iterations=20]"] {
//!     let schedule = registry.build_spec(spec)?.schedule(&problem, &mut RunContext::new(7))?;
//!     assert!(schedule.validate(&problem).is_empty());
//!     assert!(schedule.makespan() >= problem.lower_bound().value);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod error;

pub use error::{Error, Result};
pub use worl_cluster as cluster;
pub use worl_dag as dag;
#[cfg(feature = "experiment")]
pub use worl_experiment as experiment;
pub use worl_io as io;
pub use worl_sched as sched;
#[cfg(feature = "ddqn")]
pub use worl_sched::worl_ddqn as ddqn;
pub use worl_sim as sim;
pub use worl_woa as woa;

/// The names most programs need: workloads, clusters, problems, schedules, schedulers and
/// (feature `experiment`) the harness.
pub mod prelude {
    pub use worl_cluster::{
        Cluster, ClusterBuilder, ClusterError, GpuId, GpuModel, Link, LoadState, Network, Plan,
        Policy, Problem, Schedule, ScheduledTask, Violation, presets,
    };
    pub use worl_dag::{DagError, TaskGraph, TaskId, Workload, WorkloadBuilder, load_path};
    #[cfg(feature = "experiment")]
    pub use worl_experiment::{
        Experiment, ExperimentError, GroupBy, NamedProblem, ProblemSet, Results, SchedulerSpec,
    };
    pub use worl_sched::{
        Budget, Options, Registry, RunContext, ScheduleError, Scheduler, check_scheduler,
    };
}

/// `e` and its causes on one line, as the `worl` command line and the Python package report
/// errors: each cause whose text the line does not already hold is appended after `": "`,
/// and newlines become spaces.
///
/// ```
/// let e = std::io::Error::other("disk full");
/// assert_eq!(worl::error_line(&e), "disk full");
/// ```
pub fn error_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = s.source();
    }
    line.replace('\n', " ")
}
