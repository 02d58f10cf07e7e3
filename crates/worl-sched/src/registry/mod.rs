//! Building schedulers by name: [`Registry`], [`Options`] and scheduler specs
//! (`"rtgs[whales=30,iterations=100]"`, [`Spec`]), for examples, experiment configs, the
//! command line and Python.
//!
//! | module | holds |
//! |---|---|
//! | [`spec`] | [`Spec`]: the spec grammar, [`split_spec_list`] |
//!
//! A registry holds [`Builtin`]s: each names a scheduler, describes it in one line, declares
//! its options ([`OptionDoc`]) and builds it; the options of a build are checked against the
//! declarations ([`Options::declare`]). Data flows one way: the registry reads
//! [`schedulers::BUILTINS`](crate::schedulers::BUILTINS), the schedulers read
//! [`options`](crate::options) and [`builtin`](crate::builtin), never the registry.
//!
//! # One rule for degenerate settings
//!
//! Nothing a user writes is read leniently or dropped; everything is checked before the
//! scheduler runs:
//!
//! * **Specs**: an empty option list (`heft:`, `heft[]`), a repeated key
//!   (`rtgs:whales=3,whales=4`) and unbalanced brackets or quotes are
//!   [`ScheduleError::InvalidSpec`]; an unknown key is [`ScheduleError::UnknownOption`].
//! * **Options**: each count has a documented minimum, at least 1 wherever 0 would leave the
//!   scheduler nothing to do (`whales`, `iterations`, `particles`, `population`,
//!   `generations`, `tournament`, `train-steps`, `recorded-steps`, ...); a stage is switched off
//!   by its own switch (`learn=false`), never by a zero count. Relations between options are
//!   checked too (`tournament <= population`, `elites < population`). Violations are
//!   [`ScheduleError::InvalidOption`] naming the key, at build time.
//! * **Budgets**: every search evaluates its whole initial population first, so an
//!   evaluation budget below it (`max_evaluations = 0` in particular) is
//!   [`ScheduleError::BudgetBelowPopulation`] for every search alike, before any work
//!   ([`RunContext::check_budget`](crate::RunContext::check_budget)); any larger budget is
//!   honoured exactly. List schedulers evaluate no plan and ignore the budget.
//! * **Gang tasks**: the list schedulers, WOA, PSO, GA, ILS, exact, RTGS and WORL-RTGS place a task needing more
//!   than one GPU; every other scheduler built by a registry (one whose
//!   [`Scheduler::supports_gangs`] is `false`: DQN, MDTS) refuses a problem holding one with
//!   [`ScheduleError::Unsupported`] naming the scheduler and the task, before any work
//!   ([`check_supported`](crate::scheduler::check_supported)).
//! * **Budget options**: every scheduler built by a registry takes `time` (CPU time:
//!   `1s`, `250ms`, `2min` or plain seconds, [`Budget::max_time`](crate::Budget)) and
//!   `evaluations` (a count >= 1); they tighten the run's [`Budget`](crate::Budget)
//!   ([`RunContext::tighten_budget`](crate::RunContext::tighten_budget)), so
//!   `ils[time=1s]` and `worl-rtgs[time=1s]` get the same CPU time. A search with a time
//!   budget (and no evaluation budget) runs until the time is spent whatever its
//!   `iterations` or `generations`, its schedules spread over the time
//!   ([`RunContext::time_clock`](crate::RunContext::time_clock)); the list schedulers and
//!   the deep-RL schedulers (which train for their `episodes`) finish when they are done.

#[cfg(test)]
mod limits_tests;
pub mod spec;

pub use crate::options::Options;
pub use spec::{Spec, split_spec_list};

use crate::builtin::Builtin;
use crate::error::{Result, ScheduleError};
use crate::options::OptionDoc;
use crate::scheduler::Scheduler;
use std::collections::BTreeMap;
use std::fmt;

/// A function that builds a scheduler from its options.
pub type Builder = Box<dyn Fn(Options) -> Result<Box<dyn Scheduler>> + Send + Sync>;

/// The options every scheduler built by a registry takes besides its own (see the module
/// docs): they tighten the run's [`Budget`](crate::Budget).
pub const BUDGET_OPTIONS: &[OptionDoc] = &[
    OptionDoc::new(
        "time",
        "CPU time: `1s`, `250ms`, `2min` or seconds",
        "(no limit)",
        "CPU-time budget of each run; a search with a time budget and no evaluation budget runs until it is spent",
    ),
    OptionDoc::new(
        "evaluations",
        ">= 1",
        "(no limit)",
        "plan evaluations of each run, at least the initial population; list schedulers evaluate none",
    ),
];

struct Entry {
    description: String,
    /// Declared options (`None`: registered without declarations, any key may be read).
    options: Option<&'static [&'static [OptionDoc]]>,
    build: Builder,
}

/// Schedulers by name (case-insensitive). [`Registry::with_builtins`] holds every scheduler
/// of this crate; [`register`](Self::register) adds your own.
///
/// ```
/// use worl_sched::{Options, Registry, Scheduler};
/// # struct Mine;
/// # impl Scheduler for Mine {
/// #     fn name(&self) -> &str { "mine" }
/// #     fn schedule(&mut self, _: &worl_cluster::Problem, _: &mut worl_sched::RunContext<'_>)
/// #         -> worl_sched::Result<worl_cluster::Schedule> { unimplemented!() }
/// # }
/// let mut registry = Registry::with_builtins();
/// // A builtin, by spec: HEFT with the append policy instead of insertion.
/// let heft = registry.build_spec("heft:policy=append")?;
/// assert_eq!(heft.name(), "HEFT");
/// assert!(registry.build_spec("heft:policy=sideways").is_err());
/// // Your own.
/// registry.register("mine", "my scheduler", |mut opts: Options| {
///     let _depth: usize = opts.take_or("depth", 3)?;
///     opts.finish()?;
///     Ok(Box::new(Mine))
/// });
/// assert_eq!(registry.build_spec("mine:depth=5")?.name(), "mine");
/// assert!(registry.build_spec("mine:nonsense=1").is_err());
/// assert!(registry.build_spec("mine:depth=deep").is_err());
/// # Ok::<(), worl_sched::ScheduleError>(())
/// ```
#[derive(Default)]
pub struct Registry {
    entries: BTreeMap<String, Entry>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.keys()).finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every scheduler of this crate ([`BUILTINS`](crate::schedulers::BUILTINS)), under the
    /// names listed by [`names`](Self::names).
    pub fn with_builtins() -> Self {
        let mut r = Self::new();
        for &b in crate::schedulers::BUILTINS {
            r.add(b);
        }
        r
    }

    /// Adds (or replaces) a scheduler with declared options: building it reads only the
    /// declared keys (and [`BUDGET_OPTIONS`]), and [`options`](Self::options) lists them.
    pub fn add(&mut self, builtin: Builtin) {
        self.entries.insert(
            builtin.name.to_ascii_lowercase(),
            Entry {
                description: builtin.description.to_owned(),
                options: Some(builtin.options),
                build: Box::new(builtin.build),
            },
        );
    }

    /// Adds (or replaces) scheduler `name` with a one-line `description` and its builder,
    /// without declared options (prefer [`add`](Self::add)).
    pub fn register(
        &mut self,
        name: &str,
        description: &str,
        build: impl Fn(Options) -> Result<Box<dyn Scheduler>> + Send + Sync + 'static,
    ) {
        self.entries.insert(
            name.to_ascii_lowercase(),
            Entry {
                description: description.to_owned(),
                options: None,
                build: Box::new(build),
            },
        );
    }

    /// The declared options of scheduler `name` (its own, then [`BUDGET_OPTIONS`]); only the
    /// budget options for a scheduler registered without declarations.
    ///
    /// Errors: [`ScheduleError::UnknownScheduler`].
    pub fn options(&self, name: &str) -> Result<Vec<&'static OptionDoc>> {
        let own = self.entry(name)?.options.unwrap_or_default();
        Ok(own
            .iter()
            .flat_map(|g| g.iter())
            .chain(BUDGET_OPTIONS)
            .collect())
    }

    /// The entry of scheduler `name`.
    ///
    /// Errors: [`ScheduleError::UnknownScheduler`], listing the registered names.
    fn entry(&self, name: &str) -> Result<&Entry> {
        self.entries.get(&name.to_ascii_lowercase()).ok_or_else(|| {
            ScheduleError::UnknownScheduler {
                name: name.to_owned(),
                known: self.entries.keys().cloned().collect(),
            }
        })
    }

    /// Registered names, sorted, lowercase.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The description of scheduler `name`, if registered.
    pub fn description(&self, name: &str) -> Option<&str> {
        self.entries
            .get(&name.to_ascii_lowercase())
            .map(|e| e.description.as_str())
    }

    /// Builds scheduler `name` with `options`.
    ///
    /// Errors: [`ScheduleError::UnknownScheduler`], or the scheduler's own option errors.
    pub fn build(&self, name: &str, mut options: Options) -> Result<Box<dyn Scheduler>> {
        let e = self.entry(name)?;
        if let Some(groups) = e.options {
            options = options.declare(groups).declare(&[BUDGET_OPTIONS]);
        }
        let budget = budget_options(&mut options)?;
        let inner = (e.build)(options)?;
        Ok(Box::new(Registered { inner, budget }))
    }

    /// Builds a scheduler from a spec: `name`, `name[key=value,...]` or
    /// `name:key=value,...` (grammar: [`spec`]).
    ///
    /// Errors: [`ScheduleError::InvalidSpec`] for a malformed spec, else as
    /// [`build`](Self::build).
    pub fn build_spec(&self, spec: &str) -> Result<Box<dyn Scheduler>> {
        let spec: Spec = spec.parse()?;
        self.build(&spec.name, spec.to_options())
    }
}

/// Takes the budget options `time` and `evaluations` (see the module docs).
fn budget_options(opts: &mut Options) -> Result<Option<crate::Budget>> {
    let time = match opts.take::<String>("time")? {
        Some(t) => Some(parse_duration(&t).ok_or_else(|| {
            opts.invalid(
                "time",
                &t,
                "expected a CPU time like `1s`, `250ms`, `2min` or `0.5`",
            )
        })?),
        None => None,
    };
    let evaluations = opts.take::<u64>("evaluations")?;
    if evaluations == Some(0) {
        return Err(opts.invalid("evaluations", 0, "must be at least 1"));
    }
    Ok(
        (time.is_some() || evaluations.is_some()).then_some(crate::Budget {
            max_evaluations: evaluations,
            max_time: time,
        }),
    )
}

/// `1s`, `250ms`, `2min`, `1.5` (seconds) as a duration; `None` if malformed, negative or
/// not finite.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let t = text.trim();
    let (number, scale) = if let Some(x) = t.strip_suffix("ms") {
        (x, 1e-3)
    } else if let Some(x) = t.strip_suffix("min") {
        (x, 60.0)
    } else if let Some(x) = t.strip_suffix('s') {
        (x, 1.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = number.trim().parse().ok()?;
    std::time::Duration::try_from_secs_f64(v * scale).ok()
}

/// A scheduler built by a registry: the one path every registered scheduler runs through.
/// Each run first refuses gang tasks unless the scheduler supports them
/// ([`Scheduler::supports_gangs`], [`check_supported`](crate::scheduler::check_supported)),
/// then gets at most `budget`
/// (the `time` / `evaluations` options) besides its context's.
struct Registered {
    inner: Box<dyn Scheduler>,
    budget: Option<crate::Budget>,
}

impl Scheduler for Registered {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn schedule(
        &mut self,
        problem: &worl_cluster::Problem,
        ctx: &mut crate::RunContext<'_>,
    ) -> Result<worl_cluster::Schedule> {
        if !self.inner.supports_gangs() {
            crate::scheduler::check_supported(self.inner.name(), problem)?;
        }
        if let Some(budget) = &self.budget {
            ctx.tighten_budget(budget);
        }
        self.inner.schedule(problem, ctx)
    }

    fn is_stochastic(&self) -> bool {
        self.inner.is_stochastic()
    }

    fn supports_gangs(&self) -> bool {
        self.inner.supports_gangs()
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("1s"), Some(Duration::from_secs(1)));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("2min"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("-1s"), None);
        assert_eq!(parse_duration("fast"), None);
        assert_eq!(parse_duration("inf"), None);
    }

    #[test]
    fn budget_options_are_taken_by_every_scheduler_and_checked() {
        let r = Registry::with_builtins();
        assert_eq!(r.build_spec("heft[time=1s]").unwrap().name(), "HEFT");
        assert!(r.build_spec("heft[time=soon]").is_err());
        assert!(r.build_spec("rtgs[evaluations=0]").is_err());
        assert!(r.build_spec("rtgs[evaluations=40,time=2s]").is_ok());
    }
}
