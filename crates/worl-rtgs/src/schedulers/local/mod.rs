//! Local search over plans: the state, moves and critical chain every plan-based local
//! search shares ([`moves`]), and the iterated local search baseline [`Ils`].
//!
//! | module | holds |
//! |---|---|
//! | [`moves`] | [`LocalState`] (plan, makespan, critical chain), [`Move`], [`Undo`] |
//! | [`ils`] | [`Ils`], [`IlsConfig`] |
//!
//! WORL-RTGS's default preset searches with the same moves, choosing among them with its
//! Double DQN agent.

pub mod ils;
pub mod moves;

pub use ils::{Ils, IlsConfig};
pub use moves::{LocalState, Move, Undo};
