//! `worl cluster`: print or write a cluster file.

use crate::{Result, inputs};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `worl cluster`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// A description (`4x8:A100-80GB:100GbE`, `pai-mix:16`, `homogeneous:8:A100-80GB`,
    /// `dgx:2:H100`, `paper-pool:50:500`) or a cluster file to normalise. A
    /// per-machine-pair network (`paper-pool`, a saga network) of more than 1,024 machines
    /// is neither printed nor written (its file holds two n² matrices: 680 MB of JSON at
    /// 4,096 machines): give the description itself wherever a cluster is asked for, it is
    /// rebuilt from its seed.
    description: String,
    /// Write the cluster file here (`.toml` or `.json`) instead of printing TOML.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Prints the cluster as a TOML cluster file (the compact form where it describes the
/// cluster exactly, else the full one), or writes it (`.toml` or `.json`, same rule; JSON is
/// streamed). A per-machine-pair network of more than
/// [`MAX_WRITTEN_PAIR_MACHINES`](worl::cluster::formats::native::MAX_WRITTEN_PAIR_MACHINES)
/// machines is refused before anything is written ([`worl::io::save_cluster`]).
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let c = inputs::cluster(&args.description)?;
    match &args.out {
        Some(path) => {
            worl::io::save_cluster(&c, path)?;
            crate::errln!(
                "wrote {} ({} machines, {} GPUs)",
                path.display(),
                c.n_machines(),
                c.n_gpus()
            );
        }
        None => {
            c.check_writable()?;
            crate::write_stdout(format_args!("{}", c.to_compact_toml_string()?))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
