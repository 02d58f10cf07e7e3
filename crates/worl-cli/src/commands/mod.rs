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
use worl::sched::Registry;

/// Arguments of `worl schedulers`.
#[derive(clap::Args, Debug)]
pub(crate) struct SchedulersArgs {
    /// A registered scheduler: print its options (key, values, default, meaning).
    name: Option<String>,
}

/// `worl schedulers`: the registered schedulers, one per line (`name  description; options:
/// keys`), or with a name that scheduler's declared options, one per line.
pub(crate) fn schedulers(args: &SchedulersArgs) -> Result<ExitCode> {
    let registry = Registry::with_builtins();
    let Some(name) = &args.name else {
        let width = registry.names().map(str::len).max().unwrap_or(0);
        for name in registry.names() {
            let keys: Vec<&str> = registry.options(name)?.iter().map(|d| d.key).collect();
            outln!(
                "{name:width$}  {}; options: {}",
                registry.description(name).unwrap_or_default(),
                keys.join(", ")
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let options = registry.options(name)?;
    let description = registry.description(name).unwrap_or_default();
    outln!("{}: {description}", name.to_ascii_lowercase())?;
    let width = options.iter().map(|d| d.key.len()).max().unwrap_or(0);
    for d in options {
        outln!(
            "  {:width$}  {}; default {}: {}",
            d.key,
            d.values,
            d.default_text(),
            d.doc
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
