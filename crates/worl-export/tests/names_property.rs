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
use worl_dag::{Span, TaskId};
use worl_export::{CommandTemplate, DevicePolicy, Engine, ExportError, ExportOptions, ExportPlan};

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
            let plan =
                ExportPlan::new(&p, &s, &options(&c)).unwrap_or_else(|e| panic!("case {c:?}: {e}"));
            (c, plan)
        })
        .collect()
}

/// The export options of a case: the recording command, its device policy, workflow name,
/// image and host map.
fn options(c: &Case) -> ExportOptions {
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
    options
}

/// A gang case: the names of a [`Case`] on a random cluster of two machines (1 to 8 GPUs
/// of a random model each), about a quarter of the tasks gangs of 2 GPUs up to the larger
/// machine's count, with span `cluster` in one case of five (`machine` otherwise); and,
/// once scheduled by HEFT, each task's planned GPU index list by task id
/// ([`common::planned_lists`]).
#[derive(Debug, Clone)]
struct GangCase {
    case: Case,
    machine_gpus: Vec<usize>,
    models: Vec<usize>,
    gangs: Vec<u32>,
    cluster_span: bool,
    lists: Vec<String>,
}

fn gang_case() -> impl Strategy<Value = GangCase> {
    (
        case(),
        proptest::collection::vec(1usize..=8, 2),
        proptest::collection::vec(0usize..3, 2),
        proptest::collection::vec((0u32..4, 0u32..8), TASKS),
        0u32..5,
    )
        .prop_map(|(case, machine_gpus, models, draws, span)| {
            let most = *machine_gpus.iter().max().unwrap() as u32;
            let gangs = draws
                .iter()
                .map(|&(k, g)| {
                    if k == 0 && most >= 2 {
                        2 + g % (most - 1)
                    } else {
                        1
                    }
                })
                .collect();
            GangCase {
                case,
                machine_gpus,
                models,
                gangs,
                cluster_span: span == 0,
                lists: Vec::new(),
            }
        })
}

/// The gang cases' plans, drawn from a fixed seed, with how many cases were refused
/// because HEFT put a `span = cluster` gang across machines (each checked to be refused
/// with [`ExportError::GangAcrossMachines`] naming the first such task).
fn gang_plans() -> &'static (Vec<(GangCase, ExportPlan)>, usize) {
    static PLANS: std::sync::OnceLock<(Vec<(GangCase, ExportPlan)>, usize)> =
        std::sync::OnceLock::new();
    PLANS.get_or_init(|| {
        let mut runner = TestRunner::deterministic();
        let strategy = gang_case();
        let mut plans = Vec::new();
        let mut refused = 0;
        for _ in 0..cases() {
            let mut g = strategy.new_tree(&mut runner).unwrap().current();
            let span = if g.cluster_span {
                Span::Cluster
            } else {
                Span::Machine
            };
            let p = common::gang_problem(&g.case.names, &g.machine_gpus, &g.models, &g.gangs, span);
            let s = common::heft(&p);
            g.lists = common::planned_lists(&p, &s);
            let result = ExportPlan::new(&p, &s, &options(&g.case));
            let across = (0..p.n_tasks()).map(TaskId::new).find(|&v| {
                let set = s.gpus(v);
                set.iter().any(|&k| p.machine_of(k) != p.machine_of(set[0]))
            });
            match (across, result) {
                (
                    Some(v),
                    Err(ExportError::GangAcrossMachines {
                        task,
                        gpus,
                        machines,
                    }),
                ) => {
                    assert!(g.cluster_span, "{g:?}");
                    assert_eq!(task, p.task_label(v));
                    assert_eq!(gpus, p.gpus(v));
                    assert_eq!(machines.len(), 2);
                    refused += 1;
                }
                (None, Ok(plan)) => {
                    for t in plan.tasks() {
                        let set: Vec<usize> = s.gpus(t.id).iter().map(|k| k.index()).collect();
                        assert_eq!(t.gpu_ids, set, "case {g:?}");
                    }
                    plans.push((g, plan));
                }
                (across, result) => panic!(
                    "case {g:?}: task across machines {across:?}, export {:?}",
                    result.map(|_| ())
                ),
            }
        }
        (plans, refused)
    })
}

fn count_names(plans: &[(Case, ExportPlan)]) -> usize {
    plans.iter().map(|(_, p)| p.tasks().len()).sum()
}

/// Runs `check` on every case, on up to 4 threads (each with its own `state`); on a
/// failure prints the case and fails with its message.
fn each_case<C: std::fmt::Debug + Sync, S>(
    plans: &[(C, ExportPlan)],
    state: impl Fn() -> S + Sync,
    check: impl Fn(&S, &C, &ExportPlan) + Sync,
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
                            check(&st, c, plan)
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
        |sandbox, _, plan| {
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
        |sandbox, _, plan| {
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

/// The reference driver's names: workload `w`, cluster `c`, one task `a` of job `j` on
/// GPU 0, machines `m0` and `m1`.
fn reference_names() -> Names {
    Names {
        workload: "w".into(),
        cluster: "c".into(),
        jobs: vec!["j".into()],
        tasks: vec![(0, "a".into())],
        machines: vec!["m0".into(), "m1".into()],
        edges: vec![],
        gpus: vec![0],
    }
}

#[test]
fn ray_names_come_back_as_data_from_python_ast() {
    let plans = plans();
    let reference = {
        let n = reference_names();
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

/// The gang cases: enough gang tasks and both outcomes of `span = cluster`, so that the
/// checks below are not vacuous.
fn gang_cases_checked() -> &'static [(GangCase, ExportPlan)] {
    let (plans, refused) = gang_plans();
    let gangs: usize = plans
        .iter()
        .map(|(_, p)| p.tasks().iter().filter(|t| t.is_gang()).count())
        .sum();
    if cases() >= 100 {
        assert!(gangs >= cases() * 10, "only {gangs} gang tasks");
        assert!(*refused >= 1, "no gang across machines was refused");
        assert!(
            plans.iter().any(|(g, p)| g.cluster_span && p.has_gangs()),
            "no span-cluster gang exported"
        );
    }
    eprintln!(
        "gangs: {} cases exported with {gangs} gang tasks, {refused} refused (a gang across machines)",
        plans.len()
    );
    plans
}

/// Each task's GPU count, from its planned index list.
fn count(list: &str) -> usize {
    list.split(',').count()
}

#[test]
fn slurm_gang_sets_come_back_from_bash() {
    let Some(bash) = common::tool("bash") else {
        return;
    };
    each_case(
        gang_cases_checked(),
        || Sandbox::new(&bash),
        |sandbox, g, plan| {
            let got = sandbox.run_slurm(&plan.render(Engine::Slurm));
            common::check_slurm(plan, &got);
            for (t, job) in plan.tasks().iter().zip(&got) {
                let want = &g.lists[t.id.index()];
                let gres = format!("--gres=gpu:{}", count(want));
                assert_eq!(
                    job.args
                        .iter()
                        .filter(|a| a.starts_with("--gres="))
                        .collect::<Vec<_>>(),
                    [&gres],
                    "{:?}",
                    t.task
                );
                // WORL_GPU, and CUDA_VISIBLE_DEVICES under the planned policy
                assert_eq!(&job.env[3], want);
                if g.case.planned {
                    assert_eq!(&job.env[4], want);
                } else {
                    assert_eq!(job.env[4], "<unset>");
                }
                assert_eq!(&job.command_args[5], want, "{{gpu}} of {:?}", t.task);
            }
        },
    );
}

#[test]
fn argo_gang_sets_come_back_from_yaml() {
    let sh = common::tool("sh");
    let bash = common::tool("bash");
    each_case(
        gang_cases_checked(),
        || bash.as_deref().map(Sandbox::new),
        |sandbox, g, plan| {
            let yaml = plan.render(Engine::Argo);
            let v = common::check_argo(plan, &yaml);
            let templates = v["spec"]["templates"].as_array().unwrap();
            for (t, tpl) in plan.tasks().iter().zip(&templates[1..]) {
                let want = &g.lists[t.id.index()];
                let c = &tpl["container"];
                assert_eq!(
                    c["resources"]["limits"]["nvidia.com/gpu"],
                    count(want).to_string()
                );
                assert_eq!(c["env"][0]["name"], "WORL_GPU");
                assert_eq!(&c["env"][0]["value"], want.as_str());
            }
            if let (Some(sh), Some(sandbox)) = (&sh, sandbox) {
                let calls = sandbox.run_sh(sh, &common::argo_commands(&v));
                assert_eq!(calls, common::record_args(plan));
            }
        },
    );
}

#[test]
fn ray_gang_sets_come_back_from_python_ast() {
    let plans = gang_cases_checked();
    // a plain gang driver: one 2-GPU task on a machine of 2 GPUs
    let reference = {
        let n = reference_names();
        let p = common::gang_problem(&n, &[2, 1], &[0, 0], &[2], Span::Machine);
        let plan = ExportPlan::new(&p, &common::heft(&p), &ExportOptions::default()).unwrap();
        assert!(plan.has_gangs());
        plan.render(Engine::Ray)
    };
    let mut drivers = vec![reference];
    drivers.extend(
        plans
            .iter()
            .filter(|(_, p)| p.has_gangs())
            .map(|(_, p)| p.render(Engine::Ray)),
    );
    let Some(parsed) = common::parse_python(&drivers) else {
        return;
    };
    let mut checked = 0;
    for ((g, plan), d) in plans
        .iter()
        .filter(|(_, p)| p.has_gangs())
        .zip(&parsed[1..])
    {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            common::check_python(plan, d, &parsed[0].skeleton);
            for (t, e) in plan.tasks().iter().zip(d.tasks.as_array().unwrap()) {
                let want = &g.lists[t.id.index()];
                let gpus: Vec<String> = e["gpus"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_u64().unwrap().to_string())
                    .collect();
                assert_eq!(&gpus.join(","), want, "{:?}", t.task);
                assert_eq!(e["num_gpus"], count(want));
            }
        }));
        if let Err(e) = ok {
            eprintln!("case: {g:?}");
            std::panic::resume_unwind(e);
        }
        checked += 1;
    }
    assert_eq!(checked + 1, parsed.len());
    assert!(checked > 0 || cases() < 100);
}

#[test]
fn argo_gang_workflows_pass_the_argo_schema() {
    // needs a Python with `hera` and `pyyaml` (not in CI): WORL_ARGO_SCHEMA_PYTHON names it
    let Ok(python) = std::env::var("WORL_ARGO_SCHEMA_PYTHON") else {
        eprintln!(
            "skipped: set WORL_ARGO_SCHEMA_PYTHON to a python with hera and pyyaml \
             (pip install hera pyyaml)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<std::path::PathBuf> = gang_cases_checked()
        .iter()
        .filter(|(_, p)| p.has_gangs())
        .take(20)
        .enumerate()
        .map(|(i, (_, plan))| {
            let path = dir.path().join(format!("workflow{i}.yaml"));
            std::fs::write(&path, plan.render(Engine::Argo)).unwrap();
            path
        })
        .collect();
    assert!(!files.is_empty());
    let out = std::process::Command::new(python)
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/argo_schema.py"))
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "argo_schema.py: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches(": valid Argo Workflow (").count(),
        files.len(),
        "{stdout}"
    );
}
