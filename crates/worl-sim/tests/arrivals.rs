//! Tests of the job arrival processes (`worl_sim::arrivals`).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use worl_dag::{Workload, WorkloadBuilder};
use worl_sim::SimError;
use worl_sim::arrivals::Arrivals;

/// `n` jobs `j0..` of two tasks `a -> c` (work `i + 1` and 1), releases as given
/// (0 where `releases` is shorter).
fn jobs(n: usize, releases: &[f64]) -> Workload {
    let mut b = WorkloadBuilder::new("w");
    for i in 0..n {
        let j = b.add_job(format!("j{i}")).unwrap();
        let a = b.add_task(j, "a", (i + 1) as f64, None).unwrap();
        let c = b.add_task(j, "c", 1.0, Some(2.0)).unwrap();
        b.add_edge(a, c, 1e6).unwrap();
        if let Some(&r) = releases.get(i) {
            b.set_release(j, r).unwrap();
        }
    }
    b.build().unwrap()
}

fn releases(w: &Workload) -> Vec<f64> {
    w.jobs().iter().map(|j| j.release).collect()
}

fn spec_error(s: &str) -> (String, String) {
    match s.parse::<Arrivals>() {
        Err(SimError::InvalidSpec { what, spec, reason }) => {
            assert_eq!(what, "arrivals");
            (spec, reason)
        }
        other => panic!("`{s}`: expected an InvalidSpec error, got {other:?}"),
    }
}

#[test]
fn specs_parse_and_print_back() {
    assert_eq!("batch".parse::<Arrivals>().unwrap(), Arrivals::Batch);
    assert_eq!(" Trace ".parse::<Arrivals>().unwrap(), Arrivals::Trace);
    assert_eq!(
        "poisson:120".parse::<Arrivals>().unwrap(),
        Arrivals::Poisson {
            rate_per_hour: 120.0
        }
    );
    assert_eq!(
        "POISSON: 0.5".parse::<Arrivals>().unwrap(),
        Arrivals::Poisson { rate_per_hour: 0.5 }
    );
    for a in [
        Arrivals::Batch,
        Arrivals::Trace,
        Arrivals::Poisson {
            rate_per_hour: 2.75,
        },
    ] {
        assert_eq!(a.to_string().parse::<Arrivals>().unwrap(), a);
    }
    assert_eq!(Arrivals::default(), Arrivals::Batch);
}

#[test]
fn bad_specs_are_typed_errors_naming_the_spec() {
    for s in [
        "poisson:0",
        "poisson:-3",
        "poisson:NaN",
        "poisson:inf",
        "poisson:1e-320",
        "poisson:",
        "poisson:fast",
        "poisson",
        "batch:1",
        "uniform",
        "",
    ] {
        let (spec, reason) = spec_error(s);
        assert_eq!(spec, s);
        assert!(!reason.is_empty());
    }
    assert!(spec_error("poisson:-3").1.contains("> 0"));
    assert!(spec_error("poisson:fast").1.contains("`fast`"));
    assert!(spec_error("uniform").1.contains("poisson:R"));
    // A hand-built process is validated too.
    let w = jobs(2, &[]);
    let bad = Arrivals::Poisson {
        rate_per_hour: -1.0,
    };
    assert!(matches!(
        bad.apply(&w, 1),
        Err(SimError::InvalidSpec {
            what: "arrivals",
            ..
        })
    ));
}

#[test]
fn batch_zeroes_releases_and_keeps_the_rest() {
    let with = jobs(3, &[5.0, 0.0, 12.5]);
    let without = jobs(3, &[]);
    let batch = Arrivals::Batch.apply(&with, 9).unwrap();
    assert_eq!(releases(&batch), [0.0, 0.0, 0.0]);
    assert_eq!(batch, without);
}

#[test]
fn trace_keeps_releases() {
    let with = jobs(3, &[5.0, 0.0, 12.5]);
    let trace = Arrivals::Trace.apply(&with, 9).unwrap();
    assert_eq!(releases(&trace), [5.0, 0.0, 12.5]);
    assert_eq!(trace, with);
}

#[test]
fn poisson_first_job_at_zero_in_job_order_and_seeded() {
    let w = jobs(50, &[]);
    let p = Arrivals::Poisson {
        rate_per_hour: 60.0,
    };
    let a = p.apply(&w, 42).unwrap();
    let r = releases(&a);
    assert_eq!(r[0], 0.0);
    assert!(r.windows(2).all(|x| x[0] < x[1]), "{r:?}");
    // Deterministic per seed; another seed gives another stream.
    assert_eq!(p.apply(&w, 42).unwrap(), a);
    assert_ne!(releases(&p.apply(&w, 43).unwrap()), r);
    // Everything but the releases is unchanged.
    assert_eq!(Arrivals::Batch.apply(&a, 0).unwrap(), w);
    // The documented process: job 0 at 0, then the gaps drawn in order from ChaCha8(seed).
    let exp = Exp::new(60.0 / 3600.0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let (g1, g2) = (exp.sample(&mut rng), exp.sample(&mut rng));
    assert_eq!((r[1], r[2]), (g1, g1 + g2));
    // `releases` gives the same stream as `apply`.
    assert_eq!(p.releases(50, 42).unwrap(), r);
    assert_eq!(Arrivals::Batch.releases(2, 42).unwrap(), [0.0, 0.0]);
}

#[test]
fn poisson_gaps_have_the_exponential_mean_and_variance() {
    // 10,000 jobs at 3600 per hour: 9,999 gaps of mean 1 s and variance 1 s². The sample
    // mean has standard deviation 1/sqrt(9999) = 0.0100, the sample variance about
    // sqrt((9 - 1) / 9999) = 0.028 (fourth central moment of Exp(1) is 9): 5-sigma bounds.
    let n = 10_000;
    for seed in [0, 1, 2, 3, 2024] {
        let r = Arrivals::Poisson {
            rate_per_hour: 3600.0,
        }
        .releases(n, seed)
        .unwrap();
        let gaps: Vec<f64> = r.windows(2).map(|x| x[1] - x[0]).collect();
        let m = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / m;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (m - 1.0);
        assert!((mean - 1.0).abs() < 0.05, "seed {seed}: mean gap {mean}");
        assert!((var - 1.0).abs() < 0.14, "seed {seed}: gap variance {var}");
        // Memorylessness: about e^-1 of the gaps exceed the mean (sd 0.0048).
        let long = gaps.iter().filter(|&&g| g > 1.0).count() as f64 / m;
        assert!(
            (long - (-1.0f64).exp()).abs() < 0.025,
            "seed {seed}: {long}"
        );
    }
    // The rate scales the gaps: at 36 per hour the mean gap is 100 s.
    let r = Arrivals::Poisson {
        rate_per_hour: 36.0,
    }
    .releases(n, 5)
    .unwrap();
    let mean = r[n - 1] / (n - 1) as f64;
    assert!((mean - 100.0).abs() < 5.0, "mean gap {mean}");
}

#[test]
fn poisson_releases_that_overflow_name_the_job() {
    // Mean gap 3600 / 4e-305 = 9e307 s: a few gaps pass f64::MAX.
    let w = jobs(100, &[]);
    let p = Arrivals::Poisson {
        rate_per_hour: 4e-305,
    };
    match p.apply(&w, 3) {
        Err(SimError::InvalidSpec { what, reason, .. }) => {
            assert_eq!(what, "arrivals");
            assert!(reason.contains("job `j"), "{reason}");
        }
        other => panic!("expected an overflow error, got {other:?}"),
    }
}
