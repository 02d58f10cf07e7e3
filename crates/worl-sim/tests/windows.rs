//! Busy windows (issue 21) in the simulator: a task never runs during a busy window of its
//! GPU, with the actual (noisy) run time; hand-computed starts, the log checker catching a
//! run over a window, and every registered scheduler's plan replayed on problems with
//! random windows giving exactly the evaluator's schedule.

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, Evaluator, GpuId, GpuModel, Link, Network, Plan, Policy, Problem,
};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_sched::testing::{ClusterKind, quick_schedulers, random_problem};
use worl_sched::{Registry, RunContext};
use worl_sim::policies::{AsPlanned, OnlineEft};
use worl_sim::{
    Event, Failures, OnlinePolicy, Outage, RuntimeNoise, SimConfig, SimResult, Simulation,
    TaskRecord, check_log,
};

/// One GPU of speed 1 (`exec = work`) busy over `windows`; a chain of tasks of the given
/// works (one job, 0-byte edges).
fn chain(works: &[f64], windows: &[(f64, f64)]) -> Problem {
    let mut w = WorkloadBuilder::new("w");
    let j = w.add_job("j").unwrap();
    let ids: Vec<TaskId> = works
        .iter()
        .enumerate()
        .map(|(i, &x)| w.add_task(j, format!("t{i}"), x, None).unwrap())
        .collect();
    for pair in ids.windows(2) {
        w.add_edge(pair[0], pair[1], 0.0).unwrap();
    }
    let mut c = ClusterBuilder::new("one");
    let m = c.add_machine("node-0");
    c.add_gpu(m, &GpuModel::custom("S1", 1.0, 32.0).unwrap())
        .unwrap();
    c.network(Network::uniform(Link::NVLINK2, Link::ETHERNET_25G));
    for &(from, to) in windows {
        c.add_busy(GpuId::new(0), from, to).unwrap();
    }
    Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap()
}

fn run(p: &Problem, cfg: SimConfig, policy: &mut dyn OnlinePolicy, seed: u64) -> SimResult {
    let cfg = SimConfig {
        record_events: true,
        ..cfg
    };
    let r = Simulation::new(p, cfg).unwrap().run(policy, seed).unwrap();
    check_log(p, &r).unwrap_or_else(|v| panic!("{v:#?}"));
    r
}

fn times(r: &SimResult) -> Vec<(f64, f64)> {
    r.tasks.iter().map(|t| (t.start, t.finish)).collect()
}

/// HEFT's plan of `p` without its windows (GPU choice and order), replayed on `p`.
fn as_planned(p: &Problem) -> AsPlanned {
    AsPlanned::from_plan(windowless_plan(p, "heft", 1))
}

/// `p` without busy windows (same workload, GPUs, network and run times).
fn windowless(p: &Problem) -> Problem {
    let mut c = p.cluster().clone();
    for k in 0..c.n_gpus() {
        c.set_busy(GpuId::new(k), Vec::new()).unwrap();
    }
    rebuild(p, c)
}

/// `p` on cluster `c` (a copy of `p`'s with other windows), keeping unrelated run times.
fn rebuild(p: &Problem, c: worl_cluster::Cluster) -> Problem {
    let w = p.workload_arc().clone();
    if p.is_unrelated() {
        let times = ndarray::Array2::from_shape_fn((p.n_tasks(), p.n_gpus()), |(v, k)| {
            p.exec_time(TaskId::new(v), GpuId::new(k))
                * (1.0 - p.cluster().gpu(GpuId::new(k)).background)
        });
        Problem::with_exec_times(w, Arc::new(c), times).unwrap()
    } else {
        Problem::new(w, Arc::new(c)).unwrap()
    }
}

/// The plan scheduler `spec` makes for `p` without its windows.
fn windowless_plan(p: &Problem, spec: &str, seed: u64) -> Plan {
    let p0 = windowless(p);
    let mut s = Registry::with_builtins().build_spec(spec).unwrap();
    s.schedule(&p0, &mut RunContext::new(seed))
        .unwrap()
        .to_plan(&p0)
}

#[test]
fn a_task_that_does_not_fit_before_a_window_runs_after_it() {
    // GPU busy [10, 20); 6 s then 5 s: 0–6, then [6, 11) would meet the window: 20–25.
    let p = chain(&[6.0, 5.0], &[(10.0, 20.0)]);
    let r = run(&p, SimConfig::default(), &mut as_planned(&p), 1);
    assert_eq!(times(&r), vec![(0.0, 6.0), (20.0, 25.0)]);
    assert_eq!(r.metrics.makespan, 25.0);
    // The same through an online policy, which sees the windows through the problem.
    let r = run(&p, SimConfig::default(), &mut OnlineEft::new(), 1);
    assert_eq!(times(&r), vec![(0.0, 6.0), (20.0, 25.0)]);
    // A 4 s second task fits the gap exactly: 6–10, ending where the window starts.
    let p = chain(&[6.0, 4.0], &[(10.0, 20.0)]);
    let r = run(&p, SimConfig::default(), &mut as_planned(&p), 1);
    assert_eq!(times(&r), vec![(0.0, 6.0), (6.0, 10.0)]);
    // Several windows: 3 s cannot fit [2, 4) nor [5, 7): after 7 s.
    let p = chain(&[3.0], &[(0.0, 2.0), (4.0, 5.0), (7.0, 8.0)]);
    let r = run(&p, SimConfig::default(), &mut as_planned(&p), 1);
    assert_eq!(times(&r), vec![(8.0, 11.0)]);
    // A zero-length task may sit on the window's edge: 0–10, then 10–10, then 20–21.
    let p = chain(&[10.0, 0.0, 1.0], &[(10.0, 20.0)]);
    let r = run(&p, SimConfig::default(), &mut as_planned(&p), 1);
    assert_eq!(times(&r), vec![(0.0, 10.0), (10.0, 10.0), (20.0, 21.0)]);
    // Without windows nothing waits: 0–6, 6–11.
    let p = chain(&[6.0, 5.0], &[]);
    let r = run(&p, SimConfig::default(), &mut as_planned(&p), 1);
    assert_eq!(times(&r), vec![(0.0, 6.0), (6.0, 11.0)]);
}

#[test]
fn a_task_lost_to_an_outage_restarts_past_the_window() {
    // GPU busy [10, 20), down over [5, 8): the 6 s task runs 0–5 and is lost; back at 8 s,
    // [8, 14) would meet the window, so it runs 20–26; the 5 s task then 26–31.
    let p = chain(&[6.0, 5.0], &[(10.0, 20.0)]);
    let cfg = SimConfig {
        failures: Failures::Script(vec![Outage::new(GpuId::new(0), 5.0, 8.0)]),
        ..SimConfig::default()
    };
    let r = run(&p, cfg, &mut as_planned(&p), 1);
    assert_eq!(times(&r), vec![(20.0, 26.0), (26.0, 31.0)]);
    assert_eq!((r.tasks[0].attempts, r.tasks[0].lost_time), (2, 5.0));
    assert_eq!(r.metrics.lost_time, 5.0);
}

#[test]
fn the_actual_noisy_run_time_decides_the_wait() {
    // Tasks of 5 s with a window [10, 20): with noise, a second task started at the first's
    // finish F runs on iff F + d2 <= 10 for its actual d2, else from 20. Over many seeds
    // both cases occur, each as that rule says, and the log never shows a run in the window.
    let p = chain(&[5.0, 5.0], &[(10.0, 20.0)]);
    let cfg = SimConfig {
        noise: RuntimeNoise::LogNormal { cv: 0.3 },
        ..SimConfig::default()
    };
    let (mut before, mut after) = (0, 0);
    for seed in 0..200 {
        let r = run(&p, cfg.clone(), &mut as_planned(&p), seed);
        let [a, b]: [TaskRecord; 2] = r.tasks.clone().try_into().unwrap();
        // The first runs at 0 if its actual run fits before 10 s, else from 20 s.
        let d1 = a.finish - a.start;
        assert_eq!(a.start, if d1 <= 10.0 { 0.0 } else { 20.0 }, "seed {seed}");
        let d2 = b.finish - b.start;
        if a.finish + d2 <= 10.0 || a.finish >= 20.0 {
            assert_eq!(b.start, a.finish, "seed {seed}");
            before += 1;
        } else {
            assert_eq!(b.start, 20.0, "seed {seed}: {a:?} {b:?}");
            after += 1;
        }
    }
    assert!(
        before > 0 && after > 0,
        "{before} without a wait, {after} after the window"
    );
}

#[test]
fn the_log_checker_catches_a_run_over_a_window() {
    let p = chain(&[6.0, 5.0], &[(10.0, 20.0)]);
    let mut r = run(&p, SimConfig::default(), &mut as_planned(&p), 1);
    // Move the second task to 6–11 in the log and the records.
    let (t1, g0) = (TaskId::new(1), GpuId::new(0));
    for e in &mut r.events {
        match e {
            Event::Started { task, time, .. } if *task == t1 => *time = 6.0,
            Event::Finished { task, time, .. } if *task == t1 => *time = 11.0,
            _ => {}
        }
    }
    r.events.sort_by(|a, b| a.time().total_cmp(&b.time()));
    r.tasks[1].start = 6.0;
    r.tasks[1].finish = 11.0;
    let v = check_log(&p, &r).unwrap_err();
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0].time, 11.0);
    assert_eq!(
        v[0].what,
        format!(
            "{} ran on {g0} over 6..11 s, meeting its busy window [10, 20) s",
            p.task_label(t1)
        )
    );
}

/// `p` with random busy windows on its GPUs: per GPU up to 3, starting within the first
/// `2 · span` s and lasting up to `span / 2` s, where `span` is a list schedule's makespan.
fn with_windows(p: &Problem, seed: u64) -> Problem {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let span = Evaluator::new(p)
        .schedule(&windowless_plan(p, "heft", 0), Policy::Append)
        .unwrap()
        .makespan()
        .max(1.0);
    let mut c = p.cluster().clone();
    for k in 0..c.n_gpus() {
        let mut t = 0.0;
        let mut windows = Vec::new();
        for _ in 0..rng.random_range(0..=3) {
            let from = t + rng.random_range(0.0..span);
            let to = from + rng.random_range(0.01..span / 2.0);
            windows.push((from, to));
            t = to;
        }
        c.set_busy(GpuId::new(k), windows).unwrap();
    }
    rebuild(p, c)
}

/// Every scheduler's plan replayed on `p` (with windows) equals the evaluator's append
/// schedule of that plan on `p`, bit for bit, and the log checker finds nothing: the plan
/// each scheduler makes without the windows (GPU choice and order), and the one it makes
/// with them where it accepts them. Returns how many schedulers accepted the windows.
fn replay_matches_the_evaluator(p: &Problem, seed: u64) -> Result<usize, TestCaseError> {
    let p0 = windowless(p);
    let mut accepted = 0;
    for mut s in quick_schedulers() {
        let name = s.name().to_owned();
        let mut plans = vec![
            s.schedule(&p0, &mut RunContext::new(seed))
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?
                .to_plan(&p0),
        ];
        // (its own timing may ignore the windows: only the plan is replayed, re-timed by
        // the evaluator)
        if let Ok(schedule) = s.schedule(p, &mut RunContext::new(seed)) {
            plans.push(schedule.to_plan(p));
            accepted += 1;
        }
        for plan in plans {
            let planned = Evaluator::new(p).schedule(&plan, Policy::Append).unwrap();
            prop_assert!(
                planned.validate(p).is_empty(),
                "{}: {:?}",
                name,
                planned.validate(p)
            );
            let mut policy = AsPlanned::from_plan(plan);
            let r = run(p, SimConfig::default(), &mut policy, 3);
            for (v, (sim, ev)) in r.tasks.iter().zip(planned.tasks()).enumerate() {
                prop_assert_eq!(sim.gpu, ev.gpu, "{}: task {}", name, v);
                prop_assert_eq!(
                    (sim.start.to_bits(), sim.finish.to_bits()),
                    (ev.start.to_bits(), ev.finish.to_bits()),
                    "{}: task {} runs {}..{} vs {}..{}",
                    name,
                    v,
                    sim.start,
                    sim.finish,
                    ev.start,
                    ev.finish
                );
            }
            prop_assert_eq!(
                r.metrics.makespan.to_bits(),
                planned.makespan().to_bits(),
                "{}",
                name
            );
        }
    }
    Ok(accepted)
}

#[test]
fn every_scheduler_replays_exactly_with_windows_on_every_cluster_kind() {
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        let p = with_windows(
            &random_problem(25, 5, 0.2, kind, 1.0, 300 + i as u64),
            i as u64,
        );
        assert!(p.has_windows());
        let accepted = replay_matches_the_evaluator(&p, 7).unwrap();
        eprintln!("{kind:?}: {accepted} schedulers accept the windows");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn every_scheduler_replays_exactly_with_random_windows(
        n in 1usize..20,
        m in 1usize..6,
        density in 0.0f64..0.4,
        kind in 0..ClusterKind::ALL.len(),
        seed in any::<u64>(),
    ) {
        let p = with_windows(&random_problem(n, m, density, ClusterKind::ALL[kind], 0.0, seed), seed);
        replay_matches_the_evaluator(&p, seed % 100)?;
    }

    /// Online policies and noise: whatever the draws, no run meets a window (the log
    /// checker replays every attempt).
    #[test]
    fn online_runs_with_noise_never_meet_a_window(
        n in 1usize..25,
        m in 1usize..5,
        kind in 0..ClusterKind::ALL.len(),
        seed in any::<u64>(),
    ) {
        let p = with_windows(&random_problem(n, m, 0.2, ClusterKind::ALL[kind], 0.5, seed), seed);
        let cfg = SimConfig {
            noise: RuntimeNoise::LogNormal { cv: 0.5 },
            ..SimConfig::default()
        };
        run(&p, cfg.clone(), &mut OnlineEft::new(), seed);
        run(&p, cfg, &mut as_planned(&p), seed);
    }
}
