//! Reading the inputs every command shares: workloads (any format worl reads), clusters (a
//! cluster file, or a short description of a preset), schedule files and host maps; and
//! checking that a command's outputs overwrite neither each other nor its inputs.
//!
//! Every input file is read here, through [`open`] or [`read_text`], which skip a leading
//! UTF-8 byte-order mark (as Windows editors write one): the parsers then see the text a
//! user sees.

use crate::Result;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use worl::cluster::{Cluster, ClusterError, Problem, ScheduleFile};
use worl::dag::Workload;
use worl::dag::formats::{self, Format, LoadReport};

/// The UTF-8 byte-order mark `U+FEFF`, which [`open`] and [`read_text`] skip.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

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
    /// Loading a workload failed with an error that does not name the file (an empty
    /// workload, say): the file and the error.
    Workload {
        /// The workload file.
        path: PathBuf,
        /// The loader's error.
        source: Box<crate::error::Error>,
    },
    /// A machine of a cluster has an empty name: a schedule file could not name it and an
    /// export would not pin its tasks.
    EmptyMachineName {
        /// The cluster as given (`--cluster` argument).
        cluster: String,
        /// The machine's index (0-based).
        index: usize,
    },
    /// `worl compare` without `--out` (and without a shard to write).
    NoOut,
    /// A workload without `--cluster` that brings no network of its own.
    NoCluster {
        /// The workload file.
        path: PathBuf,
    },
    /// `--cluster` given to `worl convert` for an output that holds no cluster.
    ClusterUnused {
        /// The output file.
        path: PathBuf,
    },
    /// A saga problem instance to write without a network.
    NeedsNetwork {
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
            Self::Workload { path, source } => write!(f, "{}: {source}", path.display()),
            Self::EmptyMachineName { cluster, index } => write!(
                f,
                "cluster `{cluster}`: machine {index} has an empty name (schedule files and \
                 exports name machines: give it a name)"
            ),
            Self::NoOut => write!(f, "--out DIR is needed"),
            Self::NoCluster { path } => write!(
                f,
                "{}: no --cluster given (only a saga problem instance brings its own network)",
                path.display()
            ),
            Self::ClusterUnused { path } => write!(
                f,
                "{}: --cluster is only used for a `.saga.json` output",
                path.display()
            ),
            Self::NeedsNetwork { path } => write!(
                f,
                "{}: a saga problem instance needs a network: give --cluster",
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
            Self::Workload { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// `path` opened for buffered reading, past a leading UTF-8 byte-order mark.
///
/// Errors: [`InputError::Io`] naming the file.
pub(crate) fn open(path: &Path) -> Result<BufReader<std::fs::File>> {
    let io = |source| InputError::Io {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::new(std::fs::File::open(path).map_err(io)?);
    if reader.fill_buf().map_err(io)?.starts_with(BOM) {
        reader.consume(BOM.len());
    }
    Ok(reader)
}

/// The text of `path` (UTF-8), without a leading byte-order mark.
///
/// Errors: [`InputError::Io`] naming the file (also for text that is not UTF-8).
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path).map_err(|source| InputError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// Loads a workload, the format picked by extension or content (see [`load`]).
pub(crate) fn workload(path: &Path) -> Result<Workload> {
    Ok(load(path)?.0)
}

/// Loads a workload, the format picked by extension or content; the load report's notes
/// (dropped rows, repaired references) go to stderr. A saga / dag-bench problem instance
/// (JSON with a `task_graph`) gives its task graph and, second, its network.
///
/// Errors name the file ([`InputError::Workload`] where the loader's own error does not,
/// as for a workload without tasks).
pub(crate) fn load(path: &Path) -> Result<(Workload, Option<Cluster>)> {
    let loaded = saga_instance(path).and_then(|saga| match saga {
        Some((w, c)) => Ok((w, Some(c))),
        None => {
            let (w, report) = read_workload(path)?;
            if !report.entries.is_empty() {
                crate::errln!("{}: {report}", path.display());
            }
            Ok((w, None))
        }
    });
    loaded.map_err(|e| {
        if e.to_string().contains(&path.display().to_string()) {
            e
        } else {
            InputError::Workload {
                path: path.to_owned(),
                source: Box::new(e),
            }
            .into()
        }
    })
}

/// [`formats::load_path`] reading through [`open`]: the reader of the format
/// [`formats::detect_format`] picks, with its default options.
fn read_workload(path: &Path) -> Result<(Workload, LoadReport)> {
    let format = formats::detect_format(path)?;
    let r = open(path)?;
    let source = path.display().to_string();
    Ok(match format {
        Format::Alibaba => formats::alibaba::read(r, &source, &Default::default())?,
        Format::WfFormat => formats::wfcommons::read(r, &source, &Default::default())?,
        Format::Dax => formats::dax::read(r, &source, &Default::default())?,
        Format::Stg => formats::stg::read(r, &source, &Default::default())?,
        Format::Native => formats::native::read(r, &source)?,
        Format::Dot => formats::dot::read(r, &source, &Default::default())?,
    })
}

/// The workload and network of a saga / dag-bench problem instance (`.json` with a
/// `task_graph`), or `None` for any other file.
fn saga_instance(path: &Path) -> Result<Option<(Workload, Cluster)>> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if !is_json {
        return Ok(None);
    }
    let text = read_text(path)?;
    if !text.contains("\"task_graph\"") {
        return Ok(None);
    }
    let source = path.display().to_string();
    Ok(Some(worl::cluster::formats::saga::read(
        text.as_bytes(),
        &source,
    )?))
}

/// The problem of the workload at `path` on the cluster `arg` (see [`cluster`]); without
/// `arg`, a saga / dag-bench instance brings its own network.
pub(crate) fn problem_of(path: &Path, arg: Option<&str>) -> Result<Problem> {
    let (w, own) = load(path)?;
    let c = match (arg, own) {
        (Some(a), _) => cluster(a)?,
        (None, Some(c)) => c,
        (None, None) => {
            return Err(InputError::NoCluster {
                path: path.to_owned(),
            }
            .into());
        }
    };
    problem(w, c)
}

/// A cluster from `arg`: an existing file (TOML for `*.toml`, else JSON: a cluster file,
/// read through [`read_text`]), else a description of a preset (`pai-mix:M[:SEED]`,
/// `homogeneous:M:MODEL`, `dgx:NODES:MODEL`, `paper-pool:M:MBIT[:SEED]`,
/// `MxG:MODEL[:INTER[:INTRA]]`; grammar: `worl_cluster::description`).
///
/// Errors: the reader's, naming the file; [`InputError::EmptyMachineName`] for a machine
/// without a name.
pub(crate) fn cluster(arg: &str) -> Result<Cluster> {
    let path = Path::new(arg);
    let c = if path.exists() {
        let text = read_text(path)?;
        let is_toml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        let parsed = if is_toml {
            Cluster::from_toml_str(&text)
        } else {
            Cluster::from_json_str(&text)
        };
        parsed.map_err(|e| match e {
            ClusterError::Parse { line, message, .. } => ClusterError::Parse {
                file: arg.to_owned(),
                line,
                message,
            },
            other => other,
        })?
    } else {
        worl::cluster::description::parse(arg)?
    };
    if let Some(index) = c.machines().iter().position(|m| m.trim().is_empty()) {
        return Err(InputError::EmptyMachineName {
            cluster: arg.to_owned(),
            index,
        }
        .into());
    }
    Ok(c)
}

/// A schedule file (`.json` or `.csv`, or a WfFormat plan), read through [`read_text`].
///
/// Errors: those of [`ScheduleFile::from_str_at`], naming the file.
pub(crate) fn schedule_file(path: &Path) -> Result<ScheduleFile> {
    let text = read_text(path)?;
    Ok(ScheduleFile::from_str_at(&text, path)?)
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

/// The problem of `workload` on `cluster`.
pub(crate) fn problem(workload: Workload, cluster: Cluster) -> Result<Problem> {
    Ok(Problem::new(Arc::new(workload), Arc::new(cluster))?)
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
    fn a_byte_order_mark_is_skipped_by_open_and_read_text() {
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.csv");
        std::fs::write(&p, b"\xEF\xBB\xBFa,b\n").unwrap();
        assert_eq!(read_text(&p).unwrap(), "a,b\n");
        let mut s = String::new();
        open(&p).unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "a,b\n");
        std::fs::write(&p, "\u{FEFF}").unwrap();
        assert_eq!(read_text(&p).unwrap(), "");
    }
}
