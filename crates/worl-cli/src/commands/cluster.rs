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
/// machines is refused before anything is written ([`worl::cluster::Cluster::check_writable`]).
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let c = inputs::cluster(&args.description)?;
    c.check_writable()?;
    match &args.out {
        Some(path) => {
            let ext = super::convert::extension(path);
            if ext != "toml" && ext != "json" {
                return Err(worl::Error::UnknownSaveFormat {
                    path: path.clone(),
                    what: "clusters".into(),
                    ext: format!("`.{ext}`"),
                    writable: vec![".toml".into(), ".json".into()],
                }
                .into());
            }
            let io = |e: std::io::Error| worl::Error::io(path, e);
            if ext == "toml" {
                std::fs::write(path, c.to_compact_toml_string()?).map_err(io)?;
            } else {
                let file = std::fs::File::create(path).map_err(io)?;
                c.write_compact_json(file).map_err(|e| match e {
                    worl::cluster::ClusterError::Io { source, .. } => io(source),
                    other => other.into(),
                })?;
            }
            crate::errln!(
                "wrote {} ({} machines, {} GPUs)",
                path.display(),
                c.n_machines(),
                c.n_gpus()
            );
        }
        None => crate::write_stdout(format_args!("{}", c.to_compact_toml_string()?))?,
    }
    Ok(ExitCode::SUCCESS)
}
