//! [`RuntimeNoise`]: the factor by which a task attempt's actual run time differs from the
//! cost model's `exec(v, k)`.

use crate::error::{Result, SimError};
use rand::Rng;
use rand_distr::{Distribution, LogNormal};
use std::fmt;
use std::str::FromStr;

/// Runtime noise: each task attempt runs `exec(v, k) × f`, with one factor `f` drawn per
/// attempt from the simulation's seeded stream.
///
/// Text form (`FromStr`/`Display`): `none`, `lognormal:CV` (e.g. `lognormal:0.3`),
/// `uniform:LO..HI` (e.g. `uniform:0.8..1.2`).
///
/// ```
/// use worl_sim::RuntimeNoise;
/// assert_eq!("lognormal:0.3".parse::<RuntimeNoise>().unwrap(), RuntimeNoise::LogNormal { cv: 0.3 });
/// assert!("lognormal:-1".parse::<RuntimeNoise>().is_err());
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum RuntimeNoise {
    /// No noise: every attempt takes exactly `exec(v, k)`.
    #[default]
    None,
    /// Lognormal factor with mean 1 and coefficient of variation `cv` (standard deviation
    /// over mean, `>= 0`): `ln f ~ N(−σ²/2, σ²)` with `σ² = ln(1 + cv²)`.
    LogNormal {
        /// Coefficient of variation, finite `>= 0`.
        cv: f64,
    },
    /// Factor uniform on `[lo, hi]` (`0 < lo <= hi`, finite).
    Uniform {
        /// Lower bound, `> 0`.
        lo: f64,
        /// Upper bound, `>= lo`.
        hi: f64,
    },
}

impl RuntimeNoise {
    /// Checks the parameters.
    ///
    /// Errors: [`SimError::InvalidSpec`] for a CV outside `[0, 100]`, or bounds not
    /// satisfying `0 < lo <= hi <= 10^6` (larger factors make run times overflow the
    /// simulation clock; no measured runtime noise comes near them).
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: &str| {
            Err(SimError::InvalidSpec {
                what: "noise",
                spec: self.to_string(),
                reason: reason.to_string(),
            })
        };
        match *self {
            Self::None => Ok(()),
            Self::LogNormal { cv } if !(cv.is_finite() && (0.0..=100.0).contains(&cv)) => {
                bad("the coefficient of variation must be in 0..=100")
            }
            Self::LogNormal { .. } => Ok(()),
            Self::Uniform { lo, hi }
                if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo <= hi && hi <= 1e6) =>
            {
                bad("the bounds must satisfy 0 < lo <= hi <= 1e6")
            }
            Self::Uniform { .. } => Ok(()),
        }
    }

    /// A sampler for these (validated) parameters.
    pub(crate) fn sampler(&self) -> Result<NoiseSampler> {
        self.validate()?;
        Ok(match *self {
            Self::None => NoiseSampler::One,
            Self::LogNormal { cv: 0.0 } => NoiseSampler::One,
            Self::LogNormal { cv } => {
                let var = (1.0 + cv * cv).ln();
                let dist =
                    LogNormal::new(-var / 2.0, var.sqrt()).map_err(|e| SimError::InvalidSpec {
                        what: "noise",
                        spec: self.to_string(),
                        reason: e.to_string(),
                    })?;
                NoiseSampler::LogNormal(dist)
            }
            Self::Uniform { lo, hi } => NoiseSampler::Uniform { lo, hi },
        })
    }
}

/// Draws noise factors.
#[derive(Clone, Debug)]
pub(crate) enum NoiseSampler {
    One,
    LogNormal(LogNormal<f64>),
    Uniform { lo: f64, hi: f64 },
}

impl NoiseSampler {
    /// One factor (no draw without noise).
    #[inline]
    pub(crate) fn draw<R: Rng>(&self, rng: &mut R) -> f64 {
        match self {
            Self::One => 1.0,
            Self::LogNormal(d) => d.sample(rng),
            Self::Uniform { lo, hi } if lo == hi => *lo,
            Self::Uniform { lo, hi } => rng.random_range(*lo..=*hi),
        }
    }
}

impl fmt::Display for RuntimeNoise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => write!(f, "none"),
            Self::LogNormal { cv } => write!(f, "lognormal:{cv}"),
            Self::Uniform { lo, hi } => write!(f, "uniform:{lo}..{hi}"),
        }
    }
}

/// `e` with the specification string `spec` as given (a value checked after parsing is
/// reported with the whole string the user wrote).
pub(crate) fn as_given(e: SimError, spec: &str) -> SimError {
    match e {
        SimError::InvalidSpec { what, reason, .. } => SimError::InvalidSpec {
            what,
            spec: spec.to_string(),
            reason,
        },
        e => e,
    }
}

/// The kind of a `KIND[:ARG]` specification (trimmed, lower case) and its argument.
pub(crate) fn kind_and_arg(spec: &str) -> (String, Option<&str>) {
    let spec = spec.trim();
    match spec.split_once(':') {
        Some((k, a)) => (k.trim().to_ascii_lowercase(), Some(a)),
        None => (spec.to_ascii_lowercase(), None),
    }
}

pub(crate) fn parse_f64(what: &'static str, spec: &str, field: &str, text: &str) -> Result<f64> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| SimError::InvalidSpec {
            what,
            spec: spec.to_string(),
            reason: format!("{field} `{text}` is not a number"),
        })
}

impl FromStr for RuntimeNoise {
    type Err = SimError;

    /// Parses `none`, `lognormal:CV` or `uniform:LO..HI`, then validates.
    fn from_str(s: &str) -> Result<Self> {
        let (kind, arg) = kind_and_arg(s);
        let noise = match (kind.as_str(), arg) {
            ("none", None) => Self::None,
            ("lognormal", Some(a)) => Self::LogNormal {
                cv: parse_f64("noise", s, "coefficient of variation", a)?,
            },
            ("uniform", Some(a)) => {
                let (lo, hi) = a.split_once("..").ok_or_else(|| SimError::InvalidSpec {
                    what: "noise",
                    spec: s.to_string(),
                    reason: "expected uniform:LO..HI".to_string(),
                })?;
                Self::Uniform {
                    lo: parse_f64("noise", s, "lower bound", lo)?,
                    hi: parse_f64("noise", s, "upper bound", hi)?,
                }
            }
            _ => {
                return Err(SimError::InvalidSpec {
                    what: "noise",
                    spec: s.to_string(),
                    reason: "expected none, lognormal:CV or uniform:LO..HI".to_string(),
                });
            }
        };
        noise.validate().map_err(|e| as_given(e, s))?;
        Ok(noise)
    }
}
