//! Every scheduler of this crate, one module each, and the list-scheduling primitives they
//! share ([`list`]).
//!
//! | scheduler | module | registry name | source |
//! |---|---|---|---|
//! | [`Heft`] | [`heft`] | `heft` | Topcuoglu, Hariri, Wu, IEEE TPDS 2002, §4.1 |
//! | [`Cpop`] | [`cpop`] | `cpop` | Topcuoglu, Hariri, Wu, IEEE TPDS 2002, §4.2 |
//! | [`Peft`] | [`peft`] | `peft` | Arabnejad, Barbosa, IEEE TPDS 2014, §3 |
//! | [`MinMin`] | [`min_min`] | `min-min` | Ibarra, Kim, JACM 1977; Braun et al., JPDC 2001, §2 |
//! | [`MaxMin`] | [`max_min`] | `max-min` | Ibarra, Kim, JACM 1977; Braun et al., JPDC 2001, §2 |
//! | [`LeastConnection`] | [`least_connection`] | `least-connection` | load balancing (MDTS paper's baseline) |
//! | [`RoundRobin`] | [`round_robin`] | `round-robin` | cyclic assignment |
//! | [`RandomAssignment`] | [`random`] | `random` | seeded uniform assignment |
//! | [`WorlRtgs`] | [`worl_rtgs`] | `worl-rtgs` | Du et al., Big Data Cogn. Comput. 9(11):284, 2025 |
//! | [`Rtgs`] | [`rtgs`] | `rtgs` | Du et al., J. Supercomputing 81:911, 2025 (authors' code) |
//! | [`PlainWoa`] | [`woa`] | `woa` | Mirjalili, Lewis, Adv. Eng. Softw. 2016 |
//! | [`Pso`] | [`pso`] | `pso` | Kennedy, Eberhart, ICNN 1995; Shi, Eberhart, ICEC 1998 |
//! | [`Ga`] | [`ga`] | `ga` | Holland 1975; Braun et al., JPDC 2001, §2.10 |
//!
//! Every scheduler builds its schedule through
//! [`PartialSchedule`](worl_cluster::PartialSchedule), never places a task on a GPU it does
//! not fit, and breaks ties by a documented total order (smaller task id, smaller GPU id), so
//! that results never depend on hash or iteration order.
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

pub mod cpop;
pub mod heft;
pub mod least_connection;
pub mod list;
pub mod max_min;
pub mod min_min;
pub mod peft;
pub mod random;
pub mod round_robin;

pub mod ga;
pub mod pso;
pub mod rtgs;
pub mod woa;
pub mod worl_rtgs;

mod batch;

pub use cpop::{Cpop, CriticalPathAssignment};
pub use heft::Heft;
pub use least_connection::LeastConnection;
pub use max_min::MaxMin;
pub use min_min::MinMin;
pub use peft::{OptimisticCostTable, Peft};
pub use random::RandomAssignment;
pub use round_robin::RoundRobin;

pub use ga::Ga;
pub use pso::Pso;
pub use rtgs::Rtgs;
pub use woa::PlainWoa;
pub use worl_rtgs::WorlRtgs;

use crate::registry::{Options, Registry};
use crate::scheduler::Scheduler;

fn boxed<S: Scheduler + 'static>(s: crate::Result<S>) -> crate::Result<Box<dyn Scheduler>> {
    Ok(Box::new(s?))
}

/// A registry entry: name, description, constructor from options.
type Entry = (
    &'static str,
    &'static str,
    fn(Options) -> crate::Result<Box<dyn Scheduler>>,
);

/// Registers every scheduler of this module in `registry`.
pub(crate) fn register_builtins(registry: &mut Registry) {
    let list_schedulers: [Entry; 8] = [
        (
            Heft::NAME,
            "HEFT (Topcuoglu et al. 2002): rank_u order, min-EFT GPU, insertion; options: policy",
            |o| boxed(Heft::from_options(o)),
        ),
        (
            Cpop::NAME,
            "CPOP (Topcuoglu et al. 2002): rank_u+rank_d order, critical path on one GPU; options: policy, tolerance",
            |o| boxed(Cpop::from_options(o)),
        ),
        (
            Peft::NAME,
            "PEFT (Arabnejad & Barbosa 2014): optimistic cost table, min EFT+OCT; options: policy",
            |o| boxed(Peft::from_options(o)),
        ),
        (
            MinMin::NAME,
            "Min-Min (Ibarra & Kim 1977): ready task of minimum MCT first; options: policy",
            |o| boxed(MinMin::from_options(o)),
        ),
        (
            MaxMin::NAME,
            "Max-Min (Ibarra & Kim 1977): ready task of maximum MCT first; options: policy",
            |o| boxed(MaxMin::from_options(o)),
        ),
        (
            LeastConnection::NAME,
            "least-connection: each task to the GPU with the fewest tasks; options: policy",
            |o| boxed(LeastConnection::from_options(o)),
        ),
        (
            RoundRobin::NAME,
            "round-robin: tasks in topological order to GPUs cyclically; options: policy",
            |o| boxed(RoundRobin::from_options(o)),
        ),
        (
            RandomAssignment::NAME,
            "random: seeded uniform GPU per task (stochastic); options: policy",
            |o| boxed(RandomAssignment::from_options(o)),
        ),
    ];
    for (name, description, build) in list_schedulers {
        registry.register(name, description, build);
    }
    worl_rtgs::register(registry);
    rtgs::register(registry);
    woa::register(registry);
    pso::register(registry);
    ga::register(registry);
}
