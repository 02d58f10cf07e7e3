//! [`Error`]: what a command fails with — the library's typed errors ([`worl::Error`]), the
//! command line's own input errors ([`InputError`]) and the exporters' ([`ExportError`]).
//! Every one is printed on one line with its causes ([`worl::error_line`]) and exits with
//! status 2.

use crate::inputs::InputError;
use worl_export::ExportError;

/// Any error of a command.
#[derive(Debug)]
pub(crate) enum Error {
    /// The library's (a workload, cluster, scheduler, simulation, experiment, file or
    /// argument error).
    Worl(Box<worl::Error>),
    /// A command-line input: a file the command cannot read, a cluster or file naming clash.
    Input(InputError),
    /// An exporter's (Slurm, Argo, Ray).
    Export(ExportError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Worl(e) => e.fmt(f),
            Error::Input(e) => e.fmt(f),
            Error::Export(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Worl(e) => e.source(),
            Error::Input(e) => e.source(),
            Error::Export(e) => e.source(),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Error::Input(e)
    }
}

impl From<ExportError> for Error {
    fn from(e: ExportError) -> Self {
        Error::Export(e)
    }
}

/// `From` each library error, through [`worl::Error`].
macro_rules! from_worl {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::Worl(Box::new(e.into()))
            }
        }
    )*};
}

from_worl!(
    worl::Error,
    worl::dag::DagError,
    worl::cluster::ClusterError,
    worl::io::MatchError,
    worl::io::FileError,
    worl::sched::ScheduleError,
    worl::woa::WoaError,
    worl::sim::SimError,
    worl::experiment::ExperimentError,
    serde_json::Error,
);
