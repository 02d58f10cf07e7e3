//! RTGS against plain WOA and random plans on generated DAGs: mean makespan and standard
//! deviation over seeds. Du et al. (J. Supercomputing 2025; BDCC 2025) report that RTGS
//! beats WOA and "significantly improves WOA's stability"; in our model it does not (see the
//! measured table below), and these tests pin down what does hold.

use std::sync::Arc;
use worl_cluster::{GpuId, Policy, Problem, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_rtgs::schedulers::rtgs::{FeasibleGpus, Lookahead, PlanEvaluator, RtgsConfig};
use worl_rtgs::schedulers::woa::PlainWoaConfig;
use worl_rtgs::schedulers::{PlainWoa, Rtgs};
use worl_rtgs::{RunContext, Scheduler};
use worl_woa::whale_rng;

/// `(mean, population standard deviation)`.
fn mean_std(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Makespans for seeds 0..10 of: RTGS (default, target look-ahead), RTGS with the authors'
/// decoder (`lookahead = none`), plain WOA (all 30 whales × 100 iterations), and one
/// uniformly random plan.
fn makespans(problem: &Problem) -> [Vec<f64>; 4] {
    let mut rtgs = Rtgs::new(RtgsConfig::default());
    let mut authors = Rtgs::new(RtgsConfig {
        lookahead: Lookahead::None,
        ..RtgsConfig::default()
    });
    let mut woa = PlainWoa::new(PlainWoaConfig::default());
    let feasible = FeasibleGpus::new(problem);
    let mut eval = PlanEvaluator::new(problem, Policy::Append);
    let mut out: [Vec<f64>; 4] = Default::default();
    for seed in 0..10 {
        for (k, s) in [&mut rtgs as &mut dyn Scheduler, &mut authors, &mut woa]
            .into_iter()
            .enumerate()
        {
            let schedule = s.schedule(problem, &mut RunContext::new(seed)).unwrap();
            assert!(schedule.validate(problem).is_empty());
            out[k].push(schedule.makespan());
        }
        let mut plan = vec![GpuId::new(0); problem.n_tasks()];
        feasible.random_plan(&mut whale_rng(seed, 0, 0), &mut plan);
        out[3].push(eval.makespan(&plan));
    }
    out
}

/// A layered DAG (generator defaults: CCR 1 at 10 Gbit/s) on 16 GPUs of the PAI mix
/// (5 K80s at effective speed 0.096, 5 P100s, 3 T4s, 3 V100s for seed 1).
fn problem(n: usize, seed: u64) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(16, seed).unwrap())).unwrap()
}

/// Measured (seeds 0..10; mean ± std of the makespan, s):
///
/// | tasks | RTGS (look-ahead) | RTGS (authors' decoder) | plain WOA | random plan | LB |
/// |---|---|---|---|---|---|
/// | 200 | 9295 ± 697 | 11506 ± 576 | 4112 ± 235 | 15247 ± 1945 | 1609 |
/// | 500 | 27396 ± 1427 | 29663 ± 920 | 9202 ± 1240 | 33934 ± 1645 | 3853 |
///
/// (350 tasks: 18753 ± 1406, 21776 ± 926, 7117 ± 1473, 24490 ± 1362. With CCR 0 the picture
/// is the same: 200 tasks 8523 / 11343 / 3921 / 15126.) So RTGS beats random plans and the
/// look-ahead beats the authors' decoder, but plain WOA beats both by 2–3× and is not less
/// stable. The authors' decoder compares final running times (hopes) with partial ones, so
/// it piles the first tasks onto one GPU and its search rarely leaves its best initial plan;
/// the look-ahead fixes the decoding but the running-time representation still loses which
/// GPU a task is on, which matters most here (K80s are 10× slower than V100s).
#[test]
fn rtgs_beats_random_plans_and_the_authors_decoder_but_not_plain_woa() {
    for (n, seed) in [(200, 1), (500, 3)] {
        let p = problem(n, seed);
        let [rtgs, authors, woa, random] = makespans(&p);
        let (rm, rs) = mean_std(&rtgs);
        let (am, as_) = mean_std(&authors);
        let (wm, ws) = mean_std(&woa);
        let (qm, qs) = mean_std(&random);
        println!(
            "n={n}: RTGS {rm:.1} ± {rs:.1}  authors {am:.1} ± {as_:.1}  WOA {wm:.1} ± {ws:.1}  \
             random {qm:.1} ± {qs:.1}  LB {:.1}",
            p.lower_bound().value
        );
        // Measured ratios to the random plan: 0.61 (200 tasks), 0.81 (500).
        assert!(rm < 0.9 * qm, "n={n}: RTGS {rm} vs random {qm}");
        // Measured ratios to the authors' decoder: 0.81, 0.92.
        assert!(rm < 0.97 * am, "n={n}: RTGS {rm} vs authors' decoder {am}");
        // The finding: plain WOA is better (measured ratios 0.44, 0.34). Update this line
        // when RTGS improves.
        assert!(wm < 0.6 * rm, "n={n}: WOA {wm} vs RTGS {rm}");
    }
}
