//! Command templates: `{task}`, `{job}`, `{gpu}`, `{machine}`, `{host}`, `{name}`, `{id}`.

use crate::{ExportError, Result};
use std::fmt;
use std::str::FromStr;

/// The placeholders a [`CommandTemplate`] may use.
pub const PLACEHOLDERS: [&str; 7] = ["task", "job", "gpu", "machine", "host", "name", "id"];

/// A shell command with placeholders, filled in per task:
///
/// | placeholder | value |
/// |---|---|
/// | `{task}` | the task's name in its job |
/// | `{job}` | the job's name |
/// | `{gpu}` | the GPU's index on its machine, 0-based |
/// | `{machine}` | the machine's name in the cluster |
/// | `{host}` | the machine's host name |
/// | `{name}` | the engine name of the task (unique, `[A-Za-z0-9._-]`) |
/// | `{id}` | the task's id in the workload |
///
/// `{{` and `}}` are literal braces. A value made only of `[A-Za-z0-9._/:=+@%,-]` goes in
/// as is; any other is single-quoted for the shell (`'it'\''s'`), so names with spaces or
/// `$` cannot break or inject into the command. The command runs under `bash -c` (Slurm),
/// `sh -c` (Argo) or a shell (Ray), with `WORL_GPU` and (Slurm, Ray) `CUDA_VISIBLE_DEVICES`
/// set to the planned GPU index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandTemplate {
    text: String,
}

impl CommandTemplate {
    /// The default command: a no-op `echo` naming the task, job, host and GPU.
    pub const DEFAULT: &'static str = "echo worl task {task} job {job} host {host} gpu {gpu}";

    /// Parses `text`.
    ///
    /// Errors: [`ExportError::Template`] for an unknown placeholder or an unmatched `{` or
    /// `}`.
    pub fn new(text: &str) -> Result<Self> {
        let bad = |why: String| ExportError::Template {
            template: text.to_owned(),
            why,
        };
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                }
                '{' => {
                    let mut key = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(k) => key.push(k),
                            None => return Err(bad("unmatched `{`".into())),
                        }
                    }
                    if !PLACEHOLDERS.contains(&key.as_str()) {
                        return Err(bad(format!(
                            "unknown placeholder `{{{key}}}` (known: {})",
                            PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                        )));
                    }
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                }
                '}' => return Err(bad("unmatched `}` (write `}}` for a brace)".into())),
                _ => {}
            }
        }
        Ok(Self {
            text: text.to_owned(),
        })
    }

    /// The template's text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub(crate) fn render(&self, v: &Values<'_>) -> String {
        let mut out = String::new();
        let mut chars = self.text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push('}');
                }
                '{' => {
                    let key: String = chars.by_ref().take_while(|&k| k != '}').collect();
                    let value = match key.as_str() {
                        "task" => v.task.to_owned(),
                        "job" => v.job.to_owned(),
                        "gpu" => v.gpu.to_string(),
                        "machine" => v.machine.to_owned(),
                        "host" => v.host.to_owned(),
                        "name" => v.name.to_owned(),
                        _ => v.id.to_string(),
                    };
                    out.push_str(&shell_word(&value));
                }
                c => out.push(c),
            }
        }
        out
    }
}

impl Default for CommandTemplate {
    fn default() -> Self {
        Self::new(Self::DEFAULT).expect("the default template is valid")
    }
}

impl FromStr for CommandTemplate {
    type Err = ExportError;
    fn from_str(s: &str) -> Result<Self> {
        Self::new(s)
    }
}

impl fmt::Display for CommandTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The values of one task's placeholders.
pub(crate) struct Values<'a> {
    pub task: &'a str,
    pub job: &'a str,
    pub gpu: usize,
    pub machine: &'a str,
    pub host: &'a str,
    pub name: &'a str,
    pub id: usize,
}

/// `s` as one shell word: as is when made of safe characters, else single-quoted.
pub(crate) fn shell_word(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/:=+@%,-".contains(c));
    if safe {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Values<'static> {
        Values {
            task: "M1 a",
            job: "j_1",
            gpu: 3,
            machine: "m0",
            host: "node-0",
            name: "M1_a",
            id: 7,
        }
    }

    #[test]
    fn fills_and_quotes() {
        let t = CommandTemplate::new(
            "run {task} --job={job} -g {gpu} @{host}/{machine} {name} #{id} {{x}}",
        )
        .unwrap();
        assert_eq!(
            t.render(&values()),
            "run 'M1 a' --job=j_1 -g 3 @node-0/m0 M1_a #7 {x}"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn rejects_bad_templates() {
        let e = CommandTemplate::new("echo {tsk}").unwrap_err().to_string();
        assert!(e.contains("unknown placeholder `{tsk}`"), "{e}");
        assert!(
            CommandTemplate::new("echo {task")
                .unwrap_err()
                .to_string()
                .contains("unmatched `{`")
        );
        assert!(
            CommandTemplate::new("echo }")
                .unwrap_err()
                .to_string()
                .contains("unmatched `}`")
        );
    }
}
