//! Engine behaviour: stopping rules, observer, history bookkeeping, move selection statistics,
//! coefficient ranges, `a` schedules, NaN handling and serde round trips.

use std::ops::ControlFlow;
use std::sync::Mutex;

use worl_woa::{
    ASchedule, Bounds, ContinuousProblem, EarlyStop, Move, MoveKind, MoveRule, Replacement,
    StopReason, Target, WhaleProblem, WhaleRng, Woa, WoaConfig, functions, minimize,
};

fn cube(dim: usize, r: f64) -> Bounds {
    Bounds::uniform(dim, -r, r).unwrap()
}

#[test]
fn evaluation_budget_cuts_the_last_iteration_short() {
    let r = minimize(
        functions::sphere,
        &cube(5, 10.0),
        &WoaConfig::new(30, 500).with_max_evaluations(100),
    )
    .unwrap();
    assert_eq!(r.evaluations, 100);
    assert_eq!(r.iterations, 3);
    assert_eq!(r.stop_reason, StopReason::EvaluationBudget);
    let last = r.history.last().unwrap();
    assert_eq!((last.moves.moved(), last.moves.held), (10, 20));
    assert_eq!(last.evaluations, 100);
}

#[test]
fn early_stop_fires_after_patience_iterations_without_improvement() {
    let r = minimize(
        |_: &[f64]| 1.0,
        &cube(3, 1.0),
        &WoaConfig::new(5, 100).with_early_stop(EarlyStop::new(7)),
    )
    .unwrap();
    assert_eq!(r.stop_reason, StopReason::NoImprovement);
    assert_eq!(r.iterations, 7);
    // A tolerance larger than any possible gain turns every improvement into stagnation.
    let cfg = WoaConfig::new(10, 100).with_early_stop(EarlyStop::new(4).with_tolerance(1e9));
    let r = minimize(functions::sphere, &cube(3, 10.0), &cfg).unwrap();
    assert_eq!(
        (r.stop_reason, r.iterations),
        (StopReason::NoImprovement, 4)
    );
    // Without tolerance the sphere keeps improving for far longer than 4 iterations.
    let cfg = WoaConfig::new(10, 100).with_early_stop(EarlyStop::new(4));
    let r = minimize(functions::sphere, &cube(3, 10.0), &cfg).unwrap();
    assert!(r.iterations > 20, "{}", r.iterations);
}

#[test]
fn target_fitness_stops_the_run_when_reached() {
    let cfg = WoaConfig::new(20, 500)
        .with_seed(3)
        .with_target_fitness(1e-3);
    let r = minimize(functions::sphere, &cube(10, 100.0), &cfg).unwrap();
    assert_eq!(r.stop_reason, StopReason::TargetReached);
    assert!(r.best_fitness <= 1e-3);
    assert!(r.iterations < 500);
    let h = &r.history.iterations;
    assert!(h[h.len() - 2].best_fitness > 1e-3);
}

#[test]
fn observer_sees_every_iteration_and_can_stop_the_run() {
    let mut seen = Vec::new();
    let p = ContinuousProblem::new(cube(4, 5.0), functions::sphere);
    let r = Woa::new(&p, WoaConfig::new(8, 100).with_seed(9))
        .run_with(|stats, leader| {
            assert_eq!(functions::sphere(leader), stats.best_fitness);
            seen.push(stats.iteration);
            if stats.iteration == 5 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
    assert_eq!(seen, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(r.stop_reason, StopReason::Observer);
    assert_eq!((r.iterations, r.history.len()), (5, 6));
}

#[test]
fn history_tracks_leader_evaluations_schedule_and_moves() {
    let cfg = WoaConfig::new(30, 500).with_seed(2);
    let r = minimize(functions::sphere, &cube(30, 100.0), &cfg).unwrap();
    assert_eq!(r.stop_reason, StopReason::Iterations);
    let h = &r.history.iterations;
    assert_eq!(h.len(), 501);
    for (t, s) in h.iter().enumerate() {
        assert_eq!(s.iteration, t);
        assert_eq!(s.evaluations, 30 + 30 * t as u64);
        let expected_a = if t == 0 {
            2.0
        } else {
            2.0 - 2.0 * (t - 1) as f64 / 500.0
        };
        assert!(
            (s.a - expected_a).abs() < 1e-12,
            "iteration {t}: a = {}",
            s.a
        );
        assert!(s.best_fitness <= s.population_best && s.population_best <= s.mean_fitness);
        if t > 0 {
            assert_eq!(s.moves.moved(), 30);
            assert!(s.best_fitness <= h[t - 1].best_fitness);
            // |A| <= a < 1 makes exploration impossible.
            if s.a < 1.0 {
                assert_eq!(s.moves.search, 0, "iteration {t}");
            }
        }
    }
    let early_search: usize = h[1..=100].iter().map(|s| s.moves.search).sum();
    assert!(early_search > 300, "{early_search}");
    let spiral: usize = h.iter().map(|s| s.moves.spiral).sum();
    let share = spiral as f64 / 15_000.0;
    assert!((0.47..0.53).contains(&share), "spiral share {share}");
    assert_eq!(r.best_fitness, h[500].best_fitness);
    assert_eq!(r.history.best_curve().len(), 501);
}

#[test]
fn explore_first_searches_more_while_a_is_large() {
    let count = |rule| {
        let cfg = WoaConfig::new(30, 500).with_seed(4).with_move_rule(rule);
        let r = minimize(functions::sphere, &cube(5, 10.0), &cfg).unwrap();
        let early: usize = r.history.iterations[1..=50]
            .iter()
            .map(|s| s.moves.search)
            .sum();
        let late: usize = r.history.iterations[251..]
            .iter()
            .map(|s| s.moves.search)
            .sum();
        (early, late)
    };
    let (canonical, canonical_late) = count(MoveRule::Canonical);
    let (explore_first, explore_late) = count(MoveRule::ExploreFirst);
    // a ≈ 2 → P(|A| >= 1) ≈ 0.45 over iterations 1..=50: canonical ≈ 0.22·1500, explore-first ≈ 0.45·1500.
    assert!(
        explore_first as f64 > 1.6 * canonical as f64,
        "{explore_first} vs {canonical}"
    );
    assert_eq!((canonical_late, explore_late), (0, 0));
}

/// Records every move the engine hands to the problem.
struct Recording {
    inner: ContinuousProblem<fn(&[f64]) -> f64>,
    moves: Mutex<Vec<Move>>,
}

impl WhaleProblem for Recording {
    type Whale = Vec<f64>;
    type Scratch = Vec<f64>;
    fn scratch(&self) -> Vec<f64> {
        Vec::new()
    }
    fn random_whale(&self, rng: &mut WhaleRng, s: &mut Vec<f64>) -> Vec<f64> {
        self.inner.random_whale(rng, s)
    }
    fn fitness(&self, x: &Vec<f64>, s: &mut Vec<f64>) -> f64 {
        self.inner.fitness(x, s)
    }
    fn moved(
        &self,
        x: &Vec<f64>,
        t: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        s: &mut Vec<f64>,
    ) -> Vec<f64> {
        self.moves.lock().unwrap().push(*mv);
        self.inner.moved(x, t, mv, rng, s)
    }
}

#[test]
fn move_coefficients_lie_in_their_ranges() {
    let p = Recording {
        inner: ContinuousProblem::new(cube(3, 1.0), functions::sphere),
        moves: Mutex::new(Vec::new()),
    };
    let iterations = 40;
    Woa::new(
        &p,
        WoaConfig::new(12, iterations)
            .with_seed(8)
            .with_spiral_b(0.7),
    )
    .run()
    .unwrap();
    let moves = p.moves.into_inner().unwrap();
    assert_eq!(moves.len(), 12 * iterations);
    let (mut low_l, mut high_l) = (false, false);
    for m in &moves {
        let tau = (m.iteration() - 1) as f64 / iterations as f64;
        assert!((m.a() - 2.0 * (1.0 - tau)).abs() < 1e-12);
        assert!(m.coef_a().abs() <= m.a());
        assert!((0.0..=2.0).contains(&m.coef_c()));
        assert!(
            m.l() >= -1.0 - tau && m.l() <= 1.0,
            "l = {} at tau {tau}",
            m.l()
        );
        low_l |= m.l() < -1.5;
        high_l |= m.l() > 0.9;
        assert_eq!(m.b(), 0.7);
        assert!(
            (m.spiral_factor() - (0.7 * m.l()).exp() * (2.0 * std::f64::consts::PI * m.l()).cos())
                .abs()
                < 1e-12
        );
        assert!(m.whale() < 12 && (1..=iterations).contains(&m.iteration()));
        match m.kind() {
            MoveKind::Search => assert!(m.coef_a().abs() >= 1.0),
            MoveKind::Encircle => assert!(m.coef_a().abs() < 1.0),
            MoveKind::Spiral => {}
        }
    }
    assert!(low_l && high_l, "l did not cover its interval");
}

#[test]
fn schedules_start_at_two_end_at_zero_and_never_increase() {
    for s in [
        ASchedule::Linear,
        ASchedule::Quadratic,
        ASchedule::Cosine,
        ASchedule::Exponential { rate: 3.0 },
    ] {
        assert!((s.a(0.0) - 2.0).abs() < 1e-12, "{s:?}");
        assert!(s.a(1.0).abs() < 1e-12, "{s:?}");
        let grid: Vec<f64> = (0..=100).map(|k| s.a(k as f64 / 100.0)).collect();
        assert!(grid.windows(2).all(|w| w[1] <= w[0] + 1e-15), "{s:?}");
    }
    assert!(ASchedule::Exponential { rate: 3.0 }.a(0.5) < ASchedule::Linear.a(0.5));
    assert!(ASchedule::Quadratic.a(0.5) > ASchedule::Linear.a(0.5));
    let cfg = WoaConfig::new(10, 10).with_a_schedule(ASchedule::Cosine);
    let r = minimize(functions::sphere, &cube(2, 1.0), &cfg).unwrap();
    assert!((r.history.iterations[6].a - (1.0 + (std::f64::consts::PI * 0.5).cos())).abs() < 1e-12);
}

#[test]
fn diversity_shrinks_as_the_whales_converge() {
    let r = minimize(
        functions::sphere,
        &cube(30, 100.0),
        &WoaConfig::new(30, 500).with_seed(1),
    )
    .unwrap();
    let d = r.history.diversity_curve();
    let first = d[0].unwrap();
    // Uniform in [−100, 100]^30: distance to the centroid ≈ sqrt(30·100²/3) ≈ 316.
    assert!((250.0..380.0).contains(&first), "{first}");
    assert!(d[500].unwrap() < 1e-6, "{:?}", d[500]);
}

#[test]
fn nan_fitness_ranks_as_infinity() {
    let f = |x: &[f64]| {
        if x[0] > 0.0 {
            f64::NAN
        } else {
            functions::sphere(x)
        }
    };
    let r = minimize(f, &cube(3, 5.0), &WoaConfig::new(15, 100).with_seed(6)).unwrap();
    assert!(r.best_fitness.is_finite());
    assert!(r.best[0] <= 0.0);
    assert!(r.population_fitness.iter().all(|f| !f.is_nan()));
}

#[test]
fn config_and_history_round_trip_through_json() {
    let cfg = WoaConfig::authors_rtgs(12, 34)
        .with_seed(99)
        .with_a_schedule(ASchedule::Exponential { rate: 2.5 })
        .with_early_stop(EarlyStop::new(5).with_tolerance(0.1))
        .with_max_evaluations(1000)
        .with_parallel(true);
    let json = serde_json::to_string(&cfg).unwrap();
    // One spelling for options, serde and Display: kebab-case.
    assert!(
        json.contains("\"explore-first\"")
            && json.contains("\"elitist-truncation\"")
            && json.contains("\"exponential:2.5\""),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<WoaConfig>(&json).unwrap(), cfg);
    // The older snake_case and tagged spellings still read.
    let old = json
        .replace("explore-first", "explore_first")
        .replace("elitist-truncation", "elitist_truncation")
        .replace("per-whale", "per_whale")
        .replace("\"exponential:2.5\"", r#"{"exponential":{"rate":2.5}}"#);
    assert_ne!(old, json);
    assert_eq!(serde_json::from_str::<WoaConfig>(&old).unwrap(), cfg);
    assert_eq!(
        "elitist".parse::<Replacement>().unwrap(),
        Replacement::ElitistTruncation
    );
    assert_eq!(MoveRule::ExploreFirst.to_string(), "explore-first");
    // Missing fields take their defaults.
    let partial: WoaConfig = serde_json::from_str(r#"{"whales": 7}"#).unwrap();
    assert_eq!(
        partial,
        WoaConfig {
            whales: 7,
            ..WoaConfig::default()
        }
    );

    let r = minimize(functions::sphere, &cube(3, 1.0), &WoaConfig::new(5, 10)).unwrap();
    let back: worl_woa::History =
        serde_json::from_str(&serde_json::to_string(&r.history).unwrap()).unwrap();
    assert_eq!(back, r.history);
}

#[test]
fn minimize_is_the_continuous_problem_through_the_generic_engine() {
    let cfg = WoaConfig::new(10, 30).with_seed(5);
    let a = minimize(functions::rastrigin, &cube(4, 5.12), &cfg).unwrap();
    let p = ContinuousProblem::new(cube(4, 5.12), functions::rastrigin);
    let b = Woa::new(&p, cfg).run().unwrap();
    assert_eq!(a, b);
}

/// Counts `after_iteration` calls and checks what they receive.
struct Hooked {
    inner: ContinuousProblem<fn(&[f64]) -> f64>,
    calls: Mutex<Vec<(usize, usize, f64)>>,
}

impl WhaleProblem for Hooked {
    type Whale = Vec<f64>;
    type Scratch = Vec<f64>;
    fn scratch(&self) -> Vec<f64> {
        Vec::new()
    }
    fn random_whale(&self, rng: &mut WhaleRng, s: &mut Vec<f64>) -> Vec<f64> {
        self.inner.random_whale(rng, s)
    }
    fn fitness(&self, x: &Vec<f64>, s: &mut Vec<f64>) -> f64 {
        self.inner.fitness(x, s)
    }
    fn moved(
        &self,
        x: &Vec<f64>,
        t: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        s: &mut Vec<f64>,
    ) -> Vec<f64> {
        self.inner.moved(x, t, mv, rng, s)
    }
    fn after_iteration(&self, iteration: usize, population: &[Vec<f64>], fitness: &[f64]) {
        for (w, &f) in population.iter().zip(fitness) {
            assert_eq!(functions::sphere(w), f);
        }
        let best = fitness.iter().copied().fold(f64::INFINITY, f64::min);
        self.calls
            .lock()
            .unwrap()
            .push((iteration, population.len(), best));
    }
}

#[test]
fn after_iteration_hook_sees_each_population_once_in_order() {
    let p = Hooked {
        inner: ContinuousProblem::new(cube(3, 2.0), functions::sphere),
        calls: Mutex::new(Vec::new()),
    };
    let r = Woa::new(&p, WoaConfig::new(6, 9).with_seed(1).with_parallel(true))
        .run()
        .unwrap();
    let calls = p.calls.into_inner().unwrap();
    assert_eq!(calls.len(), 10);
    for (t, &(iteration, n, best)) in calls.iter().enumerate() {
        assert_eq!((iteration, n), (t, 6));
        assert_eq!(best, r.history.iterations[t].population_best);
    }
}

/// A budget clock replaces the iteration count: the run goes past `iterations` (3) until
/// the clock reads 1, and `a` follows the clock (linear schedule: `a = 2 (1 − τ)`).
#[test]
fn a_budget_clock_drives_the_schedule_and_the_stop() {
    let problem = ContinuousProblem::new(cube(4, 10.0), functions::sphere);
    let reads = std::cell::Cell::new(0u32);
    // each iteration reads the clock twice (schedule, then stop); it advances by 0.05 per
    // iteration
    let clock = || {
        let r = reads.get();
        reads.set(r + 1);
        f64::from(r / 2) * 0.05
    };
    let r = Woa::new(&problem, WoaConfig::new(10, 3).with_seed(1))
        .with_clock(&clock)
        .run()
        .unwrap();
    assert_eq!(r.stop_reason, StopReason::Budget);
    assert_eq!(r.iterations, 21);
    for s in &r.history.iterations[1..] {
        let tau = f64::from(s.iteration as u32 - 1) * 0.05;
        assert!((s.a - 2.0 * (1.0 - tau.min(1.0))).abs() < 1e-12, "{s:?}");
    }
    // without the clock: 3 iterations
    let r = Woa::new(&problem, WoaConfig::new(10, 3).with_seed(1))
        .run()
        .unwrap();
    assert_eq!((r.stop_reason, r.iterations), (StopReason::Iterations, 3));
}
