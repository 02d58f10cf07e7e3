//! `worl info`: a workload's size and shape.

use crate::{Result, inputs, outln};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `worl info`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The workload file (Alibaba CSV, WfCommons JSON, DAX, STG, worl JSON).
    workload: PathBuf,
    /// Link bandwidth for the communication-to-computation ratio (CCR), bytes/s.
    #[arg(long, default_value_t = worl::dag::ccr::REFERENCE_BANDWIDTH)]
    bandwidth: f64,
}

/// Prints the workload's name and statistics.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let w = inputs::workload(&args.workload)?;
    outln!("workload            {}", w.name())?;
    outln!("{}", w.stats(args.bandwidth)?)?;
    Ok(ExitCode::SUCCESS)
}
