//! Seeded mutation fuzzing of the scheduler spec parsers (issue 20; `docs/fuzzing.md`):
//! [`Spec`]'s grammar (`rtgs[iterations=10,whales=5]`, `heft:policy=append`), spec lists
//! ([`split_spec_list`]) and [`Registry::build_spec`] with every builtin's options.
//!
//! Valid specs of every builtin are mutated with a fixed seed (the text mutations of
//! `worl-cluster/tests/mutate`: numbers replaced by huge, negative, NaN, infinite and
//! out-of-range values, options deleted, repeated or swapped, truncation, broken names,
//! hostile Unicode, very long tokens, deep nesting). Every input must parse or give a typed
//! [`ScheduleError`] with a message, never panic, and:
//!
//! * a parsed spec reads back equal from its canonical form (`Display`), with a non-empty
//!   name and unique keys;
//! * a split list gives non-empty trimmed pieces;
//! * a built scheduler whose numeric options are all small runs on a small problem under an
//!   evaluation budget: a valid schedule or a typed error, never more evaluations than the
//!   budget in its progress reports.
//!
//! The case count scales with `WORL_FUZZ_CASES` (a multiplier).

#[path = "../../worl-cluster/tests/mutate/mod.rs"]
mod mutate;

use mutate::{cases, mutated, no_panic, rng};
use rand::Rng;
use std::ops::ControlFlow;
use std::sync::Arc;
use worl_cluster::{GpuModel, Problem, presets};
use worl_dag::generators::shapes;
use worl_sched::registry::{Spec, split_spec_list};
use worl_sched::schedulers::BUILTINS;
use worl_sched::{Budget, Registry, RunContext, ScheduleError};

/// Mutated specs (and as many spec lists) before `WORL_FUZZ_CASES`.
const CASES: usize = 10_000;
/// The evaluation budget of the runs.
const RUN_EVALUATIONS: u64 = 300;
/// Specs with a number above this are built but not run (a run's cost grows with them).
const RUN_MAX_NUMBER: f64 = 1_000.0;
/// Progress events after which a run is stopped (and reported).
const RUN_MAX_EVENTS: u64 = 100_000;

/// Hand-made specs in both forms, with quoted values and budget options.
const SPECS: &[&str] = &[
    "rtgs[iterations=10,whales=5]",
    "rtgs:whales=10,iterations=5",
    "heft[policy=append,time=1s]",
    "cpop[policy=insertion,tolerance=1e-9]",
    "ga[population=6,generations=3,elites=1,tournament=2,evaluations=40]",
    "ils[steps=200,evaluations=50,time=250ms]",
    "pso:particles=4,iterations=3",
    "woa[whales=4,iterations=3,time=0.5]",
    "exact[nodes=20000]",
    "random[policy=append]",
    "worl-rtgs[agent=\"runs/a,b/agent.bpk\", a-schedule=exponential:3]",
    "dqn[episodes=3,hidden=\"64,64\"]",
];

/// Every builtin bare, with its quick options in both forms, and the hand-made specs.
fn seeds() -> Vec<String> {
    let mut out: Vec<String> = SPECS.iter().map(|s| s.to_string()).collect();
    for b in BUILTINS {
        out.push(b.name.to_owned());
        if !b.quick.is_empty() {
            out.push(format!("{}[{}]", b.name, b.quick));
            out.push(format!("{}:{}", b.name, b.quick));
        }
    }
    out
}

/// A failure found: the input and what went wrong.
#[derive(Default)]
struct Failures(Vec<(String, String)>);

impl Failures {
    fn add(&mut self, input: &str, what: String) {
        self.0.push((input.to_owned(), what));
    }

    fn assert_none(&self) {
        for (input, what) in self.0.iter().take(10) {
            let shown: String = input.chars().take(1_000).collect();
            eprintln!("--- {what}\n{shown:?}\n---");
        }
        assert!(self.0.is_empty(), "{} failures (first above)", self.0.len());
    }
}

/// Whether every option value of `spec` that is a number is at most [`RUN_MAX_NUMBER`] in
/// size (a value with a unit, `250ms`, counts by its number).
fn small_numbers(spec: &Spec) -> bool {
    spec.options.iter().all(|(_, v)| {
        let n = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        n.parse::<f64>().map_or(true, |x| x.abs() <= RUN_MAX_NUMBER)
    })
}

/// Builds `spec`'s scheduler and runs it on `p` under [`RUN_EVALUATIONS`]; why it failed,
/// if it did (a typed error of the run is no failure).
fn run_checked(registry: &Registry, spec: &str, p: &Problem) -> Option<String> {
    let mut s = match registry.build_spec(spec) {
        Ok(s) => s,
        Err(e) => return Some(format!("does not build: {e}")),
    };
    let mut max_seen = 0u64;
    let mut events = 0u64;
    let mut observer = |pr: &worl_sched::Progress| {
        max_seen = max_seen.max(pr.evaluations);
        events += 1;
        if pr.evaluations > RUN_EVALUATIONS || events > RUN_MAX_EVENTS {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let result = no_panic(|| {
        let mut ctx = RunContext::new(3)
            .with_budget(Budget::evaluations(RUN_EVALUATIONS))
            .with_observer(&mut observer);
        s.schedule(p, &mut ctx)
    });
    match result {
        Err(e) => Some(format!("run panicked: {e}")),
        Ok(Err(e)) if e.to_string().trim().is_empty() => Some("error without a message".into()),
        Ok(Err(_)) => None,
        Ok(Ok(sched)) => {
            let issues = sched.validate(p);
            if !issues.is_empty() {
                Some(format!("invalid schedule: {issues:?}"))
            } else if max_seen > RUN_EVALUATIONS {
                Some(format!(
                    "{max_seen} evaluations reported under a budget of {RUN_EVALUATIONS}"
                ))
            } else if events > RUN_MAX_EVENTS {
                Some(format!("more than {RUN_MAX_EVENTS} progress events"))
            } else {
                None
            }
        }
    }
}

#[derive(Debug, Default)]
struct Counts {
    specs: usize,
    parsed: usize,
    built: usize,
    ran: usize,
    lists: usize,
    lists_split: usize,
}

#[test]
fn mutated_specs_parse_or_fail_typed_round_trip_and_build_or_fail_typed() {
    let registry = Registry::with_builtins();
    let seeds = seeds();
    for s in &seeds {
        let spec: Spec = s.parse().unwrap_or_else(|e| panic!("seed `{s}`: {e}"));
        assert!(!spec.name.is_empty());
    }
    let p = small_problem();
    let mut f = Failures::default();
    let mut c = Counts::default();
    let mut r = rng(0x5BEC_0001);
    let started = std::time::Instant::now();
    for _ in 0..cases(CASES) {
        let sep = [",", "=", ":"][r.random_range(0..3)];
        let input = mutated(&seeds[r.random_range(0..seeds.len())], &mut r, 2, Some(sep));
        c.specs += 1;
        match no_panic(|| input.parse::<Spec>()) {
            Err(e) => f.add(&input, format!("Spec parse panicked: {e}")),
            Ok(Err(e)) => {
                if !matches!(e, ScheduleError::InvalidSpec { .. }) {
                    f.add(&input, format!("not an InvalidSpec: {e:?}"));
                }
            }
            Ok(Ok(spec)) => {
                c.parsed += 1;
                let keys: std::collections::HashSet<_> =
                    spec.options.iter().map(|(k, _)| k).collect();
                if spec.name.trim().is_empty() || keys.len() != spec.options.len() {
                    f.add(&input, format!("bad spec: {spec:?}"));
                }
                let canonical = spec.to_string();
                match canonical.parse::<Spec>() {
                    Ok(back) if back == spec => {}
                    other => f.add(
                        &input,
                        format!("`{canonical}` does not read back as {spec:?}: {other:?}"),
                    ),
                }
            }
        }
        match no_panic(|| registry.build_spec(&input).map(|s| s.name().to_owned())) {
            Err(e) => f.add(&input, format!("build_spec panicked: {e}")),
            Ok(Err(e)) => {
                if e.to_string().trim().is_empty() {
                    f.add(&input, "build error without a message".into());
                }
            }
            Ok(Ok(name)) => {
                c.built += 1;
                if name.is_empty() {
                    f.add(&input, "a scheduler without a name".into());
                }
                let spec: Spec = input.parse().expect("built, so parsed");
                if small_numbers(&spec) {
                    c.ran += 1;
                    if let Some(why) = run_checked(&registry, &input, &p) {
                        f.add(&input, why);
                    }
                }
            }
        }
        // A list: this spec between two others, joined by `,` or `;`.
        let join = if r.random_bool(0.5) { "," } else { ";" };
        let list = format!(
            "{}{join}{input}{join} {}",
            seeds[r.random_range(0..seeds.len())],
            seeds[r.random_range(0..seeds.len())]
        );
        c.lists += 1;
        match no_panic(|| split_spec_list(&list)) {
            Err(e) => f.add(&list, format!("split_spec_list panicked: {e}")),
            Ok(Err(e)) => {
                if !matches!(e, ScheduleError::InvalidSpec { .. }) {
                    f.add(&list, format!("not an InvalidSpec: {e:?}"));
                }
            }
            Ok(Ok(pieces)) => {
                c.lists_split += 1;
                if pieces.iter().any(|s| s.is_empty() || s.trim() != s) {
                    f.add(&list, format!("empty or untrimmed pieces: {pieces:?}"));
                }
            }
        }
    }
    println!(
        "specs: {} inputs, {} parsed, {} built, {} run; lists: {} inputs, {} split; {:.2} s",
        c.specs,
        c.parsed,
        c.built,
        c.ran,
        c.lists,
        c.lists_split,
        started.elapsed().as_secs_f64()
    );
    f.assert_none();
    assert!(c.parsed > 0 && c.parsed < c.specs, "{c:?}");
    assert!(c.built > 0 && c.ran > 0, "{c:?}");
    assert!(c.lists_split > 0 && c.lists_split < c.lists, "{c:?}");
}

/// The small problem the regression runs use.
fn small_problem() -> Problem {
    let cluster = Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).expect("cluster"));
    let workload = Arc::new(shapes::fork_join(3, 4.0, 2.0e9).expect("fork-join"));
    Problem::new(workload, cluster).expect("problem")
}

/// Issue 20, item 7: an iteration count beyond a search's cap (`u64::MAX`, `u64::MAX + 1`)
/// is a typed error naming the option at build time, before any work.
#[test]
fn iteration_count_beyond_the_cap_is_an_invalid_option() {
    let registry = Registry::with_builtins();
    for spec in [
        "rtgs[iterations=18446744073709551615]",
        "rtgs[iterations=18446744073709551616]",
        "woa[iterations=10000000]",
        "pso[iterations=10000000]",
    ] {
        let e = registry.build_spec(spec).err().expect("a typed error");
        assert!(
            matches!(e, ScheduleError::InvalidOption { .. }),
            "{spec}: {e:?}"
        );
        assert!(e.to_string().contains("iterations"), "{spec}: {e}");
    }
}

/// Issue 20, item 7: a search's own iteration count does not keep it running once the
/// evaluation budget of its run is spent (RTGS with `iterations=1000000` under a budget of
/// 300 evaluations went on with a million empty iterations, > 100,000 progress events).
#[test]
fn huge_iteration_count_stops_when_the_evaluation_budget_is_spent() {
    let registry = Registry::with_builtins();
    let p = small_problem();
    let broken: Vec<(&str, String)> = [
        "rtgs[iterations=1000000]",
        "woa[iterations=1000000]",
        "pso[iterations=1000000]",
        "ga[generations=1000000]",
    ]
    .into_iter()
    .filter_map(|spec| run_checked(&registry, spec, &p).map(|why| (spec, why)))
    .collect();
    assert!(broken.is_empty(), "{broken:?}");
}
