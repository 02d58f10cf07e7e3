//! Scripted GPU outages from text: the `outages:` and `script:FILE` forms of [`Failures`],
//! their errors, their round trip through `Display`, and a hand-computed simulation.

use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use worl_cluster::{GpuId, GpuModel, Plan, Problem, presets};
use worl_dag::WorkloadBuilder;
use worl_sim::policies::AsPlanned;
use worl_sim::{
    Event, Failures, MAX_OUTAGES, Outage, SimConfig, SimError, SimResult, Simulation, TaskRecord,
    check_log,
};

fn o(gpu: usize, from: f64, to: f64) -> Outage {
    Outage::new(GpuId::new(gpu), from, to)
}

fn parse(s: &str) -> Failures {
    s.parse::<Failures>()
        .unwrap_or_else(|e| panic!("`{s}`: {e}"))
}

/// The error of parsing `s`, as a one-line message.
fn error(s: &str) -> (SimError, String) {
    let e = s.parse::<Failures>().expect_err(s);
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    (e, msg)
}

/// A file `name` of this test process holding `text`.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("worl-sim-outages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The error of `script:` on a file holding `text`: the message, and the line it names.
fn script_error(name: &str, text: &str) -> (String, Option<u64>) {
    let path = file(name, text);
    let spec = format!("script:{}", path.display());
    match error(&spec) {
        (SimError::InvalidScript { file, line, reason }, msg) => {
            assert_eq!(file, path.display().to_string());
            assert!(msg.contains(&file) && msg.contains(&reason), "{msg}");
            (msg, line)
        }
        (e, _) => panic!("{name}: {e:?}"),
    }
}

#[test]
fn outage_lists_parse() {
    assert_eq!(
        parse("outages:0@5+20"),
        Failures::Script(vec![o(0, 5.0, 25.0)])
    );
    assert_eq!(
        parse(" Outages: g1@0+0.5 ; 0@10..12, 1@1e+1+2.5 "),
        Failures::Script(vec![o(1, 0.0, 0.5), o(0, 10.0, 12.0), o(1, 10.0, 12.5)])
    );
    // Overlapping outages of one GPU are kept as given (they merge when simulated).
    assert_eq!(
        parse("outages:0@5+10;0@10+15"),
        Failures::Script(vec![o(0, 5.0, 15.0), o(0, 10.0, 25.0)])
    );
    assert_eq!(parse("outages:"), Failures::Script(vec![]));
    assert_eq!(
        parse("outages:0@0..1e12"),
        Failures::Script(vec![o(0, 0.0, 1e12)])
    );
    // The other forms are unchanged.
    assert_eq!(parse("none"), Failures::None);
    assert_eq!(
        parse("mtbf:2"),
        Failures::Mtbf {
            hours: 2.0,
            repair_s: 600.0
        }
    );
    assert_eq!(
        parse("MTBF:2:30"),
        Failures::Mtbf {
            hours: 2.0,
            repair_s: 30.0
        }
    );
}

#[test]
fn display_round_trips() {
    for (s, shown) in [
        ("none", "none"),
        ("mtbf:24", "mtbf:24:600"),
        ("outages:", "outages:"),
        ("outages:g0@5+20", "outages:0@5+20"),
        ("outages:3@5..25;0@0+1.25", "outages:3@5+20;0@0+1.25"),
        // FROM + (TO - FROM) is not TO here in f64: the repair time is written instead of
        // the duration.
        (
            "outages:1@3.8120423768821246..12.405167780940472",
            "outages:1@3.8120423768821246..12.405167780940472",
        ),
    ] {
        let f = parse(s);
        assert_eq!(f.to_string(), shown, "{s}");
        assert_eq!(parse(shown), f, "{s}");
    }
}

proptest! {
    #[test]
    fn any_valid_script_round_trips(
        raw in prop::collection::vec((0usize..1000, 0.0f64..1e6, 1e-9f64..1e6), 0..20)
    ) {
        let f = Failures::Script(raw.iter().map(|&(g, from, d)| o(g, from, from + d)).collect());
        f.validate(1000).unwrap();
        let text = f.to_string();
        prop_assert_eq!(text.parse::<Failures>().unwrap(), f, "{}", text);
    }
}

#[test]
fn each_bad_outage_list_is_a_one_line_error_naming_the_outage() {
    for (spec, names) in [
        (
            "outages:0@5+20;1@x+3",
            "outage 2 `1@x+3`: failure time `x` is not a number",
        ),
        (
            "outages:0@5+y",
            "outage 1 `0@5+y`: duration `y` is not a number",
        ),
        (
            "outages:0@5..z",
            "outage 1 `0@5..z`: repair time `z` is not a number",
        ),
        (
            "outages:gpu0@5+20",
            "outage 1 `gpu0@5+20`: GPU `gpu0` is not a GPU index",
        ),
        ("outages:-1@5+20", "GPU `-1` is not a GPU index"),
        (
            "outages:0@5+inf",
            "outage 1 `0@5+inf`: the duration must be finite and > 0 s",
        ),
        ("outages:0@5+0", "the duration must be finite and > 0 s"),
        ("outages:0@5+-2", "the duration must be finite and > 0 s"),
        (
            "outages:0@inf+1",
            "the failure time must be finite and >= 0",
        ),
        (
            "outages:0@-1+2",
            "outage 1 `0@-1+2`: the failure time must be finite and >= 0",
        ),
        (
            "outages:0@5..5",
            "the repair time must be finite and after the failure",
        ),
        (
            "outages:0@5..4",
            "the repair time must be finite and after the failure",
        ),
        ("outages:0@1e12+1", "outage times must be at most 1e12 s"),
        (
            "outages:0@5+20;;1@0+1",
            "outage 2 ``: expected GPU@FROM+DURATION or GPU@FROM..TO",
        ),
        (
            "outages:0@5",
            "outage 1 `0@5`: expected GPU@FROM+DURATION or GPU@FROM..TO",
        ),
        ("outages:0:5+20", "expected GPU@FROM+DURATION"),
        ("script:", "no file named"),
        (
            "mtbf:1:2:3",
            "expected none, mtbf:HOURS[:REPAIR_S], outages:",
        ),
        (
            "outage:0@5+20",
            "expected none, mtbf:HOURS[:REPAIR_S], outages:",
        ),
        ("none:1", "expected none"),
    ] {
        let (_, msg) = error(spec);
        assert!(msg.contains(names), "`{spec}`: {msg}");
        assert!(
            msg.contains(spec) || spec.starts_with("script"),
            "`{spec}`: {msg}"
        );
    }
    // More than MAX_OUTAGES outages: refused by count, naming it.
    let many = format!("outages:{}", vec!["0@1+1"; MAX_OUTAGES + 1].join(";"));
    let e = many.parse::<Failures>().unwrap_err().to_string();
    assert!(e.len() < 300, "{e}");
    assert!(
        e.starts_with("invalid failures `outages:0@1+1;0@1+1;"),
        "{e}"
    );
    assert!(e.contains("1000001 outages, more than the 1000000"), "{e}");
    let most = format!("outages:{}", vec!["0@1+1"; MAX_OUTAGES].join(";"));
    assert!(matches!(parse(&most), Failures::Script(v) if v.len() == MAX_OUTAGES));
}

#[test]
fn a_gpu_outside_the_cluster_is_refused_by_the_simulation_naming_gpu_and_size() {
    let p = chain_on_two_gpus();
    let failures = parse("outages:1@0+1;g2@3+4");
    let e = refused(&p, failures);
    assert!(matches!(e, SimError::InvalidOutage { gpu: 2, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid outage of GPU 2 from 3 s to 7 s: outage 2 `g2@3+4`: GPU g2 is not in the cluster, which has 2 GPUs (g0..g1)"
    );
}

#[test]
fn script_files_parse() {
    let path = file(
        "good.csv",
        "# scripted maintenance\nto, gpu ,from\n25,0,5\n\n# second\n31.5, g1, 30\n",
    );
    assert_eq!(
        parse(&format!("script: {}", path.display())),
        Failures::Script(vec![o(0, 5.0, 25.0), o(1, 30.0, 31.5)])
    );
    // A script read from a file shows as its outage list, which parses to the same value.
    assert_eq!(
        parse(&format!("script:{}", path.display())).to_string(),
        "outages:0@5+20;1@30+1.5"
    );
    let path = file("header-only.csv", "gpu,from,to\n");
    assert_eq!(
        parse(&format!("script:{}", path.display())),
        Failures::Script(vec![])
    );
}

#[test]
fn each_bad_script_file_is_an_error_naming_file_and_line() {
    let cases: [(&str, &str, Option<u64>, &str); 10] = [
        (
            "bad-gpu.csv",
            "gpu,from,to\n0,5,25\nx1,5,25\n",
            Some(3),
            "GPU `x1` is not a GPU index",
        ),
        (
            "bad-from.csv",
            "gpu,from,to\n0,5,25\n1,2,3\n0,,25\n",
            Some(4),
            "failure time (from) `` is not a number",
        ),
        (
            "bad-to.csv",
            "gpu,from,to\n0,5,abc\n",
            Some(2),
            "repair time (to) `abc` is not a number",
        ),
        (
            "backwards.csv",
            "gpu,from,to\n0,5,25\n0,25,5\n",
            Some(3),
            "the repair time must be finite and after the failure",
        ),
        (
            "inf.csv",
            "gpu,from,to\n0,5,inf\n",
            Some(2),
            "the repair time must be finite",
        ),
        (
            "negative.csv",
            "gpu,from,to\n0,-5,25\n",
            Some(2),
            "the failure time must be finite and >= 0",
        ),
        (
            "short-row.csv",
            "gpu,from,to\n0,5,25\n0,5\n",
            Some(3),
            "2 fields, the header has 3",
        ),
        (
            "unknown-column.csv",
            "gpu,start,to\n0,5,25\n",
            Some(1),
            "unknown column `start` (the header is gpu,from,to)",
        ),
        (
            "missing-column.csv",
            "# c\ngpu,from\n0,5\n",
            Some(2),
            "no column `to`",
        ),
        (
            "repeated-column.csv",
            "gpu,from,to,gpu\n0,5,25,0\n",
            Some(1),
            "column `gpu` is repeated",
        ),
    ];
    for (name, text, line, reason) in cases {
        let (msg, at) = script_error(name, text);
        assert_eq!(at, line, "{name}: {msg}");
        assert!(msg.contains(reason), "{name}: {msg}");
        assert!(
            msg.contains(&format!("{name}`, line {}: ", line.unwrap())),
            "{name}: {msg}"
        );
    }
    let path = file("latin1.csv", "");
    std::fs::write(&path, b"gpu,from,to\n0,5,25\n0,5\xff,25\n").unwrap();
    let (msg, at) = script_error_at(&path);
    assert_eq!(at, Some(3), "{msg}");
    assert!(msg.contains("not UTF-8"), "{msg}");
    // The file as a whole: missing, a directory.
    let missing = std::env::temp_dir().join("worl-sim-outages-no-such-file.csv");
    let (msg, at) = script_error_at(&missing);
    assert_eq!(at, None);
    assert!(
        msg.starts_with(&format!("outage script `{}`: ", missing.display())),
        "{msg}"
    );
    let (msg, at) = script_error_at(&std::env::temp_dir());
    assert_eq!(at, None);
    assert!(msg.ends_with("is a directory"), "{msg}");
}

fn script_error_at(path: &std::path::Path) -> (String, Option<u64>) {
    match error(&format!("script:{}", path.display())) {
        (SimError::InvalidScript { line, .. }, msg) => (msg, line),
        (e, _) => panic!("{e:?}"),
    }
}

#[test]
fn a_script_file_of_more_than_max_outages_rows_names_the_first_row_too_many() {
    let mut text = String::from("gpu,from,to\n");
    for _ in 0..=MAX_OUTAGES {
        text.push_str("0,1,2\n");
    }
    let (msg, at) = script_error("many.csv", &text);
    // Header on line 1, the million-and-first row on line 1,000,002.
    assert_eq!(at, Some(MAX_OUTAGES as u64 + 2), "{msg}");
    assert!(msg.contains("more than the 1000000"), "{msg}");
}

/// A chain `a -> b` (work 10 each: 10 s on a V100, no bytes) on one machine of two V100s.
/// The error of setting up a simulation of `p` with `failures` (which must be refused).
fn refused(p: &Problem, failures: Failures) -> SimError {
    Simulation::new(
        p,
        SimConfig {
            failures,
            ..SimConfig::default()
        },
    )
    .unwrap_err()
}

fn chain_on_two_gpus() -> Problem {
    let mut wb = WorkloadBuilder::new("w");
    let j = wb.add_job("j").unwrap();
    let a = wb.add_task(j, "a", 10.0, None).unwrap();
    let b = wb.add_task(j, "b", 10.0, None).unwrap();
    wb.add_edge(a, b, 0.0).unwrap();
    let cluster = presets::homogeneous(2, &GpuModel::v100_16gb()).unwrap();
    Problem::new(Arc::new(wb.build().unwrap()), Arc::new(cluster)).unwrap()
}

/// The chain planned on g0, replayed under `failures`, log checked.
fn replay_on_g0(failures: &str) -> SimResult {
    let p = chain_on_two_gpus();
    let cfg = SimConfig {
        failures: parse(failures),
        record_events: true,
        ..SimConfig::default()
    };
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 2]);
    let r = Simulation::new(&p, cfg)
        .unwrap()
        .run(&mut AsPlanned::from_plan(plan), 1)
        .unwrap();
    check_log(&p, &r).unwrap_or_else(|v| panic!("{v:#?}"));
    r
}

#[test]
fn an_outage_from_text_loses_the_running_task_and_as_planned_retries_it_on_its_gpu() {
    // a runs on g0 from 0 s; g0 is down on [5, 25): a is lost at 5 s after 5 s of work
    // (lost time 5), AsPlanned sends it back to g0, where it goes before b; it restarts when
    // g0 is repaired, 25..35 s, and b follows, 35..45 s.
    let r = replay_on_g0("outages:0@5+20");
    assert_eq!(
        r.tasks[0],
        TaskRecord {
            gpu: GpuId::new(0),
            start: 25.0,
            finish: 35.0,
            attempts: 2,
            lost_time: 5.0
        }
    );
    assert_eq!(
        r.tasks[1],
        TaskRecord {
            gpu: GpuId::new(0),
            start: 35.0,
            finish: 45.0,
            attempts: 1,
            lost_time: 0.0
        }
    );
    assert_eq!(r.metrics.makespan, 45.0);
    assert_eq!(r.metrics.lost_time, 5.0);
    let g0 = GpuId::new(0);
    for e in [
        Event::GpuDown { time: 5.0, gpu: g0 },
        Event::Lost {
            time: 5.0,
            task: worl_dag::TaskId::new(0),
            gpu: g0,
        },
        Event::GpuUp {
            time: 25.0,
            gpu: g0,
        },
    ] {
        assert!(r.events.contains(&e), "{e:?} not in {:#?}", r.events);
    }
    // An outage of the idle g1 changes nothing; an outage of g0 after the end neither.
    let clean = replay_on_g0("none");
    assert_eq!(clean.metrics.makespan, 20.0);
    for idle in ["outages:1@0+100", "outages:0@50+10"] {
        let r = replay_on_g0(idle);
        assert_eq!(r.tasks, clean.tasks, "{idle}");
        assert_eq!(r.metrics.lost_time, 0.0, "{idle}");
    }
    // b is lost too when the outage hits it: b runs 10..20 without failure; down on
    // [15, 16): b lost after 5 s, again 16..26.
    let r = replay_on_g0("outages:0@15+1");
    assert_eq!((r.tasks[1].start, r.tasks[1].finish), (16.0, 26.0));
    assert_eq!(r.metrics.lost_time, 5.0);
}

#[test]
fn overlapping_and_touching_outages_of_one_gpu_merge() {
    let one = replay_on_g0("outages:0@5+20");
    for merged in [
        "outages:0@5+10;0@10+15",
        "outages:0@10+15;0@5+10",
        "outages:0@5..15;0@15..25",
        "outages:0@5+20;0@6+1;0@5+20",
    ] {
        let r = replay_on_g0(merged);
        assert_eq!(r.tasks, one.tasks, "{merged}");
        assert_eq!(r.metrics.lost_time, 5.0, "{merged}");
    }
}

#[test]
fn a_script_file_simulates_like_the_same_outage_list() {
    let path = file("chain.csv", "gpu,from,to\ng0,5,25\n");
    let from_file = replay_on_g0(&format!("script:{}", path.display()));
    let inline = replay_on_g0("outages:0@5+20");
    assert_eq!(from_file.tasks, inline.tasks);
    assert_eq!(from_file.events, inline.events);
}

#[test]
fn comment_and_blank_lines_count_in_the_line_numbers() {
    let (msg, at) = script_error(
        "comments.csv",
        "# c\n\n# d, e\ngpu,from,to\n0,5,25\n# f\n\n0,x,25\n",
    );
    assert_eq!(at, Some(8), "{msg}");
    let (msg, at) = script_error("empty.csv", "# only a comment\n");
    assert_eq!(at, None, "{msg}");
    assert!(msg.ends_with("no header (the first line that is not a comment is gpu,from,to)"));
}

#[test]
fn an_endless_script_stream_is_refused_at_the_size_cap() {
    // A device reports size 0: the read itself must stop one byte past the cap.
    for dev in ["/dev/zero", "/dev/urandom"] {
        if !std::path::Path::new(dev).exists() {
            continue;
        }
        let (msg, at) = script_error_at(std::path::Path::new(dev));
        assert_eq!(at, None, "{msg}");
        assert_eq!(
            msg,
            format!(
                "outage script `{dev}`: more than the 67108864 bytes an outage script may have"
            )
        );
    }
}

#[test]
fn an_outage_starting_when_a_task_finishes_does_not_lose_it() {
    // Outages cover [from, to), tasks run on [start, finish). a runs 0..10, b 10..20 on g0.
    // g0 down on [20, 25): b is done at 20, nothing is lost, makespan 20.
    let r = replay_on_g0("outages:0@20+5");
    assert_eq!(
        (r.tasks[1].start, r.tasks[1].finish, r.tasks[1].attempts),
        (10.0, 20.0, 1)
    );
    assert_eq!((r.metrics.makespan, r.metrics.lost_time), (20.0, 0.0));
    // g0 down on [10, 15): a is done at 10; b, queued on g0, starts when g0 is repaired at
    // 15 (a GPU repaired at t starts a task at t): 15..25.
    let r = replay_on_g0("outages:0@10+5");
    let rec = |start, finish| TaskRecord {
        gpu: GpuId::new(0),
        start,
        finish,
        attempts: 1,
        lost_time: 0.0,
    };
    assert_eq!(r.tasks, [rec(0.0, 10.0), rec(15.0, 25.0)]);
    assert_eq!((r.metrics.makespan, r.metrics.lost_time), (25.0, 0.0));
    let g0 = GpuId::new(0);
    let a = worl_dag::TaskId::new(0);
    let at = |e: &Event| r.events.iter().position(|x| x == e).unwrap();
    assert!(
        at(&Event::Finished {
            time: 10.0,
            task: a,
            gpu: g0
        }) < at(&Event::GpuDown {
            time: 10.0,
            gpu: g0
        })
    );
    assert!(!r.events.iter().any(|e| matches!(e, Event::Lost { .. })));
}

#[test]
fn touching_outages_keep_the_gpu_down_without_an_up_between() {
    // [5, 15) then [15, 25) on g0: a failure and a repair at 15 take g0 down first, so the
    // log has one down (5) and one up (25), as for the single outage [5, 25).
    let r = replay_on_g0("outages:0@5..15;0@15..25");
    let ups_downs: Vec<&Event> = r
        .events
        .iter()
        .filter(|e| matches!(e, Event::GpuDown { .. } | Event::GpuUp { .. }))
        .collect();
    let g0 = GpuId::new(0);
    assert_eq!(
        ups_downs,
        [
            &Event::GpuDown { time: 5.0, gpu: g0 },
            &Event::GpuUp {
                time: 25.0,
                gpu: g0
            }
        ]
    );
}

#[test]
fn a_long_finite_outage_script_is_not_cut_by_the_random_failures_loss_cap() {
    // One task of 10 s on g0; g0 down on [5i + 4, 5i + 5) for i = 0..=1000. Attempt i runs
    // from 5i (the repair of outage i - 1; 0 for the first) and is lost at 5i + 4 after 4 s:
    // 1001 losses of 4 s = 4004 s, more than MAX_ATTEMPTS = 1000. The last outage ends at
    // 5005: the 1002nd attempt runs 5005..5015.
    let mut wb = WorkloadBuilder::new("w");
    let j = wb.add_job("j").unwrap();
    wb.add_task(j, "a", 10.0, None).unwrap();
    let cluster = presets::homogeneous(2, &GpuModel::v100_16gb()).unwrap();
    let p = Problem::new(Arc::new(wb.build().unwrap()), Arc::new(cluster)).unwrap();
    let list: Vec<String> = (0..=1000)
        .map(|i| format!("0@{}..{}", 5 * i + 4, 5 * i + 5))
        .collect();
    let cfg = SimConfig {
        failures: parse(&format!("outages:{}", list.join(";"))),
        record_events: true,
        ..SimConfig::default()
    };
    let plan = Plan::in_topo_order(p.graph(), vec![GpuId::new(0)]);
    let r = Simulation::new(&p, cfg)
        .unwrap()
        .run(&mut AsPlanned::from_plan(plan), 1)
        .unwrap();
    check_log(&p, &r).unwrap_or_else(|v| panic!("{v:#?}"));
    assert_eq!(
        r.tasks[0],
        TaskRecord {
            gpu: GpuId::new(0),
            start: 5005.0,
            finish: 5015.0,
            attempts: 1002,
            lost_time: 4004.0
        }
    );
    assert_eq!((r.metrics.makespan, r.metrics.lost_time), (5015.0, 4004.0));
    assert!(r.tasks[0].attempts > worl_sim::MAX_ATTEMPTS);
}

#[test]
fn a_gpu_outside_the_cluster_in_a_script_file_is_named_by_file_and_line() {
    let p = chain_on_two_gpus();
    let path = file("g12.csv", "gpu,from,to\n0,5,25\ng12,5,25\n");
    let failures = parse(&format!("script:{}", path.display()));
    let e = refused(&p, failures);
    assert!(
        matches!(e, SimError::InvalidOutage { gpu: 12, .. }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "invalid outage of GPU 12 from 5 s to 25 s: outage script `{}`, line 3: GPU g12 is not in the cluster, which has 2 GPUs (g0..g1)",
            path.display()
        )
    );
    // Built in code: named by its position.
    let e = refused(&p, Failures::Script(vec![o(0, 1.0, 2.0), o(5, 1.0, 2.0)]));
    assert!(
        e.to_string()
            .ends_with(": outage 2: GPU g5 is not in the cluster, which has 2 GPUs (g0..g1)"),
        "{e}"
    );
}

#[test]
fn a_lone_carriage_return_ends_a_line() {
    for (name, text) in [
        ("cr.csv", "gpu,from,to\r0,5,25\rx1,5,25\r"),
        ("crlf.csv", "gpu,from,to\r\n0,5,25\r\nx1,5,25\r\n"),
        ("mixed.csv", "# c\r\ngpu,from,to\r0,5,25\nx1,5,25\n"),
    ] {
        let (msg, at) = script_error(name, text);
        let want = if name == "mixed.csv" { 4 } else { 3 };
        assert_eq!(at, Some(want), "{name}: {msg}");
        assert!(msg.contains("GPU `x1` is not a GPU index"), "{name}: {msg}");
    }
}

#[test]
fn control_characters_in_errors_are_escaped() {
    let (_, msg) = error("outages:0@\u{0}5+20");
    assert!(!msg.contains('\u{0}'), "{msg:?}");
    assert!(
        msg.contains("invalid failures `outages:0@\\05+20`: outage 1 `0@\\05+20`: failure time `\\05` is not a number"),
        "{msg}"
    );
    let (msg, at) = script_error("esc.csv", "gpu,from,to\n\u{1b}[31m0,5,25\n");
    assert_eq!(at, Some(2));
    assert!(!msg.chars().any(char::is_control), "{msg:?}");
    assert!(
        msg.ends_with("line 2: GPU `\\u{1b}[31m0` is not a GPU index (`3` or `g3`)"),
        "{msg}"
    );
    let (msg, _) = script_error("esc-header.csv", "gpu,from,to\u{7}\n");
    assert!(msg.contains("unknown column `to\\u{7}`"), "{msg}");
}

#[test]
fn a_negative_zero_time_is_zero() {
    let f = parse("outages:0@-0+5");
    assert_eq!(f.to_string(), "outages:0@0+5");
    let Failures::Script(v) = &f else {
        panic!("{f:?}")
    };
    assert!(v[0].from.is_sign_positive(), "{:?}", v[0]);
    assert_eq!(parse("outages:0@-0..5").to_string(), "outages:0@0+5");
    let path = file("neg-zero.csv", "gpu,from,to\n1,-0,2\n");
    assert_eq!(
        parse(&format!("script:{}", path.display())).to_string(),
        "outages:1@0+2"
    );
    assert_eq!(parse("mtbf:1:-0").to_string(), "mtbf:1:0");
    // Built in code, -0 is shown as 0 too.
    assert_eq!(
        Failures::Script(vec![o(0, -0.0, 1.0)]).to_string(),
        "outages:0@0+1"
    );
}
