//! Option parsing shared by the metaheuristic schedulers (RTGS, WOA, PSO, GA); the
//! placement policy is `options.take_or("policy", default)` ([`Policy`](worl_cluster::Policy) parses itself).

use crate::error::Result;
use crate::registry::Options;

/// Takes `key` as a count `>= min`.
///
/// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) if it does
/// not parse or is below `min`.
pub(crate) fn take_count(
    opts: &mut Options,
    key: &str,
    default: usize,
    min: usize,
) -> Result<usize> {
    let v: usize = opts.take_or(key, default)?;
    if v < min {
        return Err(opts.invalid(key, v, format!("must be at least {min}")));
    }
    Ok(v)
}

/// Takes `key` as a finite number in `[lo, hi]`.
///
/// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption).
pub(crate) fn take_in_range(
    opts: &mut Options,
    key: &str,
    default: f64,
    lo: f64,
    hi: f64,
) -> Result<f64> {
    let v: f64 = opts.take_or(key, default)?;
    if !(v.is_finite() && lo <= v && v <= hi) {
        return Err(opts.invalid(key, v, format!("must be a finite number in [{lo}, {hi}]")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use worl_woa::ASchedule;

    #[test]
    fn a_schedule_and_counts_parse_and_reject() {
        let mut o = Options::new("x")
            .with("a", "exponential:3")
            .with("bad", "spiral");
        assert_eq!(
            o.take_or("a", ASchedule::Linear).unwrap(),
            ASchedule::Exponential { rate: 3.0 }
        );
        assert!(o.take_or("bad", ASchedule::Linear).is_err());
        assert_eq!(
            o.take_or("absent", ASchedule::Cosine).unwrap(),
            ASchedule::Cosine
        );
        let mut o = Options::new("x").with("a", "exponential:-1").with("n", 0);
        assert!(o.take_or("a", ASchedule::Linear).is_err());
        assert!(take_count(&mut o, "n", 5, 1).is_err());
    }
}
