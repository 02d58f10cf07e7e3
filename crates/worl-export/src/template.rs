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
/// | `{gpu}` | the GPU's index on its machine, 0-based; for a gang task the indices of its GPUs, comma-separated, lead first (`0,1,2,3`) |
/// | `{machine}` | the machine's name in the cluster |
/// | `{host}` | the machine's host name |
/// | `{name}` | the engine name of the task (unique, `[A-Za-z0-9._-]`) |
/// | `{id}` | the task's id in the workload |
///
/// `{{` and `}}` are literal braces. The template is code (the user's own command); the
/// values are data and go in as one shell word each: a value made only of
/// `[A-Za-z0-9._/:=+@%,-]` as is, any other single-quoted (`'it'\''s'`; in the Slurm batch
/// script a value with a control character is written `$'...'` with `\xHH` escapes
/// instead), so names with spaces, quotes, `$(...)` or line breaks stay data.
/// [`new`](Self::new) refuses the places in a template where a word would not stay data
/// (inside quotes, comments, arithmetic, backticks, `[[ ... ]]`, `let`/`eval` arguments,
/// here-documents). The command runs under `bash`
/// (Slurm), `sh -c` (Argo) or `/bin/sh` (Ray), with `WORL_GPU` set to the planned GPU
/// index or, for a gang task, index list (and `CUDA_VISIBLE_DEVICES` under [`DevicePolicy::Planned`](crate::DevicePolicy)).
/// See `docs/threat-model.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandTemplate {
    text: String,
}

impl CommandTemplate {
    /// The default command: a no-op `echo` naming the task, job, host and GPU.
    pub const DEFAULT: &'static str = "echo worl task {task} job {job} host {host} gpu {gpu}";

    /// Parses `text`.
    ///
    /// The template is shell code (yours); the values put in for its placeholders are data,
    /// each one shell word. A word is only data in an unquoted word context, so
    /// `{task}`, `{job}`, `{machine}` and `{host}` (arbitrary text) are refused where a
    /// value would not be one word of data: inside `'...'`, `"..."` or `$'...'`, right
    /// after a `\\`, in a `#` comment, inside `$((...))` or `((...))`, inside `` `...` ``,
    /// inside `[[ ... ]]`, as an argument of `let` or `eval`, or after a here-document
    /// operator `<<`. `{gpu}`, `{id}` (numbers; `{gpu}` of a gang task numbers and commas)
    /// and `{name}` (`[A-Za-z0-9._-]`) may go anywhere. What the command does with a value otherwise (`bash -c`, `ssh host ...`,
    /// `python -c`) is the template's: such a command re-reads data as code.
    ///
    /// Errors: [`ExportError::Template`] for an unknown placeholder, an unmatched `{` or
    /// `}`, or a data placeholder in one of the places above.
    pub fn new(text: &str) -> Result<Self> {
        let bad = |why: String| ExportError::Template {
            template: text.to_owned(),
            why,
        };
        let mut shell = ShellContext::default();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    shell.step('{', chars.peek().copied());
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
                    if DATA_PLACEHOLDERS.contains(&key.as_str())
                        && let Some(place) = shell.unsafe_place()
                    {
                        return Err(bad(format!(
                            "placeholder `{{{key}}}` is {place}, where its value would not be \
                             one word of data: write it unquoted, e.g. \"$HOME/\"{{{key}}} \
                             (values are quoted for the shell)"
                        )));
                    }
                    // a value is one word: like a plain character of a word
                    shell.step('x', chars.peek().copied());
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    shell.step('}', chars.peek().copied());
                }
                '}' => return Err(bad("unmatched `}` (write `}}` for a brace)".into())),
                c => shell.step(c, chars.peek().copied()),
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

    /// The command of one task: each placeholder replaced by `quote` of its value.
    pub(crate) fn render(&self, v: &Values<'_>, quote: fn(&str) -> String) -> String {
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
                        "gpu" => v.gpu.to_owned(),
                        "machine" => v.machine.to_owned(),
                        "host" => v.host.to_owned(),
                        "name" => v.name.to_owned(),
                        _ => v.id.to_string(),
                    };
                    out.push_str(&quote(&value));
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
    pub gpu: &'a str,
    pub machine: &'a str,
    pub host: &'a str,
    pub name: &'a str,
    pub id: usize,
}

/// The placeholders whose values are arbitrary text (the others are numbers or
/// `[A-Za-z0-9._-]`).
const DATA_PLACEHOLDERS: [&str; 4] = ["task", "job", "machine", "host"];

/// Where in shell code a template is, as far as quoting goes: enough to tell whether a
/// value put in here is one word of data.
#[derive(Default)]
struct ShellContext {
    /// Inside `'...'`.
    single: bool,
    /// Inside `"..."`.
    double: bool,
    /// Inside `$'...'`.
    ansi: bool,
    /// The previous character was an unquoted (or double-quoted) `\`.
    escaped: bool,
    /// Inside a `#` comment (to the end of the line).
    comment: bool,
    /// Depth of `$((` and of `((` arithmetic commands.
    arith: usize,
    /// Inside `` `...` `` (the old command substitution, whose text bash re-parses after
    /// ending it at the first backtick, quoted or not).
    backtick: bool,
    /// Inside `[[ ... ]]` (its operands are evaluated as arithmetic by `-eq` and friends).
    test: bool,
    /// The first word of the current simple command, while it is being read.
    command: String,
    /// Whether the first word of the current simple command is complete.
    command_done: bool,
    /// A here-document operator `<<` was seen.
    heredoc: bool,
    /// Unquoted `<` just before (3 for a here-string `<<<`).
    lt: usize,
    /// The previous character, for word starts.
    prev: Option<char>,
}

impl ShellContext {
    /// Why a data value may not go here, if so.
    fn unsafe_place(&self) -> Option<&'static str> {
        if self.single {
            Some("inside single quotes")
        } else if self.ansi {
            Some("inside $'...'")
        } else if self.double {
            Some("inside double quotes")
        } else if self.escaped {
            Some("right after a backslash")
        } else if self.comment {
            Some("in a comment")
        } else if self.arith > 0 {
            Some("inside $((...)) or ((...)), which evaluates it as arithmetic")
        } else if self.backtick {
            Some("inside `...`, which bash re-parses (use $(...))")
        } else if self.test {
            Some("inside [[ ... ]], whose operands may be evaluated as arithmetic")
        } else if self.command_done && ["let", "eval"].contains(&self.command.as_str()) {
            Some("an argument of `let` or `eval`, which run it as code")
        } else if self.heredoc || self.lt == 2 {
            Some("after a here-document operator `<<`")
        } else {
            None
        }
    }

    /// Follows the first word of each simple command (unquoted `c` only): a command ends
    /// at a newline, `;`, `&`, `|`, `(`, `)` or a backtick.
    fn track_command(&mut self, c: char) {
        if c == '\n' || ";&|()`".contains(c) {
            self.command.clear();
            self.command_done = false;
        } else if c.is_whitespace() {
            self.command_done |= !self.command.is_empty();
        } else if !self.command_done {
            self.command.push(c);
        }
    }

    /// Moves over `c`; `next` is the character after it.
    fn step(&mut self, c: char, next: Option<char>) {
        let prev = self.prev.replace(c);
        if self.escaped {
            self.escaped = false;
            return;
        }
        if self.comment {
            if c == '\n' {
                self.comment = false;
            }
            return;
        }
        if self.single {
            self.single = c != '\'';
            return;
        }
        if self.ansi {
            match c {
                '\\' => self.escaped = true,
                '\'' => self.ansi = false,
                _ => {}
            }
            return;
        }
        if c == '<' && !self.double {
            self.lt += 1;
            return;
        }
        if self.lt == 2 {
            self.heredoc = true;
        }
        self.lt = 0;
        if !self.double {
            self.track_command(c);
        }
        match c {
            '\\' => self.escaped = true,
            '`' => self.backtick = !self.backtick,
            '"' => self.double = !self.double,
            '\'' if !self.double => {
                if prev == Some('$') {
                    self.ansi = true;
                } else {
                    self.single = true;
                }
            }
            '#' if !self.double
                && prev.is_none_or(|p| p.is_whitespace() || ";&|()<>".contains(p)) =>
            {
                self.comment = true;
            }
            '(' if prev != Some('(') && next == Some('(') && !self.double => self.arith += 1,
            ')' if self.arith > 0 && next == Some(')') => self.arith -= 1,
            '[' if next == Some('[') && !self.double => self.test = true,
            ']' if self.test && next == Some(']') => self.test = false,
            _ => {}
        }
    }
}

/// `text` with every control character escaped (`\r`, `\n`, `\t`, `\0`, `\u{1b}`, ...),
/// other characters (quotes among them) as they are: how an error message shows a user's
/// template, so that a `\r` in it cannot rewrite the terminal line the message is on.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quote::shell_word;

    fn values() -> Values<'static> {
        Values {
            task: "M1 a",
            job: "j_1",
            gpu: "3",
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
            t.render(&values(), shell_word),
            "run 'M1 a' --job=j_1 -g 3 @node-0/m0 M1_a #7 {x}"
        );
    }

    #[test]
    fn data_placeholders_must_be_unquoted_words() {
        for (template, place) in [
            ("echo \"{task}\"", "inside double quotes"),
            ("echo '{job}'", "inside single quotes"),
            ("echo $'{host}'", "inside $'...'"),
            ("echo \\{machine}", "right after a backslash"),
            ("run # {task}", "in a comment"),
            ("echo $(( {task} + 1 ))", "inside $((...))"),
            ("(( {task} > 1 ))", "inside $((...)) or ((...))"),
            ("echo `echo {task}`", "inside `...`"),
            ("[[ {task} -eq 1 ]]", "inside [[ ... ]]"),
            ("let x={task}", "an argument of `let` or `eval`"),
            ("true; eval echo {task}", "an argument of `let` or `eval`"),
            ("cat <<EOF\n{task}\nEOF", "after a here-document operator"),
        ] {
            let e = CommandTemplate::new(template).unwrap_err().to_string();
            assert!(e.contains(place), "{template}: {e}");
        }
        // numbers and engine names may go anywhere; data is fine unquoted, in $(...),
        // after a closed quote, after `<<<` and after an escaped quote
        for ok in [
            "echo \"{gpu} {id} {name}\" '{gpu}'",
            "echo \"$HOME/\"{task} $(basename {job}) a#{host}",
            "cat <<< {task}; echo \\' {job} \"a\\\"\" {host}",
            "echo $((1+2)) {task} # {gpu}\necho {job}",
            "echo `date` {task}; [[ -d x ]] && echo {job}; echo let {host}",
            "(cd /tmp && echo {task})",
        ] {
            CommandTemplate::new(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn template_errors_escape_control_characters() {
        let e = CommandTemplate::new("echo {task}\r\x1b[2K{bad}")
            .unwrap_err()
            .to_string();
        assert!(!e.chars().any(char::is_control), "{e:?}");
        assert!(
            e.starts_with(
                "command template `echo {task}\\r\\u{1b}[2K{bad}`: unknown placeholder `{bad}`"
            ),
            "{e}"
        );
        let e = CommandTemplate::new("echo {ta\rsk}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown placeholder `{ta\\rsk}`"), "{e}");
        assert_eq!(printable("echo \"$HOME/\"{task}"), "echo \"$HOME/\"{task}");
        assert_eq!(printable("a\tb\n\0"), "a\\tb\\n\\0");
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
