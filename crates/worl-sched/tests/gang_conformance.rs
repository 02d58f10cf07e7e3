//! Gang tasks (issue 21) in the registry-driven conformance test: on random problems with
//! gang tasks (some span `machine`, some `cluster`, 2–4 GPUs; with and without busy windows),
//! every registered scheduler that supports gangs returns a schedule that validates (sets
//! included), is at least the lower bound, is the same for the same seed, and is the
//! Evaluator's decoding of its own plan (sets kept); every other scheduler refuses the
//! problem with `ScheduleError::Unsupported` naming itself and the first gang task.

use proptest::prelude::*;
use worl_cluster::{Evaluator, Policy, Problem, Schedule};
use worl_dag::{Span, TaskId};
use worl_sched::schedulers::BUILTINS;
use worl_sched::testing::{
    self, ClusterKind, problems_with_gangs, random_problem, random_problem_with_gangs,
};
use worl_sched::{Registry, RunContext, ScheduleError, Scheduler, check_scheduler};

/// Every registered scheduler, built from `name[quick options]`, with its registry name.
fn quick_schedulers() -> Vec<(&'static str, Box<dyn Scheduler>)> {
    BUILTINS
        .iter()
        .map(|b| b.name)
        .zip(testing::quick_schedulers())
        .collect()
}

/// `check_scheduler` (valid with sets and windows, at least the lower bound, same seed same
/// schedule), every task on as many GPUs as it needs, and the schedule's plan (GPU sets
/// kept, tasks in start order) decodes through the Evaluator to the same makespan: every
/// gang-aware scheduler starts each task, on its set, as early as the data, the set's
/// previous tasks and its windows allow.
fn conforms(s: &mut dyn Scheduler, p: &Problem, seed: u64) -> Result<Schedule, String> {
    let schedule = check_scheduler(s, p, seed).map_err(|e| e.to_string())?;
    for v in p.graph().task_ids() {
        let (have, need) = (schedule.gpus(v).len(), p.gpus(v) as usize);
        if have != need {
            return Err(format!("{}: {v:?} on {have} GPUs, needs {need}", s.name()));
        }
    }
    testing::plan_decodes_to_makespan(s.name(), p, &schedule)?;
    Ok(schedule)
}

/// The first gang task by id, as `(job/task, g)`.
fn first_gang(p: &Problem) -> (String, u32) {
    let v = p
        .graph()
        .task_ids()
        .find(|&v| p.gpus(v) > 1)
        .expect("a gang task");
    (p.task_label(v), p.gpus(v))
}

/// Runs every registered scheduler on `p`: the gang-aware ones conform, the others refuse.
/// Returns the registry names of those that conformed.
fn check_all(p: &Problem, seed: u64) -> Result<Vec<&'static str>, String> {
    let (task, gpus) = first_gang(p);
    let mut placed = Vec::new();
    for (name, mut s) in quick_schedulers() {
        if s.supports_gangs() {
            conforms(s.as_mut(), p, seed).map_err(|e| format!("{name}: {e}"))?;
            placed.push(name);
            continue;
        }
        match s.schedule(p, &mut RunContext::new(seed)) {
            Err(ScheduleError::Unsupported {
                scheduler,
                task: t,
                gpus: g,
                ..
            }) if scheduler == s.name() && t == task && g == gpus => {}
            Err(e) => return Err(format!("{name}: refused with another error: {e}")),
            Ok(_) => return Err(format!("{name}: placed gangs without supporting them")),
        }
    }
    Ok(placed)
}

#[test]
fn the_gang_generator_keeps_the_problem_and_adds_gangs_of_both_spans() {
    let (mut machine, mut cluster, mut gangs) = (0, 0, 0);
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        for windows in [false, true] {
            let seed = 500 + i as u64;
            let plain = random_problem(20, 8, 0.2, kind, 1.0, seed);
            let p = random_problem_with_gangs(20, 8, 0.2, kind, 1.0, seed, windows);
            assert!(p.has_gangs(), "{kind:?}");
            assert_eq!(p.has_windows(), windows, "{kind:?}");
            assert_eq!(p.graph().n_edges(), plain.graph().n_edges());
            for v in p.graph().task_ids() {
                let g = p.gpus(v);
                assert!((1..=4).contains(&g), "{kind:?} {v:?}: {g}");
                for k in p.cluster().gpu_ids() {
                    assert_eq!(p.exec_time(v, k), plain.exec_time(v, k), "{kind:?}");
                }
                if g > 1 {
                    gangs += 1;
                    match p.graph().task(v).gang.span {
                        Span::Machine => machine += 1,
                        Span::Cluster => cluster += 1,
                    }
                }
            }
        }
    }
    // both spans occur, and a good share of the 200 tasks are gangs
    assert!(
        machine >= 5 && cluster >= 5,
        "{machine} machine, {cluster} cluster"
    );
    assert!(gangs >= 40, "{gangs}");
}

#[test]
fn every_registered_scheduler_places_or_refuses_gangs_on_every_cluster_kind() {
    for (i, kind) in ClusterKind::ALL.into_iter().enumerate() {
        for windows in [false, true] {
            let p = random_problem_with_gangs(18, 8, 0.2, kind, 1.0, 700 + i as u64, windows);
            let placed = check_all(&p, 7).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            for name in worl_sched::testing::gang_schedulers() {
                assert!(
                    placed.contains(&name),
                    "{kind:?}: {name} did not place gangs"
                );
            }
        }
    }
}

#[test]
fn heft_beats_or_ties_the_plan_of_every_gang_on_the_first_gpu_set() {
    // A sanity check of the selection: HEFT's makespan is at most that of placing every task
    // in HEFT's order on the first GPU that can lead it (what a scheduler ignoring the
    // finish times would do) on these instances, and gangs get sets of their size.
    for seed in 0..6u64 {
        let p = random_problem_with_gangs(15, 8, 0.3, ClusterKind::PaiMix, 1.0, seed, false);
        let mut heft = Registry::with_builtins().build_spec("heft").unwrap();
        let s = heft.schedule(&p, &mut RunContext::new(0)).unwrap();
        assert_eq!(s.validate(&p), vec![]);
        let mut plan = s.to_plan(&p);
        plan.gangs.clear();
        for v in p.graph().task_ids() {
            plan.gpu[v.index()] = p.cluster().gpu_ids().find(|&k| p.can_lead(v, k)).unwrap();
        }
        let naive = Evaluator::new(&p)
            .makespan(&plan, Policy::Insertion)
            .unwrap();
        assert!(
            s.makespan() <= naive * (1.0 + 1e-12),
            "seed {seed}: {} > {naive}",
            s.makespan()
        );
        let g0 = TaskId::new(0);
        assert_eq!(s.gpus(g0).len(), p.gpus(g0) as usize);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_registered_scheduler_places_or_refuses_gangs_on_random_problems(
        p in problems_with_gangs(14, 8),
        seed in 0u64..100,
    ) {
        prop_assume!(p.has_gangs());
        check_all(&p, seed).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn searches_draw_only_valid_leads_for_gang_tasks() {
    use worl_sched::schedulers::search::{FeasibleGpus, PositionCodec};
    // Machines of uneven sizes (PAI mix) with 14 GiB tasks: some GPUs fit a gang task but
    // cannot lead it (span machine on a machine with too few fitting GPUs).
    let mut restricted = 0;
    for seed in 0..20u64 {
        let p = random_problem_with_gangs(20, 12, 0.2, ClusterKind::PaiMix, 1.0, seed, false);
        let f = FeasibleGpus::new(&p);
        for v in p.graph().task_ids() {
            let want: Vec<_> = p
                .cluster()
                .gpu_ids()
                .filter(|&k| p.fits(v, k) && p.can_lead(v, k))
                .collect();
            assert_eq!(f.of(v), &want[..], "seed {seed} {v:?}");
            let fitting = p.cluster().gpu_ids().filter(|&k| p.fits(v, k)).count();
            restricted += usize::from(want.len() < fitting);
        }
        // every position decodes to valid leads, and the plan evaluates
        let codec = PositionCodec::new(&p, Policy::Append);
        let m = p.n_gpus() as f64;
        for i in 0..=24 {
            let x = vec![m * i as f64 / 24.0; p.n_tasks()];
            let mut gpu = vec![worl_cluster::GpuId::new(0); p.n_tasks()];
            codec.decode(&x, &mut gpu);
            for v in p.graph().task_ids() {
                assert!(p.can_lead(v, gpu[v.index()]), "seed {seed} {v:?}");
            }
            let s = codec.schedule(&x).unwrap();
            assert_eq!(s.validate(&p), vec![], "seed {seed}");
        }
    }
    // the restriction does occur on these instances
    assert!(restricted > 0);
}
