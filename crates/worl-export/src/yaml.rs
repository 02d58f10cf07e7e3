//! A small YAML writer: block mappings (keys in the order given) and sequences, every
//! string double-quoted with escapes for everything but printable ASCII
//! ([`yaml_str`](crate::quote::yaml_str)), keys plain where they are plain identifiers. The
//! output is printable ASCII plus `\n`; it parses back (YAML 1.1 and 1.2) to
//! [`Node::to_json`].

use crate::quote::yaml_str;
use serde_json::Value;

/// A YAML node with ordered mappings.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    Str(String),
    // unused by the artifacts today (Kubernetes quantities are written as strings)
    #[allow(dead_code)]
    Int(i64),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

/// A mapping from `(key, value)` pairs, in order.
pub(crate) fn map<const N: usize>(pairs: [(&str, Node); N]) -> Node {
    Node::Map(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A string node.
pub(crate) fn s(v: impl Into<String>) -> Node {
    Node::Str(v.into())
}

impl Node {
    /// The same value as JSON (mappings become objects).
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Node::Str(s) => Value::String(s.clone()),
            Node::Int(i) => Value::from(*i),
            Node::Map(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
            Node::List(l) => Value::Array(l.iter().map(Node::to_json).collect()),
        }
    }

    fn is_block(&self) -> bool {
        match self {
            Node::Map(m) => !m.is_empty(),
            Node::List(l) => !l.is_empty(),
            _ => false,
        }
    }

    fn scalar(&self) -> String {
        match self {
            Node::Str(s) => yaml_str(s),
            Node::Int(i) => i.to_string(),
            Node::Map(_) => "{}".to_owned(),
            Node::List(_) => "[]".to_owned(),
        }
    }
}

/// `v` as a YAML document (ends with a newline).
pub(crate) fn to_yaml(v: &Node) -> String {
    let mut out = String::new();
    write(&mut out, v, 0, false);
    out
}

fn key(k: &str) -> String {
    let plain = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    if plain { k.to_owned() } else { yaml_str(k) }
}

/// Writes `v` at `indent`; `inline` means the first line continues a `- ` already written.
fn write(out: &mut String, v: &Node, indent: usize, inline: bool) {
    let pad = " ".repeat(indent);
    match v {
        Node::Map(m) if !m.is_empty() => {
            for (i, (k, x)) in m.iter().enumerate() {
                if !(inline && i == 0) {
                    out.push_str(&pad);
                }
                out.push_str(&key(k));
                out.push(':');
                if x.is_block() {
                    out.push('\n');
                    let child = if matches!(x, Node::List(_)) {
                        indent
                    } else {
                        indent + 2
                    };
                    write(out, x, child, false);
                } else {
                    out.push(' ');
                    out.push_str(&x.scalar());
                    out.push('\n');
                }
            }
        }
        Node::List(l) if !l.is_empty() => {
            for x in l {
                out.push_str(&pad);
                out.push_str("- ");
                match x {
                    Node::Map(m) if !m.is_empty() => write(out, x, indent + 2, true),
                    Node::List(l) if !l.is_empty() => {
                        out.push('\n');
                        write(out, x, indent + 2, false);
                    }
                    _ => {
                        out.push_str(&x.scalar());
                        out.push('\n');
                    }
                }
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&other.scalar());
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_block_yaml_in_key_order() {
        let v = map([
            (
                "b",
                map([("c", s("x: y")), ("kubernetes.io/hostname", s("n1"))]),
            ),
            ("a", Node::Int(1)),
            (
                "l",
                Node::List(vec![
                    map([
                        ("name", s("t")),
                        ("deps", Node::List(vec![s("u"), s("v\"")])),
                        ("e", Node::List(vec![])),
                    ]),
                    s("s"),
                ]),
            ),
            ("9k", map([])),
        ]);
        assert_eq!(
            to_yaml(&v),
            "b:\n  c: \"x: y\"\n  kubernetes.io/hostname: \"n1\"\na: 1\nl:\n- name: \"t\"\n  deps:\n  - \"u\"\n  - \"v\\\"\"\n  e: []\n- \"s\"\n\"9k\": {}\n"
        );
        assert_eq!(v.to_json()["l"][0]["deps"][1], "v\"");
    }
}
