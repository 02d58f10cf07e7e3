//! Seeded text mutations shared by the loader fuzz tests (`fuzz_workloads`, `fuzz_clusters`):
//! each function applies one random edit of one kind to a text file's contents.

#![allow(dead_code)] // each fuzz test uses its own subset

use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[path = "../../../worl-cluster/tests/mutate/mod.rs"]
mod shared;
pub use shared::{flip_digit, numbers, payload, pick};

/// Byte ranges of identifier-like words (letters, digits, `_`, starting with a letter).
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Replaces one number by one of `special` (huge, negative, NaN, ...).
pub fn replace_number(text: &mut String, rng: &mut ChaCha8Rng, special: &[&str]) {
    if let Some((s, e)) = pick(rng, &numbers(text)) {
        text.replace_range(s..e, special[rng.random_range(0..special.len())]);
    }
}

/// Applies `edit` to the lines of `text` (a random line index is given), if any.
fn edit_lines(
    text: &mut String,
    rng: &mut ChaCha8Rng,
    edit: impl FnOnce(&mut Vec<String>, usize, &mut ChaCha8Rng),
) {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return;
    }
    let i = rng.random_range(0..lines.len());
    edit(&mut lines, i, rng);
    *text = lines.join("\n");
    text.push('\n');
}

/// Deletes a line, or repeats it `1..=max_copies` times, or swaps it with another.
pub fn edit_line(text: &mut String, rng: &mut ChaCha8Rng, max_copies: usize) {
    edit_lines(text, rng, |lines, i, rng| match rng.random_range(0..3) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            for _ in 0..rng.random_range(1..=max_copies) {
                lines.insert(i, l.clone());
            }
        }
        _ => {
            let j = rng.random_range(0..lines.len());
            lines.swap(i, j);
        }
    });
}

/// Deletes, duplicates or swaps a field of a line (fields separated by `,` where the line
/// has one, else by spaces).
pub fn edit_field(text: &mut String, rng: &mut ChaCha8Rng) {
    edit_lines(text, rng, |lines, i, rng| {
        let sep = if lines[i].contains(',') { ',' } else { ' ' };
        let mut fields: Vec<&str> = lines[i].split(sep).collect();
        let k = rng.random_range(0..fields.len());
        match rng.random_range(0..3) {
            0 => {
                fields.remove(k);
            }
            1 => fields.insert(k, fields[k]),
            _ => {
                let m = rng.random_range(0..fields.len());
                fields.swap(k, m);
            }
        }
        lines[i] = fields.join(&sep.to_string());
    });
}

/// A random char boundary of non-empty `text`.
fn boundary(text: &str, rng: &mut ChaCha8Rng) -> usize {
    let mut at = rng.random_range(0..text.len());
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

/// Breaks a reference: a word becomes another word of the text, or a ghost.
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

/// Replaces one character by a random printable ASCII one.
pub fn replace_char(text: &mut String, rng: &mut ChaCha8Rng) {
    if !text.is_empty() {
        let at = boundary(text, rng);
        let end = (at + 1..=text.len())
            .find(|&e| text.is_char_boundary(e))
            .unwrap_or(text.len());
        let c = rng.random_range(b' '..=b'~') as char;
        text.replace_range(at..end, &c.to_string());
    }
}

/// What became of a loaded input (see [`schedule_loaded`]).
pub enum Outcome {
    /// `Problem::new` refused it with a typed error.
    ProblemError,
    /// HEFT gave a valid schedule above the finite lower bound, with finite metrics.
    Valid,
    /// As `Valid`, except that the validator reports `Violation::Precision` (and nothing
    /// else) for some task: the input's numbers (a `u64::MAX` latency, a work of `1e26`) put
    /// a task of seconds at times where `f64` numbers are more than its duration apart, so
    /// no schedule of it can be checked. The validator saying so is the right answer.
    Unverifiable,
    /// Anything else: a panic, a HEFT error, an invalid schedule, a bad bound or metric.
    Failure(String),
}

/// Builds the problem of `workload` on `cluster` and schedules it with HEFT, checking the
/// schedule (valid), the lower bound (finite, at most the makespan up to
/// [`LOWER_BOUND_TOLERANCE`](worl_sched::conformance::LOWER_BOUND_TOLERANCE)) and the metrics
/// (finite); panics are caught and reported as failures.
pub fn schedule_loaded(
    workload: &std::sync::Arc<worl_dag::Workload>,
    cluster: &std::sync::Arc<worl_cluster::Cluster>,
) -> Outcome {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use worl_sched::conformance::LOWER_BOUND_TOLERANCE;
    let built = catch_unwind(AssertUnwindSafe(|| {
        worl_cluster::Problem::new(workload.clone(), cluster.clone())
    }));
    let p = match built {
        Err(p) => return Outcome::Failure(format!("Problem::new panicked: {}", payload(&*p))),
        Ok(Err(e)) => {
            assert!(!e.to_string().is_empty());
            return Outcome::ProblemError;
        }
        Ok(Ok(p)) => p,
    };
    let run = catch_unwind(AssertUnwindSafe(|| {
        let lb = p.lower_bound().value;
        let mut heft = worl_sched::schedulers::Heft::new();
        let s = worl_sched::Scheduler::schedule(&mut heft, &p, &mut worl_sched::RunContext::new(0));
        (lb, s.map(|s| (s.validate(&p), s.makespan(), s.metrics(&p))))
    }));
    match run {
        Err(pl) => Outcome::Failure(format!("HEFT or lower bound panicked: {}", payload(&*pl))),
        Ok((_, Err(e))) => Outcome::Failure(format!("HEFT failed on `{}`: {e}", workload.name())),
        Ok((lb, Ok((issues, makespan, m)))) => {
            let metrics = [
                m.makespan,
                m.slr,
                m.speedup,
                m.efficiency,
                m.utilisation,
                m.lower_bound,
                m.gap,
            ];
            let unverifiable = !issues.is_empty()
                && issues
                    .iter()
                    .all(|v| matches!(v, worl_cluster::Violation::Precision { .. }));
            if !issues.is_empty() && !unverifiable {
                Outcome::Failure(format!("invalid HEFT schedule: {issues:?}"))
            } else if !lb.is_finite() {
                Outcome::Failure(format!("lower bound {lb} is not finite"))
            } else if makespan.is_nan() || makespan < lb * (1.0 - LOWER_BOUND_TOLERANCE) {
                Outcome::Failure(format!("makespan {makespan} < lower bound {lb}"))
            } else if metrics.iter().any(|x| !x.is_finite()) {
                Outcome::Failure(format!("metrics not finite: {m:?}"))
            } else if unverifiable {
                Outcome::Unverifiable
            } else {
                Outcome::Valid
            }
        }
    }
}
