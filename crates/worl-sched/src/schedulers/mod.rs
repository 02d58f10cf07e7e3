//! Every scheduler of this crate, grouped by family, and the one registration table
//! ([`BUILTINS`]) that gives each its registry name.
//!
//! | family | module | schedulers |
//! |---|---|---|
//! | list scheduling | [`list`] | HEFT, CPOP, PEFT, Min-Min, Max-Min, least-connection, round-robin, random |
//! | plan-based search | [`search`] | plain WOA, PSO, GA (and the plan evaluation every search shares) |
//! | local search | [`local`] | ILS (and the moves and critical chain WORL-RTGS shares) |
//! | RTGS | [`rtgs`] | RTGS: WOA over running-time vectors with greedy running-time-gap decoding |
//! | WORL-RTGS | `worl_rtgs` (feature `ddqn`) | RTGS with a Double DQN plan decoder |
//! | deep RL | `drl` (feature `ddqn`) | a plain Double DQN list scheduler, MDTS |
//! | exact | [`exact`] | branch-and-bound proving optimal schedules of small problems |
//!
//! | scheduler | registry name | source |
//! |---|---|---|
//! | [`Heft`] | `heft` | Topcuoglu, Hariri, Wu, IEEE TPDS 2002, §4.1 |
//! | [`Cpop`] | `cpop` | Topcuoglu, Hariri, Wu, IEEE TPDS 2002, §4.2 |
//! | [`Peft`] | `peft` | Arabnejad, Barbosa, IEEE TPDS 2014, §3 |
//! | [`MinMin`] | `min-min` | Ibarra, Kim, JACM 1977; Braun et al., JPDC 2001, §2 |
//! | [`MaxMin`] | `max-min` | Ibarra, Kim, JACM 1977; Braun et al., JPDC 2001, §2 |
//! | [`LeastConnection`] | `least-connection` | load balancing (the baseline of the MDTS study) |
//! | [`RoundRobin`] | `round-robin` | cyclic assignment |
//! | [`RandomAssignment`] | `random` | seeded uniform assignment |
//! | `WorlRtgs` | `worl-rtgs`, `worl-rtgs-paper` | Du et al., Big Data Cogn. Comput. 9(11):284, 2025 |
//! | [`Rtgs`] | `rtgs` | Du et al., J. Supercomputing 81:911, 2025 |
//! | [`PlainWoa`] | `woa` | Mirjalili, Lewis, Adv. Eng. Softw. 2016 |
//! | [`Pso`] | `pso` | Kennedy, Eberhart, ICNN 1995; Shi, Eberhart, ICEC 1998 |
//! | [`Ga`] | `ga` | Holland 1975; Braun et al., JPDC 2001, §2.10 |
//! | [`Ils`] | `ils` | Lourenço, Martin, Stützle, Handbook of Metaheuristics 2003 |
//! | `Dqn` | `dqn` | Double DQN list scheduler: Mnih et al., Nature 2015; van Hasselt et al., AAAI 2016 |
//! | `Mdts` | `mdts` | Multi-task Deep Reinforcement Learning for Scalable Parallel Task Scheduling; action branching: Tavakoli et al., AAAI 2018 |
//! | [`Exact`] | `exact` | branch-and-bound; Sinnen, Comput. Oper. Res. 43, 2014 |
//!
//! Every scheduler builds its schedule through
//! [`PartialSchedule`](worl_cluster::PartialSchedule) (the exact solver through its own
//! arrays with the same arithmetic), never places a task on a GPU it does
//! not fit, and breaks ties by a documented total order (smaller task id, smaller GPU id), so
//! that results never depend on hash or iteration order.
//!
//! **Busy windows** ([`Problem::has_windows`](worl_cluster::Problem::has_windows), issue
//! 21) are honoured by every scheduler, and without windows every code path is the
//! window-free one, bit for bit:
//!
//! | scheduler | how |
//! |---|---|
//! | list schedulers, WOA/PSO/GA list decoder, DQN, MDTS | through [`PartialSchedule`](worl_cluster::PartialSchedule): with windows the [`GapIndex`](list::GapIndex) hands every slot to `PartialSchedule::slot`, which places around windows |
//! | WOA/PSO/GA position decoder, ILS, RTGS's and WORL-RTGS's final schedules | through the [`Evaluator`](worl_cluster::Evaluator) (a `PartialSchedule`) |
//! | RTGS / WORL-RTGS EFT window | its append EFT moves past the windows natively; its schedule is placed in a `PartialSchedule` |
//! | [`Exact`] | natively: each append start moves past the windows (the left-shift, commutation and dominance arguments still hold, the bounds stay valid since windows only delay; twin GPUs must have equal windows) |
//!
//! **Gang tasks** (a task needing more than one GPU, [`worl_dag::Task::gpus`]) are not
//! supported yet: every scheduler built by a [`Registry`](crate::Registry) refuses them with
//! [`ScheduleError::Unsupported`](crate::ScheduleError::Unsupported)
//! ([`check_supported`](crate::scheduler::check_supported)).
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, Problem};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//! use worl_sched::{Registry, RunContext};
//!
//! let w = Arc::new(layered(&LayeredParams::new(100), 1)?);
//! let p = Problem::new(w, Arc::new(presets::pai_mix(16, 1)?))?;
//! let registry = Registry::with_builtins();
//! for name in ["heft", "cpop", "peft", "min-min", "max-min", "least-connection", "round-robin", "random"] {
//!     let s = registry.build(name, Default::default())?.schedule(&p, &mut RunContext::new(1))?;
//!     assert!(s.validate(&p).is_empty(), "{name}");
//!     assert!(s.makespan() >= p.lower_bound().value, "{name}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "ddqn")]
mod agents;
#[cfg(feature = "ddqn")]
pub mod drl;
pub mod exact;
pub mod list;
pub mod local;
pub mod rtgs;
pub mod search;
#[cfg(feature = "ddqn")]
pub mod worl_rtgs;

#[cfg(feature = "ddqn")]
pub use agents::AgentStart;
#[cfg(feature = "ddqn")]
pub use drl::{Dqn, Mdts};
pub use exact::{Exact, ExactOutcome};
pub use list::{
    Cpop, CriticalPathAssignment, Heft, LeastConnection, MaxMin, MinMin, OptimisticCostTable, Peft,
    RandomAssignment, RoundRobin,
};
pub use local::Ils;
pub use rtgs::Rtgs;
pub use search::{Ga, PlainWoa, Pso};
#[cfg(feature = "ddqn")]
pub use worl_rtgs::WorlRtgs;

pub use crate::builtin::{Builtin, Family};

/// Every scheduler of this crate, in the order of the table above. Each declares its
/// registration next to its code (`Heft::BUILTIN`: name, description, family, quick options,
/// declared options, builder); the registry
/// ([`Registry::with_builtins`](crate::Registry::with_builtins)), the conformance and option
/// tests, `worl schedulers`, Python and `docs/options.md` read this table, so a scheduler
/// added here is registered, documented and tested.
pub const BUILTINS: &[Builtin] = &[
    Heft::BUILTIN,
    Cpop::BUILTIN,
    Peft::BUILTIN,
    MinMin::BUILTIN,
    MaxMin::BUILTIN,
    LeastConnection::BUILTIN,
    RoundRobin::BUILTIN,
    RandomAssignment::BUILTIN,
    #[cfg(feature = "ddqn")]
    WorlRtgs::BUILTIN,
    #[cfg(feature = "ddqn")]
    WorlRtgs::BUILTIN_PAPER,
    Rtgs::BUILTIN,
    PlainWoa::BUILTIN,
    Pso::BUILTIN,
    Ga::BUILTIN,
    Ils::BUILTIN,
    #[cfg(feature = "ddqn")]
    Dqn::BUILTIN,
    #[cfg(feature = "ddqn")]
    Mdts::BUILTIN,
    Exact::BUILTIN,
];
