//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong building, loading or generating a workload.
///
/// Every variant names the offending item (a task as `job/task`, a file and line, a
/// parameter), so that a user can find it in their input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DagError {
    /// The workload has no task.
    #[error("workload `{workload}` has no task")]
    Empty {
        /// Name of the workload.
        workload: String,
    },
    /// A task's work is negative, NaN or infinite.
    #[error("task `{task}`: work {} is not a finite number >= 0 (reference GPU-seconds)", num(*value))]
    InvalidWork {
        /// The task, as `job/task`.
        task: String,
        /// The rejected value.
        value: f64,
    },
    /// A job's release time is negative, NaN or infinite.
    #[error("job `{job}`: release time {} is not a finite number >= 0 (seconds)", num(*value))]
    InvalidRelease {
        /// The job's name.
        job: String,
        /// The rejected value.
        value: f64,
    },
    /// A task's gang demand is invalid: `gpus` 0 or above
    /// [`MAX_GANG_GPUS`](crate::task::MAX_GANG_GPUS), an efficiency outside `(0, 1]`, or
    /// negative or non-finite synchronisation bytes or steps.
    #[error("task `{task}`: invalid gang: {reason}")]
    InvalidGang {
        /// The task, as `job/task`.
        task: String,
        /// Why it was rejected (names the field and value).
        reason: String,
    },
    /// A task's memory need is not a finite number > 0.
    #[error("task `{task}`: memory need {} GiB is not a finite number > 0", num(*value))]
    InvalidMemory {
        /// The task, as `job/task`.
        task: String,
        /// The rejected value.
        value: f64,
    },
    /// An edge's data size is negative, NaN or infinite.
    #[error("edge `{from}` -> `{to}`: {} bytes is not a finite number >= 0", num(*value))]
    InvalidBytes {
        /// Parent, as `job/task`.
        from: String,
        /// Child, as `job/task`.
        to: String,
        /// The rejected value.
        value: f64,
    },
    /// A task, job or workload name holds a control character (Unicode category Cc: C0
    /// U+0000-U+001F, DEL U+007F, C1 U+0080-U+009F, e.g. NUL, a tab, a line break or NEL).
    /// Every loader and generator builds its workload through
    /// [`WorkloadBuilder`](crate::WorkloadBuilder), which refuses such names, so no workload
    /// holds one (names reach file names, scripts and manifests downstream).
    #[error(
        "{kind} `{}`: the name holds the control character U+{:04X} at byte {offset}; names \
         may not hold control characters (U+0000-U+001F, U+007F-U+009F)",
        crate::formats::report::short(&name.escape_debug().to_string()),
        u32::from(*character)
    )]
    InvalidName {
        /// What is named: `"task"`, `"job"` or `"workload"`.
        kind: &'static str,
        /// The name (a task as `job/task`).
        name: String,
        /// The first control character.
        character: char,
        /// Its byte offset in `name`.
        offset: usize,
    },
    /// Two tasks of one job share a name.
    #[error("job `{job}` has two tasks named `{task}`")]
    DuplicateTask {
        /// The job.
        job: String,
        /// The duplicated task name.
        task: String,
    },
    /// Two jobs of one workload share a name.
    #[error("workload has two jobs named `{job}`")]
    DuplicateJob {
        /// The duplicated job name.
        job: String,
    },
    /// The same edge was added twice.
    #[error("edge `{from}` -> `{to}` was given twice")]
    DuplicateEdge {
        /// Parent, as `job/task`.
        from: String,
        /// Child, as `job/task`.
        to: String,
    },
    /// An edge from a task to itself.
    #[error("task `{task}` depends on itself")]
    SelfLoop {
        /// The task, as `job/task`.
        task: String,
    },
    /// The dependencies contain a cycle; `tasks` lists one cycle in order.
    #[error("dependency cycle: {}", .tasks.join(" -> "))]
    Cycle {
        /// The tasks of one cycle, as `job/task`, in edge order (the first is repeated last).
        tasks: Vec<String>,
    },
    /// A task or job id that does not exist in the builder or graph.
    #[error("unknown {kind} id {index} (only {len} exist)")]
    UnknownId {
        /// `"task"` or `"job"`.
        kind: &'static str,
        /// The rejected dense index.
        index: usize,
        /// How many ids exist.
        len: usize,
    },
    /// A parameter of a generator, loader or query is out of range.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Why it was rejected.
        reason: String,
    },
    /// Reading a file failed.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file is malformed at a given line (1-based; 0 when the error has no line, which is
    /// then not shown: the message reads `file: message`). Quoted values of the message
    /// longer than [`SHOWN_VALUE_CHARS`] characters are shown clipped ([`clip_quoted`]).
    #[error("{}", at(file, *line, message))]
    Parse {
        /// The file (or `<memory>` for in-memory input).
        file: String,
        /// 1-based line, 0 when the error concerns no line (e.g. a file's extension).
        line: usize,
        /// What is wrong, naming the offending item.
        message: String,
    },
    /// A task references another task that does not exist (a parent, child or edge end).
    #[error("{file}: `{referenced_by}` refers to unknown task `{task}`")]
    UnknownTask {
        /// The file (or `<memory>`).
        file: String,
        /// The missing task as written in the input.
        task: String,
        /// The task or element holding the reference.
        referenced_by: String,
    },
    /// A dependency is declared on one end only (e.g. a WfCommons task lists a child that
    /// does not list it as a parent).
    #[error(
        "{file}: `{parent}` -> `{child}` is declared by `{declared_by}` only; the other task does not list it"
    )]
    InconsistentDependency {
        /// The file (or `<memory>`).
        file: String,
        /// Parent task.
        parent: String,
        /// Child task.
        child: String,
        /// The task whose list holds the dependency.
        declared_by: String,
    },
    /// The shared data directory is absent while `CI=true` (tests must not skip in CI).
    #[error("shared data directory `{path}` is absent and CI=true: {reason}")]
    DataMissing {
        /// The directory looked for.
        path: PathBuf,
        /// How it was located (from `WORL_DATA_DIR` or the default).
        reason: String,
    },
}

/// `file:line: message`, or `file: message` without a line (`line == 0`).
fn at(file: &str, line: usize, message: &str) -> String {
    let message = clip_quoted(message);
    if line == 0 {
        format!("{file}: {message}")
    } else {
        format!("{file}:{line}: {message}")
    }
}

/// A number for error messages: as Rust prints it when short, in scientific notation when it
/// would print more than about 16 digits (`1e308`, not 309 digits; `1e-320`). Shared by the
/// error messages of the workspace's crates.
///
/// ```
/// use worl_dag::error::num;
/// assert_eq!(num(1e308), "1e308");
/// assert_eq!(num(2.5), "2.5");
/// ```
pub fn num(v: f64) -> String {
    let a = v.abs();
    if v.is_finite() && a != 0.0 && !(1e-6..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// Longest value, in characters, an error message quotes whole ([`clip`]).
pub const SHOWN_VALUE_CHARS: usize = 80;

/// A value as an error message quotes it: whole up to [`SHOWN_VALUE_CHARS`] characters,
/// else its first [`SHOWN_VALUE_CHARS`] characters, `…` and its length in bytes, so that a
/// message stays short however long the offending value (a 10 MB cell of a schedule file).
///
/// ```
/// use worl_dag::error::clip;
/// assert_eq!(clip("node-1"), "node-1");
/// let long = "x".repeat(1000);
/// assert_eq!(clip(&long), format!("{}… (1000 bytes)", "x".repeat(80)));
/// ```
pub fn clip(value: &str) -> std::borrow::Cow<'_, str> {
    match value.char_indices().nth(SHOWN_VALUE_CHARS) {
        None => value.into(),
        Some((cut, _)) => format!("{}… ({} bytes)", &value[..cut], value.len()).into(),
    }
}

/// `message` with every quoted value (between backticks, or between double quotes with
/// `\` escapes) longer than [`SHOWN_VALUE_CHARS`] characters [`clip`]ped; a quote left
/// open runs to the end. Used by the messages of [`DagError::Parse`] (workload files) and
/// of worl-cluster's parse errors (schedule files, cluster files), whatever parser (serde,
/// TOML, CSV, DOT, XML) wrote them.
///
/// ```
/// use worl_dag::error::clip_quoted;
/// let long = "9".repeat(100);
/// assert_eq!(
///     clip_quoted(&format!("column `start`: `{long}x` is not a number")),
///     format!("column `start`: `{}… (101 bytes)` is not a number", "9".repeat(80)),
/// );
/// assert_eq!(clip_quoted("invalid type: string \"a\", expected f64"), "invalid type: string \"a\", expected f64");
/// ```
pub fn clip_quoted(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= SHOWN_VALUE_CHARS {
        return message.into();
    }
    let mut out = String::new();
    let mut clipped = false;
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = rest.as_bytes()[open];
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        let end = closing_quote(body, quote).unwrap_or(body.len());
        let value = clip(&body[..end]);
        clipped |= matches!(value, std::borrow::Cow::Owned(_));
        out.push_str(&value);
        rest = if end < body.len() {
            out.push(char::from(quote));
            &body[end + 1..]
        } else {
            ""
        };
    }
    out.push_str(rest);
    if clipped { out.into() } else { message.into() }
}

/// The byte position of the quote closing `body` (a backtick; a double quote not escaped
/// by a `\`).
fn closing_quote(body: &str, quote: u8) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Result alias of this crate.
pub type Result<T, E = DagError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::DagError;

    #[test]
    fn parse_errors_clip_a_10_mb_quoted_value() {
        let huge = "n".repeat(10_000_000);
        let e = DagError::Parse {
            file: "g.dot".into(),
            line: 3,
            message: format!("node `{huge}` is not declared"),
        };
        assert_eq!(
            e.to_string(),
            format!(
                "g.dot:3: node `{}… (10000000 bytes)` is not declared",
                "n".repeat(80)
            )
        );
    }
}
