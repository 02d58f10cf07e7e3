//! RTGS speed: whole runs (default configuration: canonical hope, greedy decoder with target
//! look-ahead and EFT window 2, upward-rank order) of 30 whales × 100 iterations on 1,000
//! tasks / 50 GPUs (also the authors' variant) and of 30 × 10 on 10,000 tasks / 500 GPUs
//! (PAI GPU mix, layered DAGs), and one greedy decoding of each size (window 2, no window,
//! the authors' rule).
//!
//! Target: the 1,000-task default run under 2 s on a 2-core machine.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use worl::cluster::{Problem, presets};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::sched::RunContext;
use worl::sched::schedulers::rtgs::{
    DecodeInput, GreedyDecoder, Lookahead, PlanDecoder, RtgsConfig, RtgsWhale, run_rtgs,
};
use worl::sched::schedulers::search::{FeasibleGpus, TaskOrder};
use worl::woa::{Move, MoveKind, whale_rng};

fn problem(n: usize, m: usize) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), 1).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(m, 1).unwrap())).unwrap()
}

/// One decoding of a hope vector: the leader's running times perturbed by ±30 % per task.
fn bench_decode(c: &mut Criterion, p: &Problem, name: &str) {
    let feasible = FeasibleGpus::new(p);
    let mut gpu = vec![worl::cluster::GpuId::new(0); p.n_tasks()];
    feasible.random_plan(&mut whale_rng(1, 0, 0), &mut gpu);
    let target = RtgsWhale::from_assignment(p, gpu);
    let mut hope = Vec::new();
    target.rt_vector(&mut hope);
    for (v, h) in hope.iter_mut().enumerate() {
        *h *= if v % 2 == 0 { 1.3 } else { 0.7 };
    }
    let mv = Move::new(MoveKind::Encircle, 1.0, 0.3, 1.0, 0.0, 1.0);
    let rank = TaskOrder::UpwardRank.tasks(p);
    let mut g = c.benchmark_group(format!("greedy_decode_{name}"));
    for (label, lookahead, window) in [
        ("target_window2", Lookahead::Target, 2.0),
        ("target", Lookahead::Target, 0.0),
        ("authors", Lookahead::None, 0.0),
    ] {
        let d = GreedyDecoder::new(p, lookahead).with_window(window, worl::cluster::Policy::Append);
        let mut scratch = d.scratch();
        let mut out = vec![worl::cluster::GpuId::new(0); p.n_tasks()];
        let input = DecodeInput {
            problem: p,
            order: &rank,
            hope: &hope,
            whale: &target,
            target: &target,
            mv: &mv,
        };
        let mut rng = whale_rng(0, 0, 0);
        g.bench_function(label, |b| {
            b.iter(|| d.decode(black_box(&input), &mut rng, &mut scratch, &mut out))
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let small = problem(1_000, 50);
    bench_decode(c, &small, "1k_tasks_50_gpus");
    let config = RtgsConfig::default();
    let authors = RtgsConfig::paper();
    let mut g = c.benchmark_group("rtgs_30x100");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("1k_tasks_50_gpus", |b| {
        b.iter(|| {
            let d = config.greedy_decoder(&small);
            run_rtgs(&small, d, &config, &mut RunContext::new(1)).unwrap()
        })
    });
    g.bench_function("1k_tasks_50_gpus_authors", |b| {
        b.iter(|| {
            let d = authors.greedy_decoder(&small);
            run_rtgs(&small, d, &authors, &mut RunContext::new(1)).unwrap()
        })
    });
    g.finish();

    // 10k tasks: 10 iterations (a default 30 × 100 run takes about 40 s, the authors'
    // about 9 s; criterion needs 10 of them).
    let large = problem(10_000, 500);
    bench_decode(c, &large, "10k_tasks_500_gpus");
    let short = RtgsConfig {
        iterations: 10,
        ..RtgsConfig::default()
    };
    let mut g = c.benchmark_group("rtgs_30x10");
    g.sample_size(10).measurement_time(Duration::from_secs(60));
    g.bench_function("10k_tasks_500_gpus", |b| {
        b.iter(|| {
            let d = short.greedy_decoder(&large);
            run_rtgs(&large, d, &short, &mut RunContext::new(1)).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
