//! [`Ils`]: an iterated local search over plans, started from HEFT.

use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use worl_cluster::{Policy, Problem, Schedule};
use worl_dag::TaskId;

use super::moves::{Evaluation, LocalState, Move, Tried};
use crate::error::Result;
use crate::options::{OptionDoc, Options, POLICY_APPEND};
use crate::scheduler::{Progress, RunContext, Scheduler};
use crate::schedulers::list::{Heft, upward_ranks};
use crate::schedulers::search::FeasibleGpus;
use crate::schedulers::search::options::{MAX_REPEATS, take_count, take_in_range};

/// Configuration of [`Ils`] (registry options in parentheses).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IlsConfig {
    /// Placement policy of the plan evaluation (`policy`; default append: `O(1)` per task,
    /// and the HEFT plan in start order evaluates to at most HEFT's makespan).
    pub policy: Policy,
    /// Plan evaluations of a run without a budget (`steps`, >= 1; default 20,000). With a
    /// budget ([`RunContext::budget`]), the run goes on until the budget is spent.
    pub steps: usize,
    /// Failed moves in a row before a perturbation (`patience`, >= 1; default 0 = `2·|chain| + 20`).
    pub patience: usize,
    /// Tasks moved to random GPUs by a perturbation of the best plan (`kick`, >= 1; default 3).
    pub kick: usize,
    /// Probability that a perturbation restarts from a randomized-rank HEFT instead
    /// (`restart`, in [0, 1]; default 0.1).
    pub restart: f64,
    /// Relative noise of the randomized ranks: `rank_u · (1 + noise·(2U − 1))` (`noise`, in
    /// [0, 1]; default 0.3).
    pub noise: f64,
    /// How tried moves are evaluated (`eval`: `incremental`, the default, or `full`; the
    /// same plans either way, [`Evaluation`]).
    pub eval: Evaluation,
}

impl Default for IlsConfig {
    fn default() -> Self {
        IlsConfig {
            policy: Policy::Append,
            steps: 20_000,
            patience: 0,
            kick: 3,
            restart: 0.1,
            noise: 0.3,
            eval: Evaluation::Incremental,
        }
    }
}

impl IlsConfig {
    /// Every option [`from_options`](Self::from_options) reads.
    pub const OPTIONS: &'static [&'static [OptionDoc]] = &[
        &POLICY_APPEND,
        &[
            OptionDoc::new(
                "steps",
                ">= 1",
                "20000",
                "plan evaluations of a run without a budget",
            ),
            OptionDoc::new(
                "patience",
                ">= 0",
                "0",
                "failed moves in a row before a perturbation (0: 2·|chain| + 20)",
            ),
            OptionDoc::new(
                "kick",
                "1..=1000000",
                "3",
                "tasks a perturbation moves to random GPUs",
            ),
            OptionDoc::new(
                "restart",
                "[0, 1]",
                "0.1",
                "probability that a perturbation restarts from a randomized-rank HEFT instead",
            ),
            OptionDoc::new(
                "noise",
                "[0, 1]",
                "0.3",
                "rank noise of a restart: ranks times 1 + noise·(2U − 1)",
            ),
            OptionDoc::new(
                "eval",
                "incremental|full",
                "incremental",
                "how a tried move is evaluated: from the touched tasks, or the whole plan again (same results)",
            ),
        ],
    ];

    /// Reads the options listed on the fields; rejects any other.
    ///
    /// Errors: [`ScheduleError::InvalidOption`](crate::ScheduleError::InvalidOption),
    /// [`ScheduleError::UnknownOption`](crate::ScheduleError::UnknownOption).
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let d = IlsConfig::default();
        let c = IlsConfig {
            policy: opts.take_or("policy", d.policy)?,
            steps: take_count(&mut opts, "steps", d.steps, 1, usize::MAX)?,
            patience: opts.take_or("patience", d.patience)?,
            kick: take_count(&mut opts, "kick", d.kick, 1, MAX_REPEATS)?,
            restart: take_in_range(&mut opts, "restart", d.restart, 0.0, 1.0)?,
            noise: take_in_range(&mut opts, "noise", d.noise, 0.0, 1.0)?,
            eval: opts.take_or("eval", d.eval)?,
        };
        opts.finish()?;
        Ok(c)
    }
}

/// Iterated local search (Lourenço, Martin and Stützle, "Iterated local search", Handbook
/// of Metaheuristics, 2003) over plans (GPU per task, placement order), the plain baseline
/// the whale searches must beat at equal CPU time:
///
/// 1. Start from HEFT's schedule as a plan (tasks in start order; [`LocalState`]).
/// 2. **Local search**: draw a task on the current critical chain and a [`Move`] uniformly,
///    apply it, evaluate; keep it when the makespan does not grow (ties are kept, so the
///    search walks plateaus), else undo. The chain is recomputed after every kept move.
/// 3. **Perturbation** after `patience` failed moves in a row: from the best plan, move
///    `kick` random tasks to random GPUs; or, with probability `restart`, start over from
///    HEFT with ranks perturbed by `noise`.
/// 4. Stop after `steps` evaluations, or when the budget ([`RunContext`]) is spent; return
///    the best plan's schedule (never worse than HEFT's under the evaluation policy).
#[derive(Clone, Debug, Default)]
pub struct Ils {
    config: IlsConfig,
}

crate::schedulers::search::config_scheduler!(
    Ils,
    IlsConfig,
    "ils",
    "Iterated local search",
    Local,
    "steps=200",
    "ILS (Lourenço et al. 2003): from HEFT, critical-chain moves (predecessor/successor/random/fast GPU, swap, advance), kicks and randomized-rank HEFT restarts"
);

impl Scheduler for Ils {
    fn name(&self) -> &str {
        "ILS"
    }

    fn supports_gangs(&self) -> bool {
        true
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), 1)?;
        run_ils(problem, &self.config, ctx)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}

/// Whether a run with `evaluations` spent must stop: its evaluation budget is spent, or
/// without any budget its own `steps`; the time budget is checked by [`RunContext::report`].
pub(crate) fn evaluations_spent(ctx: &RunContext<'_>, steps: usize, evaluations: u64) -> bool {
    let b = ctx.budget();
    match (b.max_evaluations, b.max_time) {
        (Some(max), _) => evaluations >= max,
        (None, Some(_)) => false,
        (None, None) => evaluations >= steps as u64,
    }
}

/// A HEFT plan with ranks perturbed by `noise` (see [`IlsConfig::noise`]).
///
/// Errors: HEFT's.
pub(crate) fn randomized_heft(
    problem: &Problem,
    ranks: &[f64],
    noise: f64,
    rng: &mut impl Rng,
) -> Result<Schedule> {
    let priority = ranks
        .iter()
        .map(|r| r * (1.0 + noise * (2.0 * rng.random::<f64>() - 1.0)))
        .collect();
    Heft::new().schedule_with_priorities(problem, priority)
}

fn run_ils(problem: &Problem, c: &IlsConfig, ctx: &mut RunContext<'_>) -> Result<Schedule> {
    let feasible = FeasibleGpus::new(problem);
    let mut rng: ChaCha8Rng = ctx.rng();
    let heft = Heft::new().schedule(problem, &mut RunContext::new(ctx.seed()))?;
    let ranks = upward_ranks(problem);
    let mut cur = LocalState::from_schedule(problem, &feasible, c.policy, &heft)?;
    cur.set_evaluation(c.eval);
    let mut best = cur.clone();
    let mut chain: Vec<TaskId> = Vec::new();
    cur.critical_chain(&mut chain);
    let mut evaluations = 1u64;
    let mut failures = 0usize;
    let mut step = 0u64;
    loop {
        if evaluations_spent(ctx, c.steps, evaluations) {
            break;
        }
        if evaluations.is_multiple_of(256)
            && ctx
                .report(Progress {
                    step,
                    total_steps: c.steps as u64,
                    evaluations,
                    best_makespan: best.makespan(),
                })
                .is_break()
        {
            break;
        }
        step += 1;
        let patience = if c.patience > 0 {
            c.patience
        } else {
            2 * chain.len() + 20
        };
        if failures >= patience {
            failures = 0;
            if rng.random::<f64>() < c.restart {
                let s = randomized_heft(problem, &ranks, c.noise, &mut rng)?;
                let restarted = LocalState::from_schedule(problem, &feasible, c.policy, &s)?;
                cur.copy_from(&restarted);
            } else {
                cur.copy_from(&best);
                for _ in 0..c.kick {
                    let v = TaskId::new(rng.random_range(0..problem.n_tasks()));
                    cur.apply(Move::RandomGpu, v, &mut rng);
                }
            }
            cur.evaluate();
            evaluations += 1;
            cur.critical_chain(&mut chain);
            if cur.makespan() < best.makespan() {
                best.copy_from(&cur);
            }
            continue;
        }
        let Some(&v) = chain.choose(&mut rng) else {
            break;
        };
        let m = *Move::ALL.choose(&mut rng).expect("moves");
        let before = cur.makespan();
        match cur.try_move(m, v, &mut rng) {
            Tried::NoChange => failures += 1,
            Tried::Worse | Tried::Reordered => {
                evaluations += 1;
                failures += 1;
            }
            Tried::Kept(ms) => {
                evaluations += 1;
                if ms < before {
                    failures = 0;
                } else {
                    failures += 1;
                }
                cur.critical_chain(&mut chain);
                if ms < best.makespan() {
                    best.copy_from(&cur);
                }
            }
        }
    }
    let _ = ctx.report(Progress {
        step,
        total_steps: step,
        evaluations,
        best_makespan: best.makespan(),
    });
    let schedule = worl_cluster::Evaluator::new(problem).schedule(&best.plan, c.policy)?;
    Ok(schedule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Budget;
    use std::sync::Arc;
    use worl_cluster::presets;
    use worl_dag::generators::layered::{LayeredParams, layered};

    fn problem(n: usize, seed: u64) -> Problem {
        let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
        Problem::new(w, Arc::new(presets::pai_mix(8, seed).unwrap())).unwrap()
    }

    #[test]
    fn ils_is_valid_reproducible_never_worse_than_heft_and_honours_evaluations() {
        for seed in 0..3 {
            let p = problem(60, seed);
            let heft = Heft::new().schedule(&p, &mut RunContext::new(0)).unwrap();
            let mut evals = 0;
            let mut obs = |pr: &Progress| {
                evals = pr.evaluations;
                std::ops::ControlFlow::Continue(())
            };
            let mut ctx = RunContext::new(seed)
                .with_budget(Budget::evaluations(3000))
                .with_observer(&mut obs);
            let a = Ils::default().schedule(&p, &mut ctx).unwrap();
            assert_eq!(evals, 3000);
            let b = Ils::default()
                .schedule(
                    &p,
                    &mut RunContext::new(seed).with_budget(Budget::evaluations(3000)),
                )
                .unwrap();
            assert!(a.validate(&p).is_empty());
            assert_eq!(a, b);
            assert!(a.makespan() <= heft.makespan());
            assert!(a.makespan() >= p.lower_bound().value);
        }
    }

    #[test]
    fn options_are_checked() {
        assert!(IlsConfig::from_options(Options::new("ils").with("kick", 0)).is_err());
        assert!(IlsConfig::from_options(Options::new("ils").with("restart", 2)).is_err());
        assert!(IlsConfig::from_options(Options::new("ils").with("eval", "lazy")).is_err());
        let c = IlsConfig::from_options(Options::new("ils").with("steps", 5).with("eval", "full"))
            .unwrap();
        assert_eq!((c.steps, c.eval), (5, Evaluation::Full));
    }
}

#[cfg(test)]
mod incremental_tests {
    use super::*;
    use crate::Budget;
    use std::sync::Arc;
    use worl_cluster::presets;
    use worl_dag::generators::layered::{LayeredParams, layered};

    /// Incremental evaluation changes no plan: the same seed gives the same schedule and the
    /// same evaluation count as full evaluation.
    #[test]
    fn incremental_and_full_evaluation_give_the_same_run() {
        for (n, gpus, seed) in [(60, 8, 0u64), (200, 16, 1), (400, 8, 2)] {
            let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
            let c = Arc::new(presets::pai_mix(gpus, seed).unwrap());
            let p = Problem::new(w, c).unwrap();
            let run = |eval: Evaluation| {
                let mut evals = 0;
                let mut best = Vec::new();
                let mut obs = |pr: &Progress| {
                    evals = pr.evaluations;
                    best.push(pr.best_makespan.to_bits());
                    std::ops::ControlFlow::Continue(())
                };
                let mut ctx = RunContext::new(seed)
                    .with_budget(Budget::evaluations(4000))
                    .with_observer(&mut obs);
                let config = IlsConfig {
                    eval,
                    ..IlsConfig::default()
                };
                let s = Ils::new(config).schedule(&p, &mut ctx).unwrap();
                (s, evals, best)
            };
            let (a, ea, ba) = run(Evaluation::Incremental);
            let (b, eb, bb) = run(Evaluation::Full);
            assert_eq!(a, b, "{n} tasks");
            assert_eq!((ea, &ba), (eb, &bb));
            assert!(
                a.makespan() < crate::testing::heft_makespan(&p),
                "{n} tasks: no gain"
            );
        }
    }
}
