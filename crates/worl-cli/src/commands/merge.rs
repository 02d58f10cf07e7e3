//! `worl merge`: join the results files of `worl compare --shard K/N` or
//! `worl simulate --shard K/N` runs.

use crate::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use worl::experiment::shard::{self, Merged};

/// Arguments of `worl merge`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Results files (JSON lines) written by `worl compare --shard K/N --results FILE` or
    /// by `worl simulate --shard K/N --results FILE`, all of one grid.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output directory: the files `worl compare` writes (summary.md, normalised.csv,
    /// runs.csv, results.json, cd.svg), or for a simulation study those `worl simulate
    /// --out` writes (simulation.md, sim.csv, runs.csv, results.json, jct-cdf.svg) except
    /// the Gantt charts and event logs, which need the runs' tasks (not in results files).
    #[arg(long)]
    out: PathBuf,
}

/// Merges the shards (every run once, in the grid's order) and writes compare's or
/// simulate's outputs, as the files hold an experiment's or a simulation study's runs.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    // compare's and simulate's outputs (runs.csv and results.json once)
    let mut written = super::compare::output_files(Some(&args.out));
    for f in super::simulate::output_files(Some(&args.out)) {
        if !written.contains(&f) {
            written.push(f);
        }
    }
    let outputs: Vec<(&str, Option<&Path>)> = written
        .iter()
        .map(|p| ("--out", Some(p.as_path())))
        .collect();
    let given: Vec<(&str, Option<&Path>)> = args
        .files
        .iter()
        .map(|f| ("a results file", Some(f.as_path())))
        .collect();
    crate::inputs::distinct_files(&outputs, &given)?;
    match shard::merge_any(&args.files)? {
        Merged::Experiment(results) => {
            crate::errln!(
                "merged {} runs from {} file(s)",
                results.records().len(),
                args.files.len()
            );
            super::compare::write_outputs(&results, &args.out, false)?;
        }
        Merged::Simulation(outcome) => {
            crate::errln!(
                "merged {} simulated runs from {} file(s)",
                outcome.runs.len(),
                args.files.len()
            );
            super::simulate::write_outputs(&outcome, Some(&args.out), false, false)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
