//! Simulation speed, two workloads on 1,000 GPUs (125 DGX-1-style servers of 8 V100s:
//! NVLink inside, InfiniBand EDR between), each replaying a round-robin plan (task `i` in
//! topological order on GPU `i mod 1000`, so almost every edge is a transfer) under
//! `lognormal:0.3` runtime noise. Only the simulation is timed (not the workload, the
//! cluster or the plan).
//!
//! * `simulate_100k_tasks_1000_gpus`: 100,000 tasks (a layered DAG from
//!   `worl_dag::generators::layered`, mean level width 1,000, about 3 parents per task,
//!   CCR 1), with max-min fair contention and without (the event engine alone). Target:
//!   under 5 s per simulation on 2 cores; not met: exact max-min rates take 6.6 s (median
//!   of 3 one-run timings on 2 shared cores, interleaved with the code before the sorted
//!   initial shares, the packed due-heap keys and the lazy later due times: 7.4 s; 8.8 s
//!   before the share heap's packed keys and early stop; makespan 20,959.7 s and 1.903e16
//!   bytes moved throughout), about 393,000 recomputations visiting 208 classes each of
//!   which 64 change rate; 70 ms without contention.
//! * `simulate_edge_dense_3k_tasks`: 3,000 tasks with about 200,000 edges (mean level width
//!   3000^0.7 ≈ 270, each task of the level above a parent with probability 0.25, CCR 1),
//!   max-min fair contention: thousands of flows at once, the worst case of the flow
//!   network. Target: under 5 s (3.4 s). With `WORL_SIM_BENCH_HUGE=1` the report first
//!   times one run with about 2.2 million edges (width 3000^0.9 ≈ 1350, probability 1;
//!   5.3 min).
//!
//! * `simulate_100k_tasks_20pct_gangs`: the 100,000-task workload with 20 % of its tasks made
//!   gang tasks of 2 to 8 GPUs (span `machine`, perfect scaling, work kept:
//!   `worl_dag::generators::gangs`), each replayed on an explicit set: its round-robin lead
//!   and the next GPUs of the lead's server, cyclically. The engine's gang path (a start
//!   waits for every GPU of the set; one transfer per edge and destination GPU), with
//!   max-min fair contention and without. 7.35 s with fair contention (median of 10 on 2
//!   shared cores; 300,736 edges, 3.40e16 bytes moved, makespan 53,139 s) and 0.20 s
//!   without (makespan 17,761 s).
//!
//! Each group first times one run outside criterion and prints its figures (wall time,
//! makespan, bytes moved, contention delay, utilisation). A positional filter (`cargo bench
//! -p worl-sim --bench simulate -- edge_dense`) skips the other group's set-up too.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl_cluster::{GpuId, GpuModel, Plan, Problem, presets};
use worl_dag::Span;
use worl_dag::generators::gangs::GangAssignment;
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_sim::policies::AsPlanned;
use worl_sim::{Contention, SimConfig, Simulation};

const GPUS: usize = 1_000;

/// The problem of `params` on the 1,000-GPU cluster, and its round-robin plan.
fn problem(params: &LayeredParams) -> (Problem, Plan) {
    let w = layered(params, 42).unwrap();
    let c = presets::dgx(GPUS / 8, &GpuModel::v100_16gb()).unwrap();
    let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
    let mut gpu = vec![GpuId::new(0); p.n_tasks()];
    for (i, &t) in p.graph().topo_order().iter().enumerate() {
        gpu[t.index()] = GpuId::new(i % GPUS);
    }
    let plan = Plan::in_topo_order(p.graph(), gpu);
    (p, plan)
}

/// [`problem`] with 20 % of the tasks gangs of 2 to 8 GPUs (span machine), each on its
/// round-robin lead and the next `g − 1` GPUs of the lead's 8-GPU server, cyclically.
fn gang_problem(params: &LayeredParams) -> (Problem, Plan) {
    let w = layered(params, 42).unwrap();
    let w = GangAssignment::new(0.2, 2..=8, Span::Machine)
        .seed(7)
        .apply(&w)
        .unwrap();
    let c = presets::dgx(GPUS / 8, &GpuModel::v100_16gb()).unwrap();
    let p = Problem::new(Arc::new(w), Arc::new(c)).unwrap();
    let mut gpu = vec![GpuId::new(0); p.n_tasks()];
    for (i, &t) in p.graph().topo_order().iter().enumerate() {
        gpu[t.index()] = GpuId::new(i % GPUS);
    }
    let mut plan = Plan::in_topo_order(p.graph(), gpu.clone());
    for (v, t) in p.graph().tasks() {
        if t.gpus > 1 {
            let lead = gpu[v.index()].index();
            let base = lead / 8 * 8;
            let set = (0..t.gpus as usize)
                .map(|j| GpuId::new(base + (lead % 8 + j) % 8))
                .collect();
            plan = plan.with_set(v, set);
        }
    }
    (p, plan)
}

/// 100,000 tasks: mean level width 100000^0.6 = 1000; one parent plus density x (width − 1)
/// ≈ 2 more.
fn layered_100k() -> LayeredParams {
    LayeredParams::new(100_000).fat(0.6).density(0.002)
}

/// 3,000 tasks, mean level width `3000^fat`, one parent in the level above plus each other
/// task of that level with probability `density`: about `3000 × density × 3000^fat` edges.
fn edge_dense(fat: f64, density: f64) -> LayeredParams {
    LayeredParams::new(3_000).fat(fat).density(density)
}

fn config(contention: Contention) -> SimConfig {
    SimConfig {
        noise: "lognormal:0.3".parse().unwrap(),
        contention,
        ..SimConfig::default()
    }
}

/// Times one run of `plan` on `p` and prints its figures.
fn report(p: &Problem, plan: &Plan, contention: Contention) {
    let sim = Simulation::new(p, config(contention)).unwrap();
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

/// Whether the command line's positional filters (if any) select group `name` (substring
/// match; criterion applies its own filter to the benchmark ids afterwards).
fn wanted(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

fn run_group(
    c: &mut Criterion,
    group: &str,
    p: &Problem,
    plan: &Plan,
    cases: &[(&str, Contention)],
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    for &(name, contention) in cases {
        let sim = Simulation::new(p, config(contention)).unwrap();
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

/// Reports `(p, plan)` with fair and without contention, then benches both as `group`
/// (`fair_lognormal`, `no_contention_lognormal`).
fn fair_and_none(c: &mut Criterion, group: &str, (p, plan): &(Problem, Plan)) {
    for contention in [Contention::Fair, Contention::None] {
        report(p, plan, contention);
    }
    let cases = [
        ("fair_lognormal", Contention::Fair),
        ("no_contention_lognormal", Contention::None),
    ];
    run_group(c, group, p, plan, &cases);
}

fn bench(c: &mut Criterion) {
    let group = "simulate_100k_tasks_1000_gpus";
    if wanted(group) {
        fair_and_none(c, group, &problem(&layered_100k()));
    }
    let group = "simulate_100k_tasks_20pct_gangs";
    if wanted(group) {
        fair_and_none(c, group, &gang_problem(&layered_100k()));
    }
    let group = "simulate_edge_dense_3k_tasks";
    if wanted(group) {
        if std::env::var_os("WORL_SIM_BENCH_HUGE").is_some() {
            let (p, plan) = problem(&edge_dense(0.9, 1.0));
            report(&p, &plan, Contention::Fair);
        }
        let (p, plan) = problem(&edge_dense(0.7, 0.25));
        report(&p, &plan, Contention::Fair);
        let cases = [("fair_lognormal_200k_edges", Contention::Fair)];
        run_group(c, group, &p, &plan, &cases);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
