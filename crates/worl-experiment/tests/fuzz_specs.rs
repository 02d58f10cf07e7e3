//! Seeded mutation fuzzing of the experiment inputs (issue 20; `docs/fuzzing.md`): the
//! `--schedulers` spec lists ([`specs_or_all`]), results CSV ([`Results::read_csv_from`]),
//! results JSON ([`Results::from_json`]) and the JSON-lines results files of sharded grids
//! ([`shard::merge`], [`shard::read_lines`]).
//!
//! Seeds are written by a small two-shard experiment; they are mutated with a fixed seed (the
//! text mutations of `worl-cluster/tests/mutate`). Every input must parse or give a typed
//! [`ExperimentError`] with a message, never panic, and:
//!
//! * every scheduler of a parsed list builds or gives a typed error;
//! * parsed results write back and read again into the same text (CSV and JSON);
//! * merged shard files hold every run of their grid exactly once.
//!
//! The case count scales with `WORL_FUZZ_CASES` (a multiplier).

mod common;
#[path = "../../worl-cluster/tests/mutate/mod.rs"]
mod mutate;

use mutate::{cases, mutated, no_panic, rng};
use rand::Rng;
use std::path::Path;
use worl_experiment::spec::specs_or_all;
use worl_experiment::{Experiment, ExperimentError, Results, shard};
use worl_sched::Registry;

/// Mutated inputs per parser (before `WORL_FUZZ_CASES`).
const CASES: usize = 1_500;
/// The seeds: two shard files of a small grid, its results as CSV and JSON.
struct Seeds {
    shards: [String; 2],
    csv: String,
    json: String,
}

fn seeds(dir: &Path) -> Seeds {
    let exp = Experiment::new(common::small_set())
        .scheduler("heft")
        .scheduler("random")
        .scheduler("round-robin[policy=insertion]")
        .seeds([1, 2])
        .quiet(true);
    let paths = [dir.join("a.jsonl"), dir.join("b.jsonl")];
    for (k, p) in paths.iter().enumerate() {
        exp.shard(k, 2).expect("shard").run_into(p).expect("run");
    }
    let results = shard::merge(&paths).expect("merge");
    let mut csv = Vec::new();
    results.write_csv_to(&mut csv).expect("CSV");
    Seeds {
        shards: paths.map(|p| std::fs::read_to_string(p).expect("shard file")),
        csv: String::from_utf8(csv).expect("UTF-8"),
        json: results.to_json().expect("JSON"),
    }
}

/// A failure found: parser, input and what went wrong.
#[derive(Default)]
struct Failures(Vec<(&'static str, String, String)>);

impl Failures {
    fn add(&mut self, parser: &'static str, input: &str, what: String) {
        self.0.push((parser, input.to_owned(), what));
    }

    fn assert_none(&self) {
        for (parser, input, what) in self.0.iter().take(10) {
            let shown: String = input.chars().take(2_000).collect();
            eprintln!("--- {parser}: {what}\n{shown:?}\n---");
        }
        assert!(self.0.is_empty(), "{} failures (first above)", self.0.len());
    }
}

/// Checks an error: typed (it is an [`ExperimentError`] by type) with a message.
fn check_error(parser: &'static str, input: &str, e: &ExperimentError, f: &mut Failures) {
    if e.to_string().trim().is_empty() {
        f.add(parser, input, "error without a message".into());
    }
}

/// The CSV of `r`.
fn csv_of(r: &Results) -> Result<String, ExperimentError> {
    let mut out = Vec::new();
    r.write_csv_to(&mut out)?;
    Ok(String::from_utf8(out).expect("CSV is UTF-8"))
}

#[derive(Debug, Default)]
struct Counts {
    inputs: usize,
    parsed: usize,
}

#[test]
fn mutated_experiment_inputs_parse_or_fail_typed_and_round_trip() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = seeds(dir.path());
    let registry = Registry::with_builtins();
    let mut f = Failures::default();
    let mut counts = [(); 4].map(|_| Counts::default());
    let started = std::time::Instant::now();

    // `--schedulers` lists.
    let lists = [
        "heft, rtgs:whales=10,iterations=5,woa",
        "rtgs[whales=10,a-schedule=exponential:3];worl-rtgs[agent=\"a,b.bpk\"]",
        "ga[population=6,generations=3];ils[steps=200,time=250ms],random",
    ];
    let mut r = rng(0xE4_0001);
    for _ in 0..cases(CASES) {
        let input = mutated(lists[r.random_range(0..lists.len())], &mut r, 2, Some(","));
        counts[0].inputs += 1;
        match no_panic(|| specs_or_all(&registry, std::slice::from_ref(&input))) {
            Err(p) => f.add("spec list", &input, format!("panicked: {p}")),
            Ok(Err(e)) => check_error("spec list", &input, &e, &mut f),
            Ok(Ok(specs)) => {
                counts[0].parsed += 1;
                for spec in specs {
                    match no_panic(|| spec.build(&registry).map(|_| ())) {
                        Err(p) => f.add("spec list", &input, format!("`{spec}` panicked: {p}")),
                        Ok(Err(e)) if e.to_string().trim().is_empty() => {
                            f.add("spec list", &input, format!("`{spec}`: empty error"))
                        }
                        Ok(_) => {}
                    }
                }
            }
        }
    }

    // Results CSV: what reads writes back to a fixed point.
    let mut r = rng(0xE4_0002);
    for _ in 0..cases(CASES) {
        let input = mutated(&s.csv, &mut r, 2, None);
        counts[1].inputs += 1;
        match no_panic(|| Results::read_csv_from(input.as_bytes(), "fuzz.csv")) {
            Err(p) => f.add("results CSV", &input, format!("panicked: {p}")),
            Ok(Err(e)) => check_error("results CSV", &input, &e, &mut f),
            Ok(Ok(res)) => {
                counts[1].parsed += 1;
                let once = csv_of(&res);
                let twice = once.as_ref().ok().map(|t| {
                    Results::read_csv_from(t.as_bytes(), "again.csv").and_then(|r| csv_of(&r))
                });
                match (once, twice) {
                    (Ok(a), Some(Ok(b))) if a == b => {}
                    (a, b) => f.add(
                        "results CSV",
                        &input,
                        format!("no fixed point: {:?} / {:?}", a.map(|t| t.len()), b),
                    ),
                }
            }
        }
    }

    // Results JSON: the same.
    let mut r = rng(0xE4_0003);
    for _ in 0..cases(CASES) {
        let input = mutated(&s.json, &mut r, 2, None);
        counts[2].inputs += 1;
        match no_panic(|| Results::from_json(&input)) {
            Err(p) => f.add("results JSON", &input, format!("panicked: {p}")),
            Ok(Err(e)) => check_error("results JSON", &input, &e, &mut f),
            Ok(Ok(res)) => {
                counts[2].parsed += 1;
                let once = res.to_json();
                let twice = once
                    .as_ref()
                    .ok()
                    .map(|t| Results::from_json(t).and_then(|r| r.to_json()));
                match (once, twice) {
                    (Ok(a), Some(Ok(b))) if a == b => {}
                    // Non-finite numbers are written as `null` and do not read back
                    // (documented at `Results::to_json`).
                    (Ok(a), Some(Err(_))) if a.contains("null") => {}
                    (a, b) => f.add(
                        "results JSON",
                        &input,
                        format!("no fixed point: {:?} / {b:?}", a.map(|t| t.len())),
                    ),
                }
            }
        }
    }

    // Shard files: one of the two mutated, then merged.
    let mut r = rng(0xE4_0004);
    let paths = [dir.path().join("m0.jsonl"), dir.path().join("m1.jsonl")];
    for _ in 0..cases(CASES / 3) {
        let k = r.random_range(0..2);
        let input = mutated(&s.shards[k], &mut r, 2, None);
        std::fs::write(&paths[k], &input).expect("write");
        std::fs::write(&paths[1 - k], &s.shards[1 - k]).expect("write");
        counts[3].inputs += 1;
        match no_panic(|| {
            (
                shard::read_lines(&paths[k]).map(|l| l.len()),
                shard::merge(&paths),
            )
        }) {
            Err(p) => f.add("shard files", &input, format!("panicked: {p}")),
            Ok((lines, merged)) => {
                if let Err(e) = &lines {
                    check_error("shard files", &input, e, &mut f);
                }
                match merged {
                    Err(e) => check_error("shard files", &input, &e, &mut f),
                    Ok(res) => {
                        counts[3].parsed += 1;
                        let lines = shard::read_lines(&paths[0]).expect("merged, so read");
                        let runs = lines.first().map_or(0, |(_, l)| l.runs);
                        if res.records().len() != runs {
                            f.add(
                                "shard files",
                                &input,
                                format!("{} records of a grid of {runs} runs", res.records().len()),
                            );
                        }
                    }
                }
            }
        }
    }
    println!(
        "spec lists {:?}, results CSV {:?}, results JSON {:?}, shard files {:?}; {:.2} s",
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        started.elapsed().as_secs_f64()
    );
    f.assert_none();
    for c in &counts {
        assert!(c.parsed > 0 && c.parsed < c.inputs, "{counts:?}");
    }
}

/// A results line claiming a grid of `u64::MAX` runs: `merge` must refuse it with a typed
/// error without allocating a slot per run (it panicked with a capacity overflow, and a
/// count of 10^12 aborted on a failed allocation, which no test can catch; merge now keeps
/// only the runs it reads).
#[test]
fn merge_of_a_line_with_a_huge_run_count_is_a_typed_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = seeds(dir.path());
    let first = s.shards[0].lines().next().expect("a line");
    let v: serde_json::Value = serde_json::from_str(first).expect("JSON line");
    let runs = v["runs"].as_u64().expect("runs");
    let line = first.replace(
        &format!("\"runs\":{runs}"),
        &format!("\"runs\":{}", u64::MAX),
    );
    assert_ne!(line, first, "the line has a `runs` field");
    let path = dir.path().join("huge.jsonl");
    std::fs::write(&path, format!("{line}\n")).expect("write");
    let r = no_panic(|| shard::merge(&[&path]));
    let e = r.expect("no panic").expect_err("a typed error");
    assert!(e.to_string().contains("runs"), "{e}");
}
