//! Policies: [`AsPlanned`] replays a static plan; the online policies decide as jobs
//! arrive and tasks finish.

mod as_planned;
#[cfg(feature = "ddqn")]
mod drl;
mod least_connection;
mod online_eft;
mod replan;
mod round_robin;

pub use as_planned::AsPlanned;
#[cfg(feature = "ddqn")]
pub use drl::{DecisionRecord, OnlineDrl};
#[allow(unused_imports)]
pub use least_connection::*;
#[allow(unused_imports)]
pub use online_eft::*;
#[allow(unused_imports)]
pub use replan::*;
#[allow(unused_imports)]
pub use round_robin::*;
