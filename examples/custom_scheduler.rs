//! A scheduler of your own, registered beside the builtins: HEFT whose upward ranks are
//! perturbed at random, best of `restarts` passes. It declares its options once
//! ([`OptionDoc`]: key, values, default, meaning), reads them in `from_options`, registers with
//! one [`Builtin`] and runs through the registry by spec like any builtin. The walk-through is
//! `docs/adding-a-scheduler.md`.
//!
//! ```text
//! cargo run --release --example custom_scheduler
//! ```

use rand::Rng;
use std::sync::Arc;
use worl::cluster::{Policy, Problem, Schedule, presets};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::sched::builtin::boxed;
use worl::sched::options::POLICY_INSERTION;
use worl::sched::schedulers::list::{Heft, upward_ranks};
use worl::sched::{
    Builtin, Family, OptionDoc, Options, Progress, Registry, RunContext, ScheduleError, Scheduler,
};

/// HEFT with upward ranks scaled by `1 + noise·U(0, 1)`, best of `restarts` passes (the first
/// pass is plain HEFT). Each pass is HEFT's own placement with other priorities
/// ([`Heft::schedule_with_priorities`]).
#[derive(Clone, Debug)]
pub struct NoisyHeft {
    restarts: u64,
    noise: f64,
    /// HEFT with the `policy` option.
    heft: Heft,
}

impl NoisyHeft {
    /// Its registration: name, description, family, options of a quick run, the options it
    /// reads (its own and the shared `policy`) and its builder.
    pub const BUILTIN: Builtin = Builtin {
        name: "noisy-heft",
        description: "HEFT with perturbed upward ranks, best of `restarts` passes",
        family: Family::Other,
        quick: "restarts=3",
        options: &[
            &[
                OptionDoc::new(
                    "restarts",
                    ">= 1",
                    "10",
                    "HEFT passes, the first unperturbed",
                ),
                OptionDoc::new(
                    "noise",
                    "finite, >= 0",
                    "0.1",
                    "rank noise: ranks times 1 + noise·U(0, 1)",
                ),
            ],
            &POLICY_INSERTION,
        ],
        build: |o| boxed(Self::from_options(o)),
    };

    /// From registry options (see [`BUILTIN`](Self::BUILTIN)).
    ///
    /// Errors: [`ScheduleError::InvalidOption`] for a bad value,
    /// [`ScheduleError::UnknownOption`] for a key it does not declare.
    pub fn from_options(mut options: Options) -> worl::sched::Result<Self> {
        let restarts: u64 = options.take_or("restarts", 10)?;
        if restarts == 0 {
            return Err(options.invalid("restarts", restarts, "must be at least 1"));
        }
        let noise: f64 = options.take_or("noise", 0.1)?;
        if !(noise.is_finite() && noise >= 0.0) {
            return Err(options.invalid("noise", noise, "must be a finite number >= 0"));
        }
        let policy = options.take_or("policy", Policy::Insertion)?;
        options.finish()?; // any other key is an error
        Ok(NoisyHeft {
            restarts,
            noise,
            heft: Heft::new().with_policy(policy),
        })
    }
}

impl Scheduler for NoisyHeft {
    fn name(&self) -> &str {
        "noisy-HEFT"
    }

    fn schedule(
        &mut self,
        problem: &Problem,
        ctx: &mut RunContext<'_>,
    ) -> worl::sched::Result<Schedule> {
        let mut rng = ctx.rng();
        let ranks = upward_ranks(problem);
        // One plan evaluation per pass; at least one pass whatever the budget.
        let budget = ctx.budget().max_evaluations.unwrap_or(u64::MAX);
        let passes = self.restarts.min(budget).max(1);
        let mut best = self.heft.schedule_with_priorities(problem, ranks.clone())?;
        for step in 1..=passes {
            if step > 1 {
                let noisy = ranks
                    .iter()
                    .map(|&r| r * (1.0 + self.noise * rng.random::<f64>()))
                    .collect();
                let s = self.heft.schedule_with_priorities(problem, noisy)?;
                if s.makespan() < best.makespan() {
                    best = s;
                }
            }
            let progress = Progress {
                step,
                total_steps: passes,
                evaluations: step,
                best_makespan: best.makespan(),
            };
            if ctx.report(progress).is_break() {
                break; // observer or CPU-time budget: return the best so far
            }
        }
        Ok(best)
    }

    fn is_stochastic(&self) -> bool {
        true
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = Registry::with_builtins();
    registry.add(NoisyHeft::BUILTIN);
    for o in registry.options("noisy-heft")? {
        let (key, values, default) = (o.key, o.values, o.default_text());
        println!("  {key:<11} {values}; default {default}: {}", o.doc);
    }
    // A typo or a bad value is an error naming the key.
    assert!(matches!(
        registry.build_spec("noisy-heft:restart=20"),
        Err(ScheduleError::UnknownOption { .. })
    ));
    assert!(matches!(
        registry.build_spec("noisy-heft:noise=-1"),
        Err(ScheduleError::InvalidOption { .. })
    ));

    let workload = Arc::new(layered(&LayeredParams::new(200), 1)?);
    let problem = Problem::new(workload, Arc::new(presets::pai_mix(16, 1)?))?;
    let heft = registry
        .build_spec("heft")?
        .schedule(&problem, &mut RunContext::new(7))?;
    let mut noisy = registry.build_spec("noisy-heft[restarts=50,noise=0.2]")?;
    let schedule = noisy.schedule(&problem, &mut RunContext::new(7))?;
    let violations = schedule.validate(&problem);
    assert!(violations.is_empty(), "{violations:?}");
    worl::sched::check_scheduler(noisy.as_mut(), &problem, 7)?;
    println!(
        "HEFT {:.1} s, noisy-HEFT (50 passes) {:.1} s",
        heft.makespan(),
        schedule.makespan()
    );
    Ok(())
}
