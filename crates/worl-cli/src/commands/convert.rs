//! `worl convert`: a workload from any format worl reads to one it writes.

use crate::inputs::InputError;
use crate::{Result, inputs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use worl::io;

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

/// Reads `input` and writes `output` in the format of its name
/// ([`worl::io::save_workload`]); the output's name and a saga output's cluster are checked
/// before the workload is read.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    inputs::distinct_files(
        &[("the output", Some(&args.output))],
        &[
            ("the input", Some(&args.input)),
            ("--cluster", args.cluster.as_deref().map(Path::new)),
        ],
    )?;
    io::check_writable(&args.output, "workloads", &io::WORKLOAD_SAVE_EXTENSIONS)?;
    let cluster = match &args.cluster {
        Some(a) if io::is_saga_path(&args.output) => {
            let c = inputs::cluster(a)?;
            io::saga::check_cluster(&c)?;
            Some(c)
        }
        Some(_) => {
            return Err(InputError::ClusterUnused {
                path: args.output.clone(),
            }
            .into());
        }
        None => None,
    };
    let loaded = inputs::load(&args.input)?;
    let network = cluster.or(loaded.network);
    io::save_workload(&loaded.workload, network.as_ref(), &args.output)?;
    let w = &loaded.workload;
    crate::errln!(
        "wrote {} ({} tasks, {} edges)",
        args.output.display(),
        w.graph().n_tasks(),
        w.graph().n_edges()
    );
    Ok(ExitCode::SUCCESS)
}
