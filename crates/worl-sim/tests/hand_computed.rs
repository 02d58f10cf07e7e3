//! Hand-computed simulations: max-min fair sharing of a link, a flow joining half-way, a
//! scripted failure mid-task, a late job on an idle cluster; bad specifications; the log
//! checker on hand-made bad logs.

use std::sync::Arc;
use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Link, Network, Plan, Problem};
use worl_dag::{JobId, TaskId, Workload, WorkloadBuilder};
use worl_sim::policies::AsPlanned;
use worl_sim::{
    Contention, Dispatch, Event, Failures, OnlinePolicy, Outage, RuntimeNoise, SimConfig, SimError,
    SimMetrics, SimResult, SimView, Simulation, TaskRecord, check_log,
};

/// Two machines of `per_machine` V100s (speed 1: `exec = work`); between machines 1 GB/s
/// with 0.5 s latency, inside a machine 100 GB/s without latency.
fn two_machines(w: Workload, per_machine: usize) -> Problem {
    let mut cb = ClusterBuilder::new("two");
    for name in ["a", "b"] {
        let m = cb.add_machine(name);
        cb.add_gpus(m, &GpuModel::v100_16gb(), per_machine).unwrap();
    }
    cb.network(Network::uniform(
        Link::new(100.0e9, 0.0).unwrap(),
        Link::new(1.0e9, 0.5).unwrap(),
    ));
    Problem::new(Arc::new(w), Arc::new(cb.build().unwrap())).unwrap()
}

fn config(contention: Contention) -> SimConfig {
    SimConfig {
        contention,
        record_events: true,
        ..SimConfig::default()
    }
}

fn run(p: &Problem, cfg: SimConfig, policy: &mut dyn OnlinePolicy) -> SimResult {
    let r = Simulation::new(p, cfg).unwrap().run(policy, 1).unwrap();
    check_log(p, &r).unwrap_or_else(|v| panic!("{v:#?}"));
    r
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Dispatches every ready task to the up GPU that is free first (ties: lowest id).
struct Greedy;

impl OnlinePolicy for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }
    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        let p = view.problem();
        let mut extra = vec![0.0; p.n_gpus()];
        for &task in view.ready_tasks() {
            let gpu = p
                .cluster()
                .gpu_ids()
                .filter(|&k| view.gpu_up(k) && p.fits(task, k))
                .min_by(|&a, &b| {
                    (view.gpu_free_at(a) + extra[a.index()])
                        .total_cmp(&(view.gpu_free_at(b) + extra[b.index()]))
                });
            if let Some(gpu) = gpu {
                extra[gpu.index()] += p.exec_time(task, gpu);
                out.push(Dispatch { task, gpu });
            }
        }
        Ok(())
    }
}

/// The plan of `fan`'s six tasks on GPUs `gpu`, placed u0, u1, u2, v0, v1, v2.
fn plan(gpu: &[usize; 6]) -> Plan {
    Plan::new(
        gpu.map(GpuId::new).to_vec(),
        [0, 2, 4, 1, 3, 5].map(TaskId::new).to_vec(),
    )
}

/// `u0 -> v0`, `u1 -> v1` (2 GB each), `u3 -> v3` (2 GB), works in seconds.
fn fan(works: [f64; 3]) -> (Workload, Vec<TaskId>) {
    let mut b = WorkloadBuilder::new("fan");
    let j = b.add_job("j").unwrap();
    let mut ids = Vec::new();
    for (i, &w) in works.iter().enumerate() {
        let u = b.add_task(j, format!("u{i}"), w, None).unwrap();
        let v = b.add_task(j, format!("v{i}"), 1.0, None).unwrap();
        b.add_edge(u, v, 2.0e9).unwrap();
        ids.extend([u, v]);
    }
    (b.build().unwrap(), ids)
}

#[test]
fn two_equal_transfers_sharing_a_link_each_take_twice_as_long() {
    // u0 on g0 and u1 on g1 (machine a) finish at 1 s; v0 on g3 and v1 on g4 (machine b).
    // Each 2 GB transfer waits its 0.5 s latency, then both flows cross a's NIC out, the
    // a->b link and b's NIC in, all of 1 GB/s: max-min gives each 0.5 GB/s, so each takes
    // 2e9 / 0.5e9 = 4 s instead of 2 s: delivered at 1 + 0.5 + 4 = 5.5 s (3.5 s alone).
    // u2 (work 100) and v2 stay on g2: no transfer.
    let (w, t) = fan([1.0, 1.0, 100.0]);
    let p = two_machines(w, 3);
    let plan = plan(&[0, 3, 1, 4, 2, 2]);
    let fair = run(
        &p,
        config(Contention::Fair),
        &mut AsPlanned::from_plan(plan.clone()),
    );
    assert_eq!(fair.tasks[t[1].index()].start, 5.5);
    assert_eq!(fair.tasks[t[3].index()].start, 5.5);
    assert_eq!(fair.tasks[t[3].index()].finish, 6.5);
    // Contention delay: 2 transfers x (4.5 - 2.5) s.
    assert_eq!(fair.metrics.contention_delay, 4.0);
    assert_eq!(fair.metrics.bytes_moved, 4.0e9);
    let free = run(
        &p,
        config(Contention::None),
        &mut AsPlanned::from_plan(plan),
    );
    assert_eq!(free.tasks[t[1].index()].start, 3.5);
    assert_eq!(free.tasks[t[3].index()].start, 3.5);
    assert_eq!(free.metrics.contention_delay, 0.0);
}

#[test]
fn a_third_flow_joining_half_way_slows_the_first_two() {
    // As above, and u2 (work 3, on g2) -> v2 (g5): its flow starts at 3 + 0.5 = 3.5 s, when
    // flows 0 and 1 have sent 2 s x 0.5 GB/s = 1 GB each (half-way). From 3.5 s three
    // flows share a's NIC out: 1/3 GB/s each. Flows 0 and 1 need 1 GB more: 3 s, done at
    // 6.5 s. Flow 2 has then sent 1 GB; alone, at 1 GB/s, its last 1 GB takes 1 s: done at
    // 7.5 s. Contention delays: 2 x (5.5 - 2.5) + (4 - 2) = 8 s.
    let (w, t) = fan([1.0, 1.0, 3.0]);
    let p = two_machines(w, 3);
    let plan = plan(&[0, 3, 1, 4, 2, 5]);
    let r = run(
        &p,
        config(Contention::Fair),
        &mut AsPlanned::from_plan(plan),
    );
    let start = |i: usize| r.tasks[t[i].index()].start;
    assert!(close(start(1), 6.5), "{}", start(1));
    assert!(close(start(3), 6.5), "{}", start(3));
    assert!(close(start(5), 7.5), "{}", start(5));
    assert!(close(r.metrics.makespan, 8.5), "{}", r.metrics.makespan);
    assert!(
        close(r.metrics.contention_delay, 8.0),
        "{}",
        r.metrics.contention_delay
    );
}

#[test]
fn flows_inside_one_machine_share_its_link_only() {
    // u0 (g0) -> v0 (g1) and u1 (g2) -> v1 (g0, queued after u0), all on machine a: both
    // flows cross only a's own 100 GB/s link (no NIC, no latency): 50 GB/s each, 2 GB in
    // 0.04 s (0.02 s alone), delivered at 1.04 s. u2 and v2 share g3: no transfer.
    let (w, t) = fan([1.0, 1.0, 100.0]);
    let p = two_machines(w, 3);
    let r = run(
        &p,
        config(Contention::Fair),
        &mut AsPlanned::from_plan(plan(&[0, 1, 2, 0, 3, 3])),
    );
    assert!(
        close(r.tasks[t[1].index()].start, 1.04),
        "{}",
        r.tasks[t[1].index()].start
    );
    assert!(
        close(r.tasks[t[3].index()].start, 1.04),
        "{}",
        r.tasks[t[3].index()].start
    );
    assert!(
        close(r.metrics.contention_delay, 0.04),
        "{}",
        r.metrics.contention_delay
    );
}

#[test]
fn a_scripted_failure_mid_task_loses_it_and_it_runs_again() {
    // a (work 4) then b (work 2, child of a, no bytes), both planned on g0. g0 is down on
    // [1, 3): a is lost at 1 s after running 1 s, AsPlanned sends it back to g0, where it
    // goes before b (a lost task is retried first), restarts at 3 s and finishes at 7 s;
    // b runs 7..9 s.
    let mut wb = WorkloadBuilder::new("w");
    let j = wb.add_job("j").unwrap();
    let a = wb.add_task(j, "a", 4.0, None).unwrap();
    let b = wb.add_task(j, "b", 2.0, None).unwrap();
    wb.add_edge(a, b, 0.0).unwrap();
    let p = two_machines(wb.build().unwrap(), 1);
    let failures = Failures::Script(vec![Outage::new(GpuId::new(0), 1.0, 3.0)]);
    let cfg = SimConfig {
        failures: failures.clone(),
        ..config(Contention::None)
    };
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 2]);
    let r = run(&p, cfg.clone(), &mut AsPlanned::from_plan(plan));
    assert_eq!(
        r.tasks[a.index()],
        TaskRecord {
            gpu: GpuId::new(0),
            start: 3.0,
            finish: 7.0,
            attempts: 2,
            lost_time: 1.0
        }
    );
    assert_eq!(
        (r.tasks[b.index()].start, r.tasks[b.index()].finish),
        (7.0, 9.0)
    );
    assert_eq!(r.metrics.lost_time, 1.0);
    assert_eq!(r.metrics.replans, 1.0);
    assert!(r.events.contains(&Event::Lost {
        time: 1.0,
        task: a,
        gpu: GpuId::new(0)
    }));
    // An online policy re-places a on the only up GPU, g1 (machine b), at 1 s: 1..5 s. b is
    // ready at 5 s with both GPUs idle: the lowest id, g0; its 0-byte input pays the 0.5 s
    // latency between machines: 5.5..7.5 s.
    let r = run(&p, cfg, &mut Greedy);
    assert_eq!(r.tasks[a.index()].gpu, GpuId::new(1));
    assert_eq!(
        (r.tasks[a.index()].start, r.tasks[a.index()].finish),
        (1.0, 5.0)
    );
    assert_eq!(
        (r.tasks[a.index()].attempts, r.tasks[a.index()].lost_time),
        (2, 1.0)
    );
    assert_eq!(r.tasks[b.index()].gpu, GpuId::new(0));
    assert_eq!(
        (r.tasks[b.index()].start, r.tasks[b.index()].finish),
        (5.5, 7.5)
    );
}

#[test]
fn a_late_job_starts_at_its_release_on_an_idle_cluster() {
    // Job j0 (work 2) at 0 s; job j1 (x: work 3 -> y: work 1, 1 GB) released at 10 s, when
    // every GPU is idle: x starts at 10 s exactly, y at 13 s (same GPU), JCT 4 s, wait 0.
    let mut wb = WorkloadBuilder::new("w");
    let j0 = wb.add_job("j0").unwrap();
    wb.add_task(j0, "t", 2.0, None).unwrap();
    let j1 = wb.add_job("j1").unwrap();
    let x = wb.add_task(j1, "x", 3.0, None).unwrap();
    let y = wb.add_task(j1, "y", 1.0, None).unwrap();
    wb.add_edge(x, y, 1.0e9).unwrap();
    wb.set_release(j1, 10.0).unwrap();
    let p = two_machines(wb.build().unwrap(), 2);
    for contention in [Contention::None, Contention::Fair] {
        let r = run(&p, config(contention), &mut Greedy);
        assert_eq!(r.tasks[x.index()].start, 10.0);
        assert_eq!(r.tasks[y.index()].start, 13.0);
        let job = r.jobs[j1.index()];
        assert_eq!(
            (job.release, job.finish, job.jct, job.wait),
            (10.0, 14.0, 4.0, 0.0)
        );
        assert_eq!(job.slowdown, 1.0);
        assert_eq!(r.metrics.makespan, 14.0);
        assert!(r.events.contains(&Event::Released {
            time: 10.0,
            job: JobId::new(1)
        }));
        // A static plan dispatches x at 0 s: it still waits for the release.
        let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 3]);
        let r = run(&p, config(contention), &mut AsPlanned::from_plan(plan));
        assert_eq!(r.tasks[x.index()].start, 10.0);
    }
}

#[test]
fn charged_decision_time_only_delays_dispatches() {
    // With each decision's wall-clock time charged, dispatches take effect later: the log
    // still checks, nothing starts earlier than uncharged, and the late job's x still
    // waits for its release.
    let mut wb = WorkloadBuilder::new("w");
    let j0 = wb.add_job("j0").unwrap();
    let t = wb.add_task(j0, "t", 2.0, None).unwrap();
    let j1 = wb.add_job("j1").unwrap();
    let x = wb.add_task(j1, "x", 3.0, None).unwrap();
    let y = wb.add_task(j1, "y", 1.0, None).unwrap();
    wb.add_edge(x, y, 1.0e9).unwrap();
    wb.add_edge(t, y, 1.0e9).unwrap();
    wb.set_release(j1, 10.0).unwrap();
    let p = two_machines(wb.build().unwrap(), 2);
    let free = run(&p, config(Contention::Fair), &mut Greedy);
    let cfg = SimConfig {
        charge_decision_time: true,
        ..config(Contention::Fair)
    };
    let charged = run(&p, cfg, &mut Greedy);
    for (c, f) in charged.tasks.iter().zip(&free.tasks) {
        assert!(c.start >= f.start, "{} < {}", c.start, f.start);
    }
    assert!(charged.tasks[x.index()].start >= 10.0);
    assert!(charged.metrics.makespan >= free.metrics.makespan);
    assert!(charged.metrics.decision_latency_p99 >= charged.metrics.decision_latency_p50);
}

#[test]
fn noise_is_seeded_and_mean_one() {
    // 20 000 independent tasks of work 1 on one GPU: the makespan is the sum of the
    // factors, mean 1 (standard error 0.3 / sqrt(20000) = 0.0021 for lognormal:0.3).
    let mut wb = WorkloadBuilder::new("w");
    let j = wb.add_job("j").unwrap();
    for i in 0..20_000 {
        wb.add_task(j, format!("t{i}"), 1.0, None).unwrap();
    }
    let p = two_machines(wb.build().unwrap(), 1);
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 20_000]);
    for noise in ["lognormal:0.3", "uniform:0.8..1.2"] {
        let cfg = SimConfig {
            noise: noise.parse().unwrap(),
            ..SimConfig::default()
        };
        let sim = Simulation::new(&p, cfg).unwrap();
        let r1 = sim.run(&mut AsPlanned::from_plan(plan.clone()), 5).unwrap();
        let r2 = sim.run(&mut AsPlanned::from_plan(plan.clone()), 5).unwrap();
        let r3 = sim.run(&mut AsPlanned::from_plan(plan.clone()), 6).unwrap();
        assert_eq!(r1.tasks, r2.tasks, "{noise}");
        assert_ne!(r1.tasks, r3.tasks, "{noise}");
        let mean = r1.metrics.makespan / 20_000.0;
        assert!((mean - 1.0).abs() < 0.02, "{noise}: {mean}");
    }
}

#[test]
fn random_failures_lose_work_and_the_log_still_checks() {
    // A chain of 200 tasks of 100 s on 2 GPUs, MTBF 0.05 h (180 s), repair 30 s.
    let mut wb = WorkloadBuilder::new("w");
    let j = wb.add_job("j").unwrap();
    let mut prev = None;
    for i in 0..200 {
        let t = wb.add_task(j, format!("t{i}"), 100.0, None).unwrap();
        if let Some(u) = prev {
            wb.add_edge(u, t, 1.0e6).unwrap();
        }
        prev = Some(t);
    }
    let p = two_machines(wb.build().unwrap(), 1);
    let cfg = SimConfig {
        failures: "mtbf:0.05:30".parse().unwrap(),
        record_events: true,
        ..SimConfig::default()
    };
    let r1 = run(&p, cfg.clone(), &mut Greedy);
    assert!(r1.metrics.lost_time > 0.0);
    assert!(r1.tasks.iter().any(|t| t.attempts > 1));
    let lost: f64 = r1.tasks.iter().map(|t| t.lost_time).sum();
    assert!((lost - r1.metrics.lost_time).abs() < 1e-6);
    assert!(r1.metrics.makespan > 20_000.0);
    let r2 = Simulation::new(&p, cfg)
        .unwrap()
        .run(&mut Greedy, 1)
        .unwrap();
    assert_eq!(r1.tasks, r2.tasks);
    // AsPlanned on the same problem also completes (lost tasks go back to their GPU).
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(1); 200]);
    let cfg = SimConfig {
        failures: "mtbf:0.05:30".parse().unwrap(),
        record_events: true,
        ..SimConfig::default()
    };
    let r = run(&p, cfg, &mut AsPlanned::from_plan(plan));
    assert!(r.tasks.iter().all(|t| t.gpu == GpuId::new(1)));
}

#[test]
fn failures_faster_than_a_task_can_run_stop_with_a_typed_error() {
    // One GPU failing every 0.36 ms with 1 s repairs: the 1 s task is lost at every
    // attempt; the run stops at the attempt limit instead of growing without bound.
    let (w, _) = fan([1.0, 1.0, 1.0]);
    let p = two_machines(w, 1);
    let cfg = SimConfig {
        failures: "mtbf:0.0000001:1".parse().unwrap(),
        ..SimConfig::default()
    };
    let e = Simulation::new(&p, cfg)
        .unwrap()
        .run(&mut Greedy, 1)
        .unwrap_err();
    match &e {
        SimError::TooManyLosses { attempts, .. } => {
            assert_eq!(*attempts, worl_sim::MAX_ATTEMPTS)
        }
        e => panic!("{e}"),
    }
    assert!(
        e.to_string().contains("lost to GPU failures 1000 times"),
        "{e}"
    );
    // settings whose times would overflow the clock are refused up front
    for spec in ["mtbf:1:1e308", "mtbf:1:1e13"] {
        let e = spec.parse::<Failures>().unwrap_err().to_string();
        assert!(e.contains("at most 1e12 s"), "{spec}: {e}");
    }
    for spec in ["uniform:1..1e308", "lognormal:1e300"] {
        let e = spec.parse::<RuntimeNoise>().unwrap_err().to_string();
        assert!(e.contains(&format!("`{spec}`")), "{spec}: {e}");
    }
}

#[test]
fn bad_specifications_are_one_line_typed_errors() {
    let cases: [(&str, Result<(), SimError>); 7] = [
        (
            "lognormal:-0.1",
            "lognormal:-0.1".parse::<RuntimeNoise>().map(drop),
        ),
        ("gaussian:1", "gaussian:1".parse::<RuntimeNoise>().map(drop)),
        (
            "uniform:1.2..0.8",
            "uniform:1.2..0.8".parse::<RuntimeNoise>().map(drop),
        ),
        ("mtbf:0", "mtbf:0".parse::<Failures>().map(drop)),
        ("mtbf:x", "mtbf:x".parse::<Failures>().map(drop)),
        ("crash:3", "crash:3".parse::<Failures>().map(drop)),
        ("greedy", "greedy".parse::<Contention>().map(drop)),
    ];
    for (spec, r) in cases {
        let e = r.expect_err(spec);
        assert!(matches!(e, SimError::InvalidSpec { .. }), "{spec}: {e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&format!("`{spec}`")), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
    }
    assert_eq!(
        "lognormal:-0.1"
            .parse::<RuntimeNoise>()
            .unwrap_err()
            .to_string(),
        "invalid noise `lognormal:-0.1`: the coefficient of variation must be in 0..=100"
    );
    assert_eq!(
        "mtbf:0".parse::<Failures>().unwrap_err().to_string(),
        "invalid failures `mtbf:0`: the mean time between failures must be finite and > 0 hours"
    );
    // Well-formed specifications round-trip.
    for s in ["none", "lognormal:0.3", "uniform:0.8..1.2"] {
        assert_eq!(s.parse::<RuntimeNoise>().unwrap().to_string(), s);
    }
    assert_eq!(
        "mtbf:2".parse::<Failures>().unwrap(),
        Failures::Mtbf {
            hours: 2.0,
            repair_s: 600.0
        }
    );
    // A scripted outage of an unknown GPU, and a config error caught by `Simulation::new`.
    let (w, _) = fan([1.0, 1.0, 1.0]);
    let p = two_machines(w, 1);
    let cfg = SimConfig {
        failures: Failures::Script(vec![Outage::new(GpuId::new(7), 0.0, 1.0)]),
        ..SimConfig::default()
    };
    let e = Simulation::new(&p, cfg).unwrap_err();
    assert!(matches!(e, SimError::InvalidOutage { gpu: 7, .. }), "{e}");
    let cfg = SimConfig {
        noise: RuntimeNoise::LogNormal { cv: -1.0 },
        ..SimConfig::default()
    };
    assert!(matches!(
        Simulation::new(&p, cfg),
        Err(SimError::InvalidSpec { what: "noise", .. })
    ));
}

/// A policy that sends everything to one GPU index, or nothing.
struct Fixed(Option<usize>);

impl OnlinePolicy for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        if let Some(k) = self.0 {
            for &task in view.ready_tasks() {
                out.push(Dispatch {
                    task,
                    gpu: GpuId::new(k),
                });
            }
        }
        Ok(())
    }
}

#[test]
fn invalid_dispatches_and_stalls_are_typed_errors() {
    let (w, _) = fan([1.0, 1.0, 1.0]);
    let p = two_machines(w, 1);
    let sim = Simulation::new(&p, SimConfig::default()).unwrap();
    let e = sim.run(&mut Fixed(Some(9)), 0).unwrap_err();
    assert!(
        matches!(
            e,
            SimError::UnknownGpu {
                index: 9,
                n_gpus: 2,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("j/u0"), "{e}");
    let e = sim.run(&mut Fixed(None), 0).unwrap_err();
    assert!(matches!(e, SimError::Stalled { unfinished: 6, .. }), "{e}");
    assert!(
        e.to_string().contains("j/u0") && e.to_string().contains("never dispatched"),
        "{e}"
    );
    // A plan putting a child before its parent on one GPU deadlocks the FIFO queue.
    let order: Vec<TaskId> = (0..6).rev().map(TaskId::new).collect();
    let plan = Plan::new(vec![GpuId::new(0); 6], order);
    let e = sim.run(&mut AsPlanned::from_plan(plan), 0).unwrap_err();
    assert!(matches!(e, SimError::Stalled { .. }), "{e}");
    assert!(e.to_string().contains("j/v2"), "{e}");
    // Dispatching a task twice.
    let plan = Plan::new(
        vec![GpuId::new(0); 6],
        (0..6).chain(0..1).map(TaskId::new).collect(),
    );
    let e = sim.run(&mut AsPlanned::from_plan(plan), 0).unwrap_err();
    assert!(matches!(e, SimError::AlreadyDispatched { .. }), "{e}");
}

/// Log checker: hand-made logs over `a`, `b` (independent) and `c` (child of `a`, 1 GB)
/// in job `j`, and `d` in job `late` released at 5 s; 2 machines of one GPU.
mod bad_logs {
    use super::*;

    fn problem() -> Problem {
        let mut wb = WorkloadBuilder::new("w");
        let j = wb.add_job("j").unwrap();
        let a = wb.add_task(j, "a", 1.0, None).unwrap();
        wb.add_task(j, "b", 1.0, None).unwrap();
        let c = wb.add_task(j, "c", 1.0, None).unwrap();
        wb.add_edge(a, c, 1.0e9).unwrap();
        let late = wb.add_job("late").unwrap();
        wb.add_task(late, "d", 1.0, None).unwrap();
        wb.set_release(late, 5.0).unwrap();
        two_machines(wb.build().unwrap(), 1)
    }

    /// The valid log of a on g0 0..1 s, b on g0 1..2 s, c on g1 (transfer 1..2.5 s:
    /// 0.5 s latency + 1 GB at 1 GB/s) 2.5..3.5 s, d on g0 5..6 s; and its records.
    fn valid() -> (Vec<Event>, Vec<TaskRecord>) {
        let (g0, g1) = (GpuId::new(0), GpuId::new(1));
        let [a, b, c, d] = [0, 1, 2, 3].map(TaskId::new);
        let (j, late) = (JobId::new(0), JobId::new(1));
        let events = vec![
            Event::Released { time: 0.0, job: j },
            Event::Dispatched {
                time: 0.0,
                task: a,
                gpu: g0,
            },
            Event::Dispatched {
                time: 0.0,
                task: b,
                gpu: g0,
            },
            Event::Dispatched {
                time: 0.0,
                task: c,
                gpu: g1,
            },
            Event::Dispatched {
                time: 0.0,
                task: d,
                gpu: g0,
            },
            Event::Started {
                time: 0.0,
                task: a,
                gpu: g0,
            },
            Event::Finished {
                time: 1.0,
                task: a,
                gpu: g0,
            },
            Event::TransferStarted {
                time: 1.0,
                from_task: a,
                to_task: c,
            },
            Event::Started {
                time: 1.0,
                task: b,
                gpu: g0,
            },
            Event::Finished {
                time: 2.0,
                task: b,
                gpu: g0,
            },
            Event::TransferFinished {
                time: 2.5,
                from_task: a,
                to_task: c,
            },
            Event::Started {
                time: 2.5,
                task: c,
                gpu: g1,
            },
            Event::Finished {
                time: 3.5,
                task: c,
                gpu: g1,
            },
            Event::Released {
                time: 5.0,
                job: late,
            },
            Event::Started {
                time: 5.0,
                task: d,
                gpu: g0,
            },
            Event::Finished {
                time: 6.0,
                task: d,
                gpu: g0,
            },
        ];
        let rec = |gpu: GpuId, start: f64| TaskRecord {
            gpu,
            start,
            finish: start + 1.0,
            attempts: 1,
            lost_time: 0.0,
        };
        (
            events,
            vec![rec(g0, 0.0), rec(g0, 1.0), rec(g1, 2.5), rec(g0, 5.0)],
        )
    }

    fn result(events: Vec<Event>, tasks: Vec<TaskRecord>) -> SimResult {
        SimResult {
            tasks,
            jobs: Vec::new(),
            events,
            metrics: SimMetrics::default(),
        }
    }

    /// The violations of `events` (valid records), joined.
    fn violations(events: Vec<Event>) -> String {
        let (_, tasks) = valid();
        match check_log(&problem(), &result(events, tasks)) {
            Ok(()) => String::new(),
            Err(v) => v
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    #[test]
    fn the_hand_made_log_is_valid_and_matches_a_simulation() {
        let (events, tasks) = valid();
        let p = problem();
        assert_eq!(
            check_log(&p, &result(events.clone(), tasks.clone())),
            Ok(())
        );
        let plan = Plan::new(
            [0, 0, 1, 0].map(GpuId::new).to_vec(),
            [0, 1, 2, 3].map(TaskId::new).to_vec(),
        );
        let r = run(
            &p,
            config(Contention::None),
            &mut AsPlanned::from_plan(plan),
        );
        assert_eq!(r.tasks, tasks);
        assert_eq!(r.events, events);
    }

    #[test]
    fn two_tasks_overlapping_on_a_gpu() {
        let (mut e, _) = valid();
        // b starts at 0.5 s while a runs on g0 (until 1 s).
        e[8] = Event::Started {
            time: 0.5,
            task: TaskId::new(1),
            gpu: GpuId::new(0),
        };
        e[9] = Event::Finished {
            time: 1.5,
            task: TaskId::new(1),
            gpu: GpuId::new(0),
        };
        e[5..10].sort_by(|x, y| x.time().total_cmp(&y.time()));
        let v = violations(e);
        assert!(v.contains("j/b started on g0 while j/a runs there"), "{v}");
    }

    #[test]
    fn a_start_before_its_inputs() {
        let (mut e, _) = valid();
        // c starts at 2 s; its input from a arrives at 2.5 s.
        e.swap(10, 11);
        e[10] = Event::Started {
            time: 2.0,
            task: TaskId::new(2),
            gpu: GpuId::new(1),
        };
        let v = violations(e);
        assert!(
            v.contains("started on g1 before its input from") && v.contains("a on g0 arrived"),
            "{v}"
        );
        // A transfer faster than the network allows.
        let (mut e, _) = valid();
        e[10] = Event::TransferFinished {
            time: 1.5,
            from_task: TaskId::new(0),
            to_task: TaskId::new(2),
        };
        e[11] = Event::Started {
            time: 1.5,
            task: TaskId::new(2),
            gpu: GpuId::new(1),
        };
        e[12] = Event::Finished {
            time: 2.5,
            task: TaskId::new(2),
            gpu: GpuId::new(1),
        };
        e[8..13].sort_by(|x, y| x.time().total_cmp(&y.time()));
        let v = violations(e);
        assert!(
            v.contains("took 0.5 s, less than its contention-free time 1.5 s"),
            "{v}"
        );
    }

    /// `e` with its time moved by `dt`.
    fn shifted(e: Event, dt: f64) -> Event {
        match e {
            Event::Released { time, job } => Event::Released {
                time: time + dt,
                job,
            },
            Event::Dispatched { time, task, gpu } => Event::Dispatched {
                time: time + dt,
                task,
                gpu,
            },
            Event::Started { time, task, gpu } => Event::Started {
                time: time + dt,
                task,
                gpu,
            },
            Event::Finished { time, task, gpu } => Event::Finished {
                time: time + dt,
                task,
                gpu,
            },
            Event::Lost { time, task, gpu } => Event::Lost {
                time: time + dt,
                task,
                gpu,
            },
            Event::TransferStarted {
                time,
                from_task,
                to_task,
            } => Event::TransferStarted {
                time: time + dt,
                from_task,
                to_task,
            },
            Event::TransferFinished {
                time,
                from_task,
                to_task,
            } => Event::TransferFinished {
                time: time + dt,
                from_task,
                to_task,
            },
            Event::GpuDown { time, gpu } => Event::GpuDown {
                time: time + dt,
                gpu,
            },
            Event::GpuUp { time, gpu } => Event::GpuUp {
                time: time + dt,
                gpu,
            },
        }
    }

    #[test]
    fn the_verdict_holds_when_the_log_is_shifted_to_1e9_s() {
        // At 1e9 s an f64 spacing is 1.2e-7 s, more than the 1e-9 relative tolerance of a
        // 1.5 s transfer: the rounding of the shifted times must not make it "too fast".
        let dt = 1e9 + 0.1;
        let (events, tasks) = valid();
        let events: Vec<Event> = events.into_iter().map(|e| shifted(e, dt)).collect();
        let tasks: Vec<TaskRecord> = tasks
            .into_iter()
            .map(|t| TaskRecord {
                start: t.start + dt,
                finish: t.finish + dt,
                ..t
            })
            .collect();
        assert_eq!(
            check_log(&problem(), &result(events.clone(), tasks.clone())),
            Ok(())
        );
        // the transfer a -> c (1.5 s) one f64 spacing short of 1.5 s: rounding, not a breach
        let mut events = events;
        let i = events
            .iter()
            .position(|e| matches!(e, Event::TransferFinished { .. }))
            .unwrap();
        let start = events
            .iter()
            .find_map(|e| match e {
                Event::TransferStarted { time, .. } => Some(*time),
                _ => None,
            })
            .unwrap();
        let short = f64::from_bits((start + 1.5).to_bits() - 1);
        events[i] = shifted(events[i], short - events[i].time());
        assert_eq!(
            check_log(&problem(), &result(events.clone(), tasks.clone())),
            Ok(())
        );
        // ... while a transfer 1 ms too fast is still caught there
        let mut fast = events;
        let i = fast
            .iter()
            .position(|e| matches!(e, Event::TransferFinished { .. }))
            .unwrap();
        fast[i] = shifted(fast[i], -1e-3);
        let v = match check_log(&problem(), &result(fast, tasks)) {
            Ok(()) => String::new(),
            Err(v) => v
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        };
        assert!(v.contains("less than its contention-free time"), "{v}");
    }

    #[test]
    fn a_start_before_the_release() {
        let (mut e, _) = valid();
        // d starts at 4 s; its job is released at 5 s.
        e.insert(
            13,
            Event::Started {
                time: 4.0,
                task: TaskId::new(3),
                gpu: GpuId::new(0),
            },
        );
        e.remove(15);
        let v = violations(e);
        assert!(
            v.contains("started before its job late was released (release 5 s)"),
            "{v}"
        );
    }

    #[test]
    fn a_task_finished_twice() {
        let (mut e, _) = valid();
        e.push(Event::Finished {
            time: 6.0,
            task: TaskId::new(3),
            gpu: GpuId::new(0),
        });
        let v = violations(e);
        assert!(v.contains("d finished twice"), "{v}");
    }

    #[test]
    fn an_empty_log_and_a_missing_finish() {
        let v = violations(Vec::new());
        assert!(v.contains("the log is empty"), "{v}");
        let (mut e, _) = valid();
        e.pop();
        let v = violations(e);
        assert!(v.contains("d never finished"), "{v}");
    }
}
