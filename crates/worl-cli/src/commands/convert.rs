//! `worl convert`: a workload from any format worl reads to one it writes.

use crate::{Result, inputs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use worl::dag::formats::{dot, native};

/// Arguments of `worl convert`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The input workload (any format worl reads).
    input: PathBuf,
    /// The output: `.json` (worl's workload JSON) or `.dot` / `.gv` (Graphviz).
    output: PathBuf,
}

/// Reads `input` and writes `output` in the format of its extension.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let w = inputs::workload(&args.input)?;
    write(&w, &args.output)?;
    eprintln!(
        "wrote {} ({} tasks, {} edges)",
        args.output.display(),
        w.graph().n_tasks(),
        w.graph().n_edges()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `w` to `path` in the format of its extension.
pub(crate) fn write(w: &worl::dag::Workload, path: &Path) -> Result<()> {
    match extension(path).as_str() {
        "json" => native::save(w, path)?,
        "dot" | "gv" => dot::save_dot(w, path)?,
        other => {
            return Err(format!(
                "{}: cannot write workloads as `.{other}` (writable: .json, .dot, .gv)",
                path.display()
            )
            .into());
        }
    }
    Ok(())
}

/// The lower-case extension of `path` (empty if none).
pub(crate) fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}
