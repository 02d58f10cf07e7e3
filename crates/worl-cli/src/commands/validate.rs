//! `worl validate`: check a schedule file against a workload and a cluster.

use crate::{Result, inputs, outln};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `worl validate`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The workload file.
    workload: PathBuf,
    /// The cluster: a cluster file or a description; optional for a saga instance.
    #[arg(long)]
    cluster: Option<String>,
    /// The schedule file (`.json` or `.csv`), made by `worl schedule` or another tool, or a
    /// WfFormat plan (`worl schedule --out plan.wf.json`). Another kind of file is refused
    /// as "not a schedule file".
    #[arg(long)]
    schedule: PathBuf,
}

/// Prints each violation on its own line (the constraint it breaks); exit status 1 if any.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let problem = inputs::problem_of(&args.workload, args.cluster.as_deref())?;
    let file = inputs::schedule_file(&args.schedule)?;
    let (violations, schedule) = file.validate_with_schedule(&problem)?;
    for v in &violations {
        outln!(
            "{}: {}",
            args.schedule.display(),
            v.explain(&problem, &schedule)
        )?;
    }
    if violations.is_empty() {
        outln!(
            "{}: valid, makespan {:.3} s",
            args.schedule.display(),
            schedule.makespan()
        )?;
        Ok(ExitCode::SUCCESS)
    } else {
        crate::errln!("{} violation(s)", violations.len());
        Ok(ExitCode::from(1))
    }
}
