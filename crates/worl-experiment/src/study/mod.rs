//! Empirical studies of the scheduling model, reproducible from the library.
//!
//! | module | holds |
//! |---|---|
//! | [`spd_ftg`] | the SPD–FTG correlation study behind RTGS (Du et al., J. Supercomputing 2025) |

pub mod spd_ftg;

pub use spd_ftg::{
    PairSampler, PlanDistance, PlanPair, SpdFtgConfig, SpdFtgStudy, pearson, spd_ftg_study,
};
