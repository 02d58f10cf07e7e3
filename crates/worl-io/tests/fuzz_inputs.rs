//! Seeded mutation fuzzing of every non-workload input parser of `worl-cluster` (issue 20:
//! "`cargo fuzz` targets, or equivalent in CI"; `docs/fuzzing.md`): cluster descriptions
//! (`4x8:A100-80GB:100GbE`, `pai-mix:M`, ...), compact cluster files (TOML and JSON), saga
//! problem instances, the Alibaba PAI and openb machine tables, schedule files (CSV and
//! JSON), bare schedule JSON, and WfFormat documents with an `execution` section as
//! `worl schedule --out plan.wf.json` writes them.
//!
//! Small valid seeds are mutated with a fixed seed (`tests/mutate`: digits flipped, numbers
//! replaced by huge, negative, NaN, infinite, `1e400` and out-of-range integers, lines and
//! fields deleted, repeated or swapped, truncation, broken references, hostile Unicode, very
//! long tokens, deep nesting). Every input must parse or give a typed error with a message,
//! never panic; what parses must satisfy a property:
//!
//! * a cluster has `1..=MAX_GPUS` GPUs, at most `MAX_GPUS_PER_MACHINE` per machine, finite
//!   positive speeds and memories, ready times `>= 0`, background in `[0, 1)`, finite
//!   positive bandwidths and finite latencies `>= 0`; a small one reads back equal from its
//!   compact TOML and JSON, and builds a `Problem` (or a typed error) with a finite lower
//!   bound;
//! * a schedule file reads back equal from its own JSON and CSV writers, and matching it to
//!   the seed's problem (`to_schedule`, `check`) gives a schedule or a typed error.
//!
//! The case count scales with `WORL_FUZZ_CASES` (a multiplier). Inputs that broke a parser
//! are kept below as regression tests.

#[path = "../../worl-cluster/tests/mutate/mod.rs"]
mod mutate;

use mutate::{cases, mutated, no_panic, rng};
use rand::Rng;
use std::sync::Arc;
use worl_cluster::formats::openb::{OpenbModels, parse_openb_node_list};
use worl_cluster::formats::pai::parse_pai_machine_spec;
use worl_cluster::{
    Cluster, ClusterError, Evaluator, GpuId, GpuModel, Link, MAX_GPUS, MAX_GPUS_PER_MACHINE,
    MachineId, Plan, Policy, Problem, Schedule, TableSample, description,
};
use worl_cluster::{ClusterSpec, MachineOverride};
use worl_dag::formats::wfcommons;
use worl_dag::{Workload, WorkloadBuilder};
use worl_io::{ScheduleFile, ScheduleMeta, saga, wfformat};

/// Mutated inputs per parser (before `WORL_FUZZ_CASES`).
const CASES: usize = 4_000;
/// Clusters up to this many GPUs are round-tripped through their writers and given a
/// problem (larger ones are only checked for their bounds, which is linear).
const ROUND_TRIP_GPUS: usize = 256;
/// Machine pairs whose links are checked (the first this many machines).
const LINK_MACHINES: usize = 40;

/// A failure found: the parser, the input and what went wrong.
struct Failure {
    parser: &'static str,
    input: String,
    what: String,
}

/// Collects failures; prints the first ones and fails the test if any.
#[derive(Default)]
struct Failures(Vec<Failure>);

impl Failures {
    fn add(&mut self, parser: &'static str, input: &str, what: String) {
        self.0.push(Failure {
            parser,
            input: input.to_owned(),
            what,
        });
    }

    fn assert_none(&self) {
        for f in self.0.iter().take(10) {
            let shown: String = f.input.chars().take(2_000).collect();
            eprintln!("--- {}: {}\n{shown:?}\n---", f.parser, f.what);
        }
        assert!(
            self.0.is_empty(),
            "{} failures (first ones above)",
            self.0.len()
        );
    }
}

/// Why `c` breaks the bounds every parsed cluster keeps, if it does.
fn cluster_bounds(c: &Cluster) -> Option<String> {
    let n = c.n_gpus();
    if n == 0 || n > MAX_GPUS {
        return Some(format!("{n} GPUs, not in 1..={MAX_GPUS}"));
    }
    if c.machines().is_empty() {
        return Some("no machine".into());
    }
    for m in 0..c.n_machines() {
        let k = c.gpus_of(MachineId::new(m)).len();
        if k > MAX_GPUS_PER_MACHINE {
            return Some(format!("machine {m} holds {k} GPUs"));
        }
    }
    for (i, g) in c.gpus().iter().enumerate() {
        let ok = g.speed.is_finite()
            && g.speed > 0.0
            && g.mem_gib.is_finite()
            && g.mem_gib > 0.0
            && g.ready_time.is_finite()
            && g.ready_time >= 0.0
            && (0.0..1.0).contains(&g.background)
            && g.effective_speed() > 0.0;
        if !ok {
            return Some(format!("GPU {i} out of range: {g:?}"));
        }
    }
    let net = c.network();
    let ms = c.n_machines().min(LINK_MACHINES);
    for a in 0..ms {
        for b in 0..ms {
            let (bw, lat) = (net.bandwidth(a, b), net.latency(a, b));
            if !(bw.is_finite() && bw > 0.0 && lat.is_finite() && lat >= 0.0) {
                return Some(format!("link {a} -> {b}: {bw} B/s, {lat} s"));
            }
        }
    }
    None
}

/// A small workload to build problems with: two jobs, memory needs, edges of several sizes.
fn small_workload() -> Arc<Workload> {
    let mut b = WorkloadBuilder::new("fuzz");
    let j = b.add_job("j1").expect("job");
    let a = b.add_task(j, "a", 3.0, Some(4.0)).expect("task");
    let c = b.add_task(j, "c", 1.0, None).expect("task");
    let d = b.add_task(j, "d", 2.5, None).expect("task");
    let k = b.add_job("j2").expect("job");
    let e = b.add_task(k, "e", 0.5, None).expect("task");
    b.add_edge(a, c, 1.0e9).expect("edge");
    b.add_edge(a, d, 5.0e6).expect("edge");
    b.add_edge(c, d, 0.0).expect("edge");
    b.add_edge(d, e, 2.0e3).expect("edge");
    Arc::new(b.build().expect("workload"))
}

/// The cluster checks of the module docs; `parser` names the input in failures.
fn check_cluster(
    c: &Cluster,
    parser: &'static str,
    input: &str,
    w: &Arc<Workload>,
    f: &mut Failures,
) {
    if let Some(why) = cluster_bounds(c) {
        f.add(parser, input, why);
        return;
    }
    if c.n_gpus() > ROUND_TRIP_GPUS {
        return;
    }
    match no_panic(|| {
        let toml = c
            .to_compact_toml_string()
            .map(|t| Cluster::from_toml_str(&t));
        let json = Cluster::from_json_str(&c.to_compact_json_string());
        (toml, json)
    }) {
        Err(p) => f.add(
            parser,
            input,
            format!("writing or re-reading panicked: {p}"),
        ),
        Ok((Err(e), _)) => f.add(parser, input, format!("no TOML for a parsed cluster: {e}")),
        Ok((Ok(toml), json)) => {
            if toml.as_ref().ok() != Some(c) {
                f.add(parser, input, format!("TOML round trip differs: {toml:?}"));
            }
            if json.as_ref().ok() != Some(c) {
                f.add(parser, input, format!("JSON round trip differs: {json:?}"));
            }
        }
    }
    let cluster = Arc::new(c.clone());
    match no_panic(|| Problem::new(w.clone(), cluster).map(|p| p.lower_bound().value)) {
        Err(p) => f.add(parser, input, format!("Problem::new panicked: {p}")),
        Ok(Ok(lb)) if !lb.is_finite() || lb < 0.0 => {
            f.add(parser, input, format!("lower bound {lb}"))
        }
        Ok(_) => {}
    }
}

/// Tallies of one parser's run.
#[derive(Debug, Default)]
struct Counts {
    inputs: usize,
    parsed: usize,
    errors: usize,
}

/// Runs `cases` mutated inputs of `seeds` through `parse` (each seed must parse), with the
/// field separator `sep` for the structured edits; `check` gets each parsed value.
fn fuzz<T, E: std::fmt::Display>(
    parser: &'static str,
    seed: u64,
    seeds: &[String],
    sep: Option<&str>,
    parse: impl Fn(&str) -> Result<T, E>,
    mut check: impl FnMut(&T, &str, &mut Failures),
    f: &mut Failures,
) -> Counts {
    for (i, s) in seeds.iter().enumerate() {
        if let Err(e) = parse(s) {
            panic!("{parser}: seed {i} does not parse: {e}\n{s}");
        }
    }
    let mut r = rng(seed);
    let mut c = Counts::default();
    let started = std::time::Instant::now();
    for _ in 0..cases(CASES) {
        let input = mutated(&seeds[r.random_range(0..seeds.len())], &mut r, 3, sep);
        c.inputs += 1;
        match no_panic(|| parse(&input)) {
            Err(p) => f.add(parser, &input, format!("panicked: {p}")),
            Ok(Err(e)) => {
                c.errors += 1;
                if e.to_string().trim().is_empty() {
                    f.add(parser, &input, "error without a message".into());
                }
            }
            Ok(Ok(v)) => {
                c.parsed += 1;
                check(&v, &input, f);
            }
        }
    }
    println!(
        "{parser}: {} seeds, {} inputs, {} parsed, {} typed errors, {:.2} s",
        seeds.len(),
        c.inputs,
        c.parsed,
        c.errors,
        started.elapsed().as_secs_f64()
    );
    c
}

// ------------------------------------------------------------------ clusters

/// Descriptions of every form, as `worl --cluster` takes them.
const DESCRIPTIONS: &[&str] = &[
    "4x8:A100-80GB:100GbE",
    "2x4:V100-16GB:10GbE:NVLink2",
    "3X2:T4",
    "1x1:H100:IB-NDR:PCIe5",
    "pai-mix:16",
    "pai-mix:24:3",
    "homogeneous:10:T4",
    "dgx:2:H100",
    "paper-pool:8:500",
    "paper-pool:6:2000:7",
];

const COMPACT_TOML: &str = r#"name = "a100-4x8-100gbe"
machines = 4
machine_prefix = "node-"
gpus_per_machine = 8
model = "A100-80GB"
intra = "NVLink3"
inter = { bandwidth = "100 Gbit/s", latency = "20 us" }
background = 0.0
ready_time = "0 s"

[[machine]]
index = 3
model = "V100-32GB"
gpus = 4
background = [0.5, 0.0, 0.0, 0.2]

[[machine]]
index = [1, 2]
ready_time = "1.5 ms"
"#;

const COMPACT_JSON: &str = r#"{
  "machines": 3,
  "gpus_per_machine": 2,
  "model": {"name": "X1", "relative_speed": 1.5, "mem_gib": 24},
  "intra": {"bandwidth": 12e9, "latency": 1e-6},
  "inter": "25GbE",
  "machine": [{"index": 0, "gpus": 1, "ready_time": 2.5}, {"index": [1, 2], "background": 0.25}]
}
"#;

const SAGA: &str = r#"{"name": "synthetic.diamond",
  "task_graph": {
    "tasks": [{"name": "A", "cost": 2.0}, {"name": "B", "cost": 3.0}, {"name": "C", "cost": 1.5},
              {"name": "D", "cost": 0.0}],
    "dependencies": [{"source": "A", "target": "B", "size": 4.0},
                     {"source": "A", "target": "C", "size": 1e3},
                     {"source": "B", "target": "D", "size": 0.0},
                     {"source": "C", "target": "D", "size": 2.5}]
  },
  "network": {
    "nodes": [{"name": "n0", "speed": 1.0}, {"name": "n1", "speed": 2.0}, {"name": "n2", "speed": 0.5}],
    "edges": [
      {"source": "n0", "target": "n1", "speed": 2.0}, {"source": "n1", "target": "n0", "speed": 2.0},
      {"source": "n0", "target": "n2", "speed": 1e9}, {"source": "n1", "target": "n2", "speed": 3},
      {"source": "n0", "target": "n0", "speed": null}, {"source": "n1", "target": "n1"}
    ]
  }
}
"#;

const PAI: &str = "\
m0,CPU,96,512,0
m1,V100,64,512,8
m2,T4,96,512,2
m3,P100,64,512,0
m4,MISC,64,256,8
m5,V100M32,96,512,8
";

const OPENB: &str = "\
sn,cpu_milli,memory_mib,gpu,model
n0,32000,262144,0,
n1,96000,393216,8,G2
n2,104000,524288,2,T4
n4,64000,262144,2,P100
n5,96000,393216,4,V100M32
";

/// Compact TOML and JSON seeds: the hand-written ones and presets written compactly.
fn compact_seeds() -> (Vec<String>, Vec<String>) {
    let specs = [
        ClusterSpec::new(2, 4, &GpuModel::t4()).with_inter(Link::ETHERNET_100G),
        ClusterSpec::new(3, 2, &GpuModel::h100())
            .with_machine_prefix("gpu")
            .with_machine(
                MachineOverride::new(1)
                    .with_gpus(1)
                    .with_model(&GpuModel::a10()),
            ),
    ];
    let clusters: Vec<Cluster> = specs
        .iter()
        .map(|s| s.build().expect("spec builds"))
        .collect();
    let mut toml = vec![COMPACT_TOML.to_owned()];
    let mut json = vec![COMPACT_JSON.to_owned()];
    for c in &clusters {
        toml.push(c.to_compact_toml_string().expect("compact TOML"));
        json.push(c.to_compact_json_string());
    }
    (toml, json)
}

#[test]
fn mutated_cluster_inputs_parse_or_fail_typed_and_keep_bounds() {
    let w = small_workload();
    let mut f = Failures::default();
    let descriptions: Vec<String> = DESCRIPTIONS.iter().map(|s| s.to_string()).collect();
    let check =
        |c: &Cluster, input: &str, f: &mut Failures| check_cluster(c, "cluster", input, &w, f);
    let d = fuzz(
        "description",
        0xC1D5_0001,
        &descriptions,
        Some(":"),
        description::parse,
        check,
        &mut f,
    );
    let (toml, json) = compact_seeds();
    let t = fuzz(
        "compact TOML",
        0xC1D5_0002,
        &toml,
        None,
        Cluster::from_toml_str,
        check,
        &mut f,
    );
    let j = fuzz(
        "compact JSON",
        0xC1D5_0003,
        &json,
        None,
        Cluster::from_json_str,
        check,
        &mut f,
    );
    let s = fuzz(
        "saga",
        0xC1D5_0004,
        &[SAGA.to_owned()],
        None,
        |t: &str| saga::read(t.as_bytes(), "fuzz.json"),
        |(wl, c): &(Workload, Cluster), input: &str, f: &mut Failures| {
            check_cluster(c, "saga", input, &w, f);
            if wl.graph().n_tasks() == 0 {
                f.add("saga", input, "a workload without tasks".into());
            }
        },
        &mut f,
    );
    let pai = fuzz(
        "PAI machine spec",
        0xC1D5_0005,
        &[PAI.to_owned()],
        None,
        |t: &str| {
            parse_pai_machine_spec(t.as_bytes(), "pai_machine_spec.csv")?
                .to_cluster(&TableSample::default())
        },
        check,
        &mut f,
    );
    let openb = fuzz(
        "openb node list",
        0xC1D5_0006,
        &[OPENB.to_owned()],
        None,
        |t: &str| {
            parse_openb_node_list(t.as_bytes(), "openb.csv", &OpenbModels::default())?
                .to_cluster(&TableSample::default())
        },
        check,
        &mut f,
    );
    f.assert_none();
    // The mutations leave inputs of every parser both valid and invalid.
    for (name, c) in [
        ("description", d),
        ("compact TOML", t),
        ("compact JSON", j),
        ("saga", s),
        ("PAI", pai),
        ("openb", openb),
    ] {
        assert_eq!(c.parsed + c.errors, c.inputs, "{name}");
        assert!(c.parsed > 0 && c.errors > 0, "{name}: {c:?}");
    }
}

// ------------------------------------------------------------------ schedules

/// A problem on a 2 × 2 cluster and its insertion-policy schedule.
fn schedule_problem() -> (Problem, Schedule) {
    let c = ClusterSpec::new(2, 2, &GpuModel::v100_32gb())
        .build()
        .expect("cluster");
    let p = Problem::new(small_workload(), Arc::new(c)).expect("problem");
    let gpus = (0..p.n_tasks()).map(|i| GpuId::new(i % 3)).collect();
    let plan = Plan::in_topo_order(p.graph(), gpus);
    let s = Evaluator::new(&p)
        .schedule(&plan, Policy::Insertion)
        .expect("schedule");
    (p, s)
}

/// Whether two schedule files are equal, NaN header values equal to each other.
fn same_file(a: &ScheduleFile, b: &ScheduleFile) -> bool {
    let same = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
        (x, y) => x == y,
    };
    let mut b2 = b.clone();
    b2.makespan = a.makespan;
    b2.lower_bound = a.lower_bound;
    same(a.makespan, b.makespan) && same(a.lower_bound, b.lower_bound) && *a == b2
}

/// The schedule file checks of the module docs.
fn check_schedule_file(
    parser: &'static str,
    sf: &ScheduleFile,
    input: &str,
    p: &Problem,
    f: &mut Failures,
) {
    match no_panic(|| ScheduleFile::from_json_str(&sf.to_json_string())) {
        Err(e) => f.add(parser, input, format!("JSON round trip panicked: {e}")),
        Ok(Err(e)) => f.add(parser, input, format!("its JSON does not read back: {e}")),
        Ok(Ok(back)) if !same_file(sf, &back) => {
            f.add(parser, input, format!("JSON round trip differs: {back:?}"))
        }
        Ok(Ok(_)) => {}
    }
    match no_panic(|| ScheduleFile::from_csv_str(&sf.to_csv_string())) {
        Err(e) => f.add(parser, input, format!("CSV round trip panicked: {e}")),
        Ok(Err(e)) => f.add(parser, input, format!("its CSV does not read back: {e}")),
        Ok(Ok(back)) if !same_file(sf, &back) => {
            f.add(parser, input, format!("CSV round trip differs: {back:?}"))
        }
        Ok(Ok(_)) => {}
    }
    match no_panic(|| {
        (
            sf.to_schedule(p).map(|s| s.n_tasks()),
            sf.validate(p).map(|v| v.len()),
        )
    }) {
        Err(e) => f.add(
            parser,
            input,
            format!("matching to the problem panicked: {e}"),
        ),
        Ok((Ok(n), _)) if n != p.n_tasks() => {
            f.add(parser, input, format!("a schedule of {n} tasks"))
        }
        Ok(_) => {}
    }
}

#[test]
fn mutated_schedule_files_parse_or_fail_typed_and_round_trip() {
    let (p, s) = schedule_problem();
    let meta = ScheduleMeta {
        scheduler: "heft".into(),
        options: "policy=insertion".into(),
        seed: Some(7),
    };
    let file = ScheduleFile::new(&p, &s, meta).expect("schedule file");
    let mut sparse = file.clone(); // another tool's file: names only, no ids
    for r in &mut sparse.rows {
        (r.task_id, r.gpu_id, r.model) = (None, None, String::new());
    }
    sparse.makespan = None;
    let csv_seeds = vec![file.to_csv_string(), sparse.to_csv_string()];
    let json_seeds = vec![file.to_json_string(), sparse.to_json_string()];
    let mut f = Failures::default();
    let csv = fuzz(
        "schedule CSV",
        0x5C4E_0001,
        &csv_seeds,
        None,
        ScheduleFile::from_csv_str,
        |sf: &ScheduleFile, input: &str, f: &mut Failures| {
            check_schedule_file("schedule CSV", sf, input, &p, f)
        },
        &mut f,
    );
    let json = fuzz(
        "schedule JSON",
        0x5C4E_0002,
        &json_seeds,
        None,
        ScheduleFile::from_json_str,
        |sf: &ScheduleFile, input: &str, f: &mut Failures| {
            check_schedule_file("schedule JSON", sf, input, &p, f)
        },
        &mut f,
    );
    let bare = fuzz(
        "bare schedule JSON",
        0x5C4E_0003,
        &[s.to_json_string()],
        None,
        Schedule::from_json_str,
        |sch: &Schedule, input: &str, f: &mut Failures| match no_panic(|| {
            (sch.n_tasks() == p.n_tasks() && sch.n_gpus() == p.n_gpus())
                .then(|| sch.validate(&p).len())
        }) {
            Err(e) => f.add(
                "bare schedule JSON",
                input,
                format!("validate panicked: {e}"),
            ),
            Ok(_) => {
                let back = Schedule::from_json_str(&sch.to_json_string());
                if back.as_ref().ok() != Some(sch) {
                    f.add("bare schedule JSON", input, format!("round trip: {back:?}"));
                }
            }
        },
        &mut f,
    );
    let wf = fuzz(
        "WfFormat with execution",
        0x5C4E_0004,
        &[wfformat::to_string(&p, &s).expect("WfFormat")],
        None,
        |t: &str| {
            wfcommons::read(
                t.as_bytes(),
                "plan.wf.json",
                &wfcommons::WfOptions::default(),
            )
        },
        |(wl, _): &(Workload, worl_dag::LoadReport), input: &str, f: &mut Failures| {
            let c = p.cluster_arc().clone();
            match no_panic(|| Problem::new(Arc::new(wl.clone()), c).map(|q| q.lower_bound().value))
            {
                Err(e) => f.add(
                    "WfFormat with execution",
                    input,
                    format!("Problem::new panicked: {e}"),
                ),
                Ok(Ok(lb)) if !lb.is_finite() => f.add(
                    "WfFormat with execution",
                    input,
                    format!("lower bound {lb}"),
                ),
                Ok(_) => {}
            }
        },
        &mut f,
    );
    f.assert_none();
    for (name, c) in [
        ("CSV", csv),
        ("JSON", json),
        ("bare", bare),
        ("WfFormat", wf),
    ] {
        assert_eq!(c.parsed + c.errors, c.inputs, "{name}");
        assert!(c.parsed > 0 && c.errors > 0, "{name}: {c:?}");
    }
}

// ------------------------------------------------------------------ regressions

/// The error of `r`, which must be a typed one.
fn typed_error<T: std::fmt::Debug>(r: Result<T, ClusterError>) -> String {
    let e = r.expect_err("a typed error");
    let msg = e.to_string();
    assert!(!msg.is_empty());
    msg
}

#[test]
fn cluster_description_with_a_count_beyond_the_gpu_cap_is_a_typed_error() {
    for d in [
        "homogeneous:65537:T4",
        "dgx:8193:H100",
        "65537x1:T4",
        "2x65:T4",
    ] {
        let msg = typed_error(description::parse(d));
        assert!(msg.contains("65536") || msg.contains("64"), "{d}: {msg}");
    }
}

/// The peak resident memory of this process so far, bytes (`VmHWM`, Linux).
#[cfg(target_os = "linux")]
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kb * 1024
}

/// Issue 20's resource bound on the densest verbose cluster TOML: 10 MB of
/// `gpus = [{model="T4"},...]` (about 750,000 inline tables) is a typed error, and reading
/// it peaks below 1 GB. Today it peaks at 1.13 GB (2.3 s on 2 cores): the `toml` document
/// is built whole before the GPU count or the missing `machine` is noticed
/// (`formats/native.rs`). Run alone (`--exact`; the peak is the process's). Un-ignore when
/// the native reader bounds the document before parsing it (worl-cluster/src).
#[cfg(target_os = "linux")]
#[test]
fn dense_toml_gpu_list_of_10_mb_is_a_typed_error_below_1_gb() {
    let entry = "{model=\"T4\"},";
    let mut text = String::from("gpus = [");
    text.push_str(&entry.repeat((10 << 20) / entry.len()));
    text.push_str("]\n");
    assert!(text.len() <= 10 << 20);
    let msg = typed_error(Cluster::from_toml_str(&text));
    drop(text);
    assert!(msg.contains("machine") || msg.contains("65536"), "{msg}");
    let peak = peak_rss();
    assert!(peak < 1 << 30, "peak resident memory {} MB", peak >> 20);
}

// ------------------------------------------------------------------ resource probe

/// Parses one input named by the environment and prints what came of it and how long it
/// took: the probe behind the resource figures of `docs/fuzzing.md` (run it under
/// `/usr/bin/time -v` for the peak memory). `WORL_PROBE_KIND` is `description` (the text of
/// `WORL_PROBE_FILE`, or `WORL_PROBE_ARG` itself), `cluster` (`Cluster::load`), `saga`,
/// `pai`, `openb`, `schedule` (`ScheduleFile::read`, by extension), `bare-schedule`
/// (`Schedule::from_json_str`) or `workload` (`worl_dag::formats::load_path`, by
/// extension). Ignored: it does nothing without the environment.
#[test]
#[ignore = "a measuring tool: WORL_PROBE_KIND, WORL_PROBE_FILE / WORL_PROBE_ARG"]
fn probe_one_input_for_time_and_memory() {
    let (Ok(kind), file, arg) = (
        std::env::var("WORL_PROBE_KIND"),
        std::env::var("WORL_PROBE_FILE").ok(),
        std::env::var("WORL_PROBE_ARG").ok(),
    ) else {
        eprintln!("WORL_PROBE_KIND not set: nothing to probe");
        return;
    };
    let path = std::path::PathBuf::from(file.clone().unwrap_or_default());
    let text = || std::fs::read_to_string(&path).expect("WORL_PROBE_FILE readable");
    let t = std::time::Instant::now();
    let outcome: Result<String, String> = match kind.as_str() {
        "description" => {
            let d = arg.unwrap_or_else(text);
            description::parse(&d)
                .map(|c| format!("{} GPUs", c.n_gpus()))
                .map_err(|e| e.to_string())
        }
        "cluster" => Cluster::load(&path)
            .map(|c| format!("{} GPUs", c.n_gpus()))
            .map_err(|e| e.to_string()),
        "saga" => saga::load(&path)
            .map(|(w, c)| format!("{} tasks, {} GPUs", w.graph().n_tasks(), c.n_gpus()))
            .map_err(|e| e.to_string()),
        "pai" => parse_pai_machine_spec(text().as_bytes(), "probe.csv")
            .and_then(|t| t.to_cluster(&TableSample::default()))
            .map(|c| format!("{} GPUs", c.n_gpus()))
            .map_err(|e| e.to_string()),
        "openb" => parse_openb_node_list(text().as_bytes(), "probe.csv", &OpenbModels::default())
            .and_then(|t| t.to_cluster(&TableSample::default()))
            .map(|c| format!("{} GPUs", c.n_gpus()))
            .map_err(|e| e.to_string()),
        "schedule" => ScheduleFile::read(&path)
            .map(|f| format!("{} rows", f.rows.len()))
            .map_err(|e| e.to_string()),
        "bare-schedule" => Schedule::from_json_str(&text())
            .map(|s| format!("{} tasks", s.n_tasks()))
            .map_err(|e| e.to_string()),
        "workload" => worl_dag::formats::load_path(&path)
            .map(|(w, _)| format!("{} tasks", w.graph().n_tasks()))
            .map_err(|e| e.to_string()),
        other => panic!("unknown WORL_PROBE_KIND `{other}`"),
    };
    let shown = |s: String| s.chars().take(300).collect::<String>();
    println!(
        "probe {kind} {}: {} after {:.3} s",
        file.unwrap_or_default(),
        match outcome {
            Ok(s) => format!("ok, {}", shown(s)),
            Err(e) => format!("error: {}", shown(e)),
        },
        t.elapsed().as_secs_f64()
    );
}
