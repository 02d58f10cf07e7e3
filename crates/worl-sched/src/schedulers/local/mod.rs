//! Local search over plans: the state, moves and critical chain every plan-based local
//! search shares ([`moves`]), and the iterated local search baseline [`Ils`].
//!
//! | module | holds |
//! |---|---|
//! | [`moves`] | [`LocalState`] (plan, makespan, critical chain), [`Move`], [`Undo`] |
//! | [`ils`] | [`Ils`], [`IlsConfig`] |
//! | `heads_tails` | incremental evaluation: heads, tails and the longest path through a moved task |
//!
//! WORL-RTGS's default preset searches with the same moves, choosing among them with its
//! Double DQN agent.

mod heads_tails;
pub mod ils;
pub mod moves;

pub use ils::{Ils, IlsConfig};
pub use moves::{Evaluation, LocalState, Move, Tried, Undo};
