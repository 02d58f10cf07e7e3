//! One module per subcommand: its arguments (`Args`) and its `run`.

pub(crate) mod cluster;
pub(crate) mod compare;
pub(crate) mod convert;
pub(crate) mod export;
pub(crate) mod info;
pub(crate) mod merge;
pub(crate) mod schedule;
pub(crate) mod simulate;
pub(crate) mod validate;

use crate::{Result, outln};
use std::process::ExitCode;
use worl::rtgs::Registry;

/// `worl schedulers`: the registered schedulers, one per line (`name  description`).
pub(crate) fn schedulers() -> Result<ExitCode> {
    let registry = Registry::with_builtins();
    let width = registry.names().map(str::len).max().unwrap_or(0);
    for name in registry.names() {
        outln!(
            "{name:width$}  {}",
            registry.description(name).unwrap_or_default()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
