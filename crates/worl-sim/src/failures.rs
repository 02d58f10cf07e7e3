//! [`Failures`]: GPU outages, random (exponential times between failures per GPU) or
//! scripted.

use crate::error::{Result, SimError};
use crate::noise::parse_f64;
use std::fmt;
use std::str::FromStr;
use worl_cluster::GpuId;

/// Largest time a failure setting may name, s (about 31,700 years): repair times and
/// scripted outage times beyond it are refused (at such magnitudes `f64` time stops
/// advancing by task durations).
pub const MAX_FAILURE_TIME_S: f64 = 1e12;

/// Default repair time of `mtbf:H`, s.
pub const DEFAULT_REPAIR_S: f64 = 600.0;

/// One scripted outage: `gpu` is down on `[from, to)`, s.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Outage {
    /// The GPU.
    pub gpu: GpuId,
    /// Failure time, s (finite, `>= 0`).
    pub from: f64,
    /// Repair time, s (finite, `> from`).
    pub to: f64,
}

/// GPU failures.
///
/// A task running on a GPU when it fails is **lost**: its elapsed time counts as lost
/// time, it returns to the ready set and the policy dispatches it again. A failed GPU starts
/// nothing until repaired; the tasks queued on it stay queued.
///
/// Text form (`FromStr`/`Display`): `none`, `mtbf:H` (repair [`DEFAULT_REPAIR_S`]),
/// `mtbf:H:REPAIR_S`. Scripts have no text form.
///
/// ```
/// use worl_sim::Failures;
/// assert_eq!("mtbf:24:300".parse::<Failures>().unwrap(), Failures::Mtbf { hours: 24.0, repair_s: 300.0 });
/// assert!("mtbf:0".parse::<Failures>().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Failures {
    /// No failures.
    #[default]
    None,
    /// Each GPU fails independently after exponential up-times of mean `hours` (the mean
    /// time between failures, MTBF), then stays down `repair_s` seconds.
    Mtbf {
        /// Mean time between failures per GPU, hours (finite, `> 0`).
        hours: f64,
        /// Repair time, s (finite, `>= 0`).
        repair_s: f64,
    },
    /// Scripted outages (overlapping outages of one GPU nest: it is up when none covers it).
    Script(Vec<Outage>),
}

impl Failures {
    /// Checks the parameters against a cluster of `n_gpus` GPUs.
    ///
    /// Errors: [`SimError::InvalidSpec`] for a non-positive or non-finite MTBF or a negative
    /// or non-finite repair time; [`SimError::InvalidOutage`] for an outage of an unknown
    /// GPU, with negative or non-finite times or `to <= from`.
    pub fn validate(&self, n_gpus: usize) -> Result<()> {
        match self {
            Self::None => Ok(()),
            Self::Mtbf { hours, repair_s } => {
                let reason = if !(hours.is_finite() && *hours > 0.0) {
                    "the mean time between failures must be finite and > 0 hours"
                } else if !(repair_s.is_finite() && *repair_s >= 0.0) {
                    "the repair time must be finite and >= 0 s"
                } else if *repair_s > MAX_FAILURE_TIME_S {
                    "the repair time must be at most 1e12 s"
                } else {
                    return Ok(());
                };
                Err(SimError::InvalidSpec {
                    what: "failures",
                    spec: self.to_string(),
                    reason: reason.to_string(),
                })
            }
            Self::Script(outages) => {
                for o in outages {
                    let reason = if o.gpu.index() >= n_gpus {
                        format!("the cluster has {n_gpus} GPUs")
                    } else if !(o.from.is_finite() && o.from >= 0.0) {
                        "the failure time must be finite and >= 0".to_string()
                    } else if !(o.to.is_finite() && o.to > o.from) {
                        "the repair time must be finite and after the failure".to_string()
                    } else if o.to > MAX_FAILURE_TIME_S {
                        "outage times must be at most 1e12 s".to_string()
                    } else {
                        continue;
                    };
                    return Err(SimError::InvalidOutage {
                        gpu: o.gpu.index(),
                        from: o.from,
                        to: o.to,
                        reason,
                    });
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::Mtbf { hours, repair_s } => write!(f, "mtbf:{hours}:{repair_s}"),
            Self::Script(o) => write!(f, "script({} outages)", o.len()),
        }
    }
}

impl FromStr for Failures {
    type Err = SimError;

    /// Parses `none`, `mtbf:H` or `mtbf:H:REPAIR_S`, then validates.
    fn from_str(s: &str) -> Result<Self> {
        let spec = s.trim();
        let parts: Vec<&str> = spec.split(':').collect();
        let f = match (parts[0].trim().to_ascii_lowercase().as_str(), parts.len()) {
            ("none", 1) => Self::None,
            ("mtbf", 2 | 3) => Self::Mtbf {
                hours: parse_f64("failures", s, "MTBF (hours)", parts[1])?,
                repair_s: match parts.get(2) {
                    Some(r) => parse_f64("failures", s, "repair time (s)", r)?,
                    None => DEFAULT_REPAIR_S,
                },
            },
            _ => {
                return Err(SimError::InvalidSpec {
                    what: "failures",
                    spec: s.to_string(),
                    reason: "expected none, mtbf:HOURS or mtbf:HOURS:REPAIR_S".to_string(),
                });
            }
        };
        f.validate(usize::MAX)
            .map_err(|e| crate::noise::as_given(e, s))?;
        Ok(f)
    }
}
