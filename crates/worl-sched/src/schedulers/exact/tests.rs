//! Tests of the exact scheduler: against brute-force enumeration on tiny random problems,
//! hand-computed optima, validity and the lower bound, reproducibility, budgets.

use super::bound::{Instance, NONE, water_fill};
use super::{Exact, ExactOutcome};
use crate::options::Options;
use crate::scheduler::{Budget, RunContext, Scheduler};
use crate::schedulers::list::{Heft, Peft};
use crate::testing::all_sets;
use ndarray::Array2;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;
use worl_cluster::{
    Cluster, ClusterBuilder, GpuId, GpuModel, Link, Network, PartialSchedule, Policy, Problem,
};
use worl_dag::{GangParams, Span, TaskId, WorkloadBuilder};

/// Edges `i -> j` (`i < j`) among `ids` with probability 0.4, of `ccr · 5e9 · [0.5, 1.5)`
/// bytes: a communication time of about `ccr · 5` s at 1 GB/s.
fn random_edges(b: &mut WorkloadBuilder, ids: &[TaskId], ccr: f64, rng: &mut impl Rng) {
    for v in 0..ids.len() {
        for u in 0..v {
            if rng.random_bool(0.4) {
                let bytes = ccr * 5.0e9 * rng.random_range(0.5..1.5);
                b.add_edge(ids[u], ids[v], bytes).unwrap();
            }
        }
    }
}

/// The speed and memory (GiB) of GPU `k`: 1 and 32 when `identical`, else a speed from
/// {0.5, 1, 1, 2} and 32 or 8 GiB (GPU 0 always 32).
fn random_speed_mem(identical: bool, k: usize, rng: &mut impl Rng) -> (f64, f64) {
    if identical {
        (1.0, 32.0)
    } else {
        let speed = [0.5, 1.0, 1.0, 2.0][rng.random_range(0..4)];
        let mem = if k == 0 || rng.random_bool(0.5) {
            32.0
        } else {
            8.0
        };
        (speed, mem)
    }
}

/// Busy windows on GPU 0 and on each other GPU of `cluster` with probability 1/2: 1 to 3
/// windows, the first from `[0, 20)` s, each 1 to 15 s long and 0 to 15 s apart.
fn random_windows(cluster: &mut Cluster, rng: &mut impl Rng) {
    for k in 0..cluster.n_gpus() {
        if k == 0 || rng.random_bool(0.5) {
            let mut at = rng.random_range(0.0..20.0);
            let busy = (0..rng.random_range(1..=3))
                .map(|_| {
                    let from = at;
                    at = from + rng.random_range(1.0..15.0);
                    let window = (from, at);
                    at += rng.random_range(0.0..15.0);
                    window
                })
                .collect();
            cluster.set_busy(GpuId::new(k), busy).unwrap();
        }
    }
}

/// A random problem of `1..=max_n` tasks on `1..=max_m` GPUs: edges `i -> j` (`i < j`) with
/// probability 0.4, work in `[1, 10)` (5 % of tasks take no time), a fifth of the tasks
/// needing 14 GiB, CCR drawn from {0.1, 1, 10}; GPUs of speeds {0.5, 1, 1, 2} and memory
/// {8, 32} GiB (GPU 0 always 32) spread over random machines; per-machine-pair links of random
/// bandwidth and latency, or (a third of the problems) identical GPUs on a uniform network;
/// ready times and background load on some; unrelated execution times on a quarter.
fn random_problem(seed: u64, max_n: usize, max_m: usize) -> Problem {
    random_problem_windows(seed, max_n, max_m, false)
}

/// [`random_problem`] with, when `windows`, busy windows on GPU 0 and on each other GPU
/// with probability 1/2: 1 to 3 windows, the first from `[0, 20)` s, each 1 to 15 s long
/// and 0 to 15 s apart (inside the schedules of these problems), drawn from their own
/// stream so that everything else is [`random_problem`]'s.
fn random_problem_windows(seed: u64, max_n: usize, max_m: usize, windows: bool) -> Problem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.random_range(1..=max_n);
    let m = rng.random_range(1..=max_m);
    let ccr = [0.1, 1.0, 10.0][rng.random_range(0..3)];
    let mut b = WorkloadBuilder::new("tiny");
    let j = b.add_job("j").unwrap();
    let ids: Vec<TaskId> = (0..n)
        .map(|i| {
            let work = if rng.random_bool(0.05) {
                0.0
            } else {
                rng.random_range(1.0..10.0)
            };
            let mem = rng.random_bool(0.2).then_some(14.0);
            b.add_task(j, format!("t{i}"), work, mem).unwrap()
        })
        .collect();
    random_edges(&mut b, &ids, ccr, &mut rng);
    let w = Arc::new(b.build().unwrap());
    let identical = rng.random_bool(1.0 / 3.0);
    let mut cb = ClusterBuilder::new("tiny");
    let n_machines = rng.random_range(1..=m);
    let machines: Vec<_> = (0..n_machines)
        .map(|a| cb.add_machine(format!("n{a}")))
        .collect();
    let with_ready = rng.random_bool(0.4);
    let with_background = rng.random_bool(0.3);
    for k in 0..m {
        let (speed, mem) = random_speed_mem(identical, k, &mut rng);
        let model = GpuModel::custom(format!("g{speed}-{mem}"), speed, mem).unwrap();
        let machine = machines[if identical {
            k % n_machines
        } else {
            rng.random_range(0..n_machines)
        }];
        let g = cb.add_gpu(machine, &model).unwrap();
        if with_ready {
            cb.set_ready_time(g, [0.0, 0.0, 3.0][rng.random_range(0..3)])
                .unwrap();
        }
        if with_background && !identical {
            cb.set_background(g, rng.random_range(0.0..0.5)).unwrap();
        }
    }
    if identical {
        cb.network(Network::uniform(
            Link::new(4.0e9, 0.0).unwrap(),
            Link::new(1.0e9, 0.1).unwrap(),
        ));
    } else {
        let links: Vec<Link> = (0..n_machines * n_machines)
            .map(|_| Link::new(rng.random_range(0.5e9..2.0e9), rng.random_range(0.0..0.5)).unwrap())
            .collect();
        cb.network(Network::from_fn(n_machines, |a, b| {
            links[a * n_machines + b]
        }));
    }
    let mut cluster = cb.build().unwrap();
    if windows {
        random_windows(&mut cluster, &mut ChaCha8Rng::seed_from_u64(seed ^ 0x21));
    }
    let cluster = Arc::new(cluster);
    if !identical && rng.random_bool(0.25) {
        let exec = Array2::from_shape_fn((n, m), |(v, _)| {
            w.graph().task(TaskId::new(v)).work * rng.random_range(0.2..5.0)
        });
        Problem::with_exec_times(w, cluster, exec).unwrap()
    } else {
        Problem::new(w, cluster).unwrap()
    }
}

/// The optimum over every topological order × GPU assignment, each task placed at its
/// earliest start under `policy` (an enumeration independent of the branch-and-bound: it
/// uses `PartialSchedule` and no reduction or bound).
fn brute_force(p: &Problem, policy: Policy) -> f64 {
    fn rec(p: &Problem, s: &PartialSchedule<'_>, policy: Policy, best: &mut f64) {
        if s.is_complete() {
            *best = best.min(s.makespan());
            return;
        }
        for v in p.graph().task_ids() {
            if s.is_placed(v) || p.graph().preds(v).iter().any(|nb| !s.is_placed(nb.task)) {
                continue;
            }
            for k in p.cluster().gpu_ids() {
                if !p.fits(v, k) {
                    continue;
                }
                let mut c = s.clone();
                c.place(v, k, policy).unwrap();
                rec(p, &c, policy, best);
            }
        }
    }
    let mut best = f64::INFINITY;
    rec(p, &PartialSchedule::new(p), policy, &mut best);
    best
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
}

fn solve(p: &Problem) -> ExactOutcome {
    Exact::new().solve(p, &mut RunContext::new(7)).unwrap()
}

fn heft_makespan(p: &Problem) -> f64 {
    Heft::new()
        .schedule(p, &mut RunContext::new(0))
        .unwrap()
        .makespan()
}

#[test]
fn matches_brute_force_optimum_on_100_tiny_random_problems() {
    let (mut beaten_heft, mut with_twins, mut proven_by_search) = (0, 0, 0);
    for seed in 0..100 {
        let p = random_problem(seed, 6, 3);
        let out = solve(&p);
        let append = brute_force(&p, Policy::Append);
        let insertion = brute_force(&p, Policy::Insertion);
        assert!(out.proven_optimal, "seed {seed}");
        assert!(
            close(out.schedule.makespan(), append),
            "seed {seed}: exact {} vs brute force {append}",
            out.schedule.makespan()
        );
        // Insertion-decoded schedules are feasible and reach the same optimum.
        assert!(
            close(insertion, append),
            "seed {seed}: {insertion} vs {append}"
        );
        assert!(out.schedule.validate(&p).is_empty(), "seed {seed}");
        assert_eq!(out.lower_bound, out.schedule.makespan());
        beaten_heft += usize::from(out.schedule.makespan() < heft_makespan(&p) * (1.0 - 1e-9));
        with_twins += usize::from(Instance::new(&p).prev_twin.iter().any(|&t| t != NONE));
        proven_by_search += usize::from(out.nodes > 0);
    }
    // The sample exercises what it should: HEFT is suboptimal on some problems, GPU
    // symmetry occurs, and most proofs need a search.
    assert!(beaten_heft >= 5, "{beaten_heft}");
    assert!(with_twins >= 10, "{with_twins}");
    assert!(proven_by_search >= 20, "{proven_by_search}");
}

#[test]
fn matches_brute_force_optimum_with_busy_windows_on_100_tiny_random_problems() {
    // Windows only delay, and a left-shifted schedule still starts every task at the
    // earliest point past its GPU's windows, so the append search stays exact: it equals
    // the enumeration of every order × assignment under append and under insertion.
    let (mut delayed, mut beaten_heft, mut proven_by_search) = (0, 0, 0);
    for seed in 0..100 {
        let p = random_problem_windows(seed, 6, 3, true);
        assert!(p.has_windows());
        let out = solve(&p);
        let append = brute_force(&p, Policy::Append);
        let insertion = brute_force(&p, Policy::Insertion);
        assert!(out.proven_optimal, "seed {seed}");
        assert!(
            close(out.schedule.makespan(), append),
            "seed {seed}: exact {} vs brute force {append}",
            out.schedule.makespan()
        );
        assert!(
            close(insertion, append),
            "seed {seed}: {insertion} vs {append}"
        );
        assert_eq!(out.schedule.validate(&p), vec![], "seed {seed}");
        assert!(out.schedule.makespan() >= p.lower_bound().value * (1.0 - 1e-12));
        // the windows matter: the optimum without them is smaller on some problems
        let free = random_problem_windows(seed, 6, 3, false);
        assert!(!free.has_windows());
        let without = brute_force(&free, Policy::Append);
        assert!(without <= append * (1.0 + 1e-12), "seed {seed}");
        delayed += usize::from(without < append * (1.0 - 1e-9));
        beaten_heft += usize::from(out.schedule.makespan() < heft_makespan(&p) * (1.0 - 1e-9));
        proven_by_search += usize::from(out.nodes > 0);
    }
    assert!(delayed >= 30, "{delayed}");
    assert!(beaten_heft >= 5, "{beaten_heft}");
    assert!(proven_by_search >= 20, "{proven_by_search}");
}

#[test]
fn twin_gpus_need_equal_busy_windows() {
    let p = random_problem_on(vec![(1.0, 0.0); 3], None);
    let mut c = p.cluster().clone();
    c.set_busy(GpuId::new(1), vec![(1.0, 2.0)]).unwrap();
    let q = Problem::new(Arc::clone(p.workload_arc()), Arc::new(c.clone())).unwrap();
    assert_eq!(Instance::new(&q).prev_twin, vec![NONE, NONE, 0]);
    // equal windows keep the twins
    c.set_busy(GpuId::new(0), vec![(1.0, 2.0)]).unwrap();
    let q = Problem::new(Arc::clone(p.workload_arc()), Arc::new(c)).unwrap();
    assert_eq!(Instance::new(&q).prev_twin, vec![NONE, 0, NONE]);
}

#[test]
fn hand_computed_chain_waits_for_a_window() {
    // A chain a (2 s) -> b (3 s) of 0 bytes on one GPU busy over [1, 4) and [6, 7):
    // a meets [1, 4) at 0, so it runs [4, 6); b then meets [6, 7) and runs [7, 10).
    let mut w = WorkloadBuilder::new("w");
    let j = w.add_job("j").unwrap();
    let a = w.add_task(j, "a", 2.0, None).unwrap();
    let b = w.add_task(j, "b", 3.0, None).unwrap();
    w.add_edge(a, b, 0.0).unwrap();
    let mut cb = ClusterBuilder::new("c");
    let m = cb.add_machine("n0");
    let g = cb
        .add_gpu(m, &GpuModel::custom("s1", 1.0, 16.0).unwrap())
        .unwrap();
    cb.add_busy(g, 1.0, 4.0).unwrap();
    cb.add_busy(g, 6.0, 7.0).unwrap();
    let p = Problem::new(Arc::new(w.build().unwrap()), Arc::new(cb.build().unwrap())).unwrap();
    let out = solve(&p);
    assert!(out.proven_optimal);
    let t = out.schedule.tasks();
    assert_eq!((t[0].start, t[0].finish), (4.0, 6.0));
    assert_eq!((t[1].start, t[1].finish), (7.0, 10.0));
    assert_eq!(out.schedule.makespan(), 10.0);
}

/// Two GPUs on two machines, link 1 B/s without latency (communication time = bytes),
/// unrelated execution times `times` (rows: tasks; columns: GPUs).
fn two_gpu_problem(
    n: usize,
    edges: &[(usize, usize, f64)],
    times: Option<Array2<f64>>,
    work: &[f64],
) -> Problem {
    let mut b = WorkloadBuilder::new("hand");
    let j = b.add_job("j").unwrap();
    let ids: Vec<TaskId> = (0..n)
        .map(|i| b.add_task(j, format!("t{i}"), work[i], None).unwrap())
        .collect();
    for &(u, v, bytes) in edges {
        b.add_edge(ids[u], ids[v], bytes).unwrap();
    }
    let w = Arc::new(b.build().unwrap());
    let mut cb = ClusterBuilder::new("two");
    let model = GpuModel::custom("unit", 1.0, 32.0).unwrap();
    for a in 0..2 {
        let mach = cb.add_machine(format!("n{a}"));
        cb.add_gpu(mach, &model).unwrap();
    }
    let one = Link::new(1.0, 0.0).unwrap();
    cb.network(Network::uniform(one, one));
    let c = Arc::new(cb.build().unwrap());
    match times {
        Some(t) => Problem::with_exec_times(w, c, t).unwrap(),
        None => Problem::new(w, c).unwrap(),
    }
}

#[test]
fn hand_computed_chain_where_heft_is_not_optimal() {
    // a -> b, 5 bytes (5 s between GPUs). exec: a = (1, 3), b = (10, 2) on (G0, G1).
    // HEFT: a on G0 (EFT 1 < 3); b on G0 ends 1 + 10 = 11, on G1 1 + 5 + 2 = 8: makespan 8.
    // Every assignment: (G0, G0) 11, (G0, G1) 8, (G1, G0) 3 + 5 + 10 = 18, (G1, G1)
    // 3 + 2 = 5. The optimum is 5: both on G1.
    let times = Array2::from_shape_vec((2, 2), vec![1.0, 3.0, 10.0, 2.0]).unwrap();
    let p = two_gpu_problem(2, &[(0, 1, 5.0)], Some(times), &[1.0, 1.0]);
    assert_eq!(heft_makespan(&p), 8.0);
    let out = solve(&p);
    assert!(out.proven_optimal);
    assert_eq!(out.schedule.makespan(), 5.0);
    assert_eq!(out.schedule.task(TaskId::new(0)).gpu, GpuId::new(1));
    assert_eq!(out.schedule.task(TaskId::new(1)).gpu, GpuId::new(1));
}

#[test]
fn hand_computed_fork_join_on_identical_gpus() {
    // a -> b, a -> c, b -> d, c -> d, every edge 1 byte (1 s between GPUs); exec a = 2,
    // b = c = 3, d = 1 on two identical GPUs.
    // * b and c on one GPU: they run one after the other after a: d ends >= 2 + 3 + 3 + 1 = 9.
    // * b and c apart: one of them, say c, is not on a's GPU: it starts >= 2 + 1 = 3 and
    //   ends >= 6; b on a's GPU ends >= 5. d on c's GPU waits for b's data: start
    //   >= max(5 + 1, 6) = 6, end 7; on b's GPU it waits for c's: start >= 6 + 1, end 8.
    // The optimum is 7: a, b on G0 (0-2, 2-5), c on G1 (3-6), d on G1 (6-7).
    let p = two_gpu_problem(
        4,
        &[(0, 1, 1.0), (0, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)],
        None,
        &[2.0, 3.0, 3.0, 1.0],
    );
    // The two GPUs are twins.
    assert_eq!(Instance::new(&p).prev_twin, vec![NONE, 0]);
    let out = solve(&p);
    assert!(out.proven_optimal);
    assert_eq!(out.schedule.makespan(), 7.0);
    assert_eq!(out.lower_bound, 7.0);
    let s = &out.schedule;
    let [a, b, c, d] = [0, 1, 2, 3].map(|i| *s.task(TaskId::new(i)));
    // symmetry keeps the first task on G0
    assert_eq!((a.gpu, a.start, a.finish), (GpuId::new(0), 0.0, 2.0));
    assert_ne!(b.gpu, c.gpu);
    assert_eq!((d.start, d.finish), (6.0, 7.0));
}

#[test]
fn twin_gpus_need_equal_ready_times_and_links() {
    // Identical GPUs with equal ready times are twins: each points to the previous one.
    let p = random_problem_on(vec![(1.0, 0.0); 3], None);
    assert_eq!(Instance::new(&p).prev_twin, vec![NONE, 0, 1]);
    // A different ready time breaks the symmetry of that GPU only.
    let p = random_problem_on(vec![(1.0, 0.0), (1.0, 5.0), (1.0, 0.0)], None);
    assert_eq!(Instance::new(&p).prev_twin, vec![NONE, NONE, 0]);
    // So does a different speed.
    let p = random_problem_on(vec![(1.0, 0.0), (2.0, 0.0), (1.0, 0.0)], None);
    assert_eq!(Instance::new(&p).prev_twin, vec![NONE, NONE, 0]);
    // GPUs 0 and 1 share a machine, GPU 2 is alone: 0 and 1 are twins (both reach 2 over
    // the inter link and each other over the intra link); 2 differs (it reaches both over
    // the inter link).
    let p = random_problem_on(vec![(1.0, 0.0); 3], Some(vec![0, 0, 1]));
    assert_eq!(Instance::new(&p).prev_twin, vec![NONE, 0, NONE]);
}

/// A 4-task chain on GPUs `(speed, ready time)`, each on machine `machine_of[k]` (default:
/// its own), uniform network.
fn random_problem_on(gpus: Vec<(f64, f64)>, machine_of: Option<Vec<usize>>) -> Problem {
    let w = Arc::new(worl_dag::generators::shapes::chain(4, 2.0, 1.0e9).unwrap());
    let mut cb = ClusterBuilder::new("c");
    let machine_of = machine_of.unwrap_or_else(|| (0..gpus.len()).collect());
    let n_machines = machine_of.iter().max().unwrap() + 1;
    let machines: Vec<_> = (0..n_machines)
        .map(|a| cb.add_machine(format!("n{a}")))
        .collect();
    for (k, &(speed, ready)) in gpus.iter().enumerate() {
        let model = GpuModel::custom(format!("s{speed}"), speed, 16.0).unwrap();
        let g = cb.add_gpu(machines[machine_of[k]], &model).unwrap();
        cb.set_ready_time(g, ready).unwrap();
    }
    cb.network(Network::uniform(
        Link::new(4.0e9, 0.0).unwrap(),
        Link::new(1.0e9, 0.1).unwrap(),
    ));
    Problem::new(w, Arc::new(cb.build().unwrap())).unwrap()
}

#[test]
fn water_fill_hand_cases() {
    // 12 units on rates 1 and 2 from 0: 12 / 3 = 4
    assert_eq!(water_fill(12.0, &mut [(0.0, 1.0), (0.0, 2.0)]), 4.0);
    // 14 units, GPUs free at 10 and 0: 10 by the second until 10, 4 more on both: 12
    assert_eq!(water_fill(14.0, &mut [(10.0, 1.0), (0.0, 1.0)]), 12.0);
    // 6 units finish at 6 on the GPU free at 0, before the other is free at 10
    assert_eq!(water_fill(6.0, &mut [(0.0, 1.0), (10.0, 1.0)]), 6.0);
}

/// A 40-task problem on 4 heterogeneous GPUs that no search of a few thousand nodes
/// proves.
fn forty_tasks() -> Problem {
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let mut b = WorkloadBuilder::new("forty");
    let j = b.add_job("j").unwrap();
    let ids: Vec<TaskId> = (0..40)
        .map(|i| {
            b.add_task(j, format!("t{i}"), rng.random_range(1.0..10.0), None)
                .unwrap()
        })
        .collect();
    for v in 0..40usize {
        for u in v.saturating_sub(6)..v {
            if rng.random_bool(0.3) {
                b.add_edge(ids[u], ids[v], rng.random_range(0.5e9..5.0e9))
                    .unwrap();
            }
        }
    }
    let w = Arc::new(b.build().unwrap());
    let mut cb = ClusterBuilder::new("four");
    for (a, speed) in [0.5, 1.0, 1.5, 2.0].into_iter().enumerate() {
        let mach = cb.add_machine(format!("n{a}"));
        cb.add_gpu(
            mach,
            &GpuModel::custom(format!("s{speed}"), speed, 32.0).unwrap(),
        )
        .unwrap();
    }
    cb.network(Network::uniform(
        Link::new(4.0e9, 0.0).unwrap(),
        Link::new(1.0e9, 0.1).unwrap(),
    ));
    Problem::new(w, Arc::new(cb.build().unwrap())).unwrap()
}

#[test]
fn node_budget_on_40_tasks_returns_a_valid_unproven_schedule_no_worse_than_heft_and_peft() {
    let p = forty_tasks();
    let out = Exact::new()
        .with_max_nodes(5_000)
        .solve(&p, &mut RunContext::new(1))
        .unwrap();
    assert!(!out.proven_optimal);
    assert_eq!(out.nodes, 5_000);
    assert!(out.schedule.validate(&p).is_empty());
    let peft = Peft::new()
        .schedule(&p, &mut RunContext::new(0))
        .unwrap()
        .makespan();
    assert!(out.schedule.makespan() <= heft_makespan(&p).min(peft));
    assert!(out.lower_bound >= p.lower_bound().value);
    assert!(out.lower_bound < out.schedule.makespan());
}

#[test]
fn wall_time_and_observer_stop_the_search_unproven() {
    let p = forty_tasks();
    let heft = heft_makespan(&p);
    // No time at all: stopped at the first time check (every 65,536 / (n m²) = 102 nodes).
    let mut ctx = RunContext::new(1).with_budget(Budget {
        max_time: Some(Duration::ZERO),
        ..Budget::default()
    });
    let out = Exact::new().solve(&p, &mut ctx).unwrap();
    assert!(!out.proven_optimal);
    assert_eq!(out.nodes, 102);
    assert!(out.schedule.validate(&p).is_empty());
    assert!(out.schedule.makespan() <= heft);
    // An observer that stops at its first report (every 65,536 nodes).
    let mut calls = 0u32;
    let mut stop = |_: &crate::Progress| {
        calls += 1;
        ControlFlow::Break(())
    };
    let out = {
        let mut ctx = RunContext::new(1).with_observer(&mut stop);
        Exact::new().solve(&p, &mut ctx).unwrap()
    };
    assert!(!out.proven_optimal);
    assert_eq!(out.nodes, 65_536);
    assert!(out.schedule.makespan() <= heft);
    assert_eq!(calls, 2); // the stopping report and the final one
}

#[test]
fn a_wide_graph_of_2000_tasks_under_a_time_budget_gives_a_valid_schedule_no_worse_than_heft() {
    // 2,000 tasks in wide levels on 8 PAI GPUs: a dive lists about 1,000 · 8 children per
    // depth (the child lists stop at 8 Mi children), each node's bound costs O(n m²).
    let w = worl_dag::generators::layered::layered(
        &worl_dag::generators::layered::LayeredParams::new(2_000).fat(0.9),
        3,
    )
    .unwrap();
    let p = Problem::new(
        Arc::new(w),
        Arc::new(worl_cluster::presets::pai_mix(8, 3).unwrap()),
    )
    .unwrap();
    let mut ctx = RunContext::new(0).with_budget(Budget {
        max_time: Some(Duration::from_secs(2)),
        ..Budget::default()
    });
    let started = std::time::Instant::now();
    let out = Exact::new().solve(&p, &mut ctx).unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(!out.proven_optimal);
    assert!(out.schedule.validate(&p).is_empty());
    assert!(out.schedule.makespan() <= heft_makespan(&p));
}

#[test]
fn same_seed_same_outcome() {
    for seed in [3, 17, 58] {
        let p = random_problem(seed, 8, 3);
        let a = solve(&p);
        let b = solve(&p);
        assert_eq!(a, b);
        // budget-limited runs too
        let p = forty_tasks();
        let run = || {
            Exact::new()
                .with_max_nodes(3_000)
                .solve(&p, &mut RunContext::new(seed))
                .unwrap()
        };
        assert_eq!(run(), run());
    }
}

#[test]
fn schedule_keeps_the_outcome_and_options_parse() {
    let p = random_problem(5, 6, 3);
    let mut s = Exact::from_options(Options::new("exact").with("nodes", 100_000)).unwrap();
    assert_eq!(s.max_nodes(), 100_000);
    assert!(s.last_outcome().is_none());
    let schedule = s.schedule(&p, &mut RunContext::new(0)).unwrap();
    let out = s.last_outcome().unwrap();
    assert_eq!(out.schedule, schedule);
    assert!(out.proven_optimal);
    assert_eq!(
        Exact::from_options(Options::new("exact"))
            .unwrap()
            .max_nodes(),
        Exact::DEFAULT_NODES
    );
    assert!(matches!(
        Exact::from_options(Options::new("exact").with("nodes", "many")),
        Err(crate::ScheduleError::InvalidOption { .. })
    ));
    assert!(matches!(
        Exact::from_options(Options::new("exact").with("node", 5)),
        Err(crate::ScheduleError::UnknownOption { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn exact_schedules_are_valid_and_between_the_lower_bound_and_heft(seed in any::<u64>()) {
        let p = random_problem(seed, 8, 4);
        let out = Exact::new()
            .with_max_nodes(200_000)
            .solve(&p, &mut RunContext::new(seed))
            .unwrap();
        let violations = out.schedule.validate(&p);
        prop_assert!(violations.is_empty(), "{:?}", violations.first());
        let lb = p.lower_bound().value;
        let ms = out.schedule.makespan();
        prop_assert!(ms >= lb * (1.0 - 1e-9), "{ms} < {lb}");
        prop_assert!(out.lower_bound >= lb * (1.0 - 1e-9));
        prop_assert!(out.lower_bound <= ms);
        prop_assert!(ms <= heft_makespan(&p));
    }
}

/// The error of [`Exact`] (seed 1) on the workload of `b` on `gpus` V100s
/// (`presets::homogeneous`).
fn exact_error_on_v100s(b: WorkloadBuilder, gpus: usize) -> crate::ScheduleError {
    let cluster = worl_cluster::presets::homogeneous(gpus, &GpuModel::v100_16gb()).unwrap();
    let p = Problem::new(Arc::new(b.build().unwrap()), Arc::new(cluster)).unwrap();
    Exact::new()
        .schedule(&p, &mut RunContext::new(1))
        .unwrap_err()
}

#[test]
fn more_task_gpu_pairs_than_the_tables_hold_is_a_typed_error_before_allocating() {
    // 65 independent tasks on 65,536 GPUs: 4,259,840 pairs > 2^22
    let mut b = WorkloadBuilder::new("wide");
    let j = b.add_job("j").unwrap();
    for i in 0..65 {
        b.add_task(j, format!("t{i}"), 1.0, None).unwrap();
    }
    let e = exact_error_on_v100s(b, 65_536);
    assert!(
        matches!(
            e,
            crate::ScheduleError::TooLarge {
                tasks: 65,
                gpus: 65_536,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("at most 4194304 pairs"), "{e}");
}

// ---- gang tasks (issue 21) ----

/// A tiny random problem with gang tasks, and the same problem with every task on one GPU:
/// 2 to 5 tasks (edge `i -> j`, `i < j`, with probability 0.4, work in `[1, 10)`, a fifth
/// of tasks 1.. needing 14 GiB, CCR from {0.1, 1, 10}); 2 to 4 GPUs on 1 or 2 machines (speeds
/// {0.5, 1, 1, 2} and memory {8, 32} GiB with GPU 0 at 32, or, a third of the time,
/// identical GPUs spread evenly), a random link per pair of machines, intra links faster;
/// unrelated execution times on a quarter. Task 0 (it fits every GPU) and each other task
/// (when a set can hold it) with probability 0.3 need 2 to 4 GPUs: span `machine` (half the time, when a machine
/// has two GPUs that fit) up to the fitting GPUs of the largest machine, else span
/// `cluster` up to the cluster's; efficiency in `[0.6, 1]`, half the time 1 to 3 all-reduce
/// steps of up to 1 GB. With `windows`, GPU 0 and each other GPU with probability 1/2 get 1
/// to 3 busy windows in `[0, 60)` s.
fn random_gang_problem(seed: u64, windows: bool) -> (Problem, Problem) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6761_6e67);
    let n = rng.random_range(2..=5usize);
    let m = rng.random_range(2..=4usize);
    let ccr = [0.1, 1.0, 10.0][rng.random_range(0..3)];
    let mut b = WorkloadBuilder::new("gangs");
    let j = b.add_job("j").unwrap();
    let ids: Vec<TaskId> = (0..n)
        .map(|i| {
            let mem = (rng.random_bool(0.2) && i > 0).then_some(14.0);
            b.add_task(j, format!("t{i}"), rng.random_range(1.0..10.0), mem)
                .unwrap()
        })
        .collect();
    random_edges(&mut b, &ids, ccr, &mut rng);
    let single = b.build().unwrap();
    let identical = rng.random_bool(1.0 / 3.0);
    let n_machines = rng.random_range(1..=2usize);
    let mut cb = ClusterBuilder::new("tiny");
    let machines: Vec<_> = (0..n_machines)
        .map(|a| cb.add_machine(format!("n{a}")))
        .collect();
    let mut mem_of = Vec::new();
    let mut machine_of = Vec::new();
    for k in 0..m {
        let (speed, mem) = random_speed_mem(identical, k, &mut rng);
        let a = if identical {
            k % n_machines
        } else {
            rng.random_range(0..n_machines)
        };
        let model = GpuModel::custom(format!("g{speed}-{mem}"), speed, mem).unwrap();
        cb.add_gpu(machines[a], &model).unwrap();
        mem_of.push(mem);
        machine_of.push(a);
    }
    let links: Vec<Link> = (0..n_machines * n_machines)
        .map(|i| {
            let intra = i % (n_machines + 1) == 0;
            let bw = if intra {
                rng.random_range(4.0e9..8.0e9)
            } else {
                rng.random_range(0.5e9..2.0e9)
            };
            Link::new(bw, rng.random_range(0.0..0.2)).unwrap()
        })
        .collect();
    cb.network(Network::from_fn(n_machines, |a, b| {
        links[a * n_machines + b]
    }));
    let mut cluster = cb.build().unwrap();
    if windows {
        random_windows(&mut cluster, &mut rng);
    }
    let mut gb = single.to_builder();
    for (v, t) in single.graph().tasks() {
        let need = t.mem_gib.unwrap_or(0.0);
        let fit: Vec<usize> = (0..m).filter(|&k| need <= mem_of[k]).collect();
        let per_machine = (0..n_machines)
            .map(|a| fit.iter().filter(|&&k| machine_of[k] == a).count())
            .max()
            .unwrap();
        let chosen = v.index() == 0 || rng.random_bool(0.3);
        let machine_span = rng.random_bool(0.5);
        let g = rng.random_range(2..=4usize);
        let params = GangParams {
            span: Span::Machine,
            efficiency: rng.random_range(0.6..=1.0),
            sync_bytes: rng.random_range(0.0..1.0e9),
            sync_steps: if rng.random_bool(0.5) {
                0.0
            } else {
                f64::from(rng.random_range(1..=3u32))
            },
        };
        if !chosen || fit.len() < 2 {
            continue;
        }
        let (span, most) = if machine_span && per_machine >= 2 {
            (Span::Machine, per_machine)
        } else {
            (Span::Cluster, fit.len())
        };
        gb.set_gang(v, g.min(most) as u32, GangParams { span, ..params })
            .unwrap();
    }
    let gangs = gb.build().unwrap();
    let cluster = Arc::new(cluster);
    let unrelated = (!identical && rng.random_bool(0.25)).then(|| {
        Array2::from_shape_fn((n, m), |(v, _)| {
            single.graph().task(TaskId::new(v)).work * rng.random_range(0.2..5.0)
        })
    });
    let make = |w: worl_dag::Workload| match &unrelated {
        Some(exec) => {
            Problem::with_exec_times(Arc::new(w), Arc::clone(&cluster), exec.clone()).unwrap()
        }
        None => Problem::new(Arc::new(w), Arc::clone(&cluster)).unwrap(),
    };
    (make(gangs), make(single))
}

/// The optimum over every topological order × GPU-set assignment (each task on every set of
/// [`all_sets`]), each task placed at its earliest start under `policy` by
/// `PartialSchedule::place_set` (no reduction or bound).
fn brute_force_sets(p: &Problem, policy: Policy) -> f64 {
    fn rec(
        p: &Problem,
        sets: &[Vec<Vec<GpuId>>],
        s: &PartialSchedule<'_>,
        policy: Policy,
        best: &mut f64,
    ) {
        if s.is_complete() {
            *best = best.min(s.makespan());
            return;
        }
        for v in p.graph().task_ids() {
            if s.is_placed(v) || p.graph().preds(v).iter().any(|nb| !s.is_placed(nb.task)) {
                continue;
            }
            for set in &sets[v.index()] {
                let mut c = s.clone();
                c.place_set(v, set, policy).unwrap();
                rec(p, sets, &c, policy, best);
            }
        }
    }
    let sets: Vec<_> = p.graph().task_ids().map(|v| all_sets(p, v)).collect();
    let mut best = f64::INFINITY;
    rec(p, &sets, &PartialSchedule::new(p), policy, &mut best);
    best
}

/// Runs exact on `count` tiny gang problems (with or without busy windows) and checks it
/// against [`brute_force_sets`] under both policies; returns how many instances the gangs
/// change the optimum of (against the same problem with every task on one GPU), how many
/// exact beats HEFT on and how many needed a search.
fn check_gangs_against_brute_force(count: u64, windows: bool) -> (usize, usize, usize) {
    let (mut changed, mut beaten_heft, mut searched) = (0, 0, 0);
    for seed in 0..count {
        let (p, single) = random_gang_problem(seed, windows);
        assert!(p.has_gangs(), "seed {seed}");
        assert_eq!(p.has_windows(), windows);
        let out = solve(&p);
        let append = brute_force_sets(&p, Policy::Append);
        let insertion = brute_force_sets(&p, Policy::Insertion);
        assert!(out.proven_optimal, "seed {seed}");
        let ms = out.schedule.makespan();
        assert!(
            close(ms, append),
            "seed {seed}: exact {ms} vs brute force {append}"
        );
        assert!(
            close(insertion, append),
            "seed {seed}: insertion {insertion} vs append {append}"
        );
        assert_eq!(out.schedule.validate(&p), vec![], "seed {seed}");
        assert_eq!(out.lower_bound, ms);
        assert!(ms >= p.lower_bound().value * (1.0 - 1e-12), "seed {seed}");
        // the schedule is exactly what the evaluator decodes its plan to
        let decoded = worl_cluster::Evaluator::new(&p)
            .schedule(&out.schedule.to_plan(&p), Policy::Append)
            .unwrap();
        assert_eq!(decoded, out.schedule, "seed {seed}");
        // every gang runs on a set of its size, lead = smallest GPU id
        for v in p.graph().task_ids() {
            let set = out.schedule.gpus(v);
            assert_eq!(set.len(), p.gpus(v) as usize, "seed {seed}");
            assert!(set.windows(2).all(|w| w[0] < w[1]), "seed {seed}: {set:?}");
        }
        let without = brute_force(&single, Policy::Append);
        changed += usize::from(!close(without, append));
        beaten_heft += usize::from(ms < heft_makespan(&p) * (1.0 - 1e-9));
        searched += usize::from(out.nodes > 0);
    }
    (changed, beaten_heft, searched)
}

#[test]
fn matches_brute_force_optimum_on_200_tiny_gang_problems() {
    let (changed, beaten_heft, searched) = check_gangs_against_brute_force(200, false);
    eprintln!(
        "gangs: optimum changed on {changed}/200, HEFT beaten on {beaten_heft}, searched {searched}"
    );
    assert!(changed >= 100, "{changed}");
    assert!(beaten_heft >= 5, "{beaten_heft}");
    assert!(searched >= 20, "{searched}");
}

#[test]
fn matches_brute_force_optimum_on_200_tiny_gang_problems_with_busy_windows() {
    let (changed, beaten_heft, searched) = check_gangs_against_brute_force(200, true);
    eprintln!(
        "gangs + windows: optimum changed on {changed}/200, HEFT beaten on {beaten_heft}, searched {searched}"
    );
    assert!(changed >= 100, "{changed}");
    assert!(beaten_heft >= 5, "{beaten_heft}");
    assert!(searched >= 20, "{searched}");
}

/// Two machines of two speed-1 GPUs each (`n0`: G0, G1; `n1`: G2, G3), G1 and G3 ready at
/// 5 s; intra links 2³⁰ B/s, inter links 2²⁸ B/s with 0.5 s latency; one task of work 8
/// needing 2 GPUs of span `span`, efficiency 1, one all-reduce of 2³⁰ bytes.
fn gang_or_split(span: Span) -> Problem {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("train").unwrap();
    let t = b.add_task(j, "ddp", 8.0, None).unwrap();
    b.set_gang(
        t,
        2,
        GangParams {
            span,
            efficiency: 1.0,
            sync_bytes: (1u64 << 30) as f64,
            sync_steps: 1.0,
        },
    )
    .unwrap();
    let mut cb = ClusterBuilder::new("c");
    let model = GpuModel::custom("s1", 1.0, 32.0).unwrap();
    for a in 0..2 {
        let mach = cb.add_machine(format!("n{a}"));
        cb.add_gpu(mach, &model).unwrap();
        let late = cb.add_gpu(mach, &model).unwrap();
        cb.set_ready_time(late, 5.0).unwrap();
    }
    cb.network(Network::uniform(
        Link::new((1u64 << 30) as f64, 0.0).unwrap(),
        Link::new((1u64 << 28) as f64, 0.5).unwrap(),
    ));
    Problem::new(Arc::new(b.build().unwrap()), Arc::new(cb.build().unwrap())).unwrap()
}

#[test]
fn hand_computed_gang_on_one_machine_vs_a_faster_split() {
    // Run time on a set S of 2 GPUs: 8 / (2 · 1) = 4 s of compute plus one ring all-reduce,
    // 2 (g − 1) / g · b / B + 2 (g − 1) · L = b / B + 2 L:
    // * on one machine: 2³⁰ / 2³⁰ + 0 = 1 s, so 5 s; every one-machine set ({G0, G1} or
    //   {G2, G3}) holds a GPU ready at 5 s: [5, 10), makespan 10;
    // * split over the machines: 2³⁰ / 2²⁸ + 2 · 0.5 = 5 s, so 9 s; {G0, G2} starts at 0:
    //   [0, 9), makespan 9 (the other splits hold a GPU ready at 5: 14).
    let p = gang_or_split(Span::Machine);
    let out = solve(&p);
    assert!(out.proven_optimal);
    assert_eq!(out.schedule.makespan(), 10.0);
    let t = out.schedule.task(TaskId::new(0));
    assert_eq!((t.start, t.finish), (5.0, 10.0));
    let set = out.schedule.gpus(TaskId::new(0));
    assert!(
        set == [GpuId::new(0), GpuId::new(1)] || set == [GpuId::new(2), GpuId::new(3)],
        "{set:?}"
    );
    // Span cluster: the split wins.
    let p = gang_or_split(Span::Cluster);
    let out = solve(&p);
    assert!(out.proven_optimal);
    assert_eq!(out.schedule.makespan(), 9.0);
    let t = out.schedule.task(TaskId::new(0));
    assert_eq!((t.gpu, t.start, t.finish), (GpuId::new(0), 0.0, 9.0));
    assert_eq!(
        out.schedule.gpus(TaskId::new(0)),
        [GpuId::new(0), GpuId::new(2)]
    );
    assert_eq!(out.schedule.validate(&p), vec![]);
    assert_eq!(brute_force_sets(&p, Policy::Append), 9.0);
}

#[test]
fn gang_sets_are_enumerated_once_each_with_the_smallest_gpu_as_lead() {
    let p = gang_or_split(Span::Cluster);
    let inst = Instance::new(&p);
    let sets = &inst.sets[0];
    assert_eq!(sets.g, 2);
    // C(4, 2) = 6 sets, ascending
    let all: Vec<&[u32]> = (0..sets.len()).map(|c| sets.set(c)).collect();
    assert_eq!(
        all,
        vec![&[0, 1][..], &[0, 2], &[0, 3], &[1, 2], &[1, 3], &[2, 3]]
    );
    // run times 5 s on one machine, 9 s split (see the hand-computed case)
    assert_eq!(sets.exec, vec![5.0, 9.0, 9.0, 9.0, 9.0, 5.0]);
    // per GPU, the least run time over the sets holding it
    assert_eq!(&inst.exec[..4], &[5.0, 5.0, 5.0, 5.0]);
    // span machine: the two one-machine sets only
    let p = gang_or_split(Span::Machine);
    let inst = Instance::new(&p);
    let sets = &inst.sets[0];
    assert_eq!(sets.gpus, vec![0, 1, 2, 3]);
    assert_eq!(sets.exec, vec![5.0, 5.0]);
}

#[test]
fn with_gangs_twin_gpus_must_share_a_machine() {
    // Identical GPUs 0, 1 on n0 and 2, 3 on n1, all ready at 0, intra link = inter link:
    // without a gang the four GPUs are one class; with a gang (span machine: {G0, G1} is a
    // set, {G1, G2} is not) each machine is a class.
    let build = |gang: bool| {
        let mut b = WorkloadBuilder::new("w");
        let j = b.add_job("j").unwrap();
        let a = b.add_task(j, "a", 4.0, None).unwrap();
        b.add_task(j, "b", 2.0, None).unwrap();
        if gang {
            b.set_gang(a, 2, GangParams::default()).unwrap();
        }
        let mut cb = ClusterBuilder::new("c");
        let model = GpuModel::custom("s1", 1.0, 32.0).unwrap();
        for x in 0..2 {
            let mach = cb.add_machine(format!("n{x}"));
            cb.add_gpu(mach, &model).unwrap();
            cb.add_gpu(mach, &model).unwrap();
        }
        let one = Link::new(1.0e9, 0.0).unwrap();
        cb.network(Network::uniform(one, one));
        Problem::new(Arc::new(b.build().unwrap()), Arc::new(cb.build().unwrap())).unwrap()
    };
    assert_eq!(Instance::new(&build(false)).prev_twin, vec![NONE, 0, 1, 2]);
    assert_eq!(
        Instance::new(&build(true)).prev_twin,
        vec![NONE, 0, NONE, 2]
    );
    // and the optimum with the gang: a on {G0, G1} [0, 2), b on G2 [0, 2): 2
    let p = build(true);
    let out = solve(&p);
    assert!(out.proven_optimal);
    assert_eq!(out.schedule.makespan(), 2.0);
    assert_eq!(brute_force_sets(&p, Policy::Append), 2.0);
}

#[test]
fn too_many_gang_sets_is_a_typed_error_naming_the_task() {
    // A 4-GPU gang of span cluster on 128 GPUs: C(128, 4) = 10,668,000 sets > 2^20.
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("train").unwrap();
    let t = b.add_task(j, "ddp", 8.0, None).unwrap();
    b.set_gang(
        t,
        4,
        GangParams {
            span: Span::Cluster,
            ..GangParams::default()
        },
    )
    .unwrap();
    let e = exact_error_on_v100s(b, 128);
    assert!(
        matches!(
            e,
            crate::ScheduleError::TooLarge {
                tasks: 1,
                gpus: 128,
                ..
            }
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("train/ddp needing 4 GPUs"), "{text}");
    assert!(text.contains("more than 1048576"), "{text}");
    // span machine on the same cluster: C(8, 4) = 70 sets per 8-GPU machine, 16 machines
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("train").unwrap();
    let t = b.add_task(j, "ddp", 8.0, None).unwrap();
    b.set_gang(t, 4, GangParams::default()).unwrap();
    let cluster = worl_cluster::presets::homogeneous(128, &GpuModel::v100_16gb()).unwrap();
    let p = Problem::new(Arc::new(b.build().unwrap()), Arc::new(cluster)).unwrap();
    assert_eq!(
        super::bound::gang_set_count(&p, TaskId::new(0), super::MAX_GANG_SETS),
        70 * 16
    );
}
