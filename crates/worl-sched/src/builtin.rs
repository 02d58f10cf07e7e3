//! What a scheduler declares to be registered: [`Builtin`] (its registry name, a one-line
//! description, its [`Family`], the options of a quick run, its declared options and its
//! builder). Every scheduler of this crate declares one next to its code (`Heft::BUILTIN`,
//! ...); the table [`BUILTINS`](crate::schedulers::BUILTINS) lists them, and a registry adds
//! yours with [`Registry::add`](crate::Registry::add).

use crate::options::{OptionDoc, Options};
use crate::scheduler::Scheduler;

/// The family of a scheduler: the module of [`schedulers`](crate::schedulers) that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// A list scheduler ([`list`](crate::schedulers::list)): one pass, deterministic unless it
    /// draws GPUs at random.
    List,
    /// A plan-based search ([`search`](crate::schedulers::search)): WOA, PSO, GA.
    Search,
    /// A local search ([`local`](crate::schedulers::local)): ILS.
    Local,
    /// RTGS ([`rtgs`](crate::schedulers::rtgs)).
    Rtgs,
    /// WORL-RTGS (`worl_rtgs`, feature `ddqn`).
    WorlRtgs,
    /// An exact search ([`exact`](crate::schedulers::exact)): branch-and-bound that proves
    /// optimality of small problems.
    Exact,
    /// A deep-RL list scheduler (`drl`, feature `ddqn`): DQN, MDTS.
    DeepRl,
    /// A scheduler from outside this crate.
    Other,
}

/// A scheduler as the registry knows it.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Registry name (lowercase, kebab-case).
    pub name: &'static str,
    /// One line: the method and its source (the options are in [`options`](Self::options)).
    pub description: &'static str,
    /// Its family.
    pub family: Family,
    /// Options of a short run (a few whales and iterations for a search; empty for a list
    /// scheduler), for smoke and conformance tests: `Spec` option syntax without brackets.
    pub quick: &'static str,
    /// Every option its builder reads, in groups (a group shared by several schedulers, such
    /// as the decoding options of WOA, PSO and GA, is declared once). The registry's `time`
    /// and `evaluations` ([`BUDGET_OPTIONS`](crate::registry::BUDGET_OPTIONS)) come on top.
    pub options: &'static [&'static [OptionDoc]],
    /// Builds the scheduler from its options.
    pub build: fn(Options) -> crate::Result<Box<dyn Scheduler>>,
}

impl Builtin {
    /// The declared options, group after group.
    pub fn option_docs(&self) -> impl Iterator<Item = &'static OptionDoc> {
        self.options.iter().flat_map(|g| g.iter())
    }
}

/// Boxes a built scheduler (for [`Builtin::build`]).
///
/// Errors: `s`'s.
pub fn boxed<S: Scheduler + 'static>(s: crate::Result<S>) -> crate::Result<Box<dyn Scheduler>> {
    Ok(Box::new(s?))
}
