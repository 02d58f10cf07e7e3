//! Option parsing shared by the metaheuristic schedulers (RTGS, WOA, PSO, GA); the
//! placement policy is `options.take_or("policy", default)` ([`Policy`](worl_cluster::Policy) parses itself).

use crate::error::Result;
use crate::options::Options;

/// Largest population of a search (options `whales`, `particles`, `population`): each
/// member holds a plan (a GPU or a key per task), twice over.
pub const MAX_POPULATION: usize = 10_000;

/// Most iterations, generations or episodes of a run (options `iterations`,
/// `generations`, `episodes`): a search's per-iteration statistics grow with them.
pub const MAX_ITERATIONS: usize = 1_000_000;

/// Most repetitions per step (options `burst`, `kick`, `recorded-steps`, `train-steps`).
pub const MAX_REPEATS: usize = 1_000_000;

/// Takes `key` as a count in `min..=max`. A value past `max` (or past `usize`) is refused
/// when the spec is parsed, before any work or allocation.
///
/// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption) naming
/// the option if it does not parse or is out of range (the message gives the limit).
pub(crate) fn take_count(
    opts: &mut Options,
    key: &str,
    default: usize,
    min: usize,
    max: usize,
) -> Result<usize> {
    let v: usize = opts.take_or(key, default)?;
    if v < min {
        return Err(opts.invalid(key, v, format!("must be at least {min}")));
    }
    if v > max {
        return Err(opts.invalid(key, v, format!("must be at most {max}")));
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
        assert!(take_count(&mut o, "n", 5, 1, 10).is_err());
        let mut o = Options::new("x")
            .with("n", 11)
            .with("big", "18446744073709551616");
        let e = take_count(&mut o, "n", 5, 1, 10).unwrap_err().to_string();
        assert!(e.contains("`n`") && e.contains("at most 10"), "{e}");
        let e = take_count(&mut o, "big", 5, 1, 10).unwrap_err().to_string();
        assert!(e.contains("`big`"), "{e}");
    }
}
