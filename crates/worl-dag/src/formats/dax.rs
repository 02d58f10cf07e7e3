//! Loader of Pegasus DAX XML workflows (DAX 2.x/3.x `<adag>` documents, e.g. the
//! synthetic Montage, CyberShake, Epigenomics, Inspiral and SIPHT workflows of Bharathi et
//! al. 2008 shipped with WorkflowSim).
//!
//! Read: `<job id= name= runtime=>` with `<uses file= (or name=) link="input|output|inout"
//! size=>` children, and dependencies `<child ref=><parent ref=/></child>`. One workflow is
//! one job named after the file stem; a task is named by its `id` (the transformation
//! `name`, e.g. `mProjectPP`, is not unique). `work = runtime · work_scale` reference
//! GPU-seconds. An edge's bytes are the total size of the files the parent outputs and the
//! child inputs (sizes from the parent's `<uses>`). Count attributes (`jobCount`,
//! `childCount`) are only checked and reported when wrong ([`Reason::CountMismatch`]; e.g.
//! `HEFT_paper.xml` says `jobCount="25"` for 10 jobs). A `<child>` or `<parent>` naming no job
//! is [`DagError::UnknownTask`]; a missing runtime or size is repaired to 0 and reported.

use crate::error::{DagError, Result};
use crate::formats::report::{LoadReport, Reason, short};
use crate::formats::{Lines, in_file, open, read_text, source_name};
use crate::ids::TaskId;
use crate::workload::{Workload, WorkloadBuilder};
use quick_xml::events::{BytesStart, Event};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "pegasus-dax";

/// Options of the DAX loader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DaxOptions {
    /// Reference GPU-seconds per DAX runtime second. Default 1.0.
    pub work_scale: f64,
}

impl Default for DaxOptions {
    fn default() -> Self {
        Self { work_scale: 1.0 }
    }
}

/// One `<job>` as read.
struct DaxJob {
    id: String,
    /// Byte position of the `<job>` element.
    pos: u64,
    runtime: Option<f64>,
    /// Output files with their sizes, each file once, in first-listed order.
    outputs: Vec<(String, f64)>,
    /// File -> position in `outputs`.
    output_index: HashMap<String, usize>,
    inputs: HashSet<String>,
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, opts: &DaxOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), opts)
}

/// Loads a DAX document from any reader; `source` names it in errors and reports, and its
/// file stem names the workload and its job.
///
/// Errors: [`DagError::InvalidParameter`] for a bad `work_scale`; [`DagError::Parse`] with
/// the line for malformed XML (an element repeating an attribute included), a `<job>`
/// without `id`, a `<child>`/`<parent>` without `ref`,
/// a number that does not parse, a negative size, and (naming the line of the `<job>` or
/// `<parent>`) a runtime or edge the builder rejects (duplicate job id, negative runtime,
/// self-loop, bytes that overflow); [`DagError::UnknownTask`] naming the `<child>`'s line;
/// [`DagError::Parse`] without a line naming the file for a cycle or a repeated dependency
/// the builder rejects; [`DagError::Empty`] for no job.
pub fn read(reader: impl Read, source: &str, opts: &DaxOptions) -> Result<(Workload, LoadReport)> {
    if !(opts.work_scale.is_finite() && opts.work_scale > 0.0) {
        return Err(DagError::InvalidParameter {
            name: "work_scale",
            reason: format!("{} is not finite and > 0", opts.work_scale),
        });
    }
    let text = read_text(reader, source)?;
    let mut report = LoadReport::new(source, FORMAT);
    let mut xml = quick_xml::Reader::from_str(&text);
    let lines = Lines::new(&text);
    let err = |pos: u64, message: String| DagError::Parse {
        file: source.to_owned(),
        line: lines.line(pos as usize),
        message,
    };
    let mut jobs: Vec<DaxJob> = Vec::new();
    let mut deps: Vec<(String, String, u64)> = Vec::new(); // (parent, child, position)
    let mut counts: Vec<(&'static str, String)> = Vec::new();
    let mut in_job = false;
    let mut child: Option<String> = None;
    let mut n_child = 0usize;
    loop {
        let pos = xml.buffer_position();
        let ev = xml
            .read_event()
            .map_err(|e| err(xml.error_position(), format!("malformed XML: {e}")))?;
        let (e, empty) = match &ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                match e.local_name().as_ref() {
                    b"job" => in_job = false,
                    b"child" => child = None,
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let local = e.local_name();
        let wanted: &[&str] = match local.as_ref() {
            b"adag" => &["jobCount", "childCount"],
            b"job" => &["id", "runtime"],
            b"uses" if in_job => &["file", "name", "link", "size"],
            b"child" | b"parent" => &["ref"],
            _ => &[],
        };
        let attrs = attributes(&xml, e, wanted, pos, &err)?;
        let attr = |name: &[u8]| -> Result<Option<String>> {
            Ok(wanted
                .iter()
                .position(|w| w.as_bytes() == name)
                .and_then(|i| attrs[i].clone()))
        };
        match local.as_ref() {
            b"adag" => {
                for key in ["jobCount", "childCount"] {
                    if let Some(v) = attr(key.as_bytes())? {
                        counts.push((key, v));
                    }
                }
            }
            b"job" => {
                let id = attr(b"id")?.ok_or_else(|| err(pos, "<job> without id".into()))?;
                let runtime = match attr(b"runtime")? {
                    Some(r) => Some(parse_num(&r, "runtime", &id).map_err(|m| err(pos, m))?),
                    None => None,
                };
                jobs.push(DaxJob {
                    id,
                    pos,
                    runtime,
                    outputs: Vec::new(),
                    output_index: HashMap::new(),
                    inputs: HashSet::new(),
                });
                in_job = !empty;
            }
            b"uses" if in_job => {
                let Some(job) = jobs.last_mut() else { continue };
                let file = match attr(b"file")? {
                    Some(f) => f,
                    None => attr(b"name")?.ok_or_else(|| {
                        err(pos, format!("<uses> of job {} without file", job.id))
                    })?,
                };
                let link = attr(b"link")?.unwrap_or_default().to_ascii_lowercase();
                let size = match attr(b"size")? {
                    Some(s) => match parse_num(&s, "size", &file).map_err(|m| err(pos, m))? {
                        v if v >= 0.0 => v,
                        _ => {
                            return Err(err(
                                pos,
                                format!("{}: size `{s}` of file {file} is negative", job.id),
                            ));
                        }
                    },
                    None => {
                        report.add(
                            Reason::MissingFileSize,
                            format!("{}: {}", short(&job.id), short(&file)),
                        );
                        0.0
                    }
                };
                if link == "input" || link == "inout" {
                    job.inputs.insert(file.clone());
                }
                if (link == "output" || link == "inout") && !job.output_index.contains_key(&file) {
                    job.output_index.insert(file.clone(), job.outputs.len());
                    job.outputs.push((file, size));
                }
            }
            b"child" => {
                let r = attr(b"ref")?.ok_or_else(|| err(pos, "<child> without ref".into()))?;
                n_child += 1;
                child = if empty { None } else { Some(r) };
            }
            b"parent" => {
                let r = attr(b"ref")?.ok_or_else(|| err(pos, "<parent> without ref".into()))?;
                let c = child
                    .clone()
                    .ok_or_else(|| err(pos, format!("<parent ref=\"{r}\"> outside <child>")))?;
                deps.push((r, c, pos));
            }
            _ => {}
        }
    }
    report.records = jobs.len();
    for (key, v) in counts {
        let found = if key == "jobCount" {
            jobs.len()
        } else {
            n_child
        };
        if v.trim().parse::<usize>().ok() != Some(found) {
            report.add(
                Reason::CountMismatch,
                format!(
                    "{key}=\"{v}\" but {found} <{}> elements",
                    &key[..key.len() - 5]
                ),
            );
        }
    }

    let name = source_name(source);
    let mut b = WorkloadBuilder::new(name.clone());
    let j = b.add_job(name).map_err(in_file(source))?;
    let mut index: HashMap<&str, TaskId> = HashMap::with_capacity(jobs.len());
    for job in &jobs {
        let work = match job.runtime {
            Some(r) => r * opts.work_scale,
            None => {
                report.add(Reason::MissingRuntime, job.id.clone());
                0.0
            }
        };
        let t = b
            .add_task(j, job.id.as_str(), work, None)
            .map_err(|e| err(job.pos, e.to_string()))?;
        index.insert(job.id.as_str(), t);
    }
    let mut seen = HashSet::new();
    let mut common: Vec<usize> = Vec::new();
    for (p, c, pos) in &deps {
        let find = |r: &str, by: &str| {
            index.get(r).copied().ok_or_else(|| DagError::UnknownTask {
                file: source.to_owned(),
                task: r.to_owned(),
                referenced_by: by.to_owned(),
            })
        };
        let line = lines.line(*pos as usize);
        let u = find(p, &format!("<child ref=\"{c}\"> (line {line})"))?;
        let v = find(c, &format!("<child> (line {line})"))?;
        if !seen.insert((u, v)) {
            report.add(Reason::DuplicateDependency, format!("{p} -> {c}"));
            continue;
        }
        let (pj, cj) = (&jobs[u.index()], &jobs[v.index()]);
        // The parent's outputs the child inputs, in the parent's order (the sum does not
        // depend on which list is scanned: the shorter, so an edge costs O(min)).
        common.clear();
        if pj.outputs.len() <= cj.inputs.len() {
            common.extend((0..pj.outputs.len()).filter(|&i| cj.inputs.contains(&pj.outputs[i].0)));
        } else {
            common.extend(
                cj.inputs
                    .iter()
                    .filter_map(|f| pj.output_index.get(f).copied()),
            );
            common.sort_unstable();
        }
        let shared = !common.is_empty();
        let bytes: f64 = common.iter().map(|&i| pj.outputs[i].1).sum();
        if !shared {
            report.add(Reason::EdgeWithoutData, format!("{p} -> {c}"));
        }
        b.add_edge(u, v, bytes)
            .map_err(|e| err(*pos, e.to_string()))?;
    }
    Ok((b.build().map_err(in_file(source))?, report))
}

/// The unescaped values of the attributes `wanted` (local names) of `e`, in `wanted`'s
/// order: one pass over the attributes, a repeated attribute name being an error (checked
/// with a hash set: quick-xml's own check compares each attribute with all earlier ones, which
/// is quadratic in an element's attribute count).
fn attributes(
    xml: &quick_xml::Reader<&[u8]>,
    e: &BytesStart<'_>,
    wanted: &[&str],
    pos: u64,
    err: &impl Fn(u64, String) -> DagError,
) -> Result<Vec<Option<String>>> {
    let mut values = vec![None; wanted.len()];
    let mut keys: HashSet<&[u8]> = HashSet::new();
    let mut attrs = e.attributes();
    attrs.with_checks(false);
    for a in attrs {
        let a = a.map_err(|x| err(pos, format!("malformed attribute: {x}")))?;
        let key = a.key.into_inner();
        if !keys.insert(key) {
            return Err(err(
                pos,
                format!(
                    "malformed attribute: attribute `{}` repeated",
                    short(&String::from_utf8_lossy(key))
                ),
            ));
        }
        let local = a.key.local_name();
        if let Some(i) = wanted.iter().position(|w| w.as_bytes() == local.as_ref())
            && values[i].is_none()
        {
            let v = a
                .decode_and_unescape_value(xml.decoder())
                .map_err(|x| err(pos, format!("malformed attribute value: {x}")))?;
            values[i] = Some(v.into_owned());
        }
    }
    Ok(values)
}

fn parse_num(text: &str, what: &str, item: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{item}: {what} `{text}` is not a finite number")),
    }
}
