//! Simulation speed: 100,000 tasks (a layered DAG from `worl_dag::generators::layered`,
//! mean level width 1,000, about 3 parents per task, CCR 1) on 1,000 GPUs (125 DGX-1-style
//! servers of 8 V100s: NVLink inside, InfiniBand EDR between), replaying a round-robin plan
//! (task `i` in topological order on GPU `i mod 1000`, so almost every edge is a transfer)
//! under max-min fair contention and `lognormal:0.3` runtime noise. Only the simulation is
//! timed (not the workload, the cluster or the plan).
//!
//! Target: under 5 s per simulation on 2 cores. A second benchmark times the same run
//! without contention (the event engine alone).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl_cluster::{GpuId, GpuModel, Plan, Problem, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_sim::policies::AsPlanned;
use worl_sim::{Contention, SimConfig, Simulation};

const TASKS: usize = 100_000;
const GPUS: usize = 1_000;

fn problem() -> (Problem, Plan) {
    // Mean level width 100000^0.6 = 1000; one parent plus density x (width − 1) ≈ 2 more.
    let w = layered(&LayeredParams::new(TASKS).fat(0.6).density(0.002), 42).unwrap();
    let c = presets::dgx(GPUS / 8, &GpuModel::v100_16gb()).unwrap();
    let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
    let mut gpu = vec![GpuId::new(0); TASKS];
    for (i, &t) in p.graph().topo_order().iter().enumerate() {
        gpu[t.index()] = GpuId::new(i % GPUS);
    }
    let plan = Plan::in_topo_order(p.graph(), gpu);
    (p, plan)
}

fn config(contention: Contention) -> SimConfig {
    SimConfig {
        noise: "lognormal:0.3".parse().unwrap(),
        contention,
        ..SimConfig::default()
    }
}

fn bench(c: &mut Criterion) {
    let (p, plan) = problem();
    // One run outside criterion, for the numbers of the report.
    for contention in [Contention::Fair, Contention::None] {
        let sim = Simulation::new(&p, config(contention)).unwrap();
        let t0 = Instant::now();
        let r = sim.run(&mut AsPlanned::from_plan(plan.clone()), 1).unwrap();
        eprintln!(
            "{} tasks, {} edges, {} GPUs, contention {contention}: {:.2} s wall; makespan {:.1} s, \
             bytes moved {:.3e}, contention delay {:.3e} s, utilisation {:.3}",
            p.n_tasks(),
            p.graph().n_edges(),
            p.n_gpus(),
            t0.elapsed().as_secs_f64(),
            r.metrics.makespan,
            r.metrics.bytes_moved,
            r.metrics.contention_delay,
            r.metrics.utilisation,
        );
    }
    let mut g = c.benchmark_group("simulate_100k_tasks_1000_gpus");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    for (name, contention) in [
        ("fair_lognormal", Contention::Fair),
        ("no_contention_lognormal", Contention::None),
    ] {
        let sim = Simulation::new(&p, config(contention)).unwrap();
        g.bench_function(name, |b| {
            b.iter(|| {
                let r = sim
                    .run(&mut AsPlanned::from_plan(plan.clone()), black_box(1))
                    .unwrap();
                black_box(r.metrics.makespan)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
