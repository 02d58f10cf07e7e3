//! Reading workloads from trace and benchmark formats, and writing them.
//!
//! | module | format | direction |
//! |---|---|---|
//! | [`alibaba`] | Alibaba cluster-trace-v2018 `batch_task.csv` | read |
//! | [`openb`] | Alibaba GPU trace v2023 pod lists (`openb_pod_list_*.csv`): pods as gang tasks | read |
//! | [`pai`] | Alibaba PAI v2020 task tables with per-GPU-type run times (the derived `case_random_1000_tasks.csv`) | read |
//! | [`wfcommons`] | WfCommons WfFormat JSON (1.5 and the older `workflow.tasks` layout) | read; write 1.5, with a schedule as its `execution` |
//! | [`dax`] | Pegasus DAX XML | read |
//! | [`stg`] | Standard Task Graph (Kasahara), with or without communication costs | read |
//! | [`native`] | worl's own versioned JSON | read and write (lossless) |
//! | [`dot`] | Graphviz DOT (DAGGEN, dslab-dag and worl's own export) | read and write (lossless) |
//!
//! Every reader returns the [`Workload`] and a [`LoadReport`] listing what it skipped,
//! repaired or noticed, per [`Reason`], with the offending items; bad input is a typed
//! [`DagError`] naming the file and line or item, never a panic. Each reader has a
//! `load(path, ..)` and a `read(reader, source, ..)` for in-memory input. [`load_path`] picks
//! the reader from the file: its extension, and for `.csv` its header ([`CsvTrace`]). `docs/formats.md` describes each format and its defaults.
//!
//! Every reader builds through [`WorkloadBuilder`](crate::WorkloadBuilder), so a task, job or
//! workload name holding a control character ([`DagError::InvalidName`]) is refused by all of
//! them alike, as a [`DagError::Parse`] naming the file (and the line where the format has
//! lines). Every reader's time and memory are linear (up to a logarithm) in its input: counts
//! written in the input are checked, never used to allocate, and report items copy a long name
//! at most once per item ([`report::short`]).

pub mod alibaba;
pub(crate) mod csv_table;
pub mod dax;
pub mod dot;
pub(crate) mod gang;
pub mod native;
pub mod openb;
pub mod pai;
pub mod report;
pub mod stg;
pub mod wfcommons;

pub use report::{Action, LoadReport, Reason, ReportEntry};

use crate::error::{DagError, Result};
use crate::workload::Workload;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The input formats [`load_path`] recognises.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// An Alibaba CSV trace (`.csv`): v2018 `batch_task.csv`, or by its header a GPU trace
    /// ([`CsvTrace`], [`detect_csv`]; [`alibaba::read`] reads all three).
    Alibaba,
    /// WfCommons WfFormat (`.json` that is not worl's own).
    WfFormat,
    /// Pegasus DAX (`.xml`, `.dax`).
    Dax,
    /// Standard Task Graph (`.stg`).
    Stg,
    /// worl's native JSON (`.json` with `"format": "worl-workload"`).
    Native,
    /// Graphviz DOT digraph (`.dot`, `.gv`).
    Dot,
}

/// The UTF-8 byte-order mark `U+FEFF`, which some Windows editors write at the start of a
/// text file. Every reader of worl skips it ([`skip_bom`], [`strip_bom`]), so a parser sees
/// the text a user sees.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Consumes a leading UTF-8 byte-order mark ([`BOM`]) of `reader`, if there is one.
///
/// Errors: the reader's I/O error.
pub fn skip_bom(reader: &mut impl BufRead) -> std::io::Result<()> {
    if reader.fill_buf()?.starts_with(BOM) {
        reader.consume(BOM.len());
    }
    Ok(())
}

/// `text` without a leading byte-order mark ([`BOM`]).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{FEFF}').unwrap_or(text)
}

/// Opens a file for buffered reading past a leading byte-order mark ([`skip_bom`]), naming
/// the file in the error.
pub(crate) fn open(path: &Path) -> Result<BufReader<File>> {
    let io = |source| DagError::Io {
        path: path.to_owned(),
        source,
    };
    let mut reader = File::open(path).map(BufReader::new).map_err(io)?;
    skip_bom(&mut reader).map_err(io)?;
    Ok(reader)
}

/// Reads all of `reader` as UTF-8 text; `source` names it in errors.
///
/// Errors: [`DagError::Io`] naming `source` for a failed read; [`DagError::Parse`] with the
/// line of the first byte that is not UTF-8 (message "invalid UTF-8").
pub fn read_text(mut reader: impl Read, source: &str) -> Result<String> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|e| DagError::Io {
        path: source.into(),
        source: e,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        DagError::Parse {
            file: source.to_owned(),
            line,
            message: "invalid UTF-8".into(),
        }
    })
}

/// Locates a builder error of a loader in `file`: an error naming tasks or edges but no file
/// (bad work, memory, gang or bytes, duplicates, self-loop, cycle) becomes [`DagError::Parse`]
/// without a line, its message unchanged; other errors pass through.
pub(crate) fn in_file(file: &str) -> impl Fn(DagError) -> DagError + '_ {
    move |e| match e {
        DagError::InvalidWork { .. }
        | DagError::InvalidName { .. }
        | DagError::InvalidMemory { .. }
        | DagError::InvalidGang { .. }
        | DagError::InvalidBytes { .. }
        | DagError::DuplicateTask { .. }
        | DagError::DuplicateJob { .. }
        | DagError::DuplicateEdge { .. }
        | DagError::SelfLoop { .. }
        | DagError::Cycle { .. } => DagError::Parse {
            file: file.to_owned(),
            line: 0,
            message: e.to_string(),
        },
        e => e,
    }
}

/// The workload (and single-workflow job) name for an input: the file stem of `source`.
pub(crate) fn source_name(source: &str) -> String {
    Path::new(source)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or(source)
        .to_owned()
}

/// 1-based line of byte offset `pos` in `text` (one scan of `text`: for a single lookup;
/// use [`Lines`] for many).
pub(crate) fn line_of(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The byte offsets of a text's line starts, so that many positions can be turned into lines
/// in `O(log lines)` each (a loader calling [`line_of`] per element would be quadratic).
pub(crate) struct Lines {
    /// Offsets of the `\n` bytes, ascending.
    newlines: Vec<usize>,
}

impl Lines {
    /// Indexes `text`.
    pub(crate) fn new(text: &str) -> Self {
        Self {
            newlines: text
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// 1-based line of byte offset `pos` (as [`line_of`]).
    pub(crate) fn line(&self, pos: usize) -> usize {
        self.newlines.partition_point(|&n| n < pos) + 1
    }
}

/// Which Alibaba CSV trace a `.csv` file holds, told by its first line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CsvTrace {
    /// cluster-trace-v2018 `batch_task.csv` (no header): [`alibaba`].
    BatchTask,
    /// cluster-trace-gpu-v2023 pod list (header [`openb::HEADER`]): [`openb`].
    OpenbPods,
    /// PAI v2020 task table with per-GPU-type run times (header naming `job_name`,
    /// `task_name`, `inst_num`, `start_time`, `runtime_V100`): [`pai`].
    PaiTasks,
}

impl CsvTrace {
    /// The trace whose header `first_line` is: a pod list or PAI table when the line names
    /// their columns ([`openb::is_header`], [`pai::is_header`]), else `batch_task` (which has
    /// no header: its first line is a row of numbers and DAG task names).
    pub fn of_first_line(first_line: &str) -> Self {
        if openb::is_header(first_line) {
            CsvTrace::OpenbPods
        } else if pai::is_header(first_line) {
            CsvTrace::PaiTasks
        } else {
            CsvTrace::BatchTask
        }
    }
}

/// The Alibaba trace held by the CSV file `path`, from its first line
/// ([`CsvTrace::of_first_line`]; at most 64 KiB are read).
///
/// Errors: [`DagError::Io`] naming the file if it cannot be read.
pub fn detect_csv(path: impl AsRef<Path>) -> Result<CsvTrace> {
    let path = path.as_ref();
    let mut head = Vec::new();
    open(path)?
        .take(1 << 16)
        .read_to_end(&mut head)
        .map_err(|source| DagError::Io {
            path: path.to_owned(),
            source,
        })?;
    let head = String::from_utf8_lossy(&head);
    Ok(CsvTrace::of_first_line(csv_table::first_line(&head)))
}

/// The extensions [`detect_format`] knows, with their formats (as its error lists them).
pub const KNOWN_EXTENSIONS: &str = ".csv (Alibaba v2018 batch_task, GPU v2023 pod list or PAI \
     v2020 task table, by header), .json (WfCommons WfFormat, \
     or worl-workload native JSON), .xml or .dax (Pegasus DAX), .stg (Standard Task Graph), \
     .dot or .gv (Graphviz DOT)";

/// The format of `path`, from its extension (and, for `.json`, whether it declares
/// `"format": "worl-workload"`).
///
/// Errors: [`DagError::Parse`] without a line, naming the file and listing
/// [`KNOWN_EXTENSIONS`], for an unknown or missing extension; [`DagError::Io`] if a `.json` file
/// cannot be read.
pub fn detect_format(path: impl AsRef<Path>) -> Result<Format> {
    let path = path.as_ref();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") => Ok(Format::Alibaba),
        Some("xml" | "dax") => Ok(Format::Dax),
        Some("stg") => Ok(Format::Stg),
        Some("dot" | "gv") => Ok(Format::Dot),
        Some("json") => {
            let mut head = [0u8; JSON_HEAD];
            let n = open(path)?.read(&mut head).map_err(|source| DagError::Io {
                path: path.to_owned(),
                source,
            })?;
            Ok(json_format(&String::from_utf8_lossy(&head[..n])))
        }
        _ => Err(DagError::Parse {
            file: path.display().to_string(),
            line: 0,
            message: format!(
                "{}: unknown format; known: {KNOWN_EXTENSIONS}",
                match path.extension() {
                    Some(e) => format!("extension `.{}`", e.to_string_lossy()),
                    None => "no extension".into(),
                }
            ),
        }),
    }
}

/// The file name of `path` in lower case (ASCII letters only), empty if it has none or it
/// is not UTF-8: what the writers match their endings against.
pub fn lower_file_name(path: impl AsRef<Path>) -> String {
    path.as_ref()
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Whether `path` names WfCommons WfFormat output: a file name ending in `.wf.json` or
/// `.wfformat.json` (any case). (A plain `.json` is worl's own JSON when written.)
pub fn is_wfformat_path(path: impl AsRef<Path>) -> bool {
    let name = lower_file_name(path);
    name.ends_with(".wf.json") || name.ends_with(".wfformat.json")
}

/// The extensions [`save_path`] writes.
pub const WRITABLE_EXTENSIONS: [&str; 5] = [".json", ".wf.json", ".wfformat.json", ".dot", ".gv"];

/// Writes `w` to `path` in the format its name asks for: `.wf.json` / `.wfformat.json`
/// WfCommons WfFormat 1.5 ([`wfcommons::save`], without a schedule), `.json` worl's JSON
/// ([`native::save`]), `.dot` / `.gv` Graphviz ([`dot::save_dot`]). Reading the file back
/// gives the same workload (WfFormat: up to the job structure, see [`wfcommons::write`](mod@wfcommons::write)).
///
/// Errors: [`DagError::Parse`] without a line, naming the file and listing
/// [`WRITABLE_EXTENSIONS`], for another extension; the writers' [`DagError::Io`].
pub fn save_path(w: &Workload, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    if is_wfformat_path(path) {
        return wfcommons::save(w, None, path);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "json" => native::save(w, path),
        "dot" | "gv" => dot::save_dot(w, path),
        other => Err(DagError::Parse {
            file: path.display().to_string(),
            line: 0,
            message: format!(
                "cannot write workloads as `.{other}` (writable: {})",
                WRITABLE_EXTENSIONS.join(", ")
            ),
        }),
    }
}

/// Whether JSON text declares `"format": "worl-workload"` (the key, optional whitespace, the
/// value), not merely holds the words somewhere (a WfFormat task could be so named).
/// The bytes of a `.json` file that [`detect_format`] reads for its `format` key.
const JSON_HEAD: usize = 4096;

/// The format of a `.json` document whose first [`JSON_HEAD`] bytes (or more) are `head`:
/// worl's native JSON when it declares its `format`, else WfFormat.
fn json_format(head: &str) -> Format {
    if declares_native(head) {
        Format::Native
    } else {
        Format::WfFormat
    }
}

/// Reads a workload from the text of a `.json` file (a leading byte-order mark skipped):
/// worl's native JSON when its first 4,096 bytes declare its `format`
/// ([`native::read`]), else WfCommons WfFormat ([`wfcommons::read`] with default options),
/// the choice [`load_path`] makes for a `.json` path; `source` names it in errors and
/// reports.
///
/// Errors: those of the chosen reader.
pub fn read_json_text(text: &str, source: &str) -> Result<(Workload, LoadReport)> {
    let text = strip_bom(text);
    let mut end = text.len().min(JSON_HEAD);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match json_format(&text[..end]) {
        Format::Native => native::read(text.as_bytes(), source),
        _ => wfcommons::read(text.as_bytes(), source, &wfcommons::WfOptions::default()),
    }
}

fn declares_native(head: &str) -> bool {
    head.match_indices("\"format\"").any(|(i, key)| {
        let rest = head[i + key.len()..].trim_start();
        rest.strip_prefix(':').is_some_and(|r| {
            r.trim_start()
                .starts_with(&format!("\"{}\"", native::FORMAT))
        })
    })
}

/// Loads `path` with the reader [`detect_format`] picks (for `.csv`, [`detect_csv`]: the
/// v2018 `batch_task`, the v2023 pod list or the PAI task table) and that reader's default
/// options.
///
/// ```no_run
/// let (w, report) = worl_dag::formats::load_path("Montage_25.xml")?;
/// println!("{}\n{report}", w.stats(worl_dag::ccr::REFERENCE_BANDWIDTH)?);
/// # Ok::<(), worl_dag::DagError>(())
/// ```
///
/// Errors: those of [`detect_format`] and of the chosen reader.
pub fn load_path(path: impl AsRef<Path>) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    match detect_format(path)? {
        Format::Alibaba => match detect_csv(path)? {
            CsvTrace::BatchTask => alibaba::load(path, &alibaba::AlibabaOptions::default()),
            CsvTrace::OpenbPods => openb::load(path, &openb::OpenbOptions::default()),
            CsvTrace::PaiTasks => pai::load(path, &pai::PaiOptions::default()),
        },
        Format::WfFormat => wfcommons::load(path, &wfcommons::WfOptions::default()),
        Format::Dax => dax::load(path, &dax::DaxOptions::default()),
        Format::Stg => stg::load(path, &stg::StgOptions::default()),
        Format::Native => native::load(path),
        Format::Dot => dot::load(path, &dot::DotOptions::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::shapes;

    #[test]
    fn save_path_writes_by_name_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("worl-save-path-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let w = shapes::fork_join(3, 10.0, 1.0e6).unwrap();
        for name in ["w.json", "w.dot", "w.wf.json", "W.WFFORMAT.JSON"] {
            let p = dir.join(name);
            save_path(&w, &p).unwrap();
            let (back, _) = load_path(&p).unwrap();
            assert_eq!(back.graph().n_tasks(), 5, "{name}");
            assert_eq!(back.graph().n_edges(), 6, "{name}");
        }
        assert!(is_wfformat_path("a/b.Wf.Json") && !is_wfformat_path("b.json"));
        let err = save_path(&w, dir.join("w.xml")).unwrap_err().to_string();
        assert!(
            err.contains("w.xml") && err.contains("cannot write workloads as `.xml`"),
            "{err}"
        );
        assert!(!err.contains(":0:"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
