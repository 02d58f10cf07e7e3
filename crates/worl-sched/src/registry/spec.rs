//! The scheduler spec grammar: a registry name with options, as written on a command line,
//! in an experiment config or from Python.
//!
//! ```text
//! spec      = name | name "[" options "]" | name ":" options
//! options   = option ("," option)*
//! option    = key "=" value
//! value     = bare | '"' quoted '"'
//! spec-list = spec (("," | ";") spec)*
//! ```
//!
//! * The bracket form is the canonical one ([`Spec`]'s `Display`): `rtgs[whales=30,iterations=100]`.
//!   Inside brackets a bare value runs to the next `,` or `]`, so it may hold `:` and `/`
//!   (`a-schedule=exponential:3`, `agent=/models/agent.bpk`); a value holding `,`, `]`, `;` or
//!   `"` is double-quoted, with `\"` and `\\` escapes (`agent="runs/a,b/agent.bpk"`).
//! * The colon form `name:key=value,...` (the older one) is accepted for a single spec and in
//!   lists, where a piece `key=value` whose key holds no `:` continues the previous spec.
//! * Whitespace around names, keys and bare values is ignored; names are case-insensitive.
//! * Rejected, as [`ScheduleError::InvalidSpec`] naming the spec: an empty name, an empty
//!   option list (`heft:`, `heft[]`), an option without `=`, an empty key, a key given twice,
//!   unbalanced brackets or quotes, text after `]`.

use crate::error::{Result, ScheduleError};
use crate::options::Options;
use std::fmt;
use std::str::FromStr;

/// A parsed scheduler spec: a registry name and its options in the order given.
///
/// ```
/// use worl_sched::registry::Spec;
/// let s: Spec = "worl-rtgs[agent=\"runs/a,b/agent.bpk\", a-schedule=exponential:3]".parse()?;
/// assert_eq!(s.name, "worl-rtgs");
/// assert_eq!(s.options, [("agent".into(), "runs/a,b/agent.bpk".into()),
///                        ("a-schedule".into(), "exponential:3".into())]);
/// assert_eq!(s.to_string(), "worl-rtgs[agent=\"runs/a,b/agent.bpk\",a-schedule=exponential:3]");
/// assert_eq!("rtgs:whales=10,iterations=5".parse::<Spec>()?.to_string(), "rtgs[whales=10,iterations=5]");
/// assert!("heft:".parse::<Spec>().is_err());
/// assert!("rtgs[whales=1,whales=2]".parse::<Spec>().is_err());
/// # Ok::<(), worl_sched::ScheduleError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The registry name, trimmed (matched case-insensitively).
    pub name: String,
    /// `(key, value)` pairs, in the order given; keys unique.
    pub options: Vec<(String, String)>,
}

impl Spec {
    /// A spec of `name` without options.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            options: Vec::new(),
        }
    }

    /// The options as [`Options`] for the scheduler's builder.
    pub fn to_options(&self) -> Options {
        self.options
            .iter()
            .fold(Options::new(&self.name), |o, (k, v)| o.with(k, v))
    }
}

impl FromStr for Spec {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Self> {
        let bad = |reason: String| ScheduleError::InvalidSpec {
            spec: text.to_owned(),
            reason,
        };
        let (name, body) = match text.find(['[', ':']) {
            None => (text, None),
            Some(i) if text.as_bytes()[i] == b'[' => {
                let rest = text[i + 1..].trim_end();
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(bad("`[` without a closing `]` at the end".into()));
                };
                (&text[..i], Some(inner))
            }
            Some(i) => (&text[..i], Some(&text[i + 1..])),
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(bad("no scheduler name".into()));
        }
        let mut spec = Spec::new(name);
        let Some(body) = body else {
            return Ok(spec);
        };
        let mut rest = body;
        loop {
            let (option, after) = split_option(rest).map_err(&bad)?;
            let Some((key, value)) = option.split_once('=') else {
                return Err(bad(if option.trim().is_empty() {
                    "empty option list (write the name alone for the defaults)".into()
                } else {
                    format!("`{}` is not key=value", option.trim())
                }));
            };
            let key = key.trim();
            if key.is_empty() {
                return Err(bad(format!("option `{option}` has no key")));
            }
            if spec.options.iter().any(|(k, _)| k == key) {
                return Err(bad(format!("option `{key}` is given twice")));
            }
            spec.options
                .push((key.to_owned(), unquote(value).map_err(&bad)?));
            match after {
                Some(next) => rest = next,
                None => break,
            }
        }
        Ok(spec)
    }
}

/// The first option of `text` (up to a `,` outside quotes) and what follows that comma.
fn split_option(text: &str) -> std::result::Result<(&str, Option<&str>), String> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => return Ok((&text[..i], Some(&text[i + 1..]))),
            _ => {}
        }
    }
    if quoted {
        return Err("unbalanced `\"`".into());
    }
    Ok((text, None))
}

/// A value, trimmed; a double-quoted value loses its quotes and escapes.
fn unquote(value: &str) -> std::result::Result<String, String> {
    let v = value.trim();
    let Some(inner) = v.strip_prefix('"') else {
        if v.contains('"') {
            return Err(format!("value `{v}`: a quote must enclose the whole value"));
        }
        return Ok(v.to_owned());
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => out.push(e),
                _ => return Err(format!("value `{v}`: only `\\\"` and `\\\\` are escapes")),
            },
            '"' if chars.as_str().is_empty() => return Ok(out),
            '"' => return Err(format!("value `{v}`: text after the closing quote")),
            c => out.push(c),
        }
    }
    Err(format!("value `{v}`: unbalanced `\"`"))
}

impl fmt::Display for Spec {
    /// The canonical bracket form; values that need it are quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if self.options.is_empty() {
            return Ok(());
        }
        f.write_str("[")?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            let plain = !v.is_empty() && v.trim() == v && !v.contains([',', ']', ';', '"', '\\']);
            if plain {
                write!(f, "{k}={v}")?;
            } else {
                write!(
                    f,
                    "{k}=\"{}\"",
                    v.replace('\\', "\\\\").replace('"', "\\\"")
                )?;
            }
        }
        f.write_str("]")
    }
}

/// Splits a list of specs at `;` and at `,` outside brackets and quotes (see the module
/// grammar); in the colon form a piece `key=value` whose key holds no `:` continues the
/// previous spec. Pieces are trimmed; empty pieces are dropped. The specs are not parsed.
///
/// Errors: [`ScheduleError::InvalidSpec`] for unbalanced brackets or quotes.
///
/// ```
/// use worl_sched::registry::split_spec_list;
/// assert_eq!(
///     split_spec_list("heft, rtgs:whales=10,iterations=5,woa")?,
///     ["heft", "rtgs:whales=10,iterations=5", "woa"]
/// );
/// assert_eq!(
///     split_spec_list("rtgs[whales=10,a-schedule=exponential:3];worl-rtgs[agent=\"a,b.bpk\"]")?,
///     ["rtgs[whales=10,a-schedule=exponential:3]", "worl-rtgs[agent=\"a,b.bpk\"]"]
/// );
/// assert_eq!(
///     split_spec_list("rtgs:whales=10,a-schedule=exponential:3,heft")?,
///     ["rtgs:whales=10,a-schedule=exponential:3", "heft"]
/// );
/// # Ok::<(), worl_sched::ScheduleError>(())
/// ```
pub fn split_spec_list(list: &str) -> Result<Vec<String>> {
    let mut pieces: Vec<(&str, bool)> = Vec::new(); // (piece, ended by `;`)
    let (mut depth, mut quoted, mut escaped, mut start) = (0usize, false, false, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '[' if !quoted => depth += 1,
            ']' if !quoted => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| ScheduleError::InvalidSpec {
                        spec: list.to_owned(),
                        reason: "`]` without `[`".into(),
                    })?
            }
            ',' | ';' if !quoted && depth == 0 => {
                pieces.push((&list[start..i], c == ';'));
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted || depth > 0 {
        return Err(ScheduleError::InvalidSpec {
            spec: list.to_owned(),
            reason: "unbalanced `[` or `\"`".into(),
        });
    }
    pieces.push((&list[start..], true));
    let mut out: Vec<String> = Vec::new();
    let mut open = false; // the last spec is in colon form and not closed by `;`
    for (piece, closes) in pieces {
        let piece = piece.trim();
        if piece.is_empty() {
            open &= !closes;
            continue;
        }
        let continues = open
            && piece
                .split_once('=')
                .is_some_and(|(k, _)| !k.contains([':', '[']));
        match out.last_mut() {
            Some(last) if continues => {
                last.push(',');
                last.push_str(piece);
            }
            _ => {
                out.push(piece.to_owned());
                let head = piece.split('=').next().unwrap_or("");
                open = head.contains(':') && !head.contains('[');
            }
        }
        open &= !closes;
    }
    Ok(out)
}
