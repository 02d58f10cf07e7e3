//! Graphviz DOT: export ([`to_dot`], [`write_dot`], [`save_dot`]) and a reader ([`read`],
//! [`load`]) for task graphs written as DOT digraphs.
//!
//! # Reading
//!
//! The reader accepts the DOT language (<https://graphviz.org/doc/info/lang.html>) minus what a
//! workload cannot use: one `digraph` (optionally `strict`, optionally named), node statements
//! with attribute lists, edge statements including chains (`a -> b -> c [size="8"]`, the
//! attributes apply to every edge of the chain), default attribute statements (`node [...]`,
//! `edge [...]`, `graph [...]`, scoped to their block as in Graphviz), `subgraph` blocks
//! (named, anonymous `{ ... }`, and `cluster...` blocks), `ID = ID` statements, comments (`//`,
//! `/* */`, and `#` to the end of the line), quoted IDs with `+` concatenation, unquoted IDs and
//! numerals, HTML IDs (`<...>`, kept as text) and node ports (`a:p`, ignored). In quoted IDs
//! `\"` is a quote, `\\` a backslash and `\n` a newline (the escString rules Graphviz applies
//! to labels); other escapes are kept as written. Attribute names are case-sensitive; unknown
//! attributes (`shape`, `alpha`, ...) are ignored.
//!
//! Three dialects are read with the same rules:
//!
//! * **DAGGEN** (`daggen --dot`, F. Suter, github.com/frs69wq/daggen): `1 [size="1234", alpha=
//!   "0.12"]` with `size` the computation cost in FLOP, and `1 -> 2 [size ="4096"]` with `size`
//!   the data volume in bytes. `alpha` (Amdahl's parallel fraction) is ignored.
//! * **dslab-dag** (`DAG::from_dot` of osukhoroslov/dslab): a node's `size` in FLOP and its
//!   `label` naming the task; an edge's `size` in bytes (its `label`, naming the data item, is
//!   ignored: each edge carries its own bytes).
//! * **worl's own export** ([`to_dot`]): `work` in reference GPU-seconds, `task` (the task
//!   name), `mem_gib` (GiB; empty: no memory need) and `bytes` per edge, given through
//!   `node [...]`/`edge [...]` default statements, and one `cluster` subgraph per job.
//!
//! **Work.** A node's `work` attribute is its work in reference GPU-seconds; without it,
//! `work = size / flops_per_second` ([`DotOptions::flops_per_second`], default
//! [`V100_FP32_FLOPS`], the reference GPU's peak FP32 throughput). A node with neither is an
//! error. `mem_gib` is the memory need in GiB (absent or empty: none).
//!
//! **Gang tasks.** A node's `gpus` (a whole number in `1..=4096`, default 1) is the number of
//! GPUs the task needs at once ([`Task::gpus`](crate::Task::gpus)), and `span` (`machine` or
//! `cluster`), `efficiency` (in `(0, 1]`), `sync_bytes` and `sync_steps` (finite, `>= 0`) are
//! its [`GangParams`], each defaulting as there. Like every node attribute they may come
//! from a `node [...]` default statement. A bad value is an error naming the node, the task
//! (`job/task`) and the line.
//!
//! **Bytes.** An edge's `bytes` attribute, else its `size`, in bytes. An edge with neither
//! carries 0 bytes and is noted ([`Reason::EdgeWithoutData`]).
//!
//! **Names and jobs.** A task is named by its `task` attribute, else its `label`, else its
//! node ID. Every `subgraph cluster...` block that holds a node statement, or no nested
//! cluster (so empty jobs survive the export), is a job, named by the block's own `label` (as
//! `label=...` or `graph [label=...]` in the block), else by the subgraph's ID; blocks that
//! resolve to one name are one job. A node belongs to the innermost cluster it is declared
//! in; nodes outside every cluster form a job named after the file stem. Jobs come in the
//! order their first block (or first outside node) appears, tasks (their [`TaskId`]s) in node
//! statement order. The workload is named by the graph's ID, else the file stem.
//!
//! **Nodes must be declared.** DOT creates a node on its first mention, in an edge too; here a
//! node needs a node statement carrying its size, so an edge naming a node without one is an
//! error, as is a second node statement for the same ID. Undirected graphs (`graph`, `--`),
//! subgraphs as edge ends, a second graph, a self-loop, a repeated edge and a cycle are errors
//! naming the file and line.

use crate::error::{DagError, Result, num};
use crate::formats::report::{LoadReport, Reason};
use crate::formats::{gang, in_file, open, read_text, source_name};
use crate::generators::nn_training::V100_FP32_FLOPS;
use crate::ids::{JobId, TaskId};
use crate::task::GangParams;
use crate::workload::{Workload, WorkloadBuilder};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;
use std::rc::Rc;

/// Format name in [`LoadReport::format`].
pub const FORMAT: &str = "graphviz-dot";

/// Escapes `s` for a double-quoted DOT string (`"`, `\` and newline escaped, as [`read`]
/// unescapes them).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The workload as a DOT digraph that [`read`] gives back identically (same names, ids, work,
/// memory, bytes, jobs; floats bit-identical).
///
/// Node `t<i>` is [`TaskId`] `i`, labelled `name\nwork s`; an edge is labelled with its
/// bytes (3 significant digits, e.g. `2.05e3 B`) when non-zero. Each job is a `subgraph
/// cluster_<j>` labelled with the job's name. The exact values are DOT attributes that
/// Graphviz ignores: each node statement is preceded by `node [task="<name>", work="<work>",
/// mem_gib="<GiB, or empty for none>"]` and edges by `edge [bytes="<bytes>"]` whenever the
/// bytes change; numbers are quoted, in their shortest exact form (`1e-300`, `0.1`). A gang
/// task's node statement also carries `gpus="<g>"` and each [`GangParams`] field that differs
/// from its default (`span="cluster"`, `efficiency="0.9"`, `sync_bytes`, `sync_steps`): on the
/// node itself, so that no default leaks to the next node. Tasks are written in id order: when the
/// jobs' tasks are not consecutive id ranges in job order (or a job is empty), every job's
/// cluster is first declared, empty, in job order, and a job's cluster is reopened for each
/// run of its tasks.
///
/// ```
/// use worl_dag::{formats::dot, generators::shapes};
/// let text = dot::to_dot(&shapes::chain(2, 1.0, 2048.0)?);
/// assert!(text.contains("edge [bytes=\"2048\"];\n  t0 -> t1 [label=\"2.05e3 B\"];"));
/// # Ok::<(), worl_dag::DagError>(())
/// ```
pub fn to_dot(w: &Workload) -> String {
    let g = w.graph();
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(w.name()));
    let _ = writeln!(out, "  rankdir=TB;\n  node [shape=box, fontsize=10];");
    // Consecutive runs of tasks of one job, in id order.
    let mut runs: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for (t, task) in g.tasks() {
        let j = task.job.index();
        match runs.last_mut() {
            Some((rj, r)) if *rj == j => r.end = t.index() + 1,
            _ => runs.push((j, t.index()..t.index() + 1)),
        }
    }
    let canonical = runs.len() == w.n_jobs() && runs.iter().enumerate().all(|(i, r)| r.0 == i);
    if !canonical {
        for (j, job) in w.jobs().iter().enumerate() {
            let _ = writeln!(
                out,
                "  subgraph cluster_{j} {{\n    label={};\n  }}",
                quote(&job.name)
            );
        }
    }
    for (j, range) in runs {
        let _ = writeln!(
            out,
            "  subgraph cluster_{j} {{\n    label={};",
            quote(&w.jobs()[j].name)
        );
        for i in range {
            let task = g.task(TaskId::new(i));
            let mem = task.mem_gib.map(num).unwrap_or_default();
            let _ = writeln!(
                out,
                "    node [task={}, work=\"{}\", mem_gib=\"{mem}\"];",
                quote(&task.name),
                num(task.work)
            );
            let label = format!("{}\n{:.3} s", task.name, task.work);
            let _ = writeln!(
                out,
                "    t{i} [label={}{}];",
                quote(&label),
                gang_attrs(task)
            );
        }
        let _ = writeln!(out, "  }}");
    }
    let mut last_bytes: Option<f64> = None;
    for e in g.edges() {
        if last_bytes.map(f64::to_bits) != Some(e.bytes.to_bits()) {
            let _ = writeln!(out, "  edge [bytes=\"{}\"];", num(e.bytes));
            last_bytes = Some(e.bytes);
        }
        if e.bytes > 0.0 {
            let _ = writeln!(
                out,
                "  t{} -> t{} [label=\"{:.2e} B\"];",
                e.from.index(),
                e.to.index(),
                e.bytes
            );
        } else {
            let _ = writeln!(out, "  t{} -> t{};", e.from.index(), e.to.index());
        }
    }
    out.push_str("}\n");
    out
}

/// The gang attributes of a node statement: `, gpus="8", span="cluster", ...` for the
/// values that differ from their defaults (nothing for a single-GPU task with default
/// parameters).
fn gang_attrs(task: &crate::Task) -> String {
    let mut out = String::new();
    if task.gpus != 1 {
        let _ = write!(out, ", gpus=\"{}\"", task.gpus);
    }
    let (p, d) = (&task.gang, GangParams::default());
    if p.span != d.span {
        let _ = write!(out, ", span=\"{}\"", p.span);
    }
    for (key, v, default) in [
        ("efficiency", p.efficiency, d.efficiency),
        ("sync_bytes", p.sync_bytes, d.sync_bytes),
        ("sync_steps", p.sync_steps, d.sync_steps),
    ] {
        if v.to_bits() != default.to_bits() {
            let _ = write!(out, ", {key}=\"{}\"", num(v));
        }
    }
    out
}

/// Writes [`to_dot`] to `writer`.
///
/// Errors: [`DagError::Io`] (path `<writer>`) if writing fails.
pub fn write_dot(w: &Workload, mut writer: impl Write) -> Result<()> {
    writer
        .write_all(to_dot(w).as_bytes())
        .map_err(|source| DagError::Io {
            path: "<writer>".into(),
            source,
        })
}

/// Writes [`to_dot`] to the file `path`.
///
/// Errors: [`DagError::Io`] naming the file.
pub fn save_dot(w: &Workload, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, to_dot(w)).map_err(|source| DagError::Io {
        path: path.to_owned(),
        source,
    })
}

// ------------------------------------------------------------------------------------------
// Reader
// ------------------------------------------------------------------------------------------

/// Options of the DOT reader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DotOptions {
    /// FLOP/s of the reference GPU, turning a node's `size` (FLOP, as DAGGEN and dslab-dag
    /// write it) into reference GPU-seconds: `work = size / flops_per_second`. Not used for
    /// nodes with a `work` attribute. Default [`V100_FP32_FLOPS`] (15.7e12).
    pub flops_per_second: f64,
}

impl Default for DotOptions {
    fn default() -> Self {
        Self {
            flops_per_second: V100_FP32_FLOPS,
        }
    }
}

/// Loads `path` (see the module docs).
///
/// Errors: [`DagError::Io`] naming the file; the errors of [`read`].
pub fn load(path: impl AsRef<Path>, options: &DotOptions) -> Result<(Workload, LoadReport)> {
    let path = path.as_ref();
    read(open(path)?, &path.display().to_string(), options)
}

/// Loads a DOT digraph from any reader; `source` names it in errors and reports, and its file
/// stem names the workload when the graph has no ID, and the job of nodes outside clusters.
///
/// Errors: [`DagError::InvalidParameter`] for a `flops_per_second` that is not finite and
/// `> 0`; [`DagError::Parse`] naming `source` and the line for invalid UTF-8, a syntax error
/// (unexpected or missing token, unterminated string or comment), an undirected graph or
/// `--`, a subgraph as an edge end, a second graph, an attribute without a value, a node
/// declared twice or without `size`/`work`, a `size`, `work`, `mem_gib` or `bytes` that is not
/// a finite number `>= 0` (`> 0` for `mem_gib`) or overflows once scaled, a bad gang value
/// (`gpus`, `span`, `efficiency`, `sync_bytes`, `sync_steps`: naming the node and the task
/// `job/task` in the message of [`DagError::InvalidGang`]), an edge naming an
/// undeclared node, a self-loop, a repeated edge, two tasks of one job with one name, and a
/// cycle (at the line of one of its edges); [`DagError::Empty`] for a graph without nodes.
pub fn read(
    reader: impl Read,
    source: &str,
    options: &DotOptions,
) -> Result<(Workload, LoadReport)> {
    let f = options.flops_per_second;
    if !(f.is_finite() && f > 0.0) {
        return Err(DagError::InvalidParameter {
            name: "flops_per_second",
            reason: format!("{} is not finite and > 0", num(f)),
        });
    }
    let text = read_text(reader, source)?;
    let err = |line: usize, message: String| DagError::Parse {
        file: source.to_owned(),
        line,
        message,
    };
    // The text and the lexer are dropped before the workload is built.
    let graph = {
        let mut p = Parser::new(&text);
        drop(text);
        p.parse_file().map_err(|(line, m)| err(line, m))?;
        p.graph
    };
    build(graph, source, options)
}

/// Turns the parsed graph into a workload (see the module docs).
fn build(g: Graph, source: &str, options: &DotOptions) -> Result<(Workload, LoadReport)> {
    let err = |line: usize, message: String| DagError::Parse {
        file: source.to_owned(),
        line,
        message,
    };
    let stem = source_name(source);
    let mut report = LoadReport::new(source, FORMAT);
    report.records = g.nodes.len();
    let mut b = WorkloadBuilder::new(g.name.clone().unwrap_or_else(|| stem.clone()));
    // Jobs, in order of first appearance; keys resolving to one name share the job.
    let mut job_of_key: HashMap<JobKey, JobId> = HashMap::new();
    for key in &g.job_order {
        let name = match *key {
            JobKey::Outside => stem.clone(),
            JobKey::Cluster(c) => {
                let cl = &g.clusters[c];
                if !cl.has_nodes && cl.has_subclusters {
                    continue;
                }
                cl.label.clone().unwrap_or_else(|| cl.id.clone())
            }
        };
        let id = match b.job_id(&name) {
            Some(id) => id,
            None => b.add_job(name).map_err(in_file(source))?,
        };
        job_of_key.insert(*key, id);
    }
    // Node IDs by node index (= task index: tasks are added in node order).
    let mut ids: Vec<&str> = vec![""; g.nodes.len()];
    for (id, &(i, _)) in &g.node_index {
        ids[i] = id;
    }
    // (job, name) of each task, to find the tasks a cycle error names (rendering `job/name`
    // per node would copy a job's name once per node).
    let mut named: Vec<(JobId, &str)> = Vec::with_capacity(g.nodes.len());
    // Task names per job, to refuse a repeated one (the builder's own index would copy every
    // name once more).
    let mut taken: HashSet<(JobId, &str)> = HashSet::with_capacity(g.nodes.len());
    for (node, &node_id) in g.nodes.iter().zip(&ids) {
        let a = |k: &str| node.attrs.get(&NODE_KEYS, k);
        let what = |attr: &str| format!("node `{node_id}`: {attr}");
        let work = match (a("work"), a("size")) {
            (Some(v), _) => number(v).ok_or_else(|| {
                err(
                    node.line,
                    format!(
                        "{} `{v}` is not a finite number >= 0 (reference GPU-seconds)",
                        what("work")
                    ),
                )
            })?,
            (None, Some(v)) => {
                let flops = number(v).ok_or_else(|| {
                    err(
                        node.line,
                        format!("{} `{v}` is not a finite number >= 0 (FLOP)", what("size")),
                    )
                })?;
                flops / options.flops_per_second
            }
            (None, None) => {
                return Err(err(
                    node.line,
                    format!(
                        "node `{}` has neither `size` (FLOP) nor `work` (reference \
                         GPU-seconds)",
                        node_id
                    ),
                ));
            }
        };
        let mem = match a("mem_gib") {
            None | Some("") => None,
            Some(v) => Some(number(v).filter(|&m| m > 0.0).ok_or_else(|| {
                err(
                    node.line,
                    format!("{} `{v}` is not a finite number > 0 (GiB)", what("mem_gib")),
                )
            })?),
        };
        let name = a("task").or(a("label")).unwrap_or(node_id);
        let key = node.cluster.map_or(JobKey::Outside, JobKey::Cluster);
        let job = job_of_key[&key];
        if !taken.insert((job, name)) {
            let e = DagError::DuplicateTask {
                job: b.jobs()[job.index()].name.clone(),
                task: name.to_owned(),
            };
            return Err(err(node.line, e.to_string()));
        }
        let t = b
            .add_task_unique(job, name, work, mem)
            .map_err(|e| err(node.line, e.to_string()))?;
        if ["gpus", "span", "efficiency", "sync_bytes", "sync_steps"]
            .iter()
            .any(|k| a(k).is_some())
        {
            let (gpus, params) = node_gang(&a).map_err(|reason| {
                let task = format!("{}/{name}", b.jobs()[job.index()].name);
                let e = gang::error(source, node.line, task, reason);
                match e {
                    DagError::Parse {
                        file,
                        line,
                        message,
                    } => DagError::Parse {
                        file,
                        line,
                        message: format!("node `{node_id}`: {message}"),
                    },
                    e => e,
                }
            })?;
            b.set_gang(t, gpus, params)
                .map_err(|e| err(node.line, e.to_string()))?;
        }
        debug_assert_eq!(t.index(), named.len(), "task ids follow node order");
        named.push((job, name));
    }
    let mut seen: HashMap<(TaskId, TaskId), usize> = HashMap::with_capacity(g.edges.len());
    for e in &g.edges {
        let end =
            |id: &str| {
                g.node_index.get(id).map(|&(i, _)| TaskId::new(i)).ok_or_else(|| {
                err(
                    e.line,
                    format!(
                        "edge `{}` -> `{}`: node `{id}` is not declared (every node needs a \
                         node statement with its `size` or `work`)",
                        e.from, e.to
                    ),
                )
            })
            };
        let (u, v) = (end(&e.from)?, end(&e.to)?);
        let a = |k: &str| e.attrs.get(&EDGE_KEYS, k);
        let bytes = match a("bytes")
            .map(|v| ("bytes", v))
            .or(a("size").map(|v| ("size", v)))
        {
            Some((k, v)) => number(v).ok_or_else(|| {
                err(
                    e.line,
                    format!(
                        "edge `{}` -> `{}`: {k} `{v}` is not a finite number >= 0 (bytes)",
                        e.from, e.to
                    ),
                )
            })?,
            None => {
                report.add(Reason::EdgeWithoutData, format!("{} -> {}", e.from, e.to));
                0.0
            }
        };
        if let Some(first) = seen.insert((u, v), e.line) {
            return Err(err(
                e.line,
                format!(
                    "edge `{}` -> `{}` repeated (first on line {first})",
                    e.from, e.to
                ),
            ));
        }
        b.add_edge(u, v, bytes)
            .map_err(|x| err(e.line, x.to_string()))?;
    }
    let job_names: Vec<String> = b.jobs().iter().map(|j| j.name.clone()).collect();
    let w = b.build().map_err(|e| match e {
        DagError::Cycle { ref tasks } if tasks.len() >= 2 => {
            // The task labelled `l` (`job/name`): names are unique in a job, so the name
            // suffix matches at most one task per job, and the job prefix is compared only
            // for those.
            let idx = |l: &String| {
                named.iter().position(|&(j, name)| {
                    let job = &job_names[j.index()];
                    l.len() == job.len() + 1 + name.len()
                        && l.ends_with(name)
                        && l.starts_with(job.as_str())
                        && l.as_bytes()[job.len()] == b'/'
                })
            };
            let line = match (idx(&tasks[0]), idx(&tasks[1])) {
                (Some(u), Some(v)) => seen
                    .get(&(TaskId::new(u), TaskId::new(v)))
                    .copied()
                    .unwrap_or(0),
                _ => 0,
            };
            err(line, e.to_string())
        }
        e => in_file(source)(e),
    })?;
    Ok((w, report))
}

/// The gang demand of a node from its attributes (`a` gives a value by name): `gpus` 1 and
/// default parameters where absent.
///
/// Errors: why a value is refused, naming the attribute and the value.
fn node_gang<'a>(
    a: &impl Fn(&str) -> Option<&'a str>,
) -> std::result::Result<(u32, GangParams), String> {
    let gpus = match a("gpus") {
        Some(v) => gang::gpus_from_text("gpus", v)?,
        None => 1,
    };
    let mut p = GangParams::default();
    if let Some(v) = a("span") {
        p.span = gang::span_from_text("span", v)?;
    }
    for (key, field) in [
        ("efficiency", gang::Field::Efficiency),
        ("sync_bytes", gang::Field::SyncBytes),
        ("sync_steps", gang::Field::SyncSteps),
    ] {
        if let Some(v) = a(key) {
            gang::set_text(&mut p, field, key, v)?;
        }
    }
    Ok((gpus, p))
}

/// A size, work, memory or byte count: a finite number `>= 0`.
fn number(s: &str) -> Option<f64> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

// --- Lexer ---------------------------------------------------------------------------------

/// A DOT token.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// An ID: unquoted word or numeral (`false`), quoted or HTML string (`true`).
    Id(String, bool),
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Eq,
    Colon,
    Plus,
    /// `->`
    Arrow,
    /// `--`
    Undirected,
}

/// A lexing or parsing failure: (1-based line, message).
type Fail = (usize, String);

/// Splits DOT text into (token, line) pairs on demand, dropping comments and joining
/// `"a" + "b"`: the parser pulls one token at a time, so no token vector is held (10 MB of
/// `{}` would be 10 million tokens).
struct Lexer {
    c: Vec<char>,
    /// Position in `c`.
    i: usize,
    /// Line at `i`.
    line: usize,
    /// A token read ahead while joining quoted strings.
    pending: Option<(Tok, usize)>,
}

impl Lexer {
    fn new(text: &str) -> Self {
        Self {
            c: text.chars().collect(),
            i: 0,
            line: 1,
            pending: None,
        }
    }

    /// The next token, `"a" + "b"` joined; `None` at the end of the text.
    fn next(&mut self) -> std::result::Result<Option<(Tok, usize)>, Fail> {
        let t = match self.pending.take() {
            Some(t) => Some(t),
            None => self.raw()?,
        };
        match t {
            Some((Tok::Plus, l)) => Err((l, "`+` must join two quoted strings".into())),
            Some((Tok::Id(mut s, true), l)) => {
                loop {
                    match self.raw()? {
                        Some((Tok::Plus, pl)) => match self.raw()? {
                            Some((Tok::Id(more, true), _)) => s.push_str(&more),
                            _ => return Err((pl, "`+` must join two quoted strings".into())),
                        },
                        other => {
                            self.pending = other;
                            break;
                        }
                    }
                }
                Ok(Some((Tok::Id(s, true), l)))
            }
            other => Ok(other),
        }
    }

    /// The next token as written (no joining).
    fn raw(&mut self) -> std::result::Result<Option<(Tok, usize)>, Fail> {
        let c = &self.c;
        let mut i = self.i;
        let mut line = self.line;
        let word = |ch: char| ch.is_alphanumeric() || ch == '_' || ch == '.' || !ch.is_ascii();
        while i < c.len() {
            let ch = c[i];
            let next = c.get(i + 1).copied();
            match ch {
                '\n' => {
                    line += 1;
                    i += 1;
                }
                _ if ch.is_whitespace() => i += 1,
                '#' => {
                    while i < c.len() && c[i] != '\n' {
                        i += 1;
                    }
                }
                '/' if next == Some('/') => {
                    while i < c.len() && c[i] != '\n' {
                        i += 1;
                    }
                }
                '/' if next == Some('*') => {
                    let start = line;
                    i += 2;
                    loop {
                        match c.get(i) {
                            None => return Err((start, "unterminated `/*` comment".into())),
                            Some('*') if c.get(i + 1) == Some(&'/') => {
                                i += 2;
                                break;
                            }
                            Some('\n') => line += 1,
                            _ => {}
                        }
                        i += 1;
                    }
                }
                '"' => {
                    let start = line;
                    let mut s = String::new();
                    i += 1;
                    loop {
                        match c.get(i) {
                            None => return Err((start, "unterminated quoted string".into())),
                            Some('"') => {
                                i += 1;
                                break;
                            }
                            Some('\\') => match c.get(i + 1) {
                                Some('"') => {
                                    s.push('"');
                                    i += 2;
                                }
                                Some('\\') => {
                                    s.push('\\');
                                    i += 2;
                                }
                                Some('n') => {
                                    s.push('\n');
                                    i += 2;
                                }
                                Some('\n') => {
                                    line += 1;
                                    i += 2;
                                }
                                Some('\r') if c.get(i + 2) == Some(&'\n') => {
                                    line += 1;
                                    i += 3;
                                }
                                _ => {
                                    s.push('\\');
                                    i += 1;
                                }
                            },
                            Some(&ch) => {
                                if ch == '\n' {
                                    line += 1;
                                }
                                s.push(ch);
                                i += 1;
                            }
                        }
                    }
                    self.i = i;
                    self.line = line;
                    return Ok(Some((Tok::Id(s, true), start)));
                }
                '<' => {
                    let start = line;
                    let mut depth = 0usize;
                    let mut s = String::new();
                    loop {
                        match c.get(i) {
                            None => return Err((start, "unterminated HTML string `<...>`".into())),
                            Some(&ch) => {
                                if ch == '\n' {
                                    line += 1;
                                }
                                i += 1;
                                match ch {
                                    '<' => depth += 1,
                                    '>' => depth -= 1,
                                    _ => {}
                                }
                                if depth == 0 {
                                    break;
                                }
                                if !(ch == '<' && depth == 1 && s.is_empty()) {
                                    s.push(ch);
                                }
                            }
                        }
                    }
                    self.i = i;
                    self.line = line;
                    return Ok(Some((Tok::Id(s, true), start)));
                }
                '-' if next == Some('>') => {
                    i += 2;
                    self.i = i;
                    self.line = line;
                    return Ok(Some((Tok::Arrow, line)));
                }
                '-' if next == Some('-') => {
                    i += 2;
                    self.i = i;
                    self.line = line;
                    return Ok(Some((Tok::Undirected, line)));
                }
                _ if word(ch)
                    || (ch == '-' && next.is_some_and(|n| n.is_ascii_digit() || n == '.')) =>
                {
                    let start = i;
                    i += 1;
                    while i < c.len() && word(c[i]) {
                        i += 1;
                    }
                    self.i = i;
                    self.line = line;
                    return Ok(Some((Tok::Id(c[start..i].iter().collect(), false), line)));
                }
                _ => {
                    let t = match ch {
                        '{' => Tok::LBrace,
                        '}' => Tok::RBrace,
                        '[' => Tok::LBracket,
                        ']' => Tok::RBracket,
                        ';' => Tok::Semi,
                        ',' => Tok::Comma,
                        '=' => Tok::Eq,
                        ':' => Tok::Colon,
                        '+' => Tok::Plus,
                        _ => return Err((line, format!("unexpected character `{ch}`"))),
                    };
                    i += 1;
                    self.i = i;
                    self.line = line;
                    return Ok(Some((t, line)));
                }
            }
        }
        self.i = i;
        self.line = line;
        Ok(None)
    }
}

// --- Parser --------------------------------------------------------------------------------

/// Which job a node statement falls in, before names are resolved.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum JobKey {
    /// Outside every cluster.
    Outside,
    /// Index into [`Graph::clusters`].
    Cluster(usize),
}

/// A `subgraph cluster...` block (all blocks with its ID together).
#[derive(Default)]
struct Cluster {
    id: String,
    label: Option<String>,
    has_nodes: bool,
    has_subclusters: bool,
}

/// The node attributes the reader uses; others are ignored.
const NODE_KEYS: [&str; 10] = [
    "work",
    "size",
    "mem_gib",
    "task",
    "label",
    "gpus",
    "span",
    "efficiency",
    "sync_bytes",
    "sync_steps",
];
/// The edge attributes the reader uses; others are ignored.
const EDGE_KEYS: [&str; 2] = ["bytes", "size"];

/// The values of the attributes `KEYS` (in their order), shared: a default given once is
/// not copied into every node or edge statement it applies to, so memory and time stay
/// linear in the input however long a value or how many statements.
#[derive(Clone)]
struct Known<const K: usize>([Option<Rc<str>>; K]);

impl<const K: usize> Default for Known<K> {
    fn default() -> Self {
        Self(std::array::from_fn(|_| None))
    }
}

impl<const K: usize> Known<K> {
    /// Sets the known keys of `attrs` (in order: a later value wins).
    fn merge(&mut self, keys: &[&str; K], attrs: &[(String, String)]) {
        for (k, v) in attrs {
            if let Some(i) = keys.iter().position(|x| x == k) {
                self.0[i] = Some(Rc::from(v.as_str()));
            }
        }
    }

    /// The value of `key` (one of `keys`), if given.
    fn get(&self, keys: &[&str; K], key: &str) -> Option<&str> {
        let i = keys.iter().position(|x| *x == key)?;
        self.0[i].as_deref()
    }
}

/// A node statement with its attributes (defaults in scope merged in, shared with the scope
/// when the statement sets none); its ID is the key of [`Graph::node_index`].
struct NodeDecl {
    line: usize,
    attrs: Rc<Known<10>>,
    cluster: Option<usize>,
}

/// One edge of an edge statement.
struct EdgeDecl {
    from: String,
    to: String,
    line: usize,
    attrs: Known<2>,
}

/// What the parser collects.
#[derive(Default)]
struct Graph {
    name: Option<String>,
    nodes: Vec<NodeDecl>,
    /// Node ID -> (index in `nodes`, line).
    node_index: HashMap<String, (usize, usize)>,
    edges: Vec<EdgeDecl>,
    clusters: Vec<Cluster>,
    cluster_index: HashMap<String, usize>,
    job_order: Vec<JobKey>,
    job_seen: HashSet<JobKey>,
}

impl Graph {
    /// Records `key` in the job order on its first appearance.
    fn job_appears(&mut self, key: JobKey) {
        if self.job_seen.insert(key) {
            self.job_order.push(key);
        }
    }
}

/// How deep subgraphs may nest (deeper input is an error, not a stack overflow).
const MAX_DEPTH: usize = 100;

/// Attribute defaults and the cluster of one block.
#[derive(Clone, Default)]
struct Scope {
    node: Rc<Known<10>>,
    edge: Known<2>,
    cluster: Option<usize>,
    /// Whether this block is the cluster's own block (its `label` names the job).
    cluster_root: bool,
    /// Nesting depth (0 for the graph's block).
    depth: usize,
}

/// Recursive-descent parser pulling tokens from a [`Lexer`].
struct Parser {
    lexer: Lexer,
    /// The current token; `None` at the end of the text, or after a lexing failure (then
    /// held in `lex_err`).
    cur: Option<(Tok, usize)>,
    /// Line of the last token passed (1 before any).
    last_line: usize,
    /// The first lexing failure: reported in place of the parse failure it causes.
    lex_err: Option<Fail>,
    graph: Graph,
}

impl Parser {
    fn new(text: &str) -> Self {
        let mut p = Self {
            lexer: Lexer::new(text),
            cur: None,
            last_line: 1,
            lex_err: None,
            graph: Graph::default(),
        };
        p.advance();
        p
    }

    /// Moves to the next token.
    fn advance(&mut self) {
        if let Some((_, l)) = &self.cur {
            self.last_line = *l;
        }
        self.cur = None;
        if self.lex_err.is_none() {
            match self.lexer.next() {
                Ok(t) => self.cur = t,
                Err(f) => self.lex_err = Some(f),
            }
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.cur.as_ref().map(|t| &t.0)
    }

    /// Line of the current token (of the last one at the end).
    fn line(&self) -> usize {
        self.cur.as_ref().map_or(self.last_line, |t| t.1)
    }

    fn fail<T>(&self, message: String) -> std::result::Result<T, Fail> {
        match &self.lex_err {
            Some(e) => Err(e.clone()),
            None => Err((self.line(), message)),
        }
    }

    /// Describes the current token for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(Tok::Id(s, q)) => {
                if *q {
                    format!("\"{s}\"")
                } else {
                    format!("`{s}`")
                }
            }
            Some(t) => format!(
                "`{}`",
                match t {
                    Tok::LBrace => "{",
                    Tok::RBrace => "}",
                    Tok::LBracket => "[",
                    Tok::RBracket => "]",
                    Tok::Semi => ";",
                    Tok::Comma => ",",
                    Tok::Eq => "=",
                    Tok::Colon => ":",
                    Tok::Plus => "+",
                    Tok::Arrow => "->",
                    Tok::Undirected => "--",
                    Tok::Id(..) => unreachable!(),
                }
            ),
        }
    }

    fn expect(&mut self, t: Tok, what: &str) -> std::result::Result<(), Fail> {
        if self.peek() == Some(&t) {
            self.advance();
            Ok(())
        } else {
            self.fail(format!("expected {what}, found {}", self.found()))
        }
    }

    /// The current token if it is the unquoted keyword `kw` (any case).
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(s, false)) if s.eq_ignore_ascii_case(kw))
    }

    fn id(&mut self, what: &str) -> std::result::Result<String, Fail> {
        match self.cur.take() {
            Some((Tok::Id(s, _), l)) => {
                self.last_line = l;
                self.advance();
                Ok(s)
            }
            other => {
                self.cur = other;
                self.fail(format!("expected {what}, found {}", self.found()))
            }
        }
    }

    /// `[strict] digraph [ID] { stmts }`, and nothing after it.
    fn parse_file(&mut self) -> std::result::Result<(), Fail> {
        if self.peek().is_none() {
            return self.fail("empty file: no digraph".into());
        }
        if self.is_kw("strict") {
            self.advance();
        }
        if self.is_kw("graph") {
            return self.fail(
                "undirected `graph`: a workload is read from a `digraph` (edges `a -> b`)".into(),
            );
        }
        if !self.is_kw("digraph") {
            return self.fail(format!("expected `digraph`, found {}", self.found()));
        }
        self.advance();
        if let Some(Tok::Id(..)) = self.peek() {
            self.graph.name = Some(self.id("graph ID")?);
        }
        self.expect(Tok::LBrace, "`{` opening the graph")?;
        self.block(&mut Scope::default())?;
        if self.peek().is_some() {
            return self.fail(format!(
                "expected the end of the file after the graph, found {} (one graph per file)",
                self.found()
            ));
        }
        match self.lex_err.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Statements up to and including the closing `}`.
    fn block(&mut self, scope: &mut Scope) -> std::result::Result<(), Fail> {
        loop {
            match self.peek() {
                None => return self.fail("missing `}`: the file ends inside a block".into()),
                Some(Tok::RBrace) => {
                    self.advance();
                    return Ok(());
                }
                Some(Tok::Semi) => self.advance(),
                _ => self.stmt(scope)?,
            }
        }
    }

    /// One statement.
    fn stmt(&mut self, scope: &mut Scope) -> std::result::Result<(), Fail> {
        if self.is_kw("subgraph") || self.peek() == Some(&Tok::LBrace) {
            self.subgraph(scope)?;
            if matches!(self.peek(), Some(Tok::Arrow | Tok::Undirected)) {
                return self.fail("a subgraph as an edge end is not supported".into());
            }
            return Ok(());
        }
        for (kw, which) in [("graph", 0), ("node", 1), ("edge", 2)] {
            if self.is_kw(kw) {
                self.advance();
                let attrs = self.attr_lists()?;
                match which {
                    0 => {
                        if let Some((_, l)) = attrs.iter().rev().find(|(k, _)| k == "label") {
                            self.set_label(scope, l.clone());
                        }
                    }
                    1 => Rc::make_mut(&mut scope.node).merge(&NODE_KEYS, &attrs),
                    _ => scope.edge.merge(&EDGE_KEYS, &attrs),
                }
                return Ok(());
            }
        }
        let line = self.line();
        let first = self.id("a node ID, `node`, `edge`, `graph` or `subgraph`")?;
        match self.peek() {
            Some(Tok::Eq) => {
                self.advance();
                let value = self.id("a value after `=`")?;
                if first == "label" {
                    self.set_label(scope, value);
                }
                Ok(())
            }
            Some(Tok::Arrow | Tok::Undirected) => self.edges(scope, first, line),
            _ => {
                self.port()?;
                if matches!(self.peek(), Some(Tok::Arrow | Tok::Undirected)) {
                    return self.edges(scope, first, line);
                }
                let own = if self.peek() == Some(&Tok::LBracket) {
                    self.attr_lists()?
                } else {
                    Vec::new()
                };
                self.node(scope, first, line, own)
            }
        }
    }

    /// Sets the job name of the cluster whose own block this is.
    fn set_label(&mut self, scope: &Scope, label: String) {
        if let (true, Some(c)) = (scope.cluster_root, scope.cluster) {
            self.graph.clusters[c].label = Some(label);
        }
    }

    /// Skips an optional `:port[:compass]` after a node ID.
    fn port(&mut self) -> std::result::Result<(), Fail> {
        for _ in 0..2 {
            if self.peek() == Some(&Tok::Colon) {
                self.advance();
                self.id("a port after `:`")?;
            }
        }
        Ok(())
    }

    /// A node statement.
    fn node(
        &mut self,
        scope: &Scope,
        id: String,
        line: usize,
        own: Vec<(String, String)>,
    ) -> std::result::Result<(), Fail> {
        if let Some((_, first)) = self.graph.node_index.get(&id) {
            return Err((
                line,
                format!("node `{id}` declared twice (first on line {first})"),
            ));
        }
        let attrs = if own.is_empty() {
            scope.node.clone()
        } else {
            let mut attrs = (*scope.node).clone();
            attrs.merge(&NODE_KEYS, &own);
            Rc::new(attrs)
        };
        self.graph
            .job_appears(scope.cluster.map_or(JobKey::Outside, JobKey::Cluster));
        if let Some(c) = scope.cluster {
            self.graph.clusters[c].has_nodes = true;
        }
        self.graph
            .node_index
            .insert(id, (self.graph.nodes.len(), line));
        self.graph.nodes.push(NodeDecl {
            line,
            attrs,
            cluster: scope.cluster,
        });
        Ok(())
    }

    /// The rest of an edge statement after its first node ID.
    fn edges(
        &mut self,
        scope: &Scope,
        first: String,
        line: usize,
    ) -> std::result::Result<(), Fail> {
        let mut ends = vec![first];
        while let Some(t) = self.peek() {
            match t {
                Tok::Arrow => self.advance(),
                Tok::Undirected => {
                    return self.fail("undirected edge `--` in a digraph: use `->`".into());
                }
                _ => break,
            }
            if self.is_kw("subgraph") || self.peek() == Some(&Tok::LBrace) {
                return self.fail("a subgraph as an edge end is not supported".into());
            }
            ends.push(self.id("a node ID after `->`")?);
            self.port()?;
        }
        let mut attrs = scope.edge.clone();
        if self.peek() == Some(&Tok::LBracket) {
            attrs.merge(&EDGE_KEYS, &self.attr_lists()?);
        }
        for pair in ends.windows(2) {
            self.graph.edges.push(EdgeDecl {
                from: pair[0].clone(),
                to: pair[1].clone(),
                line,
                attrs: attrs.clone(),
            });
        }
        Ok(())
    }

    /// `subgraph [ID] { ... }` or `{ ... }`.
    fn subgraph(&mut self, scope: &mut Scope) -> std::result::Result<(), Fail> {
        let mut id = None;
        if self.is_kw("subgraph") {
            self.advance();
            if let Some(Tok::Id(..)) = self.peek() {
                id = Some(self.id("subgraph ID")?);
            }
        }
        self.expect(Tok::LBrace, "`{` opening the subgraph")?;
        if scope.depth >= MAX_DEPTH {
            return self.fail(format!("subgraphs nested more than {MAX_DEPTH} deep"));
        }
        let mut inner = scope.clone();
        inner.cluster_root = false;
        inner.depth += 1;
        if let Some(id) = id.filter(|s| s.starts_with("cluster")) {
            let c = match self.graph.cluster_index.get(&id) {
                Some(&c) => c,
                None => {
                    let c = self.graph.clusters.len();
                    self.graph.clusters.push(Cluster {
                        id: id.clone(),
                        ..Cluster::default()
                    });
                    self.graph.cluster_index.insert(id, c);
                    c
                }
            };
            if let Some(parent) = scope.cluster {
                self.graph.clusters[parent].has_subclusters = true;
            }
            self.graph.job_appears(JobKey::Cluster(c));
            inner.cluster = Some(c);
            inner.cluster_root = true;
        }
        self.block(&mut inner)
    }

    /// One or more `[a=b, c=d; ...]` lists, as (name, value) in order (a later value of a
    /// name wins).
    fn attr_lists(&mut self) -> std::result::Result<Vec<(String, String)>, Fail> {
        let mut attrs = Vec::new();
        if self.peek() != Some(&Tok::LBracket) {
            return self.fail(format!(
                "expected `[` opening attributes, found {}",
                self.found()
            ));
        }
        while self.peek() == Some(&Tok::LBracket) {
            self.advance();
            loop {
                match self.peek() {
                    Some(Tok::RBracket) => {
                        self.advance();
                        break;
                    }
                    Some(Tok::Comma | Tok::Semi) => self.advance(),
                    _ => {
                        let key = self.id("an attribute name or `]`")?;
                        if self.peek() != Some(&Tok::Eq) {
                            return self.fail(format!(
                                "attribute `{key}` has no value (expected `=`, found {})",
                                self.found()
                            ));
                        }
                        self.advance();
                        let value = self.id(&format!("a value for attribute `{key}`"))?;
                        attrs.push((key, value));
                    }
                }
            }
        }
        Ok(attrs)
    }
}
