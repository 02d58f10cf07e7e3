//! Fixtures shared by the integration tests: several problems streamed as one workload, and
//! the simulation settings that stress a policy, and the bit-for-bit comparison of a replay
//! with its plan.
#![allow(dead_code)] // each test binary uses only some of the fixtures

use proptest::prelude::*;
use std::sync::Arc;
use worl_cluster::{Evaluator, Policy, Problem, Schedule};
use worl_dag::{TaskId, WorkloadBuilder};
use worl_sched::{RunContext, Scheduler};
use worl_sim::arrivals::Arrivals;
use worl_sim::{Contention, Failures, RuntimeNoise, SimConfig, SimResult};

/// The jobs of `p` and `q` (renamed `a/...` and `b/...`) as one workload on `p`'s cluster,
/// released by a Poisson process of `rate_per_hour` jobs an hour seeded with `seed` (the
/// second job arrives mid-run or after). An unrelated `p` loses its execution-time matrix.
pub fn streamed(p: &Problem, q: &Problem, rate_per_hour: f64, seed: u64) -> Problem {
    let mut b = WorkloadBuilder::new("m");
    for (prefix, w) in [("a", p.workload()), ("b", q.workload())] {
        let base = b.n_tasks();
        for job in w.jobs() {
            let j = b.add_job(format!("{prefix}{}", job.name)).unwrap();
            for &t in &job.tasks {
                let task = w.graph().task(t);
                b.add_task(j, task.name.clone(), task.work, task.mem_gib)
                    .unwrap();
            }
        }
        for e in w.graph().edges() {
            b.add_edge(
                TaskId::new(base + e.from.index()),
                TaskId::new(base + e.to.index()),
                e.bytes,
            )
            .unwrap();
        }
    }
    let w = Arrivals::Poisson { rate_per_hour }
        .apply(&b.build().unwrap(), seed)
        .unwrap();
    Problem::new(Arc::new(w), p.cluster_arc().clone()).unwrap()
}

/// 30 % lognormal runtime noise, max-min fair contention, and GPU failures with a mean time
/// between failures of 15 min per GPU and 1 min repairs: several failures per run, but a
/// task of up to 100 s at 0.2 effective speed still usually completes.
pub fn noisy() -> SimConfig {
    SimConfig {
        noise: RuntimeNoise::LogNormal { cv: 0.3 },
        contention: Contention::Fair,
        failures: Failures::Mtbf {
            hours: 0.25,
            repair_s: 60.0,
        },
        ..SimConfig::default()
    }
}

/// Checks the replay `r` of scheduler `name`'s plan against the plan's timing `planned`,
/// bit for bit: every task's GPU, start and finish, and the makespan.
///
/// Errors: the first difference, naming the scheduler and the task index.
pub fn same_as_planned(name: &str, r: &SimResult, planned: &Schedule) -> Result<(), TestCaseError> {
    for (v, (sim, ev)) in r.tasks.iter().zip(planned.tasks()).enumerate() {
        prop_assert_eq!(sim.gpu, ev.gpu, "{}: task {}", name, v);
        // Bit for bit: the same max/+ over the same operands.
        prop_assert_eq!(
            sim.start.to_bits(),
            ev.start.to_bits(),
            "{}: task {} starts {} vs {}",
            name,
            v,
            sim.start,
            ev.start
        );
        prop_assert_eq!(
            sim.finish.to_bits(),
            ev.finish.to_bits(),
            "{}: task {}",
            name,
            v
        );
    }
    prop_assert_eq!(
        r.metrics.makespan.to_bits(),
        planned.makespan().to_bits(),
        "{}",
        name
    );
    Ok(())
}

/// The schedule scheduler `s` (named `name`) makes for `p` with `seed`, and its plan's
/// semi-active timing: the evaluator's append policy on the plan.
///
/// Errors: the scheduler's, naming it.
pub fn schedule_and_timing(
    name: &str,
    s: &mut dyn Scheduler,
    p: &Problem,
    seed: u64,
) -> Result<(Schedule, Schedule), TestCaseError> {
    let schedule = s
        .schedule(p, &mut RunContext::new(seed))
        .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
    let plan = schedule.to_plan(p);
    let planned = Evaluator::new(p).schedule(&plan, Policy::Append).unwrap();
    Ok((schedule, planned))
}
