//! Gang tasks in the simulator (issue 21 × issue 24): hand-computed starts, transfers into
//! and out of a gang with and without contention, a gang lost to an outage of one of its
//! GPUs; typed errors for policies that cannot place gangs and for bad sets; random
//! problems with gangs and windows under every gang-aware policy (log checked, every job
//! done), and the as-planned replay reproducing every gang-aware scheduler's plan bit for
//! bit.

mod common;

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{
    ClusterBuilder, Evaluator, GpuId, GpuModel, Link, Network, Plan, Policy, Problem,
};
use worl_dag::{GangParams, Span, TaskId, Workload, WorkloadBuilder};
use worl_sched::schedulers::Heft;
use worl_sched::testing::{problems_with_gangs, quick_schedulers, random_problem_with_gangs};
use worl_sched::{Budget, RunContext, Scheduler};
use worl_sim::arrivals::Arrivals;
use worl_sim::policies::{AsPlanned, LeastConnection, OnlineEft, Replan, RoundRobin};
use worl_sim::{
    Contention, Dispatch, Event, Failures, OnlinePolicy, Outage, RuntimeNoise, SimConfig, SimError,
    SimResult, SimView, Simulation, check_log,
};

/// Two machines `a` (g0, g1) and `b` (g2, g3) of V100s (speed 1: `exec = work`); between
/// machines 1 GB/s with 0.5 s latency, inside a machine 100 GB/s without latency. `busy`:
/// windows `(gpu, from, to)`.
fn two_machines(w: Workload, busy: &[(usize, f64, f64)]) -> Problem {
    let mut cb = ClusterBuilder::new("two");
    for name in ["a", "b"] {
        let m = cb.add_machine(name);
        cb.add_gpus(m, &GpuModel::v100_16gb(), 2).unwrap();
    }
    cb.network(Network::uniform(
        Link::new(100.0e9, 0.0).unwrap(),
        Link::new(1.0e9, 0.5).unwrap(),
    ));
    for &(k, from, to) in busy {
        cb.add_busy(GpuId::new(k), from, to).unwrap();
    }
    Problem::new(Arc::new(w), Arc::new(cb.build().unwrap())).unwrap()
}

/// Perfect scaling, no all-reduce: a gang of `g` runs `work / g`.
fn perfect(span: Span) -> GangParams {
    GangParams {
        span,
        efficiency: 1.0,
        sync_bytes: 0.0,
        sync_steps: 0.0,
    }
}

fn g(k: usize) -> GpuId {
    GpuId::new(k)
}

fn config(contention: Contention, failures: Failures) -> SimConfig {
    SimConfig {
        contention,
        failures,
        record_events: true,
        ..SimConfig::default()
    }
}

fn run(p: &Problem, cfg: SimConfig, policy: &mut dyn OnlinePolicy) -> SimResult {
    let r = Simulation::new(p, cfg).unwrap().run(policy, 1).unwrap();
    check_log(p, &r).unwrap_or_else(|v| panic!("{}: {v:#?}", policy.name()));
    r
}

/// [`run`] of `plan` replayed as planned, without contention or failures.
fn replay(p: &Problem, plan: Plan) -> SimResult {
    run(
        p,
        config(Contention::None, Failures::None),
        &mut AsPlanned::from_plan(plan),
    )
}

/// The `Started` events of `task`, as `(time, gpu)`.
fn starts(r: &SimResult, task: TaskId) -> Vec<(f64, GpuId)> {
    r.events
        .iter()
        .filter_map(|e| match *e {
            Event::Started { time, task: t, gpu } if t == task => Some((time, gpu)),
            _ => None,
        })
        .collect()
}

/// `x` (work 5) on g1, then the 2-GPU gang `ddp` (work 4) on `[g0, g1]`; `x` alone when
/// `with_x` is false.
fn gang_after(with_x: bool) -> (Workload, TaskId) {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    if with_x {
        b.add_task(j, "x", 5.0, None).unwrap();
    }
    let ddp = b.add_task(j, "ddp", 4.0, None).unwrap();
    b.set_gang(ddp, 2, perfect(Span::Machine)).unwrap();
    (b.build().unwrap(), ddp)
}

/// [`gang_after`] with `x` on [`two_machines`] without windows, replayed: `x` on g1, then
/// `ddp` on `[g0, g1]`. Returns the problem, `x`, `ddp` and the result.
fn x_then_ddp_replayed() -> (Problem, TaskId, TaskId, SimResult) {
    let (w, ddp) = gang_after(true);
    let p = two_machines(w, &[]);
    let x = TaskId::new(0);
    let plan = Plan::new(vec![g(1), g(0)], vec![x, ddp]).with_set(ddp, vec![g(0), g(1)]);
    let r = replay(&p, plan);
    (p, x, ddp, r)
}

#[test]
fn a_gang_whose_second_gpu_is_busy_until_5_starts_at_5() {
    // Busy with a task: x runs on g1 over [0, 5); ddp on [g0, g1] waits for it and runs
    // 4 / 2 = 2 s: [5, 7).
    let (_, x, ddp, r) = x_then_ddp_replayed();
    assert_eq!(r.tasks[x.index()].finish, 5.0);
    assert_eq!(
        (r.tasks[ddp.index()].start, r.tasks[ddp.index()].finish),
        (5.0, 7.0)
    );
    assert_eq!(r.tasks[ddp.index()].gpu, g(0));
    assert_eq!(starts(&r, ddp), vec![(5.0, g(0)), (5.0, g(1))]);
    assert_eq!(r.metrics.makespan, 7.0);
    // Ideal: max(x's 5 s, ddp's 4 / 2 s) = 5 s; slowdown 7 / 5.
    assert_eq!(r.jobs[0].slowdown, 7.0 / 5.0);
    // Busy time: g0 2 s, g1 5 + 2 s.
    assert_eq!(r.metrics.utilisation, (2.0 + 7.0) / (4.0 * 7.0));

    // Busy with a window: g1 is busy over [0, 5); the same start.
    let (w, ddp) = gang_after(false);
    let p = two_machines(w, &[(1, 0.0, 5.0)]);
    let plan = Plan::new(vec![g(0)], vec![ddp]).with_set(ddp, vec![g(0), g(1)]);
    let r = replay(&p, plan);
    assert_eq!((r.tasks[0].start, r.tasks[0].finish), (5.0, 7.0));
    assert_eq!(starts(&r, ddp), vec![(5.0, g(0)), (5.0, g(1))]);
    // Online EFT estimates without windows (as for single-GPU tasks): every set ties at
    // [0, 2), the lowest lead g0 wins, and the engine holds the gang until g1's window
    // ends: [5, 7).
    let r = run(
        &p,
        config(Contention::None, Failures::None),
        &mut OnlineEft::new(),
    );
    assert_eq!((r.tasks[0].start, r.tasks[0].finish), (5.0, 7.0));
    assert_eq!(starts(&r, ddp), vec![(5.0, g(0)), (5.0, g(1))]);
}

/// `p1` (work 1) on g0 and `p2` (work 2) on g2 feed the gang `ddp` (work 4, 2 GPUs) on
/// `[g0, g1]` with 1 GB and 2 GB; `ddp` feeds `c` (work 1) on g2 with 1 GB.
fn two_parents() -> (Problem, Plan, [TaskId; 4]) {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let p1 = b.add_task(j, "p1", 1.0, None).unwrap();
    let p2 = b.add_task(j, "p2", 2.0, None).unwrap();
    let ddp = b.add_task(j, "ddp", 4.0, None).unwrap();
    let c = b.add_task(j, "c", 1.0, None).unwrap();
    b.set_gang(ddp, 2, perfect(Span::Machine)).unwrap();
    b.add_edge(p1, ddp, 1e9).unwrap();
    b.add_edge(p2, ddp, 2e9).unwrap();
    b.add_edge(ddp, c, 1e9).unwrap();
    let p = two_machines(b.build().unwrap(), &[]);
    let plan = Plan::new(vec![g(0), g(2), g(0), g(2)], vec![p1, p2, ddp, c])
        .with_set(ddp, vec![g(0), g(1)]);
    (p, plan, [p1, p2, ddp, c])
}

#[test]
fn a_gang_receives_from_two_machines_and_sends_from_its_nearest_gpu() {
    let (p, plan, [p1, p2, ddp, c]) = two_parents();
    // No contention. p1 ends at 1 on g0: g0 has its data, g1 gets it over the intra link
    // at 1 + 1e9 / 100e9 = 1.01. p2 ends at 2 on g2: g0 and g1 each get 2 GB at
    // 2 + 0.5 + 2 = 4.5. ddp runs 4 / 2 = 2 s: [4.5, 6.5). c on g2 gets 1 GB from g0 (both
    // GPUs of the set are as near: the first) at 6.5 + 0.5 + 1 = 8: [8, 9).
    let r = replay(&p, plan.clone());
    assert_eq!(r.tasks[p1.index()].finish, 1.0);
    assert_eq!(r.tasks[p2.index()].finish, 2.0);
    assert_eq!(
        (r.tasks[ddp.index()].start, r.tasks[ddp.index()].finish),
        (4.5, 6.5)
    );
    assert_eq!(
        (r.tasks[c.index()].start, r.tasks[c.index()].finish),
        (8.0, 9.0)
    );
    // One transfer per (edge, destination GPU) off the source: p1 -> g1, p2 -> g0 and g1,
    // ddp -> g2.
    assert_eq!(r.metrics.bytes_moved, 1e9 + 2.0 * 2e9 + 1e9);
    let arrivals: Vec<(f64, TaskId)> = r
        .events
        .iter()
        .filter_map(|e| match *e {
            Event::TransferFinished {
                time, from_task, ..
            } => Some((time, from_task)),
            _ => None,
        })
        .collect();
    assert_eq!(arrivals, vec![(1.01, p1), (4.5, p2), (4.5, p2), (8.0, ddp)]);
    // The planning model gives the same times.
    let planned = Evaluator::new(&p).schedule(&plan, Policy::Append).unwrap();
    assert_eq!(planned.task(ddp).start, 4.5);
    assert_eq!(planned.makespan(), 9.0);

    // Fair contention: the two 2 GB flows b -> a share the 1 GB/s link and NICs, 0.5 GB/s
    // each after the 0.5 s latency: they arrive at 2 + 0.5 + 4 = 6.5; ddp runs [6.5, 8.5);
    // c's input alone on its link arrives at 8.5 + 1.5 = 10: [10, 11).
    let r = run(
        &p,
        config(Contention::Fair, Failures::None),
        &mut AsPlanned::from_plan(plan),
    );
    assert_eq!(
        (r.tasks[ddp.index()].start, r.tasks[ddp.index()].finish),
        (6.5, 8.5)
    );
    assert_eq!(
        (r.tasks[c.index()].start, r.tasks[c.index()].finish),
        (10.0, 11.0)
    );
    // Each 2 GB flow took 4 s instead of 2.
    assert_eq!(r.metrics.contention_delay, 4.0);
}

#[test]
fn an_outage_of_one_gpu_kills_the_whole_gang_and_it_runs_again() {
    // ddp (work 8, 2 GPUs) on [g0, g1] runs [0, 4); g1 fails over [1, 3).
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let ddp = b.add_task(j, "ddp", 8.0, None).unwrap();
    b.set_gang(ddp, 2, perfect(Span::Machine)).unwrap();
    let p = two_machines(b.build().unwrap(), &[]);
    let outage = || Failures::Script(vec![Outage::new(g(1), 1.0, 3.0)]);
    // As planned: lost at 1 on both GPUs (1 s each: 2 GPU-seconds), back to [g0, g1],
    // waits for g1's repair at 3: [3, 7).
    let plan = Plan::new(vec![g(0)], vec![ddp]).with_set(ddp, vec![g(0), g(1)]);
    let r = run(
        &p,
        config(Contention::None, outage()),
        &mut AsPlanned::from_plan(plan),
    );
    let t = r.tasks[ddp.index()];
    assert_eq!((t.start, t.finish, t.attempts), (3.0, 7.0, 2));
    assert_eq!(t.lost_time, 2.0);
    assert_eq!(r.metrics.lost_time, 2.0);
    let lost: Vec<(f64, GpuId)> = r
        .events
        .iter()
        .filter_map(|e| match *e {
            Event::Lost { time, gpu, .. } => Some((time, gpu)),
            _ => None,
        })
        .collect();
    // The failed GPU first.
    assert_eq!(lost, vec![(1.0, g(1)), (1.0, g(0))]);
    assert_eq!(
        starts(&r, ddp),
        vec![(0.0, g(0)), (0.0, g(1)), (3.0, g(0)), (3.0, g(1))]
    );
    // Busy time counts the successful attempt only: 4 s on g0 and g1.
    assert_eq!(r.metrics.utilisation, 8.0 / (4.0 * 7.0));

    // Online EFT first takes [g0, g1] (ties to the lowest lead) and, at the loss, g1 being
    // down, moves the gang to [g2, g3]: [1, 5).
    let r = run(
        &p,
        config(Contention::None, outage()),
        &mut OnlineEft::new(),
    );
    let t = r.tasks[ddp.index()];
    assert_eq!((t.start, t.finish, t.attempts), (1.0, 5.0, 2));
    assert_eq!(
        starts(&r, ddp),
        vec![(0.0, g(0)), (0.0, g(1)), (1.0, g(2)), (1.0, g(3))]
    );
}

#[test]
fn online_policies_place_a_gang_among_single_gpu_tasks() {
    // a (work 3) and b (work 3) single; ddp (work 8, 2 GPUs, span machine); all ready at 0.
    let mut bld = WorkloadBuilder::new("w");
    let j = bld.add_job("j").unwrap();
    bld.add_task(j, "a", 3.0, None).unwrap();
    bld.add_task(j, "b", 3.0, None).unwrap();
    let ddp = bld.add_task(j, "ddp", 8.0, None).unwrap();
    bld.set_gang(ddp, 2, perfect(Span::Machine)).unwrap();
    let p = two_machines(bld.build().unwrap(), &[]);
    let cfg = || config(Contention::None, Failures::None);
    // Online EFT: ranks ddp (mean 8) first: [g0, g1] at [0, 4); a -> g2 [0, 3), b -> g3.
    let r = run(&p, cfg(), &mut OnlineEft::new());
    assert_eq!(starts(&r, ddp), vec![(0.0, g(0)), (0.0, g(1))]);
    assert_eq!((r.tasks[0].gpu, r.tasks[1].gpu), (g(2), g(3)));
    assert_eq!(r.metrics.makespan, 4.0);
    // Round-robin: a -> g0, b -> g1, ddp led by g2 on [g2, g3].
    let r = run(&p, cfg(), &mut RoundRobin::new());
    assert_eq!((r.tasks[0].gpu, r.tasks[1].gpu), (g(0), g(1)));
    assert_eq!(starts(&r, ddp), vec![(0.0, g(2)), (0.0, g(3))]);
    // Least-connection: a -> g0, b -> g1, ddp led by the least-loaded g2 on [g2, g3].
    let r = run(&p, cfg(), &mut LeastConnection::new());
    assert_eq!(starts(&r, ddp), vec![(0.0, g(2)), (0.0, g(3))]);
    assert_eq!(r.metrics.makespan, 4.0);
    // Re-planning with HEFT keeps HEFT's sets.
    let mut replan = Replan::new(Box::new(Heft::new()), Budget::default());
    let r = run(&p, cfg(), &mut replan);
    let heft = Heft::new()
        .schedule(&p, &mut RunContext::new(0))
        .expect("HEFT places gangs");
    assert_eq!(
        starts(&r, ddp).into_iter().map(|s| s.1).collect::<Vec<_>>(),
        heft.gpus(ddp).to_vec()
    );
    assert_eq!(r.metrics.makespan, heft.makespan());
}

#[test]
fn a_cluster_span_gang_fills_the_leads_machine_first_and_pays_its_all_reduce() {
    // ddp: 3 GPUs, span cluster, work 6, one all-reduce step of 3 GB. Online EFT: every
    // lead gives a set of 2 GPUs of its machine plus the earliest of the other (ties to the
    // lowest id), all free at 0; every set has the same finish, the lowest lead g0 wins:
    // [g0, g1, g2]. Run time: 6 / 3 + 1 · (2 · 2/3 · 3e9 / 1e9 + 2 · 2 · 0.5) = 2 + 6 = 8 s
    // (the slowest link of the set is the 1 GB/s, 0.5 s inter-machine one). The all-reduce
    // loads no link: fair contention changes nothing.
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let ddp = b.add_task(j, "ddp", 6.0, None).unwrap();
    let params = GangParams {
        sync_steps: 1.0,
        sync_bytes: 3e9,
        ..perfect(Span::Cluster)
    };
    b.set_gang(ddp, 3, params).unwrap();
    let p = two_machines(b.build().unwrap(), &[]);
    for contention in [Contention::None, Contention::Fair] {
        let r = run(
            &p,
            config(contention, Failures::None),
            &mut OnlineEft::new(),
        );
        assert_eq!(starts(&r, ddp), vec![(0.0, g(0)), (0.0, g(1)), (0.0, g(2))]);
        assert_eq!(r.tasks[0].finish, 8.0);
        assert_eq!(r.metrics.contention_delay, 0.0);
        assert_eq!(r.metrics.bytes_moved, 0.0);
    }
}

/// Dispatches every ready task to GPU 0, with the set `set` for gang tasks.
struct Fixed {
    set: Option<Vec<GpuId>>,
}

impl OnlinePolicy for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }

    fn decide(&mut self, view: &SimView<'_>, out: &mut Vec<Dispatch>) -> Result<(), SimError> {
        for &task in view.ready_tasks() {
            out.push(Dispatch { task, gpu: g(0) });
        }
        Ok(())
    }

    fn gang_set(&self, _task: TaskId) -> Option<Vec<GpuId>> {
        self.set.clone()
    }
}

#[test]
fn bad_sets_and_policies_without_gangs_are_typed_errors() {
    let (w, _) = gang_after(false);
    let p = two_machines(w, &[]);
    let sim = Simulation::new(&p, SimConfig::default()).unwrap();
    let err = |set: Option<Vec<GpuId>>| sim.run(&mut Fixed { set }, 0).unwrap_err();
    let e = err(Some(vec![g(0), g(2)]));
    assert!(matches!(e, SimError::InvalidGpuSet { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "policy `fixed` dispatched gang task j/ddp to the GPU set [g0, g2]: span machine, but g2 is on another machine than g0"
    );
    let e = err(Some(vec![g(0)]));
    assert!(
        e.to_string().ends_with("1 GPUs given, the task needs 2"),
        "{e}"
    );
    let e = err(Some(vec![g(1), g(0)]));
    assert!(
        e.to_string()
            .ends_with("the set is not led by the dispatch's GPU g0"),
        "{e}"
    );
    let e = err(Some(vec![g(0), g(0)]));
    assert!(e.to_string().ends_with("GPU g0 is repeated"), "{e}");
    let e = err(Some(vec![g(0), g(9)]));
    assert!(e.to_string().contains("GPU index 9 is out of range"), "{e}");
    // Without a set the engine takes best_set's: g1 joins g0.
    let r = sim.run(&mut Fixed { set: None }, 0).unwrap();
    assert_eq!((r.tasks[0].start, r.tasks[0].finish), (0.0, 2.0));

    // Re-planning with a scheduler that does not place gangs (every built-in without burn
    // does; one that keeps the trait's default does not).
    let name = NoGangs.name().to_owned();
    let mut replan = Replan::new(Box::new(NoGangs), Budget::default());
    let e = sim.run(&mut replan, 0).unwrap_err();
    assert!(
        matches!(e, SimError::GangUnsupported { gpus: 2, .. }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "policy `replan({name})` does not support gang tasks: task `j/ddp` needs 2 GPUs at once"
        )
    );
}

/// A scheduler that keeps [`Scheduler::supports_gangs`]'s default (`false`): HEFT's
/// schedule, never asked for on a gang problem.
struct NoGangs;

impl Scheduler for NoGangs {
    fn name(&self) -> &str {
        "no-gangs"
    }

    fn schedule(
        &mut self,
        problem: &Problem,
        ctx: &mut RunContext<'_>,
    ) -> worl_sched::Result<worl_cluster::Schedule> {
        Heft::new().schedule(problem, ctx)
    }
}

/// The violations `check_log` finds in `r` with its events replaced by `events`, joined.
fn violations(p: &Problem, r: &SimResult, events: Vec<Event>) -> String {
    let r = SimResult {
        events,
        ..r.clone()
    };
    match check_log(p, &r) {
        Ok(()) => String::new(),
        Err(v) => v
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The events of `r`, those `pick` selects moved to `time` (s). Only `Started`,
/// `Finished` and `TransferStarted` events are moved.
fn retimed(r: &SimResult, pick: impl Fn(&Event) -> bool, time: f64) -> Vec<Event> {
    r.events
        .iter()
        .map(|&e| match e {
            _ if !pick(&e) => e,
            Event::Started { task, gpu, .. } => Event::Started { time, task, gpu },
            Event::Finished { task, gpu, .. } => Event::Finished { time, task, gpu },
            Event::TransferStarted {
                from_task, to_task, ..
            } => Event::TransferStarted {
                time,
                from_task,
                to_task,
            },
            e => panic!("retimed moves no {e:?}"),
        })
        .collect()
}

#[test]
fn the_log_checker_catches_broken_gangs() {
    let (p, x, ddp, r) = x_then_ddp_replayed();
    let started_on = |e: &Event, k: usize| matches!(*e, Event::Started { task, gpu, .. } if task == ddp && gpu == g(k));
    // Started on g0 only.
    let mut e = r.events.clone();
    e.retain(|e| !started_on(e, 1));
    let v = violations(&p, &r, e);
    assert!(v.contains("j/ddp ran on 1 of its 2 GPUs"), "{v}");
    assert!(
        v.contains("j/ddp finished on g1 without running there"),
        "{v}"
    );
    // Started on g1 half a second late.
    let v = violations(&p, &r, retimed(&r, |e| started_on(e, 1), 5.5));
    assert!(
        v.contains("j/ddp started on g1 at 5.5 s, apart from its set's start at 5 s"),
        "{v}"
    );
    // Started on g1 while x still runs there (x's finish moved after it).
    let mut e = r.events.clone();
    let fx = e
        .iter()
        .position(|e| matches!(*e, Event::Finished { task, .. } if task == x))
        .unwrap();
    let f = e.remove(fx);
    let at = e.iter().position(|e| started_on(e, 1)).unwrap();
    e.insert(at + 1, f);
    let v = violations(&p, &r, e);
    assert!(
        v.contains("j/ddp started on g1 while j/x runs there"),
        "{v}"
    );
    // Finished on g1 later than on g0.
    let finished_on_g1 =
        |e: &Event| matches!(*e, Event::Finished { task, gpu, .. } if task == ddp && gpu == g(1));
    let v = violations(&p, &r, retimed(&r, finished_on_g1, 7.5));
    assert!(
        v.contains(
            "j/ddp finished on g1 at 7.5 s, apart from its set's other GPUs (finished at 7 s)"
        ),
        "{v}"
    );

    // An input delivered to one GPU of the set only.
    let (p, plan, [_, p2, ddp, _]) = two_parents();
    let r = replay(&p, plan);
    let mut e = r.events.clone();
    let i = e
        .iter()
        .position(|e| matches!(*e, Event::TransferFinished { from_task, to_task, .. } if from_task == p2 && to_task == ddp))
        .unwrap();
    e.remove(i);
    let v = violations(&p, &r, e);
    assert!(
        v.contains("j/ddp started on its set [g0, g1] before its input from j/p2 arrived on every GPU (1 of 2 transfers delivered)"),
        "{v}"
    );
    // A transfer faster than the model allows (2 GB from machine b in 1 s).
    let from_p2 =
        |e: &Event| matches!(*e, Event::TransferStarted { from_task, .. } if from_task == p2);
    let v = violations(&p, &r, retimed(&r, from_p2, 3.5));
    assert!(
        v.contains("the transfer j/p2 -> j/ddp took 1 s, less than its contention-free time 2.5 s"),
        "{v}"
    );
}

/// `w` with its tasks dealt into 3 jobs (task `i` in job `i mod 3`; edges, works, memory
/// and gangs kept; edges may cross jobs).
fn three_jobs(w: &Workload) -> Workload {
    let mut b = WorkloadBuilder::new("dealt");
    let jobs: Vec<_> = (0..3)
        .map(|j| b.add_job(format!("j{j}")).unwrap())
        .collect();
    let g = w.graph();
    for (v, t) in g.tasks() {
        let id = b
            .add_task(jobs[v.index() % 3], t.name.clone(), t.work, t.mem_gib)
            .unwrap();
        assert_eq!(id, v);
        if t.is_gang() {
            b.set_gang(id, t.gpus, t.gang).unwrap();
        }
    }
    for v in g.task_ids() {
        for e in g.preds(v) {
            b.add_edge(e.task, v, e.bytes).unwrap();
        }
    }
    b.build().unwrap()
}

/// The gang-aware online policies.
fn policies() -> Vec<Box<dyn OnlinePolicy>> {
    vec![
        Box::new(OnlineEft::new()),
        Box::new(LeastConnection::new()),
        Box::new(RoundRobin::new()),
        Box::new(Replan::new(Box::new(Heft::new()), Budget::default())),
    ]
}

/// Runs every gang-aware policy and the as-planned replay of HEFT's plan on `p` under
/// `cfg`: the log checks and every job finishes (without noise, no sooner than its ideal
/// time).
fn every_policy_completes(p: &Problem, cfg: &SimConfig, seed: u64) -> Result<(), TestCaseError> {
    let heft = Heft::new().schedule(p, &mut RunContext::new(seed)).unwrap();
    let mut all = policies();
    all.push(Box::new(AsPlanned::new(p, &heft).unwrap()));
    for mut policy in all {
        let logged = SimConfig {
            record_events: true,
            ..cfg.clone()
        };
        let r = Simulation::new(p, logged)
            .unwrap()
            .run(policy.as_mut(), seed)
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", policy.name())))?;
        if let Err(v) = check_log(p, &r) {
            return Err(TestCaseError::fail(format!(
                "{}: {} violations, first: {}",
                policy.name(),
                v.len(),
                v[0]
            )));
        }
        for (j, job) in r.jobs.iter().enumerate() {
            prop_assert!(
                job.finish.is_finite() && job.finish >= job.release,
                "{}: job {}",
                policy.name(),
                j
            );
            if cfg.noise == RuntimeNoise::default() {
                // The ideal time (a gang at its compute share) is a lower bound of the JCT.
                prop_assert!(
                    job.slowdown >= 1.0 - 1e-9,
                    "{}: job {} slowdown {}",
                    policy.name(),
                    j,
                    job.slowdown
                );
            }
        }
        for (v, t) in r.tasks.iter().enumerate() {
            prop_assert!(
                t.finish >= t.start && t.attempts >= 1,
                "{}: task {}",
                policy.name(),
                v
            );
        }
    }
    Ok(())
}

/// The as-planned replay of every gang-aware scheduler's plan reproduces the plan's
/// append decoding bit for bit (no noise, contention, failures or releases).
fn replay_matches_the_plan(p: &Problem, seed: u64) -> Result<(), TestCaseError> {
    for mut s in quick_schedulers()
        .into_iter()
        .filter(|s| s.supports_gangs())
    {
        let name = s.name().to_owned();
        let (schedule, planned) = common::schedule_and_timing(&name, s.as_mut(), p, seed)?;
        let mut policy = AsPlanned::new(p, &schedule).unwrap();
        let r = run(p, config(Contention::None, Failures::None), &mut policy);
        common::same_as_planned(&name, &r, &planned)?;
        for (task, set) in planned.sets() {
            prop_assert_eq!(
                starts(&r, task)
                    .into_iter()
                    .map(|s| s.1)
                    .collect::<Vec<_>>(),
                set.to_vec(),
                "{}: set of {}",
                name,
                task
            );
        }
    }
    Ok(())
}

#[test]
fn the_replay_reproduces_gang_plans_on_fixed_problems() {
    for (i, windows) in [false, true].into_iter().enumerate() {
        let p = random_problem_with_gangs(
            20,
            6,
            0.2,
            worl_sched::testing::ClusterKind::ALL[i],
            1.0,
            500 + i as u64,
            windows,
        );
        assert!(p.has_gangs());
        replay_matches_the_plan(&p, 3).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_gang_policy_completes_random_problems(
        p in problems_with_gangs(14, 6),
        seed in 0u64..1000,
    ) {
        every_policy_completes(&p, &SimConfig::default(), seed)?;
        let noisy = SimConfig {
            noise: RuntimeNoise::LogNormal { cv: 0.3 },
            contention: Contention::Fair,
            ..SimConfig::default()
        };
        every_policy_completes(&p, &noisy, seed)?;
        // The tasks dealt into 3 jobs arriving about one a second (related problems: the
        // cost model is rebuilt).
        if !p.is_unrelated() {
            let w = Arrivals::Poisson { rate_per_hour: 3600.0 }
                .apply(&three_jobs(p.workload()), seed)
                .unwrap();
            prop_assert_eq!(w.has_gangs(), p.has_gangs());
            let arriving = Problem::new(Arc::new(w), p.cluster_arc().clone()).unwrap();
            every_policy_completes(&arriving, &noisy, seed)?;
        }
        let failing = SimConfig {
            noise: RuntimeNoise::LogNormal { cv: 0.3 },
            failures: Failures::Script(vec![
                Outage::new(GpuId::new(0), 0.5, 3.0),
                Outage::new(GpuId::new(p.n_gpus() - 1), 2.0, 2.5),
            ]),
            ..SimConfig::default()
        };
        every_policy_completes(&p, &failing, seed)?;
        // Dispatches delayed by the decision's wall-clock time (a gang's set is chosen at
        // the decision and applied later).
        let charged = SimConfig {
            contention: Contention::Fair,
            charge_decision_time: true,
            ..SimConfig::default()
        };
        every_policy_completes(&p, &charged, seed)?;
    }

    #[test]
    fn the_replay_reproduces_gang_plans(p in problems_with_gangs(14, 6), seed in 0u64..100) {
        replay_matches_the_plan(&p, seed)?;
    }
}
