//! Option parsing shared by the metaheuristic schedulers (RTGS, WOA, PSO, GA); the
//! placement policy is [`take_policy`](crate::schedulers::list::take_policy).

use worl_woa::ASchedule;

use crate::error::Result;
use crate::registry::Options;

/// Takes `key` as an `a` schedule: `linear`, `quadratic`, `cosine` or `exponential:RATE`
/// (`RATE` finite and > 0).
///
/// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption).
pub(crate) fn take_a_schedule(
    opts: &mut Options,
    key: &str,
    default: ASchedule,
) -> Result<ASchedule> {
    let Some(value) = opts.take::<String>(key)? else {
        return Ok(default);
    };
    let lower = value.to_ascii_lowercase();
    match lower.as_str() {
        "linear" => return Ok(ASchedule::Linear),
        "quadratic" => return Ok(ASchedule::Quadratic),
        "cosine" => return Ok(ASchedule::Cosine),
        _ => {}
    }
    if let Some(rate) = lower.strip_prefix("exponential:")
        && let Ok(rate) = rate.trim().parse::<f64>()
        && rate.is_finite()
        && rate > 0.0
    {
        return Ok(ASchedule::Exponential { rate });
    }
    Err(opts.invalid(
        key,
        value,
        "expected `linear`, `quadratic`, `cosine` or `exponential:RATE` with RATE > 0",
    ))
}

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

    #[test]
    fn a_schedule_and_counts_parse_and_reject() {
        let mut o = Options::new("x")
            .with("a", "exponential:3")
            .with("bad", "spiral");
        assert_eq!(
            take_a_schedule(&mut o, "a", ASchedule::Linear).unwrap(),
            ASchedule::Exponential { rate: 3.0 }
        );
        assert!(take_a_schedule(&mut o, "bad", ASchedule::Linear).is_err());
        assert_eq!(
            take_a_schedule(&mut o, "absent", ASchedule::Cosine).unwrap(),
            ASchedule::Cosine
        );
        let mut o = Options::new("x").with("a", "exponential:-1").with("n", 0);
        assert!(take_a_schedule(&mut o, "a", ASchedule::Linear).is_err());
        assert!(take_count(&mut o, "n", 5, 1).is_err());
    }
}
