//! Cheap schedulers and small problems shared by the experiment tests.
#![allow(dead_code)]

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;
use worl_cluster::{
    Evaluator, GpuId, GpuModel, PartialSchedule, Plan, Policy, Problem, Schedule, ScheduledTask,
    presets,
};
use worl_dag::generators::shapes;
use worl_experiment::{NamedProblem, ProblemSet, RunRecord};
use worl_sched::{Progress, RunContext, Scheduler};

/// Every task in topological order on GPU 0 (deterministic; makespan = total work on a
/// homogeneous V100 cluster without ready times).
pub struct OneGpu;

impl Scheduler for OneGpu {
    fn name(&self) -> &str {
        "one-gpu"
    }
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        let mut s = PartialSchedule::new(p);
        for &t in p.graph().topo_order() {
            s.place(t, GpuId::new(0), Policy::Append)?;
        }
        Ok(s.to_schedule()?)
    }
}

/// Each task in topological order on its minimum-EFT GPU, append policy (deterministic).
pub struct Eft;

impl Scheduler for Eft {
    fn name(&self) -> &str {
        "eft"
    }
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        let mut s = PartialSchedule::new(p);
        for &t in p.graph().topo_order() {
            let mut best = (GpuId::new(0), f64::INFINITY);
            for g in p.cluster().gpu_ids() {
                let f = s.eft(t, g, Policy::Append)?;
                if f < best.1 {
                    best = (g, f);
                }
            }
            s.place(t, best.0, Policy::Append)?;
        }
        Ok(s.to_schedule()?)
    }
}

/// Random search: `iterations` random assignments (topological order), keeping the best;
/// one progress event per iteration. Stochastic.
pub struct RandomSearch {
    pub iterations: u64,
}

impl Scheduler for RandomSearch {
    fn name(&self) -> &str {
        "random-search"
    }
    fn is_stochastic(&self) -> bool {
        true
    }
    fn schedule(&mut self, p: &Problem, ctx: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        let mut rng: ChaCha8Rng = ctx.rng();
        let mut ev = Evaluator::new(p);
        let m = p.n_gpus();
        let mut best: Option<(Plan, f64)> = None;
        for it in 1..=self.iterations {
            let gpus = (0..p.n_tasks())
                .map(|_| GpuId::new(rng.random_range(0..m)))
                .collect();
            let plan = Plan::in_topo_order(p.graph(), gpus);
            let ms = ev.makespan(&plan, Policy::Append)?;
            if best.as_ref().is_none_or(|b| ms < b.1) {
                best = Some((plan, ms));
            }
            let flow = ctx.report(Progress {
                step: it,
                total_steps: self.iterations,
                evaluations: it,
                best_makespan: best.as_ref().unwrap().1,
            });
            if flow.is_break() {
                break;
            }
        }
        Ok(ev.schedule(&best.expect("iterations >= 1").0, Policy::Append)?)
    }
}

/// Reports the number of calls it has served as its progress step (to observe reuse).
pub struct Counter {
    pub calls: u64,
}

impl Scheduler for Counter {
    fn name(&self) -> &str {
        "counter"
    }
    fn is_stochastic(&self) -> bool {
        true
    }
    fn schedule(&mut self, p: &Problem, ctx: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        self.calls += 1;
        let s = OneGpu.schedule(p, ctx)?;
        let _ = ctx.report(Progress {
            step: self.calls,
            total_steps: self.calls,
            evaluations: self.calls,
            best_makespan: s.makespan(),
        });
        Ok(s)
    }
}

/// Starts every task at 0 on GPU 0: tasks overlap and ignore precedence.
pub struct Broken;

impl Scheduler for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn schedule(&mut self, p: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        let tasks = p
            .graph()
            .task_ids()
            .map(|t| ScheduledTask {
                gpu: GpuId::new(0),
                start: 0.0,
                finish: p.exec_time(t, GpuId::new(0)),
            })
            .collect();
        Ok(Schedule::new(p.n_gpus(), tasks)?)
    }
}

/// Always fails with an error.
pub struct Failing;

impl Scheduler for Failing {
    fn name(&self) -> &str {
        "failing"
    }
    fn schedule(&mut self, _: &Problem, _: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
        Err(worl_sched::ScheduleError::InvalidSpec {
            spec: "failing".into(),
            reason: "always fails".into(),
        })
    }
}

/// Two problems on 3 idle V100s: `chain` (4 tasks × 10 s, no data) and `fork` (fork-join of
/// width 4, 10 s tasks, no data), tagged `shape`.
pub fn small_set() -> ProblemSet {
    let cluster = Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).unwrap());
    let chain = Problem::new(
        Arc::new(shapes::chain(4, 10.0, 0.0).unwrap()),
        cluster.clone(),
    )
    .unwrap();
    let fork = Problem::new(Arc::new(shapes::fork_join(4, 10.0, 0.0).unwrap()), cluster).unwrap();
    ProblemSet::new()
        .with(NamedProblem::new("chain", chain).tag("shape", "line"))
        .unwrap()
        .with(NamedProblem::new("fork", fork).tag("shape", "diamond"))
        .unwrap()
}

/// A hand-made record: everything but problem, scheduler, seed and makespan is filler
/// (lower bound 100, so gap = makespan / 100).
pub fn record(problem: &str, scheduler: &str, seed: u64, makespan: f64) -> RunRecord {
    let mut tags = BTreeMap::new();
    tags.insert("cell".to_owned(), format!("cell-{}", &problem[..1]));
    RunRecord {
        problem: problem.to_owned(),
        tags,
        tasks: 10,
        gpus: 2,
        scheduler: scheduler.to_owned(),
        stochastic: true,
        seed,
        makespan,
        slr: makespan / 50.0,
        speedup: 200.0 / makespan,
        efficiency: 100.0 / makespan,
        utilisation: 0.5,
        lower_bound: 100.0,
        gap: makespan / 100.0,
        mean_job_time: makespan / 2.0,
        load_imbalance: 0.25,
        cost: makespan / 3600.0,
        wall_time_s: 0.001 * seed as f64,
        evaluations: 10 * seed,
        convergence: Vec::new(),
    }
}
