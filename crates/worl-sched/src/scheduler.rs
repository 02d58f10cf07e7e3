//! The [`Scheduler`] trait every algorithm implements, and the [`RunContext`] it runs in.

use crate::error::Result;
use cpu_time::ProcessTime;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use worl_cluster::{Problem, Schedule};

/// A scheduling algorithm: turns a [`Problem`] (workload + cluster) into a [`Schedule`].
///
/// Implemented by WORL-RTGS, RTGS and every baseline; downstream crates implement it for
/// their own algorithms and register them in a [`Registry`](crate::Registry). `schedule`
/// takes `&mut self` so that learning schedulers (WORL-RTGS's agent) can keep what they
/// learned across problems.
///
/// Contract: the returned schedule places every task of the problem and satisfies the model's
/// constraints ([`Schedule::validate`](worl_cluster::Schedule)); the same seed
/// ([`RunContext::seed`]) gives the same schedule, unless a time budget cut the run short.
///
/// Implementing it for your own algorithm (here: every task, in topological order, on the GPU
/// where it finishes earliest, without insertion):
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuModel, PartialSchedule, Policy, Problem, Schedule};
/// use worl_dag::generators::shapes;
/// use worl_sched::{RunContext, Scheduler};
///
/// struct EarliestFinish;
///
/// impl Scheduler for EarliestFinish {
///     fn name(&self) -> &str {
///         "earliest-finish"
///     }
///     fn schedule(&mut self, p: &Problem, _ctx: &mut RunContext<'_>) -> worl_sched::Result<Schedule> {
///         let mut partial = PartialSchedule::new(p);
///         for &task in p.graph().topo_order() {
///             let mut best = None;
///             for gpu in p.cluster().gpu_ids() {
///                 let eft = partial.eft(task, gpu, Policy::Append)?;
///                 if best.is_none_or(|(_, b)| eft < b) {
///                     best = Some((gpu, eft));
///                 }
///             }
///             partial.place(task, best.expect("a cluster has a GPU").0, Policy::Append)?;
///         }
///         Ok(partial.to_schedule()?)
///     }
/// }
///
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let workload = Arc::new(shapes::fork_join(4, 10.0, 1.0e6)?);
///     let cluster = Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?);
///     let problem = Problem::new(workload, cluster)?;
///     let schedule = EarliestFinish.schedule(&problem, &mut RunContext::new(7))?;
///     assert!(schedule.validate(&problem).is_empty());
///     assert!(schedule.makespan() >= problem.lower_bound().value);
///     Ok(())
/// }
/// ```
pub trait Scheduler: Send {
    /// Short name used in tables and by the registry, e.g. `"HEFT"`.
    fn name(&self) -> &str;

    /// Schedules `problem`.
    ///
    /// Errors: whatever the algorithm cannot handle, as a typed [`ScheduleError`](crate::ScheduleError).
    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule>;

    /// Whether the result depends on [`RunContext::seed`] (default `false`).
    fn is_stochastic(&self) -> bool {
        false
    }

    /// Whether the scheduler handles gang tasks (a task needing more than one GPU at once,
    /// [`Task::gpus`](worl_dag::Task::gpus) `> 1`). Default `false`: a
    /// [`Registry`](crate::Registry) then refuses a problem with gang tasks before running
    /// it ([`check_supported`]). In this crate the list schedulers, WOA, PSO, GA, ILS, exact,
    /// RTGS and WORL-RTGS return `true`; DQN and MDTS keep the default (see
    /// `docs/algorithms.md` §1.1). A downstream scheduler that places gangs returns `true`.
    fn supports_gangs(&self) -> bool {
        false
    }
}

/// Refuses a problem that a scheduler named `scheduler` cannot handle: one with gang tasks
/// (a task needing more than one GPU at once, [`Task::gpus`](worl_dag::Task::gpus) `> 1`),
/// which the scheduler does not support. Every scheduler built by a
/// [`Registry`](crate::Registry) whose [`Scheduler::supports_gangs`] is `false` runs this
/// check before scheduling; call it yourself before running such a scheduler you built
/// directly (e.g. `Dqn::new(..)`). `O(1)` for a problem
/// without gang tasks ([`TaskGraph::has_gangs`](worl_dag::TaskGraph::has_gangs) is cached),
/// else `O(n)`.
///
/// Errors: [`ScheduleError::Unsupported`](crate::ScheduleError::Unsupported) naming
/// `scheduler`, the feature ([`GANG_TASKS`](crate::error::GANG_TASKS)) and the first gang
/// task (smallest task id) as `job/task` with its GPU count.
///
/// ```
/// use std::sync::Arc;
/// use worl_cluster::{presets, GpuModel, Problem};
/// use worl_dag::{GangParams, WorkloadBuilder};
/// use worl_sched::{Registry, RunContext, ScheduleError};
///
/// let mut b = WorkloadBuilder::new("w");
/// let j = b.add_job("train")?;
/// b.add_task(j, "prep", 10.0, None)?;
/// let t = b.add_task(j, "ddp", 80.0, None)?;
/// b.set_gang(t, 4, GangParams::default())?;
/// let cluster = Arc::new(presets::homogeneous(4, &GpuModel::v100_16gb())?);
/// let p = Problem::new(Arc::new(b.build()?), cluster)?;
/// // a scheduler that does not place gang tasks (e.g. DQN) is refused before any work
/// let err = worl_sched::scheduler::check_supported("mine", &p);
/// assert!(matches!(err, Err(ScheduleError::Unsupported { ref task, gpus: 4, .. }) if task == "train/ddp"));
/// // HEFT does
/// let s = Registry::with_builtins().build_spec("heft")?.schedule(&p, &mut RunContext::new(1))?;
/// assert_eq!(s.gpus(t).len(), 4);
/// assert!(s.validate(&p).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_supported(scheduler: &str, problem: &Problem) -> crate::Result<()> {
    let graph = problem.graph();
    if !graph.has_gangs() {
        return Ok(());
    }
    match graph.tasks().find(|(_, t)| t.is_gang()) {
        Some((id, t)) => Err(crate::ScheduleError::Unsupported {
            scheduler: scheduler.to_owned(),
            feature: crate::error::GANG_TASKS,
            task: problem.task_label(id),
            gpus: t.gpus,
        }),
        None => Ok(()),
    }
}

/// Limits on a scheduler's run. `None` means no limit from this side (the algorithm's own
/// configuration still applies).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Most plan evaluations (makespan computations) a search may spend.
    pub max_evaluations: Option<u64>,
    /// Most CPU time a search may spend: the CPU time of the whole process (every thread,
    /// so a search evaluating in parallel pays for all its threads) since the
    /// [`RunContext`] was made. Equal-time comparisons therefore run one search at a time
    /// per process. A run cut short by time is not reproducible; an evaluation budget is.
    pub max_time: Option<Duration>,
}

impl Budget {
    /// A budget of `evaluations` plan evaluations.
    pub fn evaluations(evaluations: u64) -> Self {
        Budget {
            max_evaluations: Some(evaluations),
            max_time: None,
        }
    }

    /// A budget of `time` CPU time ([`max_time`](Self::max_time)).
    pub fn cpu_time(time: Duration) -> Self {
        Budget {
            max_evaluations: None,
            max_time: Some(time),
        }
    }

    /// A budget of `seconds` CPU seconds as a command line gives it: `0` is no limit
    /// ([`Budget::default`]); `None` for a negative, non-finite or out-of-range number.
    pub fn from_cpu_seconds(seconds: f64) -> Option<Self> {
        if seconds == 0.0 {
            return Some(Budget::default());
        }
        Duration::try_from_secs_f64(seconds)
            .ok()
            .map(Budget::cpu_time)
    }

    /// The tighter of `self` and `other`, limit by limit (a limit absent from one side is
    /// the other's).
    pub fn min(&self, other: &Budget) -> Budget {
        fn tighter<T: Ord + Copy>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            }
        }
        Budget {
            max_evaluations: tighter(self.max_evaluations, other.max_evaluations),
            max_time: tighter(self.max_time, other.max_time),
        }
    }
}

/// A progress event a scheduler reports while it runs, e.g. once per WOA iteration.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Steps done (iterations, placed tasks, ...).
    pub step: u64,
    /// Steps planned; equal to `step` at the end.
    pub total_steps: u64,
    /// Plan evaluations spent so far.
    pub evaluations: u64,
    /// Best makespan found so far, in seconds.
    pub best_makespan: f64,
}

/// A progress observer: called with each [`Progress`] event; `Break` asks the run to stop.
pub type Observer<'a> = &'a mut dyn FnMut(&Progress) -> ControlFlow<()>;

/// The share of a CPU-time budget a run has spent ([`RunContext::time_clock`]); `Copy`, so a
/// search can read it while the context is borrowed for progress reports.
#[derive(Clone, Copy, Debug)]
pub struct TimeClock {
    started: ProcessTime,
    budget: Duration,
}

impl TimeClock {
    /// CPU time of the process since the run started over the budget, `>= 0` (1 or more once
    /// the budget is spent; 1 for a zero budget).
    pub fn fraction(&self) -> f64 {
        if self.budget.is_zero() {
            return 1.0;
        }
        self.started.elapsed().as_secs_f64() / self.budget.as_secs_f64()
    }
}

/// What a scheduler run gets besides the problem: its seed, its budget and a progress
/// observer (for progress bars and convergence curves).
pub struct RunContext<'a> {
    seed: u64,
    budget: Budget,
    started: Instant,
    cpu_started: ProcessTime,
    observer: Option<Observer<'a>>,
}

impl std::fmt::Debug for RunContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("seed", &self.seed)
            .field("budget", &self.budget)
            .field("observer", &self.observer.is_some())
            .finish()
    }
}

impl<'a> RunContext<'a> {
    /// A context with `seed`, no budget and no observer.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            budget: Budget::default(),
            started: Instant::now(),
            cpu_started: ProcessTime::now(),
            observer: None,
        }
    }

    /// Sets the budget.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Tightens the budget to the tighter of the current one and `budget`
    /// ([`Budget::min`]); how a scheduler's own `time` / `evaluations` options apply.
    pub fn tighten_budget(&mut self, budget: &Budget) {
        self.budget = self.budget.min(budget);
    }

    /// Sets an observer called with every [`Progress`] event; returning
    /// `ControlFlow::Break(())` asks the scheduler to stop early and return its best so far.
    pub fn with_observer(
        mut self,
        observer: &'a mut dyn FnMut(&Progress) -> ControlFlow<()>,
    ) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The seed of every random choice of this run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A fresh random generator seeded with [`seed`](Self::seed) (ChaCha8, portable).
    pub fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed)
    }

    /// The budget.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The one budget rule of the searches: a search evaluates its whole initial population
    /// (`population` plans: whales, particles, individuals) before anything else, so an
    /// evaluation budget below it cannot be honoured and is refused before any work, the
    /// same way by every search; any budget at least as large is honoured exactly (at most
    /// `max_evaluations` plans are evaluated). List schedulers evaluate no plan and ignore
    /// the budget.
    ///
    /// Errors: [`ScheduleError::BudgetBelowPopulation`](crate::ScheduleError::BudgetBelowPopulation)
    /// naming `scheduler`.
    ///
    /// ```
    /// use worl_sched::{Budget, RunContext, ScheduleError};
    /// let ctx = RunContext::new(1).with_budget(Budget { max_evaluations: Some(0), ..Budget::default() });
    /// assert!(matches!(
    ///     ctx.check_budget("PSO", 30),
    ///     Err(ScheduleError::BudgetBelowPopulation { budget: 0, population: 30, .. })
    /// ));
    /// assert!(RunContext::new(1).check_budget("PSO", 30).is_ok());
    /// ```
    pub fn check_budget(&self, scheduler: &str, population: usize) -> crate::Result<()> {
        match self.budget.max_evaluations {
            Some(budget) if budget < population as u64 => {
                Err(crate::ScheduleError::BudgetBelowPopulation {
                    scheduler: scheduler.to_owned(),
                    budget,
                    population,
                })
            }
            _ => Ok(()),
        }
    }

    /// Wall time since the context was made.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// CPU time of the process since the context was made (all threads).
    pub fn cpu_elapsed(&self) -> Duration {
        self.cpu_started.elapsed()
    }

    /// Whether the time budget ([`Budget::max_time`], CPU time) is spent.
    pub fn out_of_time(&self) -> bool {
        self.budget
            .max_time
            .is_some_and(|t| self.cpu_elapsed() >= t)
    }

    /// The share of the time budget spent, in `[0, 1]`; `None` without a time budget.
    pub fn time_fraction(&self) -> Option<f64> {
        self.budget.max_time.map(|t| {
            if t.is_zero() {
                1.0
            } else {
                (self.cpu_elapsed().as_secs_f64() / t.as_secs_f64()).min(1.0)
            }
        })
    }

    /// The clock of a search run by its time budget: `Some` when the budget limits CPU time
    /// and not evaluations. Iterative searches (WOA, PSO, GA, RTGS, WORL-RTGS's paper preset)
    /// then run until the time is spent, their schedules (`a`, the inertia weight) keyed to
    /// [`TimeClock::fraction`] instead of the iteration count, so that every search given the
    /// same CPU time uses it all.
    pub fn time_clock(&self) -> Option<TimeClock> {
        match (self.budget.max_time, self.budget.max_evaluations) {
            (Some(budget), None) => Some(TimeClock {
                started: self.cpu_started,
                budget,
            }),
            _ => None,
        }
    }

    /// Reports progress to the observer. Returns `Break` when the observer asks to stop or the
    /// time budget is spent; the scheduler should then return its best schedule so far.
    pub fn report(&mut self, progress: Progress) -> ControlFlow<()> {
        let observer = match self.observer.as_mut() {
            Some(o) => o(&progress),
            None => ControlFlow::Continue(()),
        };
        if observer.is_break() || self.out_of_time() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_seconds_read_as_a_command_line_gives_them() {
        assert_eq!(Budget::from_cpu_seconds(0.0), Some(Budget::default()));
        assert_eq!(
            Budget::from_cpu_seconds(1.5),
            Some(Budget::cpu_time(Duration::from_millis(1500)))
        );
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(Budget::from_cpu_seconds(bad), None, "{bad}");
        }
    }
}
