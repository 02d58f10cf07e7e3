//! `worl merge`: join the results files of `worl compare --shard K/N` runs.

use crate::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use worl::experiment::shard;

/// Arguments of `worl merge`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Results files (JSON lines) written by `worl compare --shard K/N --results FILE`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output directory: the files `worl compare` writes (summary.md, normalised.csv,
    /// runs.csv, results.json, cd.svg).
    #[arg(long)]
    out: PathBuf,
}

/// Merges the shards (every run once, in the grid's order) and writes compare's outputs.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let written = super::compare::output_files(Some(&args.out));
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
    let results = shard::merge(&args.files)?;
    crate::errln!(
        "merged {} runs from {} file(s)",
        results.records().len(),
        args.files.len()
    );
    super::compare::write_outputs(&results, &args.out, false)?;
    Ok(ExitCode::SUCCESS)
}
