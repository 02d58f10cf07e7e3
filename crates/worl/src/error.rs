//! [`Error`]: every error of the worl crates in one type, for programs that use several of
//! them (the `worl` command line and the Python package report through it).

use std::path::PathBuf;

/// Any error of the worl crates, or of a front end's own input (a file that cannot be read,
/// an argument out of range). Each crate's error converts with `?` (boxed, so that a
/// `Result<T, Error>` stays small); the message is the crate's own, naming the file, line and
/// item. Match on the variant to tell a bad input file
/// ([`Workload`](Self::Workload), [`Cluster`](Self::Cluster), [`Io`](Self::Io)) from a
/// scheduler or run that failed ([`Schedule`](Self::Schedule), ...).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A workload that cannot be read, built or written ([`worl_dag::DagError`]).
    #[error(transparent)]
    Workload(Box<worl_dag::DagError>),
    /// A cluster, problem, plan or schedule the cost model rejects
    /// ([`worl_cluster::ClusterError`]).
    #[error(transparent)]
    Cluster(Box<worl_cluster::ClusterError>),
    /// A schedule file whose rows do not match the problem ([`worl_io::MatchError`]).
    #[error(transparent)]
    ScheduleFile(Box<worl_io::MatchError>),
    /// A file no reader or writer fits ([`worl_io::FileError`]: a name no writer knows, a
    /// saga instance without a network, a workload without a cluster, a machine without a
    /// name). The readers' own errors come as [`Workload`](Self::Workload) and
    /// [`Cluster`](Self::Cluster).
    #[error(transparent)]
    File(Box<worl_io::FileError>),
    /// JSON that cannot be written or read.
    #[error(transparent)]
    Json(Box<serde_json::Error>),
    /// A scheduler that cannot be built or that failed ([`worl_sched::ScheduleError`]).
    #[error(transparent)]
    Schedule(Box<worl_sched::ScheduleError>),
    /// The WOA engine rejected its configuration ([`worl_woa::WoaError`]).
    #[error(transparent)]
    Search(Box<worl_woa::WoaError>),
    /// A simulation that cannot be set up or run ([`worl_sim::SimError`]).
    #[error(transparent)]
    Simulation(Box<worl_sim::SimError>),
    /// An experiment that cannot be set up or whose run failed
    /// (`worl_experiment::ExperimentError`, feature `experiment`).
    #[cfg(feature = "experiment")]
    #[error(transparent)]
    Experiment(Box<worl_experiment::ExperimentError>),
    /// A file that cannot be read or written; the io error keeps its kind.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A gang span other than `machine` and `cluster`.
    #[error("{item}: gang span `{span}` is neither `machine` nor `cluster`")]
    UnknownGangSpan {
        /// The task or node it was given for.
        item: String,
        /// The span given.
        span: String,
    },
    /// A schedule row (0-based) with a key no schedule reader knows.
    #[error("row {row}: unknown key `{key}` (known: {known})")]
    UnknownRowKey {
        /// The row.
        row: usize,
        /// The key.
        key: String,
        /// The keys and aliases known.
        known: String,
    },
    /// A policy the simulation did not run.
    #[error("no policy `{policy}` in this simulation (policies: {})", known.join(", "))]
    UnknownPolicy {
        /// The policy asked for.
        policy: String,
        /// The policies it ran.
        known: Vec<String>,
    },
    /// An argument out of its range (`seeds 0: must be in 1..=10000`).
    #[error("{name} {value}: {reason}")]
    InvalidArgument {
        /// The argument.
        name: String,
        /// The value given.
        value: String,
        /// What it must be.
        reason: String,
    },
}

/// `From` each crate's error, boxed into its variant.
macro_rules! from_boxed {
    ($($(#[$cfg:meta])? $variant:ident($t:ty)),* $(,)?) => {$(
        $(#[$cfg])?
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::$variant(Box::new(e))
            }
        }
    )*};
}

from_boxed!(
    Workload(worl_dag::DagError),
    Cluster(worl_cluster::ClusterError),
    ScheduleFile(worl_io::MatchError),
    Json(serde_json::Error),
    Schedule(worl_sched::ScheduleError),
    Search(worl_woa::WoaError),
    Simulation(worl_sim::SimError),
    #[cfg(feature = "experiment")]
    Experiment(worl_experiment::ExperimentError),
);

/// A reader's or writer's error keeps its crate's variant ([`Error::Workload`],
/// [`Error::Cluster`]); the rest is [`Error::File`].
impl From<worl_io::FileError> for Error {
    fn from(e: worl_io::FileError) -> Self {
        match e {
            worl_io::FileError::Workload(e) => e.into(),
            worl_io::FileError::Cluster(e) => e.into(),
            other => Error::File(Box::new(other)),
        }
    }
}

impl Error {
    /// [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// [`Error::InvalidArgument`].
    pub fn invalid_argument(
        name: impl Into<String>,
        value: impl ToString,
        reason: impl Into<String>,
    ) -> Self {
        Error::InvalidArgument {
            name: name.into(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_convert_keep_their_message_and_stay_small() {
        let e: Error = worl_sched::ScheduleError::UnknownScheduler {
            name: "hefty".into(),
            known: vec!["heft".into()],
        }
        .into();
        assert!(
            e.to_string().starts_with("unknown scheduler `hefty`"),
            "{e}"
        );
        assert!(matches!(e, Error::Schedule(_)));
        let io = Error::io(
            "/nope/w.json",
            std::io::Error::from(std::io::ErrorKind::NotFound),
        );
        assert!(io.to_string().starts_with("/nope/w.json: "), "{io}");
        match &io {
            Error::Io { source, .. } => assert_eq!(source.kind(), std::io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
        let a = Error::invalid_argument("--seeds", 0, "must be at least 1");
        assert_eq!(a.to_string(), "--seeds 0: must be at least 1");
        assert!(
            std::mem::size_of::<Error>() <= 128,
            "{}",
            std::mem::size_of::<Error>()
        );
    }
}
