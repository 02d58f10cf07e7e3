//! `worl convert`: a workload from any format worl reads to one it writes.

use crate::inputs::InputError;
use crate::{Result, inputs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `worl convert`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The input workload (any format worl reads).
    input: PathBuf,
    /// The output: `.json` (worl's workload JSON), `.wf.json` / `.wfformat.json` (WfCommons
    /// WfFormat 1.5), `.saga.json` (a saga / dag-bench problem instance: the workload and
    /// a network, which needs `--cluster` unless the input is one) or `.dot` / `.gv`
    /// (Graphviz).
    output: PathBuf,
    /// The cluster written as the network of a `.saga.json` output: a cluster file or a
    /// description (see `worl cluster --help`).
    #[arg(long)]
    cluster: Option<String>,
}

/// Reads `input` and writes `output` in the format of its extension.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    inputs::distinct_files(
        &[("the output", Some(&args.output))],
        &[
            ("the input", Some(&args.input)),
            ("--cluster", args.cluster.as_deref().map(Path::new)),
        ],
    )?;
    // A cluster that a saga instance cannot hold is refused before the workload is read.
    let saga_cluster = match (&args.cluster, is_saga(&args.output)) {
        (Some(a), true) => {
            let c = inputs::cluster(a)?;
            worl::cluster::formats::saga::check_cluster(&c)?;
            Some(c)
        }
        (Some(_), false) => {
            return Err(InputError::ClusterUnused {
                path: args.output.clone(),
            }
            .into());
        }
        (None, _) => None,
    };
    let (w, own) = inputs::load(&args.input)?;
    if is_saga(&args.output) {
        let c = match (saga_cluster, own) {
            (Some(c), _) => c,
            (None, Some(c)) => c,
            (None, None) => {
                return Err(InputError::NeedsNetwork {
                    path: args.output.clone(),
                }
                .into());
            }
        };
        worl::cluster::formats::saga::save(&w, &c, &args.output)?;
    } else {
        write(&w, &args.output)?;
    }
    crate::errln!(
        "wrote {} ({} tasks, {} edges)",
        args.output.display(),
        w.graph().n_tasks(),
        w.graph().n_edges()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `w` to `path` in the format of its name ([`worl::dag::formats::save_path`]).
pub(crate) fn write(w: &worl::dag::Workload, path: &Path) -> Result<()> {
    Ok(worl::dag::formats::save_path(w, path)?)
}

/// The lower-case extension of `path` (empty if none).
pub(crate) fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Whether `path` asks for a saga / dag-bench problem instance: a name ending in
/// `.saga.json` (any case).
fn is_saga(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.to_ascii_lowercase().ends_with(".saga.json"))
}
