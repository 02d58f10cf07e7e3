//! Engine names: Slurm job names and Argo (Kubernetes DNS-1123) names, made unique
//! deterministically.

use std::collections::HashSet;

/// Longest Argo DAG task / template name kept (a DNS-1123 label has at most 63 characters).
pub const DNS_LABEL_MAX: usize = 63;

/// A Slurm job name: every character outside `[A-Za-z0-9._-]` becomes `_`; an empty name
/// becomes `task`. (Slurm accepts more, but these survive shells, `squeue` formats and
/// file names.)
pub fn slurm_name(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        "task".to_owned()
    } else {
        out
    }
}

/// A DNS-1123 label (Kubernetes RFC 1123 label, as Argo wants for task and template names):
/// lower-case; runs of characters outside `[a-z0-9]` become one `-`; no `-` at either end;
/// a name not starting with a letter gets the prefix `t-`; at most [`DNS_LABEL_MAX`]
/// characters.
pub fn dns_label(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out = out.trim_matches('-').to_owned();
    if !out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out = format!("t-{out}");
    }
    out.truncate(DNS_LABEL_MAX);
    out.trim_end_matches('-').to_owned()
}

/// Unique names for `bases` through `sanitise`, deterministic and collision-free:
///
/// 1. each base is sanitised;
/// 2. a sanitised name no other base shares is kept;
/// 3. the others, in input order, get `-<i>` appended (`i` the base's 0-based position),
///    then `-<i>-2`, `-<i>-3`, ... until unused; the suffix is put before any cut that
///    `sanitise` makes (it is re-applied to the whole), so the result stays valid.
///
/// The same `bases` always give the same names; names differ from each other.
pub fn unique(bases: &[String], sanitise: impl Fn(&str) -> String) -> Vec<String> {
    let clean: Vec<String> = bases.iter().map(|b| sanitise(b)).collect();
    let mut count = std::collections::HashMap::<&str, usize>::new();
    for c in &clean {
        *count.entry(c.as_str()).or_default() += 1;
    }
    let mut used: HashSet<String> = clean
        .iter()
        .filter(|c| count[c.as_str()] == 1)
        .cloned()
        .collect();
    let mut out = Vec::with_capacity(bases.len());
    for (i, c) in clean.iter().enumerate() {
        if count[c.as_str()] == 1 {
            out.push(c.clone());
            continue;
        }
        let mut k = 1usize;
        loop {
            let suffix = if k == 1 {
                format!("-{i}")
            } else {
                format!("-{i}-{k}")
            };
            // keep the suffix even when sanitise truncates: cut the stem first
            let cand = sanitise(&format!("{c}{suffix}"));
            let cand = if cand.ends_with(&suffix) {
                cand
            } else {
                let keep = cand.len().saturating_sub(suffix.len());
                let stem: String = c.chars().take(keep).collect();
                sanitise(&format!("{stem}{suffix}"))
            };
            if used.insert(cand.clone()) {
                out.push(cand);
                break;
            }
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitises() {
        assert_eq!(slurm_name("M1 a/b"), "M1_a_b");
        assert_eq!(slurm_name(""), "task");
        assert_eq!(dns_label("J_1/Task.A"), "j-1-task-a");
        assert_eq!(dns_label("9lives"), "t-9lives");
        assert_eq!(dns_label("--"), "t");
        assert_eq!(dns_label(&"a".repeat(100)).len(), 63);
    }

    #[test]
    fn unique_names_are_unique_and_stable() {
        let bases: Vec<String> = ["a b", "a_b", "c", "a_b-1", "A.B"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let n = unique(&bases, slurm_name);
        assert_eq!(n, ["a_b-0", "a_b-1-2", "c", "a_b-1", "A.B"]);
        let d = unique(&bases, dns_label);
        // a_b -> a-b thrice, a_b-1 -> a-b-1 once: the three clashing get suffixes
        assert_eq!(d, ["a-b-0", "a-b-1-2", "c", "a-b-1", "a-b-4"]);
        let long: Vec<String> = vec!["x".repeat(80), "x".repeat(81)];
        let l = unique(&long, dns_label);
        assert_eq!(l[0].len(), 63);
        assert!(l[0].ends_with("-0") && l[1].ends_with("-1"));
        assert_eq!(unique(&bases, slurm_name), n);
    }
}
