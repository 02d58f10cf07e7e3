//! Invalid configurations, bounds and initial populations are rejected with typed errors that
//! name the offending item, before any evaluation.

use std::sync::atomic::{AtomicUsize, Ordering};

use worl_woa::{
    ASchedule, Bounds, ContinuousProblem, EarlyStop, Woa, WoaConfig, WoaError, functions, minimize,
};

fn sphere_problem(dim: usize) -> ContinuousProblem<fn(&[f64]) -> f64> {
    ContinuousProblem::new(Bounds::uniform(dim, -1.0, 1.0).unwrap(), functions::sphere)
}

fn run_err(cfg: WoaConfig) -> WoaError {
    minimize(
        functions::sphere,
        &Bounds::uniform(2, -1.0, 1.0).unwrap(),
        &cfg,
    )
    .unwrap_err()
}

#[test]
fn zero_whales() {
    assert_eq!(run_err(WoaConfig::new(0, 10)), WoaError::ZeroWhales);
}

#[test]
fn zero_iterations_without_budget() {
    assert_eq!(run_err(WoaConfig::new(5, 0)), WoaError::NoStoppingRule);
}

#[test]
fn zero_iterations_with_budget_is_valid_and_spends_it() {
    let r = minimize(
        functions::sphere,
        &Bounds::uniform(2, -1.0, 1.0).unwrap(),
        &WoaConfig::new(5, 0).with_max_evaluations(5 + 5 * 7),
    )
    .unwrap();
    assert_eq!(r.evaluations, 40);
    assert_eq!(r.iterations, 7);
    assert_eq!(r.stop_reason, worl_woa::StopReason::EvaluationBudget);
}

#[test]
fn budget_below_population() {
    assert_eq!(
        run_err(WoaConfig::new(5, 10).with_max_evaluations(4)),
        WoaError::BudgetBelowPopulation {
            budget: 4,
            whales: 5
        }
    );
}

#[test]
fn non_finite_spiral_shape() {
    let err = run_err(WoaConfig::new(5, 10).with_spiral_b(f64::INFINITY));
    assert_eq!(err, WoaError::InvalidSpiralShape { b: f64::INFINITY });
}

#[test]
fn exponential_schedule_rate() {
    for rate in [0.0, -1.0, f64::NAN] {
        let err = run_err(WoaConfig::new(5, 10).with_a_schedule(ASchedule::Exponential { rate }));
        assert!(matches!(err, WoaError::InvalidScheduleRate { .. }), "{err}");
    }
}

#[test]
fn early_stop_patience_and_tolerance() {
    assert_eq!(
        run_err(WoaConfig::new(5, 10).with_early_stop(EarlyStop::new(0))),
        WoaError::ZeroPatience
    );
    assert_eq!(
        run_err(WoaConfig::new(5, 10).with_early_stop(EarlyStop::new(3).with_tolerance(-1.0))),
        WoaError::InvalidTolerance { tolerance: -1.0 }
    );
}

#[test]
fn nan_target_fitness() {
    assert_eq!(
        run_err(WoaConfig::new(5, 10).with_target_fitness(f64::NAN)),
        WoaError::InvalidTargetFitness
    );
}

#[test]
fn bounds_errors_name_the_dimension() {
    assert_eq!(Bounds::new(vec![], vec![]), Err(WoaError::EmptyBounds));
    assert_eq!(
        Bounds::new(vec![0.0, 0.0], vec![1.0]),
        Err(WoaError::BoundsLengthMismatch { lower: 2, upper: 1 })
    );
    assert_eq!(
        Bounds::new(vec![0.0, 2.0], vec![1.0, 1.0]),
        Err(WoaError::InvalidBounds {
            dimension: 1,
            lo: 2.0,
            hi: 1.0
        })
    );
    let err = Bounds::new(vec![0.0, 0.0, f64::NEG_INFINITY], vec![1.0; 3]).unwrap_err();
    assert!(matches!(err, WoaError::InvalidBounds { dimension: 2, .. }));
    assert!(err.to_string().contains("dimension 2"), "{err}");
    // Deserialisation validates too.
    let bad: Result<Bounds, _> = serde_json::from_str(r#"{"lower":[1.0],"upper":[0.0]}"#);
    assert!(bad.is_err());
    let good: Bounds = serde_json::from_str(r#"{"lower":[0.0],"upper":[1.0]}"#).unwrap();
    assert_eq!(good.dim(), 1);
}

#[test]
fn too_many_initial_whales() {
    let p = sphere_problem(2);
    let err = Woa::new(&p, WoaConfig::new(2, 5))
        .with_initial_whales(vec![vec![0.0, 0.0]; 3])
        .run()
        .unwrap_err();
    assert_eq!(
        err,
        WoaError::TooManyInitialWhales {
            given: 3,
            whales: 2
        }
    );
}

#[test]
fn initial_whale_dimension_mismatch_and_out_of_bounds() {
    let p = sphere_problem(3);
    let err = Woa::new(&p, WoaConfig::new(4, 5))
        .with_initial_whales([vec![0.0; 3], vec![0.0; 2]])
        .run()
        .unwrap_err();
    assert_eq!(
        err,
        WoaError::DimensionMismatch {
            index: 1,
            expected: 3,
            found: 2
        }
    );
    let err = Woa::new(&p, WoaConfig::new(4, 5))
        .with_initial_whales([vec![0.0, 1.5, 0.0]])
        .run()
        .unwrap_err();
    assert_eq!(
        err,
        WoaError::OutOfBounds {
            index: 0,
            dimension: 1,
            value: 1.5,
            lo: -1.0,
            hi: 1.0
        }
    );
    let err = Woa::new(&p, WoaConfig::new(4, 5))
        .with_initial_whales([vec![0.0, f64::NAN, 0.0]])
        .run()
        .unwrap_err();
    assert!(matches!(
        err,
        WoaError::OutOfBounds {
            index: 0,
            dimension: 1,
            ..
        }
    ));
}

#[test]
fn errors_are_returned_before_any_evaluation() {
    let calls = AtomicUsize::new(0);
    let counting = |x: &[f64]| {
        calls.fetch_add(1, Ordering::Relaxed);
        functions::sphere(x)
    };
    let p = ContinuousProblem::new(Bounds::uniform(2, -1.0, 1.0).unwrap(), counting);
    let err = Woa::new(&p, WoaConfig::new(3, 5))
        .with_initial_whales([vec![0.0; 5]])
        .run();
    assert!(err.is_err());
    assert!(Woa::new(&p, WoaConfig::new(0, 5)).run().is_err());
    assert_eq!(calls.load(Ordering::Relaxed), 0);
}
