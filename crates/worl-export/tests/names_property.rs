//! Property tests of the exporters' threat model (`docs/threat-model.md`): arbitrary Unicode
//! names (task, job, workload, cluster, machine and host names, and through the command
//! template every placeholder's value) go through every exporter, and each artifact is read
//! back the way its engine reads it:
//!
//! * Slurm: the submit script runs with `bash` against a stand-in `sbatch` (a bash function
//!   that records its options and batch script, then runs the batch script); the task's
//!   command is `record {task} {job} ...`, which records its arguments and the job's
//!   `WORL_*` environment. `PATH` holds only a `canary` program: any name that became code
//!   and called it fails the test, and so does any recorded value other than the name.
//! * Argo: the YAML is parsed (yaml-rust2, YAML 1.2) and must have exactly the Workflow's
//!   top-level keys, the structure the exporter meant, and every name in its place; the
//!   containers' commands then run with `sh` and must record the names.
//! * Ray: all drivers are parsed at once by Python's `ast` (`tests/py_ast_check.py`): the
//!   code must be the same as a plain driver's, and `TASKS` etc. the names.
//!
//! Each engine gets `CASES` (100; env `WORL_EXPORT_CASES`) workloads of `TASKS` (100) tasks:
//! 10,000 random task names per engine, plus job, workload, cluster, machine and host names.
//! The names are drawn by proptest strategies from a fixed seed (reproducible); a failure
//! prints the case. Without bash, sh or python3 the checks that need them print a skip
//! notice, and fail under `CI=true`.

mod common;

use common::{Names, RECORD, Sandbox};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::collections::HashSet;
use worl_export::{CommandTemplate, DevicePolicy, Engine, ExportOptions, ExportPlan};

const TASKS: usize = 100;

fn cases() -> usize {
    std::env::var("WORL_EXPORT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

/// Pieces that break naive quoting in one of the three languages.
const NASTY: &[&str] = &[
    "\n",
    "\r\n",
    "\r",
    "\u{b}",
    "\u{c}",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "\u{202e}",
    "\t",
    "'",
    "\"",
    "\\",
    "`",
    "$",
    "$(canary)",
    "`canary`",
    ";canary;",
    "&& canary",
    "| canary",
    "\ncanary\n",
    "'$(canary)'",
    "\"$(canary)\"",
    "\nWORL_EOF\ncanary\n",
    "WORL_EOF",
    "WORL_EOF_2",
    "<<",
    "${IFS}",
    "$'\\n'",
    "{",
    "}",
    "{{",
    "{task}",
    "#",
    " # ",
    ": ",
    "- ",
    "? ",
    "---",
    "...",
    "&a",
    "*a",
    "!!python/object",
    "%YAML",
    "@",
    "|",
    ">",
    "[",
    "]",
    "'''",
    "''''",
    "\"\"\"",
    "\\x41",
    "\\u2028",
    "\\N",
    "\u{2028}status: {phase: Succeeded}",
    "\")\nimport os\nos.system('canary')\n#",
    "~",
    "null",
    "true",
    "0x1F",
    "1e3",
    "é",
    "名前",
    "🦀",
    "\u{10ffff}",
    "\u{7f}",
    "\u{9b}",
    "\u{1}",
];

/// One name: up to four pieces, each random characters (any Unicode scalar but NUL, or
/// ASCII punctuation) or a nasty fragment; now and then very long.
fn name() -> impl Strategy<Value = String> {
    let chars = prop_oneof![
        any::<char>().prop_map(|c| if c == '\0' { 'Z' } else { c }),
        proptest::char::range(' ', '~'),
    ];
    let piece = prop_oneof![
        3 => proptest::collection::vec(chars, 0..12).prop_map(|v| v.into_iter().collect::<String>()),
        2 => proptest::sample::select(NASTY).prop_map(str::to_owned),
    ];
    prop_oneof![
        50 => proptest::collection::vec(piece.clone(), 1..5).prop_map(|v| v.concat()),
        1 => (piece, 100usize..3000).prop_map(|(p, k)| format!("{p}{}", "x\u{2028}'".repeat(k))),
    ]
}

/// Makes `names` distinct (and non-empty) by appending `#<i>` where needed.
fn distinct(names: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let n = if n.is_empty() { format!("e{i}") } else { n };
            if seen.insert(n.clone()) {
                n
            } else {
                let m = format!("{n}#{i}");
                seen.insert(m.clone());
                m
            }
        })
        .collect()
}

/// One case: the names of a workload of [`TASKS`] tasks in 1 to 3 jobs on two machines,
/// the host map (each machine mapped or not), the device policy, and the workflow name and
/// container image options.
#[derive(Debug, Clone)]
struct Case {
    names: Names,
    hosts: Vec<Option<String>>,
    planned: bool,
    workflow: Option<String>,
    image: Option<String>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        name(),
        name(),
        proptest::collection::vec(name(), 1..4),
        proptest::collection::vec(name(), TASKS),
        proptest::collection::vec(name(), 2),
        proptest::collection::vec(proptest::option::of(name()), 2),
        proptest::collection::vec(
            (0usize..3, 0usize..4, proptest::option::of(0usize..TASKS)),
            TASKS,
        ),
        (
            any::<bool>(),
            proptest::option::of(name()),
            proptest::option::of(name()),
        ),
    )
        .prop_map(
            |(workload, cluster, jobs, tasks, machines, hosts, shape, options)| {
                let (planned, workflow, image) = options;
                let workload = common::model_name(&workload);
                let jobs = distinct(jobs.iter().map(|j| common::model_name(j)).collect());
                let tasks: Vec<String> = tasks.iter().map(|t| common::model_name(t)).collect();
                let machines = distinct(machines);
                // task names distinct within their job
                let mut per_job: Vec<Vec<(usize, String)>> = vec![Vec::new(); jobs.len()];
                for (i, t) in tasks.into_iter().enumerate() {
                    per_job[shape[i].0 % jobs.len()].push((i, t));
                }
                let mut named = vec![(0, String::new()); TASKS];
                for (j, list) in per_job.into_iter().enumerate() {
                    let (idx, ns): (Vec<usize>, Vec<String>) = list.into_iter().unzip();
                    for (i, n) in idx.into_iter().zip(distinct(ns)) {
                        named[i] = (j, n);
                    }
                }
                let edges = shape
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.2.filter(|&f| f < i).map(|f| (f, i)))
                    .collect();
                // hosts distinct from each other and from the other machine's name
                let mut hosts = hosts;
                let effective = |k: usize, h: &[Option<String>]| {
                    h[k].clone().unwrap_or_else(|| machines[k].clone())
                };
                if effective(0, &hosts) == effective(1, &hosts) {
                    hosts[1] = Some(format!("{}#h", effective(1, &hosts)));
                }
                Case {
                    names: Names {
                        workload,
                        cluster,
                        jobs,
                        tasks: named,
                        machines,
                        edges,
                        gpus: shape.iter().map(|s| s.1).collect(),
                    },
                    hosts,
                    planned,
                    workflow,
                    image,
                }
            },
        )
}

/// The plans of every case, drawn from a fixed seed (once for the three tests).
fn plans() -> &'static [(Case, ExportPlan)] {
    static PLANS: std::sync::OnceLock<Vec<(Case, ExportPlan)>> = std::sync::OnceLock::new();
    PLANS.get_or_init(draw_plans)
}

fn draw_plans() -> Vec<(Case, ExportPlan)> {
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    (0..cases())
        .map(|_| {
            let c = strategy.new_tree(&mut runner).unwrap().current();
            let (p, s) = common::problem(&c.names);
            let mut options = ExportOptions {
                command: CommandTemplate::new(RECORD).unwrap(),
                devices: if c.planned {
                    DevicePolicy::Planned
                } else {
                    DevicePolicy::Engine
                },
                name: c.workflow.clone(),
                ..ExportOptions::default()
            };
            if let Some(image) = &c.image {
                options.image.clone_from(image);
            }
            for (m, h) in c.names.machines.iter().zip(&c.hosts) {
                if let Some(h) = h {
                    options.hosts.insert(m.clone(), h.clone());
                }
            }
            let plan =
                ExportPlan::new(&p, &s, &options).unwrap_or_else(|e| panic!("case {c:?}: {e}"));
            (c, plan)
        })
        .collect()
}

fn count_names(plans: &[(Case, ExportPlan)]) -> usize {
    plans.iter().map(|(_, p)| p.tasks().len()).sum()
}

/// Runs `check` on every case, on up to 4 threads (each with its own `state`); on a
/// failure prints the case and fails with its message.
fn each_case<S>(
    plans: &[(Case, ExportPlan)],
    state: impl Fn() -> S + Sync,
    check: impl Fn(&S, &ExportPlan) + Sync,
) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let chunk = plans.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = plans
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| {
                let (state, check) = (&state, &check);
                scope.spawn(move || {
                    let st = state();
                    for (i, (c, plan)) in part.iter().enumerate() {
                        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            check(&st, plan)
                        }));
                        if let Err(e) = ok {
                            eprintln!("case {}: {c:?}", k * chunk + i);
                            std::panic::resume_unwind(e);
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            if let Err(e) = w.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

#[test]
fn slurm_names_come_back_as_data_from_bash() {
    let Some(bash) = common::tool("bash") else {
        return;
    };
    let plans = plans();
    assert!(count_names(plans) >= cases() * TASKS);
    each_case(
        plans,
        || Sandbox::new(&bash),
        |sandbox, plan| {
            let script = plan.render(Engine::Slurm);
            assert!(!script.contains('\r'), "raw CR");
            let got = sandbox.run_slurm(&script);
            common::check_slurm(plan, &got);
        },
    );
    eprintln!(
        "slurm: {} task names through bash, no name ran",
        count_names(plans)
    );
}

#[test]
fn argo_names_come_back_as_data_from_yaml_and_sh() {
    let plans = plans();
    let sh = common::tool("sh");
    let bash = common::tool("bash");
    each_case(
        plans,
        || bash.as_deref().map(Sandbox::new),
        |sandbox, plan| {
            let yaml = plan.render(Engine::Argo);
            let v = common::check_argo(plan, &yaml);
            if let (Some(sh), Some(sandbox)) = (&sh, sandbox) {
                let calls = sandbox.run_sh(sh, &common::argo_commands(&v));
                assert_eq!(calls, common::record_args(plan));
            }
        },
    );
    eprintln!("argo: {} task names through YAML", count_names(plans));
}

#[test]
fn ray_names_come_back_as_data_from_python_ast() {
    let plans = plans();
    let reference = {
        let n = Names {
            workload: "w".into(),
            cluster: "c".into(),
            jobs: vec!["j".into()],
            tasks: vec![(0, "a".into())],
            machines: vec!["m0".into(), "m1".into()],
            edges: vec![],
            gpus: vec![0],
        };
        let (p, s) = common::problem(&n);
        ExportPlan::new(&p, &s, &ExportOptions::default())
            .unwrap()
            .render(Engine::Ray)
    };
    let mut drivers = vec![reference];
    for (i, (_, plan)) in plans.iter().enumerate() {
        let py = plan.render(Engine::Ray);
        assert!(
            py.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b)),
            "case {i}: not printable ASCII"
        );
        drivers.push(py);
    }
    let Some(parsed) = common::parse_python(&drivers) else {
        return;
    };
    assert_eq!(parsed.len(), plans.len() + 1);
    for (i, ((c, plan), d)) in plans.iter().zip(&parsed[1..]).enumerate() {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            common::check_python(plan, d, &parsed[0].skeleton);
        }));
        if let Err(e) = ok {
            eprintln!("case {i}: {c:?}");
            std::panic::resume_unwind(e);
        }
    }
    eprintln!(
        "ray: {} task names through Python's ast",
        count_names(plans)
    );
}
