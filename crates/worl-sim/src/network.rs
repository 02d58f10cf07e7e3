//! [`Contention`]: the network model of transfers, and the max-min fair flow network.

use crate::error::{Result, SimError};
use std::fmt;
use std::str::FromStr;

/// How concurrent transfers share the network.
///
/// Text form (`FromStr`/`Display`): `none`, `fair`.
///
/// ```
/// use worl_sim::Contention;
/// assert_eq!("fair".parse::<Contention>().unwrap(), Contention::Fair);
/// assert!("greedy".parse::<Contention>().is_err());
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Contention {
    /// No contention: a transfer of `d` bytes from GPU `k` to GPU `l` takes exactly
    /// `Problem::comm_time(d, k, l) = L(a, b) + d / B(a, b)` (the static cost model).
    #[default]
    None,
    /// Max-min fair sharing: after its latency `L(a, b)`, a transfer is a flow over
    /// resources (see the crate documentation); concurrent flows share capacities max-min
    /// fairly (progressive filling), rates recomputed at each flow start and finish.
    Fair,
}

impl fmt::Display for Contention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::None => "none",
            Self::Fair => "fair",
        })
    }
}

impl FromStr for Contention {
    type Err = SimError;

    /// Parses `none` or `fair`.
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Self::None),
            "fair" => Ok(Self::Fair),
            _ => Err(SimError::InvalidSpec {
                what: "contention",
                spec: s.to_string(),
                reason: "expected none or fair".to_string(),
            }),
        }
    }
}
