//! RTGS against plain WOA, random plans and HEFT on generated DAGs: mean makespan and
//! standard deviation over seeds 0..10, at equal budgets (30 whales × 100 iterations for both
//! WOA engines: at most 3,030 evaluations for WOA, 2,930 for RTGS, whose elitism does not
//! re-evaluate the leader). Du et al. (J. Supercomputing 2025; BDCC 2025) report that RTGS
//! beats WOA and "significantly improves WOA's stability". The authors' variant does not
//! (first test); our corrected RTGS (default configuration, see the `rtgs` module docs)
//! does, on a heterogeneous cluster (PAI mix), a homogeneous one and Alibaba-like workloads.

use std::sync::Arc;
use worl_cluster::{GpuId, GpuModel, Policy, Problem, presets};
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_sched::schedulers::rtgs::{
    DecodeInput, GreedyDecoder, HopeRule, PlanDecoder, RtgsConfig, run_rtgs,
};
use worl_sched::schedulers::search::{
    FeasibleGpus, PlainWoaConfig, PlanEvaluator, SearchDecoderConfig,
};
use worl_sched::schedulers::{Heft, PlainWoa, Rtgs};
use worl_sched::{RunContext, Scheduler};
use worl_woa::{WhaleRng, whale_rng};

/// `(mean, population standard deviation)`.
fn mean_std(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Makespans over seeds 0..10: `[RTGS (default), RTGS (authors' code), plain WOA, one
/// uniformly random plan, RTGS (authors' code with the canonical hope)]`, and HEFT's
/// (deterministic).
fn makespans(problem: &Problem) -> ([Vec<f64>; 5], f64) {
    let mut rtgs = Rtgs::new(RtgsConfig::default());
    let mut authors = Rtgs::new(RtgsConfig::paper());
    // The paper's WOA: continuous positions floored to GPUs (the position decoder).
    let mut woa = PlainWoa::new(PlainWoaConfig {
        decoding: SearchDecoderConfig::position(),
        ..Default::default()
    });
    let mut canonical = Rtgs::new(RtgsConfig {
        hope: HopeRule::Canonical,
        ..RtgsConfig::paper()
    });
    let feasible = FeasibleGpus::new(problem);
    let mut eval = PlanEvaluator::new(problem, Policy::Append);
    let mut out: [Vec<f64>; 5] = Default::default();
    for seed in 0..10 {
        for (k, s) in [
            &mut rtgs as &mut dyn Scheduler,
            &mut authors,
            &mut woa,
            &mut canonical,
        ]
        .into_iter()
        .enumerate()
        {
            let schedule = s.schedule(problem, &mut RunContext::new(seed)).unwrap();
            assert!(schedule.validate(problem).is_empty());
            out[if k == 3 { 4 } else { k }].push(schedule.makespan());
        }
        let mut plan = vec![GpuId::new(0); problem.n_tasks()];
        feasible.random_plan(&mut whale_rng(seed, 0, 0), &mut plan);
        out[3].push(eval.makespan(&plan));
    }
    let heft = Heft::new()
        .schedule(problem, &mut RunContext::new(0))
        .unwrap()
        .makespan();
    (out, heft)
}

/// Mean ± std of each series, printed; returns `[(mean, std); 5]` (series of
/// [`makespans`]) and HEFT.
fn measure(label: &str, problem: &Problem) -> ([(f64, f64); 5], f64) {
    let (runs, heft) = makespans(problem);
    let stats = runs.map(|r| mean_std(&r));
    let [r, a, w, q, c] = stats;
    println!(
        "{label}: RTGS {:.0} ± {:.0} | authors {:.0} ± {:.0} | authors + canonical hope {:.0} ± {:.0} \
         | WOA {:.0} ± {:.0} | random {:.0} ± {:.0} | HEFT {heft:.0} | LB {:.0}",
        r.0,
        r.1,
        a.0,
        a.1,
        c.0,
        c.1,
        w.0,
        w.1,
        q.0,
        q.1,
        problem.lower_bound().value
    );
    (stats, heft)
}

/// A layered DAG (generator defaults: CCR 1 at 10 Gbit/s) on 16 GPUs of the PAI mix
/// (5 K80s at effective speed 0.096, 5 P100s, 3 T4s, 3 V100s for seed 1).
fn pai_layered(n: usize, seed: u64) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(16, seed).unwrap())).unwrap()
}

/// The same DAGs on 16 V100s (2 machines of 8).
fn homogeneous_layered(n: usize, seed: u64) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
    let c = presets::homogeneous(16, &GpuModel::v100_16gb()).unwrap();
    Problem::new(w, Arc::new(c)).unwrap()
}

/// `n / 10` Alibaba-like jobs of 2–40 tasks (durations and shapes of the v2018 trace) on
/// the PAI mix.
fn pai_alibaba(n: usize, seed: u64) -> Problem {
    let p = AlibabaLikeParams::new(n / 10).task_range(2, 40);
    let w = Arc::new(alibaba_like(&p, seed).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(16, seed).unwrap())).unwrap()
}

/// Checks the claims with margins: RTGS's mean below WOA's and random's, its
/// standard deviation below WOA's, and it stays near HEFT.
fn assert_rtgs_wins(label: &str, stats: [(f64, f64); 5], heft: f64, margins: Margins) {
    let [(rm, rs), _, (wm, ws), (qm, _), _] = stats;
    assert!(rm < margins.woa * wm, "{label}: RTGS {rm} vs WOA {wm}");
    assert!(
        rm < margins.random * qm,
        "{label}: RTGS {rm} vs random {qm}"
    );
    assert!(
        rs < margins.std * ws,
        "{label}: RTGS std {rs} vs WOA std {ws}"
    );
    assert!(
        rm < margins.heft * heft,
        "{label}: RTGS {rm} vs HEFT {heft}"
    );
}

#[derive(Clone, Copy)]
struct Margins {
    woa: f64,
    random: f64,
    std: f64,
    heft: f64,
}

/// Layered DAGs on 16 PAI-mix GPUs (the setting). Measured (seeds 0..10; mean ± std
/// of the makespan, s):
///
/// | tasks | RTGS | RTGS (authors' code) | authors' + canonical hope | plain WOA | random plan | HEFT | LB |
/// |---|---|---|---|---|---|---|---|
/// | 200 | 2278 ± 13 | 11506 ± 576 | 3566 ± 50 | 4112 ± 235 | 15247 ± 1945 | 2310 | 1609 |
/// | 500 | 4641 ± 95 | 29663 ± 920 | 6847 ± 79 | 9202 ± 1240 | 33934 ± 1645 | 4468 | 3853 |
///
/// RTGS / WOA: 0.55 and 0.50 (asserted < 0.7); std ratio 0.06 and 0.08 (< 0.5); RTGS /
/// random 0.15, 0.14 (< 0.3); RTGS / HEFT 0.99, 1.04 (< 1.1).
///
/// The authors' variant never improves on its best random initial plan here (its hope,
/// `RT_T ± F·(RT_T − RT_X)`, gives the leader back once whales near it, and with random
/// whales its decoder piles the first tasks onto one GPU), and is worse than plain WOA.
/// Replacing only its hope by the canonical WOA move (`C = 2r`) already beats plain WOA,
/// with a fraction of its spread; the EFT window and the rank order (our default) reach
/// HEFT's level.
#[test]
fn rtgs_beats_plain_woa_and_is_more_stable_on_a_heterogeneous_cluster() {
    let margins = Margins {
        woa: 0.7,
        random: 0.3,
        std: 0.5,
        heft: 1.1,
    };
    for (n, seed) in [(200, 1), (500, 3)] {
        let label = format!("PAI mix, layered {n}");
        let (stats, heft) = measure(&label, &pai_layered(n, seed));
        assert_rtgs_wins(&label, stats, heft, margins);
        // The authors' variant: worse than plain WOA (measured 2.8× and 3.2×); with the
        // canonical hope alone it beats it (measured 0.87× and 0.74×, std 0.21× and 0.06×).
        let [_, (am, _), (wm, ws), _, (cm, cs)] = stats;
        assert!(am > 2.0 * wm, "{label}: authors {am} vs WOA {wm}");
        assert!(cm < 0.95 * wm, "{label}: canonical hope {cm} vs WOA {wm}");
        assert!(
            cs < 0.5 * ws,
            "{label}: canonical hope std {cs} vs WOA std {ws}"
        );
    }
}

/// A homogeneous cluster and Alibaba-like workloads. Measured (seeds 0..10):
///
/// | problem | RTGS | RTGS (authors') | authors' + canonical hope | plain WOA | random plan | HEFT | LB |
/// |---|---|---|---|---|---|---|---|
/// | 16 V100s, layered 200 | 1402 ± 2 | 2023 ± 31 | 1662 ± 35 | 1891 ± 45 | 2240 ± 127 | 1388 | 1372 |
/// | PAI mix, 20 Alibaba-like jobs (200 tasks) | 1507 ± 0 | 3640 ± 552 | 1653 ± 8 | 2303 ± 158 | 11009 ± 3369 | 1501 | 995 |
///
/// RTGS / WOA 0.74 and 0.65 (asserted < 0.85); std ratio 0.04 and 0.00 (< 0.5); RTGS /
/// random 0.63 and 0.14 (< 0.7); RTGS / HEFT 1.01 and 1.00 (< 1.1). (500 tasks, measured
/// once: 16 V100s 2159 ± 13 vs WOA 3653 ± 124, HEFT 2100; 50 Alibaba-like jobs 2324 ± 3
/// vs WOA 4147 ± 771, HEFT 2321 = LB.)
#[test]
fn rtgs_beats_plain_woa_on_a_homogeneous_cluster_and_alibaba_like_jobs() {
    let margins = Margins {
        woa: 0.85,
        random: 0.7,
        std: 0.5,
        heft: 1.1,
    };
    for (label, problem) in [
        ("16 V100s, layered 200", homogeneous_layered(200, 1)),
        ("PAI mix, Alibaba-like 200", pai_alibaba(200, 1)),
    ] {
        let (stats, heft) = measure(label, &problem);
        assert_rtgs_wins(label, stats, heft, margins);
        // The authors' code with the canonical hope alone (measured 0.88× and 0.72×).
        let [_, _, (wm, _), _, (cm, _)] = stats;
        assert!(cm < 0.95 * wm, "{label}: canonical hope {cm} vs WOA {wm}");
    }
}

/// Decodes uniform random hopes instead of the WOA's: the greedy decoder with the same
/// window, fed hopes that ignore the whales.
struct RandomHopes<'p>(GreedyDecoder<'p>);

impl<'p> PlanDecoder for RandomHopes<'p> {
    type Scratch = (<GreedyDecoder<'p> as PlanDecoder>::Scratch, Vec<f64>);

    fn scratch(&self) -> Self::Scratch {
        (self.0.scratch(), Vec::new())
    }

    fn decode(
        &self,
        input: &DecodeInput<'_>,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
        out: &mut [GpuId],
    ) {
        use rand::Rng;
        // Uniform on [0, 2·mean hope]: the scale of the real hopes, without their content.
        let top = 2.0 * input.hope.iter().sum::<f64>() / input.hope.len() as f64;
        let hopes = &mut scratch.1;
        hopes.clear();
        hopes.extend(
            input
                .hope
                .iter()
                .map(|_| rng.random::<f64>() * top.max(0.0)),
        );
        let random = DecodeInput {
            hope: hopes,
            ..*input
        };
        self.0.decode(&random, rng, &mut scratch.0, out);
    }
}

/// The search, not the decoder alone, makes RTGS good (layered 200 and 500 on the PAI mix,
/// seeds 0..5, same budget). Measured means, s:
///
/// | tasks | RTGS | its first decoded generation | one generation of 2,930 whales | random hopes |
/// |---|---|---|---|---|
/// | 200 | 2283 | 3550 | 2995 | 2661 |
/// | 500 | 4627 | 9491 | 8431 | 6019 |
///
/// "Random hopes": the same run, the decoder fed uniform hopes on `[0, 2·mean hope]`
/// instead of the WOA's (the window then acts as a randomised EFT list scheduler, and the
/// elitist population keeps the best of 2,930 such plans). The WOA's hopes improve on it by
/// 14 % and 23 % (asserted: > 8 %).
#[test]
fn the_woa_search_not_the_window_alone_finds_the_plans() {
    let mut results = Vec::new();
    for (n, seed) in [(200, 1), (500, 3)] {
        let p = pai_layered(n, seed);
        let config = RtgsConfig::default();
        let single = RtgsConfig {
            whales: 2_930,
            iterations: 1,
            ..RtgsConfig::default()
        };
        let (mut full, mut first, mut one_gen, mut random) = (vec![], vec![], vec![], vec![]);
        for s in 0..5 {
            let out = run_rtgs(
                &p,
                config.greedy_decoder(&p),
                &config,
                &mut RunContext::new(s),
            )
            .unwrap();
            full.push(out.schedule.makespan());
            first.push(out.result.history.iterations[1].population_best);
            let out = run_rtgs(
                &p,
                single.greedy_decoder(&p),
                &single,
                &mut RunContext::new(s),
            )
            .unwrap();
            one_gen.push(out.schedule.makespan());
            let d = RandomHopes(config.greedy_decoder(&p));
            let out = run_rtgs(&p, d, &config, &mut RunContext::new(s)).unwrap();
            random.push(out.schedule.makespan());
        }
        let [f, g1, o, r] = [&full, &first, &one_gen, &random].map(|x| mean_std(x).0);
        println!(
            "layered {n}: RTGS {f:.0}, first generation {g1:.0}, one generation {o:.0}, \
             random hopes {r:.0}"
        );
        results.push((n, f, g1, o, r));
    }
    for (n, f, g1, o, r) in results {
        assert!(f < 0.8 * g1, "{n}: {f} vs first generation {g1}");
        assert!(f < 0.9 * o, "{n}: {f} vs one generation {o}");
        assert!(f < 0.92 * r, "{n}: {f} vs random hopes {r}");
    }
}
