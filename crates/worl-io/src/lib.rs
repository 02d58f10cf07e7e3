//! # worl-io: the files of worl that span workload, cluster and schedule
//!
//! The formats that hold more than a workload ([`worl_dag::formats`]) or a cluster
//! ([`worl_cluster::formats`]), and the one place that picks a reader or a writer for a file:
//! the `worl` command line and the Python package both call [`load`] and [`save`].
//!
//! | module | holds |
//! |---|---|
//! | [`saga`] | saga / dag-bench problem instances (a task graph and a network) read and written |
//! | [`schedule_file`] | [`ScheduleFile`]: schedules as JSON or CSV with the names other tools need, read back against a problem |
//! | [`wfformat`] | a schedule as a WfCommons WfFormat 1.5 plan (the workload with an `execution` section), read back as a [`ScheduleFile`] |
//! | [`load`] | [`load_workload`] (format by extension and content), [`load_cluster`] (a file or a description), [`load_problem`], [`load_schedule_file`] |
//! | [`save`] | [`save_workload`], [`save_schedule`] and [`save_cluster`]: the format by the file name, checked before anything is written |
//! | [`error`] | [`FileError`] |
//!
//! Every reader skips a leading UTF-8 byte-order mark and names the file, line and item in
//! its errors.
//!
//! ```
//! use worl_io::{load_problem, save_schedule, load_schedule_file, ScheduleMeta};
//! # let dir = tempfile::tempdir()?;
//! # let saga = dir.path().join("pair.json");
//! # std::fs::write(&saga, r#"{"name": "pair", "task_graph": {
//! #   "tasks": [{"name": "a", "cost": 2.0}, {"name": "b", "cost": 3.0}],
//! #   "dependencies": [{"source": "a", "target": "b", "size": 4.0}]},
//! #   "network": {"nodes": [{"name": "n0", "speed": 1.0}, {"name": "n1", "speed": 2.0}],
//! #   "edges": [{"source": "n0", "target": "n1", "speed": 2.0},
//! #             {"source": "n0", "target": "n0", "speed": null},
//! #             {"source": "n1", "target": "n1", "speed": null}]}}"#)?;
//! // A saga problem instance brings its own network: no cluster needed.
//! let problem = load_problem(&saga, None)?;
//! assert_eq!(problem.cluster().n_gpus(), 2);
//! // Both tasks on the faster node n1: 2/2 + 3/2 = 2.5.
//! let plan = worl_cluster::Plan::in_topo_order(
//!     problem.graph(),
//!     vec![worl_cluster::GpuId::new(1); 2],
//! );
//! let schedule =
//!     worl_cluster::Evaluator::new(&problem).schedule(&plan, worl_cluster::Policy::Append)?;
//! let out = dir.path().join("plan.csv");
//! save_schedule(&problem, &schedule, ScheduleMeta::default(), &out)?;
//! let back = load_schedule_file(&out)?.to_schedule(&problem)?;
//! assert_eq!(back.makespan(), 2.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod load;
pub mod saga;
pub mod save;
pub mod schedule_file;
pub mod wfformat;

pub use error::{FileError, Result};
pub use load::{
    Loaded, is_saga_text, load_cluster, load_problem, load_schedule_file, load_workload,
};
pub use save::{
    CLUSTER_SAVE_EXTENSIONS, SAGA_EXTENSION, SCHEDULE_SAVE_EXTENSIONS, WORKLOAD_SAVE_EXTENSIONS,
    check_writable, is_saga_path, save_cluster, save_schedule, save_workload,
};
pub use schedule_file::{MatchError, RowRef, ScheduleFile, ScheduleMeta, ScheduleRow};
