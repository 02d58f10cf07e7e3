//! The crate's error type.

use std::path::PathBuf;

/// Every failure of `worl-ddqn`, one variant per cause.
///
/// Bad input (a feature vector of the wrong length, a NaN reward, an action index past the
/// candidate list, a checkpoint of another architecture, a truncated file) is reported here,
/// naming the offending item; nothing in this crate panics on user input.
#[derive(Debug, thiserror::Error)]
pub enum DdqnError {
    /// A configuration value is out of its documented range.
    #[error("invalid config field `{field}`: {reason}")]
    InvalidConfig {
        /// The offending field, e.g. `gamma` or `epsilon.decay_steps`.
        field: &'static str,
        /// Why it was rejected.
        reason: String,
    },
    /// A feature vector has the wrong number of entries.
    #[error("`{what}` has {found} values, expected {expected}")]
    DimensionMismatch {
        /// Which vector, e.g. `state`, `candidates`, `next_state`, `out`.
        what: &'static str,
        /// The length the network or buffer needs.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A feature or reward is NaN or infinite.
    #[error("`{what}` holds a non-finite value at index {index}")]
    NonFinite {
        /// Which vector or scalar, e.g. `reward`, `state`.
        what: &'static str,
        /// Position of the first non-finite entry.
        index: usize,
    },
    /// A decision point offers no (valid) candidate action.
    #[error("no valid candidate action at {what} (row {row})")]
    NoCandidates {
        /// Where: `observation`, `next_candidates` of a non-terminal transition, `batch`.
        what: &'static str,
        /// Row of the batch (0 for a single observation).
        row: usize,
    },
    /// An action index is past the candidate list or names a masked candidate.
    #[error("action {action} is not a valid candidate (there are {candidates})")]
    InvalidAction {
        /// The index given.
        action: usize,
        /// Number of candidates offered.
        candidates: usize,
    },
    /// The requested compute device cannot be created.
    #[error("device `{requested}` unavailable: {reason}")]
    DeviceUnavailable {
        /// The choice that failed (`wgpu`, `flex`).
        requested: String,
        /// The backend's own message.
        reason: String,
    },
    /// The requested device's backend is not compiled into this build: its cargo feature of
    /// `worl-ddqn` is off (e.g. `DeviceChoice::Wgpu` with `--no-default-features`).
    #[error(
        "device `{requested}` unavailable: worl-ddqn was built without the `{feature}` feature \
         (enable it, e.g. `worl-ddqn = {{ features = [\"{feature}\"] }}`)"
    )]
    FeatureDisabled {
        /// The choice that was requested (`wgpu`).
        requested: &'static str,
        /// The cargo feature of `worl-ddqn` that would provide it (`wgpu`).
        feature: &'static str,
    },
    /// `WORL_DEVICE` (or a parsed string) names no known device.
    #[error("unknown device choice `{0}` (expected wgpu, flex or auto)")]
    UnknownDevice(String),
    /// The backend failed while executing or reading back a tensor.
    #[error("backend error: {0}")]
    Backend(String),
    /// Reading or writing a checkpoint file failed at the operating-system level.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A checkpoint file is truncated, corrupt, or not a worl-ddqn checkpoint.
    #[error("corrupt checkpoint {path}: {reason}")]
    CorruptCheckpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A checkpoint holds a network of another architecture than the one expected.
    #[error(
        "checkpoint {path} holds a network of another architecture: expected {expected}, found {found}"
    )]
    ArchitectureMismatch {
        /// The file.
        path: PathBuf,
        /// The expected architecture, e.g. `state 4 + action 3 -> [64, 64] -> 1`.
        expected: String,
        /// The architecture in the file.
        found: String,
    },
    /// JSON (de)serialisation of a config or manifest failed.
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
}

/// Shorthand for `Result<T, DdqnError>`.
pub type Result<T, E = DdqnError> = std::result::Result<T, E>;

/// Return the index of the first non-finite value of `values`, as a [`DdqnError::NonFinite`].
pub(crate) fn check_finite(what: &'static str, values: &[f32]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(DdqnError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Check that `found == expected`, as a [`DdqnError::DimensionMismatch`].
pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(DdqnError::DimensionMismatch {
            what,
            expected,
            found,
        })
    }
}
