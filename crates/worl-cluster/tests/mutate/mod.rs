//! Seeded text mutations for the parser fuzz tests of the non-workload inputs: cluster
//! descriptions and files, schedule files, scheduler specs, experiment results files
//! (`docs/fuzzing.md`). Used by `worl-io/tests/fuzz_inputs.rs` and, through
//! `#[path]`, by `worl-sched/tests/fuzz_specs.rs`, `worl-experiment/tests/fuzz_specs.rs` and
//! (its token finders and `flip_digit`) the loader fuzz tests' `worl-sched/tests/mutation`;
//! it needs only `rand` and `rand_chacha`.
//!
//! Each function applies one random edit of one kind; [`mutate`] draws the kind. The case
//! count of a test is [`cases`]: its default, scaled by the environment variable
//! `WORL_FUZZ_CASES` (a multiplier, `WORL_FUZZ_CASES=100` runs 100 times as many).

#![allow(dead_code)] // each fuzz test uses its own subset

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Replacement numbers: huge, negative, NaN, infinite, subnormal, out of every integer
/// range (`u64::MAX`, `u64::MAX + 1`, `u32::MAX + 1`), beyond `f64` (`1e400`), counts around
/// the GPU caps, and malformed numbers.
pub const SPECIAL: &[&str] = &[
    "1e308",
    "-1e308",
    "1e309",
    "1e400",
    "-1e400",
    "1.7976931348623157e308",
    "-1",
    "-0",
    "0",
    "0.0",
    "NaN",
    "nan",
    "-NaN",
    "inf",
    "-inf",
    "Infinity",
    "infinity",
    "1e-320",
    "5e-324",
    "1e-300",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999999999999999",
    "64",
    "65",
    "65536",
    "65537",
    "0x10",
    "1_000",
    "+1",
    ".5",
    "5.",
    "1e",
    "",
];

/// Hostile Unicode and control text: line and paragraph separators, NEL, NUL, bidi
/// overrides, a BOM, zero-width and combining characters, a replacement character, a
/// character whose lowercase is longer (`İ`), digits of other scripts, fullwidth digits, an
/// emoji sequence, CR, tab, quotes, backslashes and a lone-surrogate escape.
pub const HOSTILE: &[&str] = &[
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\0",
    "\u{202E}",
    "\u{FEFF}",
    "\u{200B}",
    "\u{200D}",
    "e\u{301}\u{301}\u{301}",
    "\u{FFFD}",
    "İ",
    "٣",
    "４",
    "𝟘",
    "👩\u{200D}💻",
    "\r",
    "\t",
    "\"",
    "'",
    "\\",
    "\\ud800",
    "\u{7F}",
    "\u{1B}[2J",
];

/// The case count of a test: `default`, times the integer `WORL_FUZZ_CASES` when set (`1` if
/// unset or malformed).
pub fn cases(default: usize) -> usize {
    let scale = std::env::var("WORL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&s| s >= 1)
        .unwrap_or(1);
    default.saturating_mul(scale)
}

/// A generator seeded with `seed` (each parser its own, so one parser's cases do not
/// depend on another's).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Byte ranges of the number-like tokens of `text` (`-`, digits, `.`, exponent), whole
/// tokens only (not the digits of a name such as `M1` or `V100`).
pub fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'-' && i + 1 < b.len() && b[i + 1].is_ascii_digit());
        let inside_word = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if starts && !inside_word {
            let s = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || b[i] == b'.'
                    || b[i] == b'e'
                    || b[i] == b'E'
                    || ((b[i] == b'-' || b[i] == b'+') && matches!(b[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of identifier-like words (letters, digits, `_`, `-`, starting with a letter).
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// A uniformly drawn element of `v`, `None` if empty.
pub fn pick<T: Copy>(rng: &mut ChaCha8Rng, v: &[T]) -> Option<T> {
    (!v.is_empty()).then(|| v[rng.random_range(0..v.len())])
}

/// The message of a caught panic.
pub fn payload(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".into())
}

/// Runs `f`, a caught panic as `Err(message)`. The default panic hook still prints the
/// panic; a test that expects none does not mind.
pub fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| payload(&*p))
}

/// Replaces one digit by a random digit.
pub fn flip_digit(text: &mut String, rng: &mut ChaCha8Rng) {
    let digits: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| b.is_ascii_digit())
        .map(|(i, _)| i)
        .collect();
    if let Some(i) = pick(rng, &digits) {
        let d = (b'0' + rng.random_range(0..10u8)) as char;
        text.replace_range(i..i + 1, &d.to_string());
    }
}

/// Replaces one number by one of [`SPECIAL`].
pub fn replace_number(text: &mut String, rng: &mut ChaCha8Rng) {
    if let Some((s, e)) = pick(rng, &numbers(text)) {
        text.replace_range(s..e, SPECIAL[rng.random_range(0..SPECIAL.len())]);
    }
}

/// Splits `text` at `sep` and applies `edit` to the pieces (a random index given), joining
/// them back with `sep`; a text ending with `sep` keeps its end.
fn edit_pieces(
    text: &mut String,
    rng: &mut ChaCha8Rng,
    sep: &str,
    edit: impl FnOnce(&mut Vec<String>, usize, &mut ChaCha8Rng),
) {
    let trailing = text.ends_with(sep) && !sep.is_empty();
    let body = if trailing {
        &text[..text.len() - sep.len()]
    } else {
        &text[..]
    };
    let mut pieces: Vec<String> = body.split(sep).map(str::to_owned).collect();
    let i = rng.random_range(0..pieces.len());
    edit(&mut pieces, i, rng);
    *text = pieces.join(sep);
    if trailing {
        text.push_str(sep);
    }
}

/// Deletes a piece, repeats it `1..=max_copies` times, or swaps it with another.
fn delete_repeat_swap(pieces: &mut Vec<String>, i: usize, rng: &mut ChaCha8Rng, max_copies: usize) {
    match rng.random_range(0..3) {
        0 => {
            pieces.remove(i);
        }
        1 => {
            let p = pieces[i].clone();
            for _ in 0..rng.random_range(1..=max_copies) {
                pieces.insert(i, p.clone());
            }
        }
        _ => {
            let j = rng.random_range(0..pieces.len());
            pieces.swap(i, j);
        }
    }
}

/// Deletes a line, repeats it up to `max_copies` times, or swaps it with another.
pub fn edit_line(text: &mut String, rng: &mut ChaCha8Rng, max_copies: usize) {
    edit_pieces(text, rng, "\n", |p, i, rng| {
        delete_repeat_swap(p, i, rng, max_copies)
    });
}

/// Deletes, repeats or swaps a field of the text split at `sep` (`:` of a cluster
/// description, `,` of a spec's options; the whole text, not one line).
pub fn edit_separated(text: &mut String, rng: &mut ChaCha8Rng, sep: &str) {
    edit_pieces(text, rng, sep, |p, i, rng| delete_repeat_swap(p, i, rng, 2));
}

/// Deletes, repeats or swaps a field of one line (fields separated by `,` where the line has
/// one, else by spaces).
pub fn edit_field(text: &mut String, rng: &mut ChaCha8Rng) {
    edit_pieces(text, rng, "\n", |lines, i, rng| {
        let sep = if lines[i].contains(',') { "," } else { " " };
        let mut line = std::mem::take(&mut lines[i]);
        edit_pieces(&mut line, rng, sep, |p, k, rng| {
            delete_repeat_swap(p, k, rng, 2)
        });
        lines[i] = line;
    });
}

/// A random char boundary of non-empty `text`.
fn boundary(text: &str, rng: &mut ChaCha8Rng) -> usize {
    let mut at = rng.random_range(0..=text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Cuts the text at a random point.
pub fn truncate(text: &mut String, rng: &mut ChaCha8Rng) {
    if !text.is_empty() {
        let at = boundary(text, rng);
        text.truncate(at);
    }
}

/// Breaks a reference: a word becomes another word of the text, or `ghost`.
pub fn break_word(text: &mut String, rng: &mut ChaCha8Rng) {
    let ws = words(text);
    if let Some((s, e)) = pick(rng, &ws) {
        let new = if rng.random_bool(0.5) {
            "ghost".to_owned()
        } else {
            let (a, b) = pick(rng, &ws).expect("non-empty");
            text[a..b].to_owned()
        };
        text.replace_range(s..e, &new);
    }
}

/// Inserts one of [`HOSTILE`] at a random point, or replaces a word by it.
pub fn hostile_unicode(text: &mut String, rng: &mut ChaCha8Rng) {
    let h = HOSTILE[rng.random_range(0..HOSTILE.len())];
    let ws = words(text);
    match pick(rng, &ws) {
        Some((s, e)) if rng.random_bool(0.5) => text.replace_range(s..e, h),
        _ => {
            let at = boundary(text, rng);
            text.insert_str(at, h);
        }
    }
}

/// Makes a word very long: repeated up to 100,000 bytes (an identifier), or a run of
/// digits of that length where the text has a number.
pub fn long_token(text: &mut String, rng: &mut ChaCha8Rng) {
    let len = match rng.random_range(0..3) {
        0 => 1_000,
        1 => 10_000,
        _ => 100_000,
    };
    if rng.random_bool(0.3)
        && let Some((s, e)) = pick(rng, &numbers(text))
    {
        text.replace_range(s..e, &"9".repeat(len));
        return;
    }
    match pick(rng, &words(text)) {
        Some((s, e)) => {
            let w = text[s..e].to_owned();
            let long = w.repeat(len / w.len().max(1) + 1);
            text.replace_range(s..e, &long);
        }
        None => text.push_str(&"x".repeat(len)),
    }
}

/// Replaces one character by a random printable ASCII one.
pub fn replace_char(text: &mut String, rng: &mut ChaCha8Rng) {
    if !text.is_empty() {
        let at = boundary(text, rng).min(text.len() - 1);
        let at = (0..=at)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        let end = (at + 1..=text.len())
            .find(|&e| text.is_char_boundary(e))
            .unwrap_or(text.len());
        let c = rng.random_range(b' '..=b'~') as char;
        text.replace_range(at..end, &c.to_string());
    }
}

/// Nests the text `depth` times in brackets (`[`/`]` or `{"a":`/`}`), to probe recursion
/// limits.
pub fn nest(text: &mut String, rng: &mut ChaCha8Rng) {
    let depth = rng.random_range(1..=2_000);
    let (open, close) = if rng.random_bool(0.5) {
        ("[", "]")
    } else {
        ("{\"a\":", "}")
    };
    let at = boundary(text, rng);
    let tail = text.split_off(at);
    text.push_str(&open.repeat(depth));
    text.push_str(&close.repeat(depth));
    text.push_str(&tail);
}

/// One random mutation of a multi-line file: every kind above, `sep` the field separator
/// of the structured edits (`None`: per line, `,` or space).
pub fn mutate(text: &mut String, rng: &mut ChaCha8Rng, sep: Option<&str>) {
    match rng.random_range(0..20) {
        0..=1 => flip_digit(text, rng),
        2..=6 => replace_number(text, rng),
        7..=8 => edit_line(text, rng, 3),
        9..=10 => match sep {
            Some(sep) => edit_separated(text, rng, sep),
            None => edit_field(text, rng),
        },
        11 => truncate(text, rng),
        12..=13 => break_word(text, rng),
        14..=15 => hostile_unicode(text, rng),
        16 => long_token(text, rng),
        17 => nest(text, rng),
        _ => replace_char(text, rng),
    }
}

/// `text` mutated `1..=max` times.
pub fn mutated(seed_text: &str, rng: &mut ChaCha8Rng, max: usize, sep: Option<&str>) -> String {
    let mut text = seed_text.to_owned();
    for _ in 0..rng.random_range(1..=max) {
        mutate(&mut text, rng, sep);
    }
    text
}
