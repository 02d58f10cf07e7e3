//! List-scheduling speed: HEFT on a 10,000-task Alibaba-like workload on 500 GPUs (PAI mix).
//!
//! Workload: `generators::alibaba_like` (job sizes and shapes resampled from the Alibaba
//! cluster-trace-v2018 DAG jobs, CCR 1 at 10 Gbit/s), jobs added until 10,000 tasks or more.
//! Cluster: `presets::pai_mix(500, 2)`. Target: HEFT (insertion) under 1 s. Also measured on
//! the same input: HEFT (append), PEFT, CPOP, Min-Min and Max-Min, and the cost-blind
//! baselines.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use worl::cluster::{Problem, presets};
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::sched::{Registry, RunContext};

/// The smallest Alibaba-like workload (seed 1) with at least `tasks` tasks, on `gpus` GPUs.
fn problem(tasks: usize, gpus: usize) -> Problem {
    let mut jobs = tasks / 10;
    let w = loop {
        let w = alibaba_like(&AlibabaLikeParams::new(jobs), 1).unwrap();
        if w.graph().n_tasks() >= tasks {
            break w;
        }
        jobs += jobs / 10 + 1;
    };
    let cluster = presets::pai_mix(gpus, 2).unwrap();
    Problem::new(Arc::new(w), Arc::new(cluster)).unwrap()
}

fn bench(c: &mut Criterion) {
    let p = problem(10_000, 500);
    eprintln!(
        "input: {} tasks, {} edges, {} jobs, {} GPUs in {} classes",
        p.n_tasks(),
        p.graph().n_edges(),
        p.workload().n_jobs(),
        p.n_gpus(),
        p.n_classes()
    );
    let registry = Registry::with_builtins();
    let mut g = c.benchmark_group("list_schedulers_10k_tasks_500_gpus");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for spec in [
        "heft",
        "heft:policy=append",
        "peft",
        "cpop",
        "min-min",
        "max-min",
        "least-connection",
        "round-robin",
        "random",
    ] {
        let mut s = registry.build_spec(spec).unwrap();
        g.bench_function(spec, |b| {
            b.iter(|| s.schedule(black_box(&p), &mut RunContext::new(0)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
