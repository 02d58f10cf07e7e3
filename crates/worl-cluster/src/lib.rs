//! # worl-cluster: the GPU cluster and cost model of worl
//!
//! A [`Cluster`] of machines holding GPUs (models from a datasheet [`catalog`], speeds
//! relative to a V100, memory, ready times, background utilisation) and the [`Network`]
//! between them; a [`Problem`] binding a [`Workload`](worl_dag::Workload) to a cluster with
//! the cost model (execution and communication times); the plan [`Evaluator`] and the
//! incremental [`PartialSchedule`] every scheduler builds on; [`Schedule`]s with their
//! [validator](Schedule::validate), [metrics](Schedule::metrics) and the makespan
//! [lower bound](Problem::lower_bound). The model and its formulas: `docs/model.md`.
//!
//! Modules in reading order: each depends only on those above it and on [`error`] (which uses
//! only [`ids`]).
//!
//! | module | holds |
//! |---|---|
//! | [`ids`] | typed dense ids [`GpuId`], [`MachineId`], [`ClassId`] |
//! | [`catalog`] | [`GpuModel`]: K80 … H200 datasheet figures, relative training speed |
//! | [`network`] | [`Link`] defaults (NVLink, PCIe, Ethernet, InfiniBand), [`Network`] |
//! | [`cluster`] | [`Cluster`], [`ClusterBuilder`], [`Gpu`], [`LoadState`] |
//! | [`presets`] | [`homogeneous`](presets::homogeneous), [`dgx`](presets::dgx), [`pai_mix`](presets::pai_mix), [`paper_pool`](presets::paper_pool), named links |
//! | [`formats`] | Alibaba PAI v2020 machine spec, GPU v2023 node lists, v2018 machine usage, the native TOML/JSON format and its compact form with its model [`ClusterSpec`]; [`MachineTable`], [`TableSample`] |
//! | [`problem`] | [`Problem`]: `exec_time`, `comm_time`, `fits`, mean/min costs, GPU classes; gang tasks' `exec_time_on` a GPU set |
//! | [`plan`] | [`Plan`] (with explicit gang [`GangSets`]), [`Policy`] |
//! | [`schedule`] | [`Schedule`], [`ScheduledTask`], gang [`GpuSet`]s, [`Schedule::to_plan`] |
//! | [`partial`] | [`PartialSchedule`], [`Slot`], [`SetSlot`]: EST/EFT and placement (append, insertion) on a GPU or a gang's GPU set |
//! | [`evaluator`] | [`Evaluator`]: a [`Plan`] decoded into a makespan or a [`Schedule`] |
//! | [`validate`] | [`Violation`], [`Schedule::validate`] |
//! | [`description`] | clusters from one line: a cluster file or a preset description (`4x8:A100-80GB:100GbE`) |
//! | [`metrics`] | [`Metrics`], [`LowerBound`] |
//! | [`testing`] | small hand-made clusters and problems shared by the tests of this crate, worl-io and worl-sched |
//! | [`error`] | [`ClusterError`] |
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, Evaluator, GpuId, GpuModel, Plan, Policy, Problem};
//! use worl_dag::WorkloadBuilder;
//!
//! // A chain a -> b carrying 1.25 GB, on two V100s in different machines over 10 GbE.
//! let mut wb = WorkloadBuilder::new("chain");
//! let j = wb.add_job("j")?;
//! let a = wb.add_task(j, "a", 3.0, None)?;
//! let b = wb.add_task(j, "b", 2.0, None)?;
//! wb.add_edge(a, b, 1.25e9)?;
//! let mut cb = worl_cluster::ClusterBuilder::new("two");
//! for i in 0..2 {
//!     let m = cb.add_machine(format!("node-{i}"));
//!     cb.add_gpu(m, &GpuModel::v100_16gb())?;
//! }
//! cb.network(worl_cluster::Network::uniform(
//!     worl_cluster::Link::NVLINK2,
//!     worl_cluster::Link::new(1.25e9, 0.5)?, // 10 Gbit/s, 0.5 s latency
//! ));
//! let problem = Problem::new(Arc::new(wb.build()?), Arc::new(cb.build()?))?;
//!
//! let mut ev = Evaluator::new(&problem);
//! let split = Plan::in_topo_order(problem.graph(), vec![GpuId::new(0), GpuId::new(1)]);
//! let together = Plan::in_topo_order(problem.graph(), vec![GpuId::new(0), GpuId::new(0)]);
//! assert_eq!(ev.makespan(&split, Policy::Append)?, 3.0 + 0.5 + 1.0 + 2.0); // pays comm
//! assert_eq!(ev.makespan(&together, Policy::Append)?, 5.0);
//!
//! let schedule = ev.schedule(&together, Policy::Insertion)?;
//! assert!(schedule.validate(&problem).is_empty());
//! let m = schedule.metrics(&problem);
//! assert_eq!(m.slr, 1.0); // makespan equals the min-cost critical path
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod catalog;
pub mod cluster;
pub mod description;
pub mod error;
pub mod evaluator;
pub mod formats;
pub mod ids;
pub mod metrics;
pub mod network;
pub mod partial;
pub mod plan;
pub mod presets;
pub mod problem;
pub mod schedule;
pub mod testing;
pub mod validate;

pub use catalog::GpuModel;
pub use cluster::{
    Cluster, ClusterBuilder, Gpu, LoadState, MAX_GPUS, MAX_GPUS_PER_MACHINE, MAX_HORIZON,
    MAX_NAME_LEN, MAX_PAIR_MACHINES,
};
pub use error::{ClusterError, Result};
pub use evaluator::Evaluator;
pub use formats::compact::{ClusterSpec, MachineOverride, PerGpu};
pub use formats::{MachineTable, TableSample};
pub use ids::{ClassId, GpuId, MachineId};
pub use metrics::{LowerBound, Metrics, RATIO_CAP, gpu_hour_price};
pub use network::{Link, Network};
pub use partial::{PartialSchedule, SetSlot, Slot, past_windows};
pub use plan::{GangSets, Plan, Policy};
pub use problem::Problem;
pub use schedule::{GpuSet, Schedule, ScheduledTask};
pub use validate::{Tolerance, Violation};
