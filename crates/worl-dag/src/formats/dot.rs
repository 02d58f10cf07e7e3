//! Graphviz DOT export: one cluster per job, nodes labelled with the task name and work,
//! edges with their bytes. Render with `dot -Tsvg workload.dot -o workload.svg`.

use crate::error::{DagError, Result};
use crate::workload::Workload;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// Escapes `s` for a double-quoted DOT string.
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

/// The workload as a DOT digraph. Node `t<i>` is [`TaskId`](crate::TaskId) `i`, labelled
/// `name\nwork s`; an edge is labelled with its bytes (3 significant digits, e.g. `2.05e3 B`)
/// when non-zero.
///
/// ```
/// use worl_dag::{formats::dot, generators::shapes};
/// let text = dot::to_dot(&shapes::chain(2, 1.0, 2048.0)?);
/// assert!(text.contains("t0 -> t1 [label=\"2.05e3 B\"]"));
/// # Ok::<(), worl_dag::DagError>(())
/// ```
pub fn to_dot(w: &Workload) -> String {
    let g = w.graph();
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(w.name()));
    let _ = writeln!(out, "  rankdir=TB;\n  node [shape=box, fontsize=10];");
    for (j, job) in w.jobs().iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_{j} {{\n    label={};",
            quote(&job.name)
        );
        for &t in &job.tasks {
            let task = g.task(t);
            let label = format!("{}\n{:.3} s", task.name, task.work);
            let _ = writeln!(out, "    t{} [label={}];", t.index(), quote(&label));
        }
        let _ = writeln!(out, "  }}");
    }
    for e in g.edges() {
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
