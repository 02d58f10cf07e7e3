//! [`check_log`]: an independent checker of a simulation's event log against the problem.

use crate::error::SimError;
use crate::result::SimResult;
use std::fmt;
use worl_cluster::Problem;

/// One inconsistency found by [`check_log`], with the time and the items involved.
#[derive(Clone, Debug, PartialEq)]
pub struct LogViolation {
    /// Time of the offending event, s.
    pub time: f64,
    /// What is wrong, naming the task (label), GPU and job involved.
    pub what: String,
}

impl fmt::Display for LogViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t = {} s: {}", self.time, self.what)
    }
}

/// Checks `result`'s event log against `problem`.
pub fn check_log(problem: &Problem, result: &SimResult) -> Result<(), Vec<LogViolation>> {
    let _ = (problem, result, SimError::NotImplemented("check_log"));
    Err(vec![LogViolation {
        time: 0.0,
        what: "check_log is not implemented yet".to_string(),
    }])
}
