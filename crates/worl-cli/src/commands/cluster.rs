//! `worl cluster`: print or write a cluster file.

use crate::{Result, inputs};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `worl cluster`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// A description (`4x8:A100-80GB:100GbE`, `pai-mix:16`, `homogeneous:8:A100-80GB`,
    /// `dgx:2:H100`, `paper-pool:50:500`) or a cluster file to normalise.
    description: String,
    /// Write the cluster file here (`.toml` or `.json`) instead of printing TOML.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Prints the cluster as a TOML cluster file (the compact form where it describes the
/// cluster exactly, else the full one), or writes it (`.toml` or `.json`, same rule).
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let c = inputs::cluster(&args.description)?;
    match &args.out {
        Some(path) => {
            let text = match super::convert::extension(path).as_str() {
                "toml" => c.to_compact_toml_string()?,
                "json" => c.to_compact_json_string(),
                other => {
                    return Err(format!(
                        "{}: cannot write clusters as `.{other}` (writable: .toml, .json)",
                        path.display()
                    )
                    .into());
                }
            };
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
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
