//! List schedulers at scale: near-linear in the number of tasks.
//!
//! * HEFT, CPOP and PEFT on a 100,000-task chain and on a 100,000-task Alibaba-like workload
//!   (`generators::alibaba_like`, jobs added until 100,000 tasks or more), each on 50 PAI-mix
//!   GPUs (`presets::pai_mix(50, 2)`). Target: each under 0.5 s.
//! * Min-Min and Max-Min on a star: one root and 50,000 children of equal work (every child
//!   is ready at once and all prefer the same GPUs, the worst case of batch-mode heuristics),
//!   on the same 50 GPUs. Target: each under 2 s. Interchangeable children share one EFT row
//!   (see `schedulers::list::batch`), so this is fast; children of pairwise distinct works
//!   are not interchangeable, and the batch rules stay quadratic there: a star of 10,000
//!   such children is measured too (the known limit; 20,000 take about 4x as long).
//!
//! Each input is timed once before criterion's samples (`one run: ... s` on stderr), so that
//! a quick look needs no full benchmark run.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl::cluster::{Problem, presets};
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::dag::generators::shapes;
use worl::dag::{Workload, WorkloadBuilder};
use worl::sched::{Registry, RunContext};

const GPUS: usize = 50;

fn on_cluster(w: Workload) -> Problem {
    let cluster = presets::pai_mix(GPUS, 2).unwrap();
    Problem::new(Arc::new(w), Arc::new(cluster)).unwrap()
}

/// The smallest Alibaba-like workload (seed 1) with at least `tasks` tasks.
fn alibaba(tasks: usize) -> Workload {
    let mut jobs = tasks / 10;
    loop {
        let w = alibaba_like(&AlibabaLikeParams::new(jobs), 1).unwrap();
        if w.graph().n_tasks() >= tasks {
            return w;
        }
        jobs += jobs / 10 + 1;
    }
}

/// One root with `children` children and 64 MB edges; children of equal work (100 GFLOP), or
/// of distinct works (`100 + i/1000`: no two children are interchangeable).
fn star(children: usize, distinct: bool) -> Workload {
    let mut b = WorkloadBuilder::new("star");
    let j = b.add_job("job").unwrap();
    let root = b.add_task(j, "root", 100.0, None).unwrap();
    for i in 0..children {
        let work = if distinct {
            100.0 + i as f64 * 1e-3
        } else {
            100.0
        };
        let t = b.add_task(j, format!("c{i}"), work, None).unwrap();
        b.add_edge(root, t, 64e6).unwrap();
    }
    b.build().unwrap()
}

fn group(c: &mut Criterion, name: &str, p: &Problem, specs: &[&str]) {
    let registry = Registry::with_builtins();
    eprintln!(
        "{name}: {} tasks, {} edges, {} GPUs",
        p.n_tasks(),
        p.graph().n_edges(),
        p.n_gpus()
    );
    let mut g = c.benchmark_group(name);
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for spec in specs {
        let mut s = registry.build_spec(spec).unwrap();
        let started = Instant::now();
        let schedule = s.schedule(p, &mut RunContext::new(0)).unwrap();
        eprintln!(
            "{name}/{spec}: one run {:.3} s, makespan {:.1} s",
            started.elapsed().as_secs_f64(),
            schedule.makespan()
        );
        g.bench_function(*spec, |b| {
            b.iter(|| s.schedule(black_box(p), &mut RunContext::new(0)).unwrap())
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let list = ["heft", "cpop", "peft"];
    group(
        c,
        "chain_100k_tasks_50_gpus",
        &on_cluster(shapes::chain(100_000, 100.0, 64e6).unwrap()),
        &list,
    );
    group(
        c,
        "alibaba_like_100k_tasks_50_gpus",
        &on_cluster(alibaba(100_000)),
        &list,
    );
    group(
        c,
        "star_50k_children_50_gpus",
        &on_cluster(star(50_000, false)),
        &["min-min", "max-min"],
    );
    group(
        c,
        "star_10k_distinct_children_50_gpus",
        &on_cluster(star(10_000, true)),
        &["min-min", "max-min"],
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
