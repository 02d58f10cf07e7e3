//! Quoting of data for the three artifact languages (bash / POSIX sh, YAML, Python) and for
//! comments. Every function here turns an arbitrary string (no NUL: [`ExportPlan::new`]
//! refuses names with one) into text that the language reads back as exactly that string
//! and never as code; `docs/threat-model.md` says why each is safe.
//!
//! [`ExportPlan::new`]: crate::ExportPlan::new

use std::fmt::Write;

/// `s` as one POSIX shell word (sh, dash, busybox ash, bash): as is when made only of
/// `[A-Za-z0-9._/:=+@%,-]` (and non-empty), else in single quotes with each `'` written
/// `'\''`. Inside single quotes no character is special but `'` itself, so the word reads
/// back as `s` byte for byte, line breaks included. Valid in an unquoted word context only.
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

/// `s` as one bash word: [`shell_word`] when `s` has no control character (C0, DEL, C1),
/// else an ANSI-C quoted `$'...'` word in which `\` and `'` are backslash-escaped and
/// every control character is written as `\xHH` per UTF-8 byte, so the word (and the
/// script around it) holds no raw control character: no `\r`, no line break but the
/// script's own. Other characters (printable ASCII and non-ASCII) stay as they are.
pub(crate) fn bash_word(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return shell_word(s);
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\'' => out.push_str(r"\'"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `s` for a comment of any of the three languages: printable ASCII only, so no line
/// break of bash, YAML (1.1 or 1.2: also U+0085, U+2028, U+2029) or Python can end the
/// comment. `\` is written `\\`; every other character outside `' '..='~'` is written
/// `\u{XXXX}` (hex code point).
pub(crate) fn comment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            ' '..='~' => out.push(c),
            c => {
                let _ = write!(out, "\\u{{{:04X}}}", c as u32);
            }
        }
    }
    out
}

/// `s` in double quotes, made of printable ASCII only: `"` and `\` backslash-escaped,
/// `\n` `\r` `\t`, other characters below U+0100 as `\xHH` (NUL as `\x00`, U+0085 as
/// `\x85`), then `\uHHHH` (U+2028 as `\u2028`) and `\UHHHHHHHH`. These escapes mean the
/// same in Python 3 string literals and in YAML 1.1 and 1.2 double-quoted scalars, so this
/// one writer serves both ([`py_str`], [`yaml_str`]).
fn ascii_double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str(r"\\"),
            '\n' => out.push_str(r"\n"),
            '\r' => out.push_str(r"\r"),
            '\t' => out.push_str(r"\t"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// `s` as a Python 3 string literal ([`ascii_double_quoted`]): `ast.literal_eval` of it is
/// `s`.
pub(crate) fn py_str(s: &str) -> String {
    ascii_double_quoted(s)
}

/// `s` as a YAML double-quoted scalar ([`ascii_double_quoted`]), read back as `s` by YAML
/// 1.1 and 1.2 parsers alike (libyaml, go-yaml, PyYAML, yaml-rust2). No raw line break of
/// either YAML version (U+0085, U+2028 and U+2029 are line breaks in YAML 1.1) can appear,
/// so the scalar cannot be folded or ended early.
pub(crate) fn yaml_str(s: &str) -> String {
    ascii_double_quoted(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_and_bash_words() {
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a-b.c"), "a-b.c");
        assert_eq!(bash_word("a b"), "'a b'");
        assert_eq!(bash_word("a\r\nWORL_EOF'\\"), r"$'a\x0d\x0aWORL_EOF\'\\'");
        assert_eq!(bash_word("x\u{85}\u{2028}"), "$'x\\xc2\\x85\u{2028}'");
    }

    #[test]
    fn comments_are_printable_ascii() {
        assert_eq!(
            comment("a\u{2028}b\nc\\\u{1F600}"),
            r"a\u{2028}b\u{000A}c\\\u{1F600}"
        );
    }

    #[test]
    fn python_and_yaml_strings_are_printable_ascii() {
        assert_eq!(
            py_str("\"\\\n\u{85}\u{2028}\u{1F600}'"),
            r#""\"\\\n\x85\u2028\U0001f600'""#
        );
        assert_eq!(
            yaml_str("\"\\\n\u{85}\u{a0}\u{2028}\u{2029}\u{1}\u{feff}\u{1F600}"),
            r#""\"\\\n\x85\xa0\u2028\u2029\x01\ufeff\U0001f600""#
        );
    }
}
