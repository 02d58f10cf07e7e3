//! Policies: [`AsPlanned`] replays a static plan; the online policies decide as jobs
//! arrive and tasks finish.

mod as_planned;
mod least_connection;
mod online_eft;
mod replan;
mod round_robin;

pub use as_planned::AsPlanned;
#[allow(unused_imports)]
pub use least_connection::*;
#[allow(unused_imports)]
pub use online_eft::*;
#[allow(unused_imports)]
pub use replan::*;
#[allow(unused_imports)]
pub use round_robin::*;
