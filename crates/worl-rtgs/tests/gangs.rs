//! Gang tasks (a task needing more than one GPU, issue 21) are not supported by any
//! scheduler of this crate yet: every registered scheduler refuses them with one typed
//! error naming itself and the first gang task, before any work; a downstream scheduler
//! that supports them is let through.

use std::sync::Arc;
use worl_cluster::{GpuModel, Problem, Schedule, presets};
use worl_dag::{GangParams, Span, WorkloadBuilder};
use worl_rtgs::schedulers::BUILTINS;
use worl_rtgs::{Registry, RunContext, ScheduleError, Scheduler, check_supported};

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
fn every_registered_scheduler_refuses_gang_tasks_naming_itself_and_the_task() {
    let p = gang_problem();
    assert!(p.graph().has_gangs());
    let registry = Registry::with_builtins();
    let mut refused = 0;
    for b in BUILTINS {
        for spec in [b.name.to_owned(), format!("{}[time=10s]", b.name)] {
            let mut s = registry.build_spec(&spec).unwrap();
            let err = s.schedule(&p, &mut RunContext::new(1)).unwrap_err();
            match &err {
                ScheduleError::Unsupported {
                    scheduler,
                    feature,
                    task,
                    gpus,
                } => {
                    assert_eq!(scheduler, s.name(), "{spec}");
                    assert_eq!(*feature, worl_rtgs::error::GANG_TASKS);
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
    assert_eq!(refused, 2 * BUILTINS.len());
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
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_rtgs::Result<Schedule> {
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
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_rtgs::Result<Schedule> {
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
