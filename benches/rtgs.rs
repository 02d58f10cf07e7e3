//! RTGS speed: whole runs (30 whales × 100 iterations) on 1,000 tasks / 50 GPUs and 10,000
//! tasks / 500 GPUs (PAI GPU mix, layered DAGs), and one greedy decoding of each size.
//!
//! Target: the 1,000-task run under 2 s on a 2-core machine.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use worl_cluster::{Problem, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_rtgs::RunContext;
use worl_rtgs::schedulers::rtgs::{
    DecodeInput, FeasibleGpus, GreedyDecoder, Lookahead, PlanDecoder, RtgsConfig, RtgsWhale,
    run_rtgs,
};
use worl_rtgs::worl_woa::{Move, MoveKind, whale_rng};

fn problem(n: usize, m: usize) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), 1).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(m, 1).unwrap())).unwrap()
}

/// One decoding of a hope vector: the leader's running times perturbed by ±30 % per task.
fn bench_decode(c: &mut Criterion, p: &Problem, name: &str) {
    let feasible = FeasibleGpus::new(p);
    let mut gpu = vec![worl_cluster::GpuId::new(0); p.n_tasks()];
    feasible.random_plan(&mut whale_rng(1, 0, 0), &mut gpu);
    let target = RtgsWhale::from_assignment(p, gpu);
    let mut hope = Vec::new();
    target.rt_vector(&mut hope);
    for (v, h) in hope.iter_mut().enumerate() {
        *h *= if v % 2 == 0 { 1.3 } else { 0.7 };
    }
    let mv = Move::new(MoveKind::Encircle, 1.0, 0.3, 1.0, 0.0, 1.0);
    let mut g = c.benchmark_group(format!("greedy_decode_{name}"));
    for lookahead in [Lookahead::Target, Lookahead::None] {
        let d = GreedyDecoder::new(p, lookahead);
        let mut scratch = d.scratch();
        let mut out = vec![worl_cluster::GpuId::new(0); p.n_tasks()];
        let input = DecodeInput {
            problem: p,
            order: p.graph().topo_order(),
            hope: &hope,
            whale: &target,
            target: &target,
            mv: &mv,
        };
        let mut rng = whale_rng(0, 0, 0);
        g.bench_function(format!("{lookahead:?}"), |b| {
            b.iter(|| d.decode(black_box(&input), &mut rng, &mut scratch, &mut out))
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let small = problem(1_000, 50);
    bench_decode(c, &small, "1k_tasks_50_gpus");
    let config = RtgsConfig::default();
    let mut g = c.benchmark_group("rtgs_30x100");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("1k_tasks_50_gpus", |b| {
        b.iter(|| {
            let d = GreedyDecoder::new(&small, Lookahead::Target);
            run_rtgs(&small, d, &config, &mut RunContext::new(1)).unwrap()
        })
    });
    g.finish();

    let large = problem(10_000, 500);
    bench_decode(c, &large, "10k_tasks_500_gpus");
    let mut g = c.benchmark_group("rtgs_30x100");
    g.sample_size(10).measurement_time(Duration::from_secs(60));
    g.bench_function("10k_tasks_500_gpus", |b| {
        b.iter(|| {
            let d = GreedyDecoder::new(&large, Lookahead::Target);
            run_rtgs(&large, d, &config, &mut RunContext::new(1)).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
