//! worl-cluster: placeholder, filled by its issue.
#![deny(missing_docs)]
