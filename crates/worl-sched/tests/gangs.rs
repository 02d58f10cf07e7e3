//! Gang tasks (a task needing more than one GPU, issue 21): the registered schedulers that
//! place them ([`Scheduler::supports_gangs`]: the list schedulers, the searches decoding
//! through the Evaluator) schedule them validly; every other refuses them with one typed
//! error naming itself and the first gang task, before any work; a downstream scheduler
//! that supports them is let through. HEFT's choices on a small case are computed by hand.

use std::sync::Arc;
use worl_cluster::{GpuId, GpuModel, Policy, Problem, Schedule, presets, testing};
use worl_dag::{GangParams, Span, TaskId, WorkloadBuilder};
use worl_sched::schedulers::BUILTINS;
use worl_sched::schedulers::Heft;
use worl_sched::schedulers::list::upward_ranks;
use worl_sched::{Registry, RunContext, ScheduleError, Scheduler, check_supported};

/// Job `train`: `prep` (1 GPU) then `ddp` (4 GPUs) and `eval` (2 GPUs, across machines);
/// on 8 V100s.
fn gang_problem() -> Problem {
    let mut b = WorkloadBuilder::new("gangs");
    let j = b.add_job("train").unwrap();
    let prep = b.add_task(j, "prep", 10.0, None).unwrap();
    let ddp = b.add_task(j, "ddp", 80.0, None).unwrap();
    let eval = b.add_task(j, "eval", 20.0, None).unwrap();
    b.add_edge(prep, ddp, 1e6).unwrap();
    b.add_edge(ddp, eval, 1e6).unwrap();
    b.set_gang(ddp, 4, GangParams::default()).unwrap();
    b.set_gang(
        eval,
        2,
        GangParams {
            span: Span::Cluster,
            ..GangParams::default()
        },
    )
    .unwrap();
    let cluster = presets::homogeneous(8, &GpuModel::v100_16gb()).unwrap();
    Problem::new(Arc::new(b.build().unwrap()), Arc::new(cluster)).unwrap()
}

#[test]
fn gang_aware_schedulers_place_gangs_and_the_others_refuse_naming_themselves_and_the_task() {
    let p = gang_problem();
    assert!(p.graph().has_gangs());
    let registry = Registry::with_builtins();
    let gang_aware = worl_sched::testing::gang_schedulers();
    let (mut refused, mut placed) = (0, 0);
    for b in BUILTINS {
        // short runs (the registry's quick options); the refusal also under a time budget
        // (a search given a time budget spends it: ILS would run 10 s)
        let quick = |extra: &str| match (b.quick, extra) {
            ("", "") => b.name.to_owned(),
            ("", e) => format!("{}[{e}]", b.name),
            (q, "") => format!("{}[{q}]", b.name),
            (q, e) => format!("{}[{q},{e}]", b.name),
        };
        let aware = gang_aware.contains(&b.name);
        let mut specs = vec![quick("")];
        if !aware {
            specs.push(quick("time=10s"));
        }
        if ["woa", "pso", "ga"].contains(&b.name) {
            // the position decoder too (one coordinate per task floored to a lead)
            specs.push(format!("{}[{},decoder=position]", b.name, b.quick));
        }
        for spec in specs {
            let mut s = registry.build_spec(&spec).unwrap();
            assert_eq!(s.supports_gangs(), aware, "{spec}");
            if aware {
                let schedule = s.schedule(&p, &mut RunContext::new(1)).unwrap();
                assert_eq!(schedule.validate(&p), vec![], "{spec}");
                assert_eq!(schedule.gpus(TaskId::new(1)).len(), 4, "{spec}");
                assert_eq!(schedule.gpus(TaskId::new(2)).len(), 2, "{spec}");
                placed += 1;
                continue;
            }
            let err = s.schedule(&p, &mut RunContext::new(1)).unwrap_err();
            match &err {
                ScheduleError::Unsupported {
                    scheduler,
                    feature,
                    task,
                    gpus,
                } => {
                    assert_eq!(scheduler, s.name(), "{spec}");
                    assert_eq!(*feature, worl_sched::error::GANG_TASKS);
                    // the first gang task by id is ddp (4 GPUs), not eval
                    assert_eq!((task.as_str(), *gpus), ("train/ddp", 4), "{spec}");
                }
                other => panic!("{spec}: {other}"),
            }
            let msg = err.to_string();
            assert!(
                msg.contains(s.name()) && msg.contains("train/ddp") && msg.contains("4 GPUs"),
                "{msg}"
            );
            assert!(!msg.contains('\n'), "{msg}");
            refused += 1;
        }
    }
    // the registry holds worl-rtgs and worl-rtgs-paper only with the `ddqn` feature
    let aware = BUILTINS
        .iter()
        .filter(|b| gang_aware.contains(&b.name))
        .count();
    assert_eq!(placed, aware + 3);
    assert_eq!(refused, 2 * (BUILTINS.len() - aware));
}

#[test]
fn single_gpu_problems_pass_the_check_and_gangs_do_not() {
    let p = gang_problem();
    let err = check_supported("mine", &p).unwrap_err();
    assert_eq!(
        err.to_string(),
        "scheduler `mine` does not support gang tasks (a task needing more than one GPU): \
         task train/ddp needs 4 GPUs"
    );
    // The same workload with every task back at 1 GPU passes.
    let mut b = p.workload().to_builder();
    for v in p.graph().task_ids() {
        b.set_gang(v, 1, GangParams::default()).unwrap();
    }
    let single = Problem::new(Arc::new(b.build().unwrap()), p.cluster_arc().clone()).unwrap();
    assert!(!single.graph().has_gangs());
    check_supported("mine", &single).unwrap();
    for mut s in BUILTINS
        .iter()
        .map(|b| Registry::with_builtins().build_spec(b.name).unwrap())
    {
        let schedule = s.schedule(&single, &mut RunContext::new(1)).unwrap();
        assert!(schedule.validate(&single).is_empty(), "{}", s.name());
    }
}

/// A downstream scheduler that says it places gangs (a stub: it returns an empty schedule).
struct GangAware;

impl Scheduler for GangAware {
    fn name(&self) -> &str {
        "gang-aware"
    }
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        Ok(Schedule::new(p.n_gpus(), Vec::new())?)
    }
    fn supports_gangs(&self) -> bool {
        true
    }
}

/// The same scheduler without the claim.
struct Plain;

impl Scheduler for Plain {
    fn name(&self) -> &str {
        "plain"
    }
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        Ok(Schedule::new(p.n_gpus(), Vec::new())?)
    }
}

#[test]
fn a_registered_scheduler_that_supports_gangs_is_let_through() {
    let p = gang_problem();
    let mut r = Registry::new();
    r.register("gang-aware", "places gangs", |o| {
        o.finish()?;
        Ok(Box::new(GangAware))
    });
    r.register("plain", "does not", |o| {
        o.finish()?;
        Ok(Box::new(Plain))
    });
    let mut aware = r.build_spec("gang-aware").unwrap();
    assert!(aware.supports_gangs());
    assert!(aware.schedule(&p, &mut RunContext::new(1)).is_ok());
    let mut plain = r.build_spec("plain").unwrap();
    assert!(!plain.supports_gangs());
    assert!(matches!(
        plain.schedule(&p, &mut RunContext::new(1)),
        Err(ScheduleError::Unsupported { ref scheduler, gpus: 4, .. }) if scheduler == "plain"
    ));
}

/// Two machines `a` (g0..g3) and `b` (g4..g7) of 4 GPUs of speed 1, 32 GiB; intra-machine
/// links 1 GB/s, 0.25 s; between the machines 0.1 GB/s, 1 s. Tasks `a` (2) → `G` (8, 4 GPUs,
/// span machine, efficiency 1, no all-reduce) → `c` (1), and `x` (3) alone; 0-byte edges:
/// the case worl-cluster's gang tests use too ([`testing::four_gpu_among_singles`]).
fn four_gpu_among_singles() -> Problem {
    testing::four_gpu_among_singles()
}

fn gpus(ks: &[usize]) -> Vec<GpuId> {
    ks.iter().map(|&k| GpuId::new(k)).collect()
}

#[test]
fn heft_places_a_4_gpu_task_among_1_gpu_tasks_on_two_4_gpu_machines_by_hand() {
    let p = four_gpu_among_singles();
    let (a, gg, c, x) = (0, 1, 2, 3);
    // Mean costs. A 0-byte edge costs its latency: over the 56 ordered pairs of distinct
    // GPUs, 24 intra-machine (0.25 s) and 32 across (1 s): c̄ = (6 + 32) / 56 = 19/28 s.
    // w̄: a 2, G 8 / (4 · 1) = 2 (its mean run time on 4 GPUs), c 1, x 3.
    // rank_u: c = 1; G = 2 + 19/28 + 1 = 3 + 19/28; a = 2 + 19/28 + G = 5 + 38/28; x = 3.
    let rank = upward_ranks(&p);
    let cbar = 19.0 / 28.0;
    let want = [5.0 + 2.0 * cbar, 3.0 + cbar, 1.0, 3.0];
    for (v, w) in want.iter().enumerate() {
        assert!(
            (rank[v] - w).abs() < 1e-12,
            "rank_u(t{v}) = {}, want {w}",
            rank[v]
        );
    }
    // Order: a (6.36), then of {G 3.68, x 3} G, then of {x 3, c 1} x, then c.
    //  a: every GPU is free: EFT 2 everywhere, the smallest id wins: g0 [0, 2].
    //  G: lead g0: the share 8 / 4 = 2 s could start at 2.25 on g1, g2, g3 (a's data over
    //     the 0.25 s intra link), set {g0, g1, g2, g3}, common start max(2, 2.25) = 2.25,
    //     finish 4.25; leads g1..g3 give the same 4.25 (set with g0, data at 2.25 on the
    //     lead); leads g4..g7: a's data crosses machines, 2 + 1 = 3, finish 5. Earliest
    //     common finish 4.25, smallest lead g0: G on {g0, g1, g2, g3} [2.25, 4.25].
    //  x: on g0..g3 the only gaps are [2, 2.25] and [0, 2.25], shorter than 3: EFT 7.25;
    //     on g4..g7 EFT 3: g4 [0, 3].
    //  c: on g0..g3 its data is local (4.25): [4.25, 5.25]; on g4 it arrives at 5.25 and
    //     g5..g7 likewise, EFT 6.25: g0 [4.25, 5.25].
    // Makespan 5.25 (the Evaluator's order a, x, G, c with G led by g0 gave 7: G waited
    // for x on g1).
    for policy in [Policy::Insertion, Policy::Append] {
        let s = Heft::new()
            .with_policy(policy)
            .schedule(&p, &mut RunContext::new(0))
            .unwrap();
        let at = |v: usize| {
            let t = s.task(TaskId::new(v));
            (t.gpu.index(), t.start, t.finish)
        };
        assert_eq!(at(a), (0, 0.0, 2.0), "{policy}");
        assert_eq!(at(gg), (0, 2.25, 4.25), "{policy}");
        assert_eq!(
            s.gpus(TaskId::new(gg)),
            &gpus(&[0, 1, 2, 3])[..],
            "{policy}"
        );
        assert_eq!(at(x), (4, 0.0, 3.0), "{policy}");
        assert_eq!(at(c), (0, 4.25, 5.25), "{policy}");
        assert_eq!(s.makespan(), 5.25, "{policy}");
        assert_eq!(s.validate(&p), vec![], "{policy}");
        assert!(s.makespan() >= p.lower_bound().value);
    }
}

#[test]
fn gang_ranks_use_the_mean_run_time_and_single_gpu_ranks_are_unchanged() {
    let p = four_gpu_among_singles();
    // G: mean exec 8 on every GPU, run time 8 / (4 · 1) = 2
    assert_eq!(
        worl_sched::schedulers::list::mean_run_time(&p, TaskId::new(1)),
        2.0
    );
    // single-GPU tasks: exactly the mean execution time
    for v in [0, 2, 3] {
        let v = TaskId::new(v);
        assert_eq!(
            worl_sched::schedulers::list::mean_run_time(&p, v).to_bits(),
            p.mean_exec_time(v).to_bits()
        );
    }
}
