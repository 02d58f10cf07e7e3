//! worl-ddqn: placeholder, filled by its issue.
#![deny(missing_docs)]
