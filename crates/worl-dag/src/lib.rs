//! # worl-dag: the workload model of worl
//!
//! DAG-structured training workloads as a [`Workload`]: a forest of jobs held as one
//! validated [`TaskGraph`] (on petgraph) whose tasks carry work in reference GPU-seconds
//! (run time on a V100-class GPU of speed 1.0) and whose edges carry data bytes. Loaders read
//! the public traces (Alibaba cluster-trace-v2018, WfCommons, Pegasus DAX, STG) and report
//! everything they skip or repair; generators make seeded synthetic workloads.
//!
//! | module | holds |
//! |---|---|
//! | [`ids`] | typed dense ids [`TaskId`], [`JobId`] |
//! | [`task`] | [`Task`] (with its gang demand: [`GangParams`], [`Span`]), [`Job`], [`Edge`], [`Neighbor`] |
//! | [`graph`] | [`TaskGraph`]: topological order, CSR predecessor/successor slices |
//! | [`analysis`] | levels, top/bottom levels (rank_d / rank_u), [`CriticalPath`] |
//! | [`workload`] | [`Workload`], [`WorkloadBuilder`], merging jobs |
//! | [`stats`] | [`WorkloadStats`], CCR |
//! | [`formats`] | loaders ([`formats::alibaba`], [`formats::wfcommons`], [`formats::dax`], [`formats::stg`], [`formats::native`], [`formats::dot`]: DAGGEN, dslab-dag and worl's own DOT), [`LoadReport`], DOT export |
//! | [`generators`] | [`generators::shapes`], [`generators::layered`] (DAGGEN-style), [`generators::alibaba_like`], [`generators::nn_training`] (pipeline + data parallel) |
//! | [`ccr`] | edge bytes for a target CCR, [`REFERENCE_BANDWIDTH`] |
//! | [`datasets`] | locating the shared real traces ([`datasets::shared_data_dir`]) |
//! | [`error`] | [`DagError`] |
//!
//! ```
//! use worl_dag::WorkloadBuilder;
//!
//! // A fork-join job: one parent, two children, one sink.
//! let mut b = WorkloadBuilder::new("fork-join");
//! let j = b.add_job("j1")?;
//! let src = b.add_task(j, "M1", 2.0, None)?;
//! let left = b.add_task(j, "M2_1", 3.0, None)?;
//! let right = b.add_task(j, "M3_1", 5.0, None)?;
//! let sink = b.add_task(j, "R4_2_3", 1.0, None)?;
//! for (u, v) in [(src, left), (src, right), (left, sink), (right, sink)] {
//!     b.add_edge(u, v, 1.0e9)?;
//! }
//! let w = b.build()?;
//! let g = w.graph();
//! assert_eq!(g.topo_order()[0], src);
//! let cp = g.critical_path(|t| g.task(t).work, |_, _, _| 0.0);
//! assert_eq!(cp.length, 8.0);
//! assert_eq!(cp.tasks, vec![src, right, sink]);
//! let stats = w.stats(1.0e9)?; // CCR at 1 GB/s
//! assert_eq!(stats.depth, 3);
//! # Ok::<(), worl_dag::DagError>(())
//! ```
//!
//! Loading a trace and generating a workload:
//!
//! ```
//! use worl_dag::formats::{stg, Reason};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//!
//! // An STG graph (Kasahara format): 2 real tasks between the dummy entry 0 and exit 3.
//! let text = "2\n0 0 0\n1 5 1 0\n2 7 1 1\n3 0 1 2\n";
//! let (w, report) = stg::read(text.as_bytes(), "tiny.stg", &stg::StgOptions::default())?;
//! assert_eq!((w.graph().n_tasks(), w.graph().n_edges()), (2, 1));
//! assert_eq!(report.count(Reason::DummyTask), 2);
//!
//! // A seeded DAGGEN-style DAG of 200 tasks with CCR 0.5 at 10 Gbit/s.
//! let p = LayeredParams::new(200).fat(0.6).density(0.3).ccr(0.5, worl_dag::REFERENCE_BANDWIDTH);
//! let g = layered(&p, 7)?;
//! assert_eq!(g.graph().n_tasks(), 200);
//! assert!((g.stats(worl_dag::REFERENCE_BANDWIDTH)?.ccr - 0.5).abs() < 1e-9);
//! # Ok::<(), worl_dag::DagError>(())
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod ccr;
pub mod datasets;
pub mod error;
pub mod formats;
pub mod generators;
pub mod graph;
pub mod ids;
pub mod stats;
pub mod task;
pub mod workload;

pub use analysis::CriticalPath;
pub use ccr::REFERENCE_BANDWIDTH;
pub use error::{DagError, Result};
pub use formats::{LoadReport, load_path};
pub use graph::TaskGraph;
pub use ids::{JobId, TaskId};
pub use stats::WorkloadStats;
pub use task::{Edge, GangParams, Job, MAX_GANG_GPUS, Neighbor, Span, Task};
pub use workload::{Workload, WorkloadBuilder};
