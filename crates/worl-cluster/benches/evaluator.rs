//! Plan evaluation speed: a 10,000-task layered DAG on 500 GPUs (PAI GPU mix: one
//! inter-machine link; and the paper's pool: random links per machine pair).
//!
//! Target: one append evaluation (makespan fast path) under 0.3 ms (30 ns per task).

use criterion::{Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::sync::Arc;
use worl_cluster::{Evaluator, GpuId, Plan, Policy, Problem, presets};
use worl_dag::{TaskId, Workload, WorkloadBuilder};

/// `layers × width` tasks; each task past the first layer has 1–3 parents in the previous
/// layer; work 1–100 reference GPU-seconds, edges 1 MB–1 GB.
fn layered_dag(layers: usize, width: usize, seed: u64) -> Workload {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = WorkloadBuilder::new("layered");
    let j = b.add_job("j").unwrap();
    let mut prev: Vec<TaskId> = Vec::new();
    for l in 0..layers {
        let mut cur = Vec::with_capacity(width);
        for i in 0..width {
            let t = b
                .add_task(j, format!("L{l}_{i}"), rng.random_range(1.0..100.0), None)
                .unwrap();
            if !prev.is_empty() {
                let k = rng.random_range(1..=3usize);
                let first = rng.random_range(0..prev.len());
                for d in 0..k {
                    let p = prev[(first + d * 7) % prev.len()];
                    b.add_edge(p, t, rng.random_range(1.0e6..1.0e9)).unwrap();
                }
            }
            cur.push(t);
        }
        prev = cur;
    }
    b.build().unwrap()
}

fn bench(c: &mut Criterion) {
    let w = Arc::new(layered_dag(100, 100, 1));
    let cluster = Arc::new(presets::pai_mix(500, 2).unwrap());
    let p = Problem::new(w, cluster).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let gpu = (0..p.n_tasks())
        .map(|_| GpuId::new(rng.random_range(0..p.n_gpus())))
        .collect();
    let plan = Plan::in_topo_order(p.graph(), gpu);
    let mut ev = Evaluator::new(&p);
    let mut g = c.benchmark_group("evaluate_10k_tasks_500_gpus");
    g.bench_function("append_makespan", |b| {
        b.iter(|| ev.makespan(black_box(&plan), Policy::Append).unwrap())
    });
    g.bench_function("insertion_makespan", |b| {
        b.iter(|| ev.makespan(black_box(&plan), Policy::Insertion).unwrap())
    });
    g.bench_function("append_schedule", |b| {
        b.iter(|| ev.schedule(black_box(&plan), Policy::Append).unwrap())
    });
    g.bench_function("insertion_schedule", |b| {
        b.iter(|| ev.schedule(black_box(&plan), Policy::Insertion).unwrap())
    });
    g.finish();

    // The paper's pool: 500 single-GPU machines with random links (a full 500 × 500 link
    // matrix instead of one inter-machine link).
    let p = Problem::new(
        p.workload_arc().clone(),
        Arc::new(presets::paper_pool(500, 2000.0, 2).unwrap()),
    )
    .unwrap();
    let mut ev = Evaluator::new(&p);
    let mut g = c.benchmark_group("evaluate_10k_tasks_500_gpus_random_links");
    g.bench_function("append_makespan", |b| {
        b.iter(|| ev.makespan(black_box(&plan), Policy::Append).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
