//! Reading the inputs every command shares: workloads, clusters and schedule files through
//! [`worl::io`] (the one reader dispatch the Python package also uses), host maps; and
//! checking that a command's outputs overwrite neither each other nor its inputs.
//!
//! Every reader skips a leading UTF-8 byte-order mark (as Windows editors write one): the
//! parsers then see the text a user sees.

use crate::Result;
use std::fmt;
use std::path::{Path, PathBuf};
use worl::cluster::{Cluster, Problem};
use worl::dag::Workload;
use worl::io::{Loaded, ScheduleFile};

/// Errors of reading the inputs that name the file or option at fault.
#[derive(Debug)]
pub(crate) enum InputError {
    /// A file cannot be opened or read.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `worl compare` without `--out` (and without a shard to write).
    NoOut,
    /// `--cluster` given to `worl convert` for an output that holds no cluster.
    ClusterUnused {
        /// The output file.
        path: PathBuf,
    },
    /// Two options of a command name one file (an output and an input, or two outputs).
    SameFile {
        /// The first option (`--out`, `the workload`, ...).
        first: String,
        /// The second option.
        second: String,
        /// The path, as the second option gives it.
        path: PathBuf,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::NoOut => write!(f, "--out DIR is needed"),
            Self::ClusterUnused { path } => write!(
                f,
                "{}: --cluster is only used for a `.saga.json` output",
                path.display()
            ),
            Self::SameFile {
                first,
                second,
                path,
            } => write!(
                f,
                "{first} and {second} name the same file `{}`: give each its own file",
                path.display()
            ),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The text of `path` (UTF-8), without a leading byte-order mark.
///
/// Errors: [`InputError::Io`] naming the file (also for text that is not UTF-8).
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path).map_err(|source| InputError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(worl::dag::formats::strip_bom(&text).to_owned())
}

/// Loads a workload ([`worl::io::load_workload`]: the format by extension and content; a
/// saga / dag-bench problem instance brings its network); the load report's notes (dropped
/// rows, repaired references) go to stderr.
pub(crate) fn load(path: &Path) -> Result<Loaded> {
    let loaded = worl::io::load_workload(path)?;
    if !loaded.report.entries.is_empty() {
        crate::errln!("{}: {}", path.display(), loaded.report);
    }
    Ok(loaded)
}

/// Loads a workload, as [`load`] does, without its network.
pub(crate) fn workload(path: &Path) -> Result<Workload> {
    Ok(load(path)?.workload)
}

/// The problem of the workload at `path` ([`load`]) on the cluster `arg` ([`cluster`]);
/// without `arg`, a saga / dag-bench instance brings its own network.
pub(crate) fn problem_of(path: &Path, arg: Option<&str>) -> Result<Problem> {
    let loaded = load(path)?;
    let c = arg.map(cluster).transpose()?;
    Ok(loaded.into_problem(c)?)
}

/// A cluster from `arg`: a cluster file or a description of a preset
/// ([`worl::io::load_cluster`]; grammar: `worl_cluster::description`).
pub(crate) fn cluster(arg: &str) -> Result<Cluster> {
    Ok(worl::io::load_cluster(arg)?)
}

/// A schedule file (`.json` or `.csv`, or a WfFormat plan) ([`ScheduleFile::read`]).
pub(crate) fn schedule_file(path: &Path) -> Result<ScheduleFile> {
    Ok(ScheduleFile::read(path)?)
}

/// The `--hosts` map: `machine=host,...`, or a file of such entries read through
/// [`read_text`] (as [`worl_export::HostMap::from_arg`] tells them apart).
pub(crate) fn host_map(arg: &str) -> Result<worl_export::HostMap> {
    let path = Path::new(arg);
    if !arg.contains('=') && path.is_file() {
        return Ok(worl_export::HostMap::parse(&read_text(path)?, arg)?);
    }
    Ok(worl_export::HostMap::from_arg(arg)?)
}

/// Where `path` is: canonical where it exists, else its canonical folder joined with its
/// name, else as given; so two spellings of one file compare equal.
fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let folder = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (folder.canonicalize(), path.file_name()) {
        (Ok(f), Some(name)) => f.join(name),
        _ => path.to_owned(),
    }
}

/// Checks, before any work, that no output of a command is another of its outputs or one
/// of its inputs: `outputs` and `inputs` are `(option, path)` pairs (`("--out", p)`,
/// `("the workload", w)`); `None` paths are skipped.
///
/// Errors: [`InputError::SameFile`] naming both options and the path.
pub(crate) fn distinct_files(
    outputs: &[(&str, Option<&Path>)],
    inputs: &[(&str, Option<&Path>)],
) -> Result<()> {
    let given = |list: &[(&str, Option<&Path>)]| -> Vec<(String, PathBuf, PathBuf)> {
        list.iter()
            .filter_map(|&(o, p)| p.map(|p| (o.to_owned(), p.to_owned(), identity(p))))
            .collect()
    };
    let outputs = given(outputs);
    let inputs = given(inputs);
    for (i, (second, path, id)) in outputs.iter().enumerate() {
        let earlier = inputs.iter().chain(&outputs[..i]);
        if let Some((first, ..)) = earlier.into_iter().find(|(_, _, other)| other == id) {
            return Err(InputError::SameFile {
                first: first.clone(),
                second: second.clone(),
                path: path.clone(),
            }
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spellings_of_one_output_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        std::fs::write(&a, "{}").unwrap();
        let other = dir.path().join("sub").join("..").join("a.json");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let e = distinct_files(&[("--out", Some(&other))], &[("the workload", Some(&a))])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the workload and --out name the same file `") && e.contains("a.json"),
            "{e}"
        );
        // outputs that do not exist yet: compared by folder and name
        let g = dir.path().join("g.svg");
        let g2 = dir.path().join(".").join("g.svg");
        let e = distinct_files(&[("--out", Some(&g)), ("--gantt", Some(&g2))], &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--out and --gantt name the same file"), "{e}");
        distinct_files(
            &[("--out", Some(&g)), ("--gantt", None)],
            &[("the workload", Some(&a))],
        )
        .unwrap();
    }

    #[test]
    fn a_byte_order_mark_is_skipped_by_read_text() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.csv");
        std::fs::write(&p, b"\xEF\xBB\xBFa,b\n").unwrap();
        assert_eq!(read_text(&p).unwrap(), "a,b\n");
        std::fs::write(&p, "\u{FEFF}").unwrap();
        assert_eq!(read_text(&p).unwrap(), "");
    }
}
