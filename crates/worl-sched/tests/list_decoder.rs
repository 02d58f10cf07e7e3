//! The random-key list decoder of WOA, PSO and GA: its HEFT position decodes to HEFT's exact
//! schedule, random positions decode to valid schedules above the lower bound, seeded
//! searches are never worse than HEFT and reproducible, and bad options are rejected.

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{GpuModel, Policy, Problem, Schedule, presets};
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_sched::schedulers::Heft;
use worl_sched::schedulers::search::{ListDecoder, ListDecoderConfig, ListPriority, PlanEvaluator};
use worl_sched::{Budget, Registry, RunContext, ScheduleError, Scheduler};

/// Layered DAG of `n` tasks (CCR 1 at 10 Gbit/s) on 16 PAI-mix GPUs.
fn pai_layered(n: usize, seed: u64) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(16, seed).unwrap())).unwrap()
}

/// Layered DAG of `n` tasks with CCR 5 at 500 Mbit/s on 8 GPUs, one per machine, links up
/// to 500 Mbit/s (the paper pool).
fn pool_ccr5(n: usize, seed: u64) -> Problem {
    let p = LayeredParams::new(n).ccr(5.0, 500e6 / 8.0);
    let w = Arc::new(layered(&p, seed).unwrap());
    Problem::new(w, Arc::new(presets::paper_pool(8, 500.0, seed).unwrap())).unwrap()
}

/// Alibaba-like jobs on the PAI mix (memory needs: some tasks fit only some GPUs).
fn pai_alibaba(jobs: usize, seed: u64) -> Problem {
    let w = Arc::new(alibaba_like(&AlibabaLikeParams::new(jobs), seed).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(8, seed).unwrap())).unwrap()
}

/// Layered DAG on 4 identical V100s (many EFT ties).
fn homogeneous(n: usize, seed: u64) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
    let c = presets::homogeneous(4, &GpuModel::v100_16gb()).unwrap();
    Problem::new(w, Arc::new(c)).unwrap()
}

fn problems() -> Vec<(&'static str, Problem)> {
    vec![
        ("pai layered 60", pai_layered(60, 1)),
        ("pai layered 150", pai_layered(150, 2)),
        ("pool ccr 5", pool_ccr5(80, 3)),
        ("pai alibaba", pai_alibaba(6, 4)),
        ("homogeneous", homogeneous(50, 5)),
    ]
}

fn heft(p: &Problem, policy: Policy) -> Schedule {
    Heft::new()
        .with_policy(policy)
        .schedule(p, &mut RunContext::new(0))
        .unwrap()
}

/// Same GPU, start and finish for every task, bit for bit.
fn assert_same(label: &str, got: &Schedule, want: &Schedule) {
    assert_eq!(
        got.makespan().to_bits(),
        want.makespan().to_bits(),
        "{label}"
    );
    for (v, (a, b)) in got.tasks().iter().zip(want.tasks()).enumerate() {
        assert_eq!(a.gpu, b.gpu, "{label}: task {v}");
        assert_eq!(a.start.to_bits(), b.start.to_bits(), "{label}: task {v}");
        assert_eq!(a.finish.to_bits(), b.finish.to_bits(), "{label}: task {v}");
    }
}

#[test]
fn all_half_keys_decode_to_hefts_exact_schedule() {
    for (label, p) in problems() {
        for policy in [Policy::Insertion, Policy::Append] {
            let want = heft(&p, policy);
            let d = ListDecoder::new(&p, policy, ListDecoderConfig::default());
            let half = vec![0.5; 2 * p.n_tasks()];
            assert_eq!(d.heft_position(), half);
            assert_same(label, &d.schedule(&half).unwrap(), &want);
            // The allocation-free path gives the same makespan, also on a reused scratch.
            let mut s = d.scratch();
            let mut rng = worl_woa::whale_rng(1, 0, 0);
            let mut other = Vec::new();
            d.random_position(&mut rng, &mut other);
            d.makespan(&other, &mut s);
            assert_eq!(d.makespan(&half, &mut s), want.makespan(), "{label}");
            assert_same(label, &s.partial().to_schedule().unwrap(), &want);
        }
    }
}

#[test]
fn other_settings_have_a_heft_position_too() {
    let p = pai_layered(80, 7);
    let want = heft(&p, Policy::Insertion);
    for config in [
        ListDecoderConfig {
            priority: ListPriority::Keys,
            ..ListDecoderConfig::default()
        },
        ListDecoderConfig {
            gpu_threshold: 0.2,
            gpu_choices: 16,
            sigma: 1.9,
            ..ListDecoderConfig::default()
        },
        ListDecoderConfig {
            gpu_threshold: 0.0,
            ..ListDecoderConfig::default()
        },
    ] {
        let d = ListDecoder::new(&p, Policy::Insertion, config.clone());
        let x = d.heft_position();
        assert_same(&format!("{config:?}"), &d.schedule(&x).unwrap(), &want);
    }
}

#[test]
fn keys_change_the_schedule_and_bad_lengths_are_errors() {
    let p = pai_layered(60, 1);
    let three = ListDecoderConfig {
        gpu_choices: 3,
        ..ListDecoderConfig::default()
    };
    let d = ListDecoder::new(&p, Policy::Insertion, three);
    let n = p.n_tasks();
    let heft = heft(&p, Policy::Insertion);
    // The default (K = 1) ignores GPU keys: all at 1 is still HEFT's schedule.
    let mut x = vec![0.5; 2 * n];
    x[n..].fill(1.0);
    let default = ListDecoder::new(&p, Policy::Insertion, ListDecoderConfig::default());
    assert_same("K = 1", &default.schedule(&x).unwrap(), &heft);
    // With K = 3, every GPU key at 1: the third-best EFT GPU for every task.
    let worse = d.schedule(&x).unwrap();
    assert!(worse.validate(&p).is_empty());
    assert!(worse.makespan() > heft.makespan());
    // A position of the wrong length: a typed error, and +inf on the fast path.
    assert!(matches!(
        d.schedule(&x[..n]),
        Err(ScheduleError::Woa(worl_woa::WoaError::DimensionMismatch { expected, found, .. }))
            if expected == 2 * n && found == n
    ));
    assert_eq!(d.makespan(&x[..n], &mut d.scratch()), f64::INFINITY);
}

/// Tasks of the given works (no edges) on one machine with GPUs of the given speeds.
fn tiny(works: &[f64], speeds: &[f64]) -> Problem {
    let mut w = worl_dag::WorkloadBuilder::new("w");
    let j = w.add_job("j").unwrap();
    for (i, &work) in works.iter().enumerate() {
        w.add_task(j, format!("t{i}"), work, None).unwrap();
    }
    let mut c = worl_cluster::ClusterBuilder::new("c");
    let m = c.add_machine("m");
    for (k, &speed) in speeds.iter().enumerate() {
        c.add_gpu(m, &GpuModel::custom(format!("g{k}"), speed, 16.0).unwrap())
            .unwrap();
    }
    Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
}

#[test]
fn gpu_keys_pick_the_kth_best_finish_time() {
    // One task of work 6 on GPUs of speeds 1, 2, 3: finish times 6, 3, 2.
    let p = tiny(&[6.0], &[1.0, 2.0, 3.0]);
    let config = ListDecoderConfig {
        gpu_choices: 3,
        ..ListDecoderConfig::default()
    };
    let d = ListDecoder::new(&p, Policy::Insertion, config);
    // τ = 0.5, K = 3: keys below 2/3 take the best, then thirds of [0.5, 1].
    for (key, gpu, finish) in [
        (0.5, 2, 2.0),
        (0.6, 2, 2.0),
        (0.7, 1, 3.0),
        (0.9, 0, 6.0),
        (1.0, 0, 6.0),
    ] {
        let s = d.schedule(&[0.5, key]).unwrap();
        assert_eq!(
            (s.tasks()[0].gpu.index(), s.tasks()[0].finish),
            (gpu, finish),
            "key {key}"
        );
    }
}

#[test]
fn priority_keys_reorder_ready_tasks() {
    // Independent tasks of works 4 and 2 on one GPU of speed 1: rank_u 4 and 2.
    let p = tiny(&[4.0, 2.0], &[1.0]);
    let d = ListDecoder::new(&p, Policy::Append, ListDecoderConfig::default());
    let starts = |x: &[f64]| -> Vec<f64> {
        d.schedule(x)
            .unwrap()
            .tasks()
            .iter()
            .map(|t| t.start)
            .collect()
    };
    // HEFT's order: the longer task first.
    assert_eq!(starts(&[0.5, 0.5, 0.5, 0.5]), [0.0, 4.0]);
    // σ = 1: priorities 4 · 0.5 = 2 and 2 · 1.5 = 3, so the short task goes first.
    assert_eq!(starts(&[0.0, 1.0, 0.5, 0.5]), [2.0, 0.0]);
    // Keys: the larger key first.
    let keys = ListDecoder::new(
        &p,
        Policy::Append,
        ListDecoderConfig {
            priority: ListPriority::Keys,
            ..ListDecoderConfig::default()
        },
    );
    let s = keys.schedule(&[0.2, 0.3, 0.5, 0.5]).unwrap();
    assert_eq!((s.tasks()[0].start, s.tasks()[1].start), (2.0, 0.0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any keys (also outside `[0, 1]` or NaN, read clamped) decode to a schedule that
    /// satisfies the model and is not below the lower bound, under either policy and either
    /// priority rule.
    #[test]
    fn random_positions_decode_to_valid_schedules_above_the_lower_bound(
        seed in 0u64..1000,
        which in 0usize..3,
        append in any::<bool>(),
        keys_rule in any::<bool>(),
        choices in 1usize..6,
        raw in prop_oneof![8 => 0.0f64..1.0, 1 => -2.0f64..3.0, 1 => Just(f64::NAN)],
    ) {
        let p = match which {
            0 => pai_layered(40, seed),
            1 => pool_ccr5(30, seed),
            _ => pai_alibaba(3, seed),
        };
        let policy = if append { Policy::Append } else { Policy::Insertion };
        let config = ListDecoderConfig {
            priority: if keys_rule { ListPriority::Keys } else { ListPriority::PerturbedRank },
            gpu_choices: choices,
            ..ListDecoderConfig::default()
        };
        let d = ListDecoder::new(&p, policy, config);
        let mut rng = worl_woa::whale_rng(seed, 1, 2);
        let mut x = Vec::new();
        d.random_position(&mut rng, &mut x);
        // Sprinkle the odd coordinate.
        let at = (seed as usize) % x.len();
        x[at] = raw;
        let s = d.schedule(&x).unwrap();
        prop_assert!(s.validate(&p).is_empty());
        prop_assert!(s.makespan() >= p.lower_bound().value * (1.0 - 1e-12));
        prop_assert_eq!(d.makespan(&x, &mut d.scratch()), s.makespan());
    }
}

fn run(spec: &str, p: &Problem, seed: u64, budget: Option<u64>) -> Schedule {
    let mut s = Registry::with_builtins().build_spec(spec).unwrap();
    let mut ctx = RunContext::new(seed).with_budget(Budget {
        max_evaluations: budget,
        ..Budget::default()
    });
    s.schedule(p, &mut ctx).unwrap()
}

#[test]
fn seeded_searches_are_never_worse_than_heft_and_reproducible() {
    for (label, p) in problems() {
        let h = heft(&p, Policy::Insertion).makespan();
        for spec in [
            "woa:whales=6,iterations=5",
            "pso:particles=6,iterations=5",
            "ga:population=6,generations=5",
            "ga:population=6,generations=5,elites=0,parallel=true",
        ] {
            let a = run(spec, &p, 3, None);
            assert!(a.validate(&p).is_empty(), "{label} {spec}");
            assert!(
                a.makespan() <= h,
                "{label} {spec}: {} vs HEFT {h}",
                a.makespan()
            );
            let b = run(spec, &p, 3, None);
            assert_same(&format!("{label} {spec}"), &a, &b);
        }
        // The append policy: never worse than HEFT under append.
        let ha = heft(&p, Policy::Append).makespan();
        let a = run("pso:particles=4,iterations=3,policy=append", &p, 1, None);
        assert!(a.makespan() <= ha, "{label}: {} vs {ha}", a.makespan());
    }
}

#[test]
fn the_position_decoder_keeps_the_old_baseline() {
    // decoder=position is the original search: these makespans are those of the baselines
    // before the list decoder existed (same problem, seed and options).
    let p = pai_layered(60, 1);
    for (spec, old) in [
        (
            "woa:whales=5,iterations=4,decoder=position",
            2227.3620734994643,
        ),
        (
            "pso:particles=5,iterations=4,decoder=position",
            4339.5581086284965,
        ),
        (
            "ga:population=5,generations=4,decoder=position",
            4003.3599611594627,
        ),
        (
            "pso:particles=5,iterations=4,decoder=position,policy=insertion",
            4339.5581086284965,
        ),
    ] {
        assert_eq!(run(spec, &p, 2, None).makespan(), old, "{spec}");
    }
    // Seeded with HEFT's assignment, the position decoder is not worse than that assignment
    // in topological order under append.
    let a = run(
        "ga:population=5,generations=2,decoder=position,heft-seed=true",
        &p,
        2,
        None,
    );
    assert!(a.validate(&p).is_empty());
    let gpus: Vec<_> = heft(&p, Policy::Insertion)
        .tasks()
        .iter()
        .map(|t| t.gpu)
        .collect();
    let seeded = PlanEvaluator::new(&p, Policy::Append).makespan(&gpus);
    assert!(a.makespan() <= seeded, "{} vs {seeded}", a.makespan());
    // And the list decoder without the seed is still a valid, reproducible search.
    let spec = "woa:whales=5,iterations=4,heft-seed=false";
    assert_same(spec, &run(spec, &p, 9, None), &run(spec, &p, 9, None));
}

#[test]
fn budgets_are_honoured_with_the_heft_seed() {
    let p = pai_layered(60, 1);
    for spec in ["woa:whales=6", "pso:particles=6", "ga:population=6"] {
        let mut events = Vec::new();
        let mut observer = |pr: &worl_sched::Progress| {
            events.push(pr.evaluations);
            std::ops::ControlFlow::Continue(())
        };
        let mut s = Registry::with_builtins().build_spec(spec).unwrap();
        let mut ctx = RunContext::new(1)
            .with_budget(Budget {
                max_evaluations: Some(20),
                ..Budget::default()
            })
            .with_observer(&mut observer);
        s.schedule(&p, &mut ctx).unwrap();
        assert_eq!(events.first(), Some(&6), "{spec}");
        assert!(*events.last().unwrap() <= 20, "{spec}: {events:?}");
    }
}

#[test]
fn bad_decoder_options_are_rejected_naming_the_option() {
    let registry = Registry::with_builtins();
    for name in ["woa", "pso", "ga"] {
        for (key, value) in [
            ("decoder", "greedy"),
            ("heft-seed", "maybe"),
            ("policy", "random"),
            ("priority", "fifo"),
            ("sigma", "3"),
            ("gpu-threshold", "-1"),
            ("gpu-choices", "0"),
        ] {
            let spec = format!("{name}:{key}={value}");
            match registry.build_spec(&spec) {
                Err(ScheduleError::InvalidOption { key: k, .. }) => assert_eq!(k, key, "{spec}"),
                other => panic!("{spec}: {:?}", other.map(|s| s.name().to_owned())),
            }
        }
        for good in [
            "decoder=list",
            "decoder=position",
            "heft-seed=false",
            "priority=keys,sigma=0.5,gpu-choices=2,gpu-threshold=0.7",
        ] {
            assert!(
                registry.build_spec(&format!("{name}:{good}")).is_ok(),
                "{name}:{good}"
            );
        }
    }
}

/// Mean makespan / HEFT over seeds 0..5 at 3,000 evaluations, for the table of the
/// `list_decoder` module docs. `cargo test --release --test list_decoder -- --ignored
/// --nocapture`.
#[test]
#[ignore = "measurement, about a minute in release"]
fn measure_decoders() {
    let variants = [
        ("position (old default: append)", "decoder=position"),
        ("position, insertion", "decoder=position,policy=insertion"),
        (
            "list, keys, K=3, no seed",
            "priority=keys,gpu-choices=3,heft-seed=false",
        ),
        ("list, K=3, no seed", "gpu-choices=3,heft-seed=false"),
        ("list, keys, K=3", "priority=keys,gpu-choices=3"),
        ("list, K=3", "gpu-choices=3"),
        ("list, K=3, sigma=0.3", "gpu-choices=3,sigma=0.3"),
        ("list, K=2", "gpu-choices=2"),
        ("list, K=3, tau=0.8", "gpu-choices=3,gpu-threshold=0.8"),
        ("list, K=3, tau=0.9", "gpu-choices=3,gpu-threshold=0.9"),
        ("list, K=2, tau=0.95", "gpu-choices=2,gpu-threshold=0.95"),
        ("list, K=1, no seed", "heft-seed=false"),
        ("list, K=1, sigma=1.5", "sigma=1.5"),
        ("list, K=1", "gpu-choices=1"),
        ("list, K=1, PSO vmax=0.1 (default)", ""),
    ];
    // PSO's list rows other than the default use the full-range velocity limit.
    let searches = [
        ("WOA", "woa:whales=30,iterations=200", ""),
        ("PSO", "pso:particles=30,iterations=200", ",vmax=1"),
        ("GA", "ga:population=30,generations=200", ""),
    ];
    let instances: Vec<(String, Vec<Problem>)> = vec![
        (
            "layered 100, 16 PAI-mix GPUs".into(),
            (0..5).map(|s| pai_layered(100, s)).collect(),
        ),
        (
            "layered 100, CCR 5, 8 GPUs at 500 Mbit/s".into(),
            (0..5).map(|s| pool_ccr5(100, s)).collect(),
        ),
    ];
    for (label, ps) in &instances {
        println!("{label}");
        for (vlabel, opts) in variants {
            let mut row = format!("| {vlabel} |");
            for (_, spec, legacy) in searches {
                let spec = if opts.is_empty() {
                    spec.to_owned()
                } else if opts.starts_with("decoder=position") {
                    format!("{spec},{opts}")
                } else {
                    format!("{spec},{opts}{legacy}")
                };
                let mut ratio = 0.0;
                for (seed, p) in ps.iter().enumerate() {
                    let h = heft(p, Policy::Insertion).makespan();
                    ratio += run(&spec, p, seed as u64, Some(3000)).makespan() / h;
                }
                row += &format!(" {:.3} |", ratio / ps.len() as f64);
            }
            println!("{row}");
        }
    }
}
