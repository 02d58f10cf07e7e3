//! Same seed → bit-identical result (best fitness, position, history, final population) with
//! and without `parallel`, on rayon pools of 1 and 4 threads, for every move rule, replacement
//! policy and random-whale draw, on a continuous and a discrete problem.

mod common;

use common::LoadBalance;
use worl_woa::{
    Bounds, ContinuousProblem, MoveRule, RandomWhaleDraw, Replacement, WhaleProblem, Woa,
    WoaConfig, functions,
};

fn configs(whales: usize, iterations: usize, seed: u64) -> Vec<WoaConfig> {
    let mut out = Vec::new();
    for rule in [MoveRule::Canonical, MoveRule::ExploreFirst] {
        for replacement in [Replacement::Canonical, Replacement::ElitistTruncation] {
            for draw in [RandomWhaleDraw::PerDimension, RandomWhaleDraw::PerWhale] {
                out.push(
                    WoaConfig::new(whales, iterations)
                        .with_seed(seed)
                        .with_move_rule(rule)
                        .with_replacement(replacement)
                        .with_random_whale(draw),
                );
            }
        }
    }
    out
}

/// The whole result as JSON: floats are written with round-trip precision (and `-0.0` apart
/// from `0.0`), so equal strings mean bit-identical values.
fn fingerprint<P>(problem: &P, cfg: &WoaConfig) -> String
where
    P: WhaleProblem,
    P::Whale: serde::Serialize,
{
    let r = Woa::new(problem, cfg.clone()).run().unwrap();
    serde_json::to_string(&r).unwrap()
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn assert_parallel_matches_sequential<P>(problem: &P, cfg: &WoaConfig)
where
    P: WhaleProblem,
    P::Whale: serde::Serialize,
{
    let sequential = fingerprint(problem, &cfg.clone().with_parallel(false));
    let parallel = cfg.clone().with_parallel(true);
    for threads in [1, 4] {
        let got = in_pool(threads, || fingerprint(problem, &parallel));
        assert_eq!(got, sequential, "{threads} threads, {cfg:?}");
    }
    assert_eq!(
        fingerprint(problem, &parallel),
        sequential,
        "global pool, {cfg:?}"
    );
    assert_eq!(
        fingerprint(problem, &cfg.clone().with_parallel(false)),
        sequential
    );
}

#[test]
fn continuous_parallel_runs_are_bit_identical_to_sequential() {
    let problem = ContinuousProblem::new(
        Bounds::uniform(30, -5.12, 5.12).unwrap(),
        functions::rastrigin,
    );
    for cfg in configs(30, 60, 11) {
        assert_parallel_matches_sequential(&problem, &cfg);
    }
}

#[test]
fn discrete_parallel_runs_are_bit_identical_to_sequential() {
    let problem = LoadBalance {
        work: (0..40).map(|i| 1.0 + (i * 37 % 11) as f64).collect(),
        speed: vec![1.0, 1.5, 2.0, 0.5, 1.0],
    };
    for cfg in configs(17, 40, 5) {
        assert_parallel_matches_sequential(&problem, &cfg);
    }
}

#[test]
fn different_seeds_give_different_runs() {
    let problem =
        ContinuousProblem::new(Bounds::uniform(10, -1.0, 1.0).unwrap(), functions::sphere);
    let a = fingerprint(&problem, &WoaConfig::new(10, 20).with_seed(1));
    let b = fingerprint(&problem, &WoaConfig::new(10, 20).with_seed(2));
    assert_ne!(a, b);
}
