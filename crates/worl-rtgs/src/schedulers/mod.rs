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
//! use worl_rtgs::{Registry, RunContext};
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

use crate::registry::Options;
use crate::scheduler::Scheduler;

/// The family of a scheduler: the module that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// A list scheduler ([`list`]): one pass, deterministic unless it draws GPUs at random.
    List,
    /// A plan-based search ([`search`]): WOA, PSO, GA.
    Search,
    /// RTGS ([`rtgs`]).
    Rtgs,
    /// WORL-RTGS (`worl_rtgs`, feature `ddqn`).
    WorlRtgs,
    /// An exact search ([`exact`]): branch-and-bound that proves optimality of small problems.
    Exact,
    /// A deep-RL list scheduler (`drl`, feature `ddqn`): DQN, MDTS.
    DeepRl,
}

/// A registry entry of [`BUILTINS`].
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Registry name (lowercase, kebab-case).
    pub name: &'static str,
    /// One line: the method, its source and its options.
    pub description: &'static str,
    /// Its family.
    pub family: Family,
    /// Options of a short run (a few whales and iterations for a search; empty for a list
    /// scheduler), for smoke and conformance tests: `Spec` option syntax without brackets.
    pub quick: &'static str,
    /// Builds the scheduler from its options.
    pub build: fn(Options) -> crate::Result<Box<dyn Scheduler>>,
}

fn boxed<S: Scheduler + 'static>(s: crate::Result<S>) -> crate::Result<Box<dyn Scheduler>> {
    Ok(Box::new(s?))
}

/// Every scheduler of this crate, in the order of the table above; the registry
/// ([`Registry::with_builtins`](crate::Registry::with_builtins)) and the conformance check
/// read this table, so a scheduler added here is registered and tested.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: Heft::NAME,
        description: "HEFT (Topcuoglu et al. 2002): rank_u order, min-EFT GPU, insertion; options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(Heft::from_options(o)),
    },
    Builtin {
        name: Cpop::NAME,
        description: "CPOP (Topcuoglu et al. 2002): rank_u+rank_d order, critical path on one GPU; options: policy, tolerance",
        family: Family::List,
        quick: "",
        build: |o| boxed(Cpop::from_options(o)),
    },
    Builtin {
        name: Peft::NAME,
        description: "PEFT (Arabnejad & Barbosa 2014): optimistic cost table, min EFT+OCT; options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(Peft::from_options(o)),
    },
    Builtin {
        name: MinMin::NAME,
        description: "Min-Min (Ibarra & Kim 1977): ready task of minimum MCT first; options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(MinMin::from_options(o)),
    },
    Builtin {
        name: MaxMin::NAME,
        description: "Max-Min (Ibarra & Kim 1977): ready task of maximum MCT first; options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(MaxMin::from_options(o)),
    },
    Builtin {
        name: LeastConnection::NAME,
        description: "least-connection: each task to the GPU with the fewest tasks; options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(LeastConnection::from_options(o)),
    },
    Builtin {
        name: RoundRobin::NAME,
        description: "round-robin: tasks in topological order to GPUs cyclically; options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(RoundRobin::from_options(o)),
    },
    Builtin {
        name: RandomAssignment::NAME,
        description: "random: seeded uniform GPU per task (stochastic); options: policy",
        family: Family::List,
        quick: "",
        build: |o| boxed(RandomAssignment::from_options(o)),
    },
    #[cfg(feature = "ddqn")]
    Builtin {
        name: WorlRtgs::NAME,
        description: "WORL-RTGS (Du et al. 2025): RTGS whose plan generation is a Double DQN agent learning online, initial whales include HEFT and PEFT; options: preset=default|paper, agent=PATH, learn, device, candidates, and RTGS's",
        family: Family::WorlRtgs,
        quick: "whales=4,iterations=3",
        build: |o| boxed(WorlRtgs::from_options(o)),
    },
    #[cfg(feature = "ddqn")]
    Builtin {
        name: WorlRtgs::NAME_PAPER,
        description: "WORL-RTGS, paper preset (random initial whales, as published); same options as worl-rtgs",
        family: Family::WorlRtgs,
        quick: "whales=4,iterations=3",
        build: |o| boxed(WorlRtgs::paper_from_options(o)),
    },
    Builtin {
        name: Rtgs::NAME,
        description: "RTGS (Du et al. 2025): WOA over running-time vectors, greedy running-time-gap decoding with an EFT window",
        family: Family::Rtgs,
        quick: "whales=4,iterations=3",
        build: |o| boxed(Rtgs::from_options(o)),
    },
    Builtin {
        name: PlainWoa::NAME,
        description: "plain WOA (Mirjalili & Lewis 2016) over random keys decoded by a list scheduler (perturbed rank_u order, min-EFT GPU), one whale at HEFT's position; options: whales, iterations, b, a-schedule, decoder=list|position, heft-seed, policy, priority, sigma, gpu-choices, gpu-threshold, parallel",
        family: Family::Search,
        quick: "whales=4,iterations=3",
        build: |o| boxed(PlainWoa::from_options(o)),
    },
    Builtin {
        name: Pso::NAME,
        description: "PSO (Kennedy & Eberhart 1995, inertia weight of Shi & Eberhart 1998) over random keys decoded by a list scheduler, one particle at HEFT's position; options: particles, iterations, w-start, w-end, c1, c2, vmax, decoder=list|position, heft-seed, policy, priority, sigma, gpu-choices, gpu-threshold, parallel",
        family: Family::Search,
        quick: "particles=4,iterations=3",
        build: |o| boxed(Pso::from_options(o)),
    },
    Builtin {
        name: Ga::NAME,
        description: "random-key GA (Bean 1994; tournament, uniform crossover, reset mutation, elitism) decoded by a list scheduler, one individual at HEFT's position; options: population, generations, tournament, crossover, mutation, elites, decoder=list|position, heft-seed, policy, priority, sigma, gpu-choices, gpu-threshold, parallel",
        family: Family::Search,
        quick: "population=4,generations=3",
        build: |o| boxed(Ga::from_options(o)),
    },
    Builtin {
        name: Ils::NAME,
        description: "ILS (Lourenço et al. 2003): from HEFT, critical-chain moves (predecessor/successor/random/fast GPU, swap, advance), kicks and randomized-rank HEFT restarts; options: policy, steps, patience, kick, restart, noise",
        family: Family::Search,
        quick: "steps=200",
        build: |o| boxed(Ils::from_options(o)),
    },
    #[cfg(feature = "ddqn")]
    Builtin {
        name: Dqn::NAME,
        description: "DQN list scheduler (Double DQN, Mnih et al. 2015, van Hasselt et al. 2016): rank_u order, the agent picks one of the k min-EFT GPUs, trained online for `episodes` then greedy; options: episodes, candidates, policy, hidden, gamma, learning-rate, batch, td, train-every, epsilon-start, epsilon-end, learn, agent=PATH, device",
        family: Family::DeepRl,
        quick: "episodes=3",
        build: |o| boxed(Dqn::from_options(o)),
    },
    #[cfg(feature = "ddqn")]
    Builtin {
        name: Mdts::NAME,
        description: "MDTS (multi-task deep RL): a job's ready child tasks placed jointly by a branching Double DQN (shared trunk, one head per task); options: branches (default 4) and dqn's",
        family: Family::DeepRl,
        quick: "episodes=3",
        build: |o| boxed(Mdts::from_options(o)),
    },
    Builtin {
        name: Exact::NAME,
        description: "exact: depth-first branch-and-bound over (ready task, GPU or gang GPU set) append placements with path and load bounds, GPU symmetry and commutation pruning, HEFT/PEFT incumbent; proves optimality of small problems; options: nodes (default 50000000)",
        family: Family::Exact,
        quick: "nodes=20000",
        build: |o| boxed(Exact::from_options(o)),
    },
];
