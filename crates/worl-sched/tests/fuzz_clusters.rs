//! Seeded mutation fuzzing of the cluster loaders, end to end.
//!
//! For each format (the native TOML and JSON cluster format of `Cluster::load`, the Alibaba
//! PAI v2020 machine spec CSV, the Alibaba GPU v2023 openb node list CSV), small valid seed
//! files (written below or serialised from presets, plus windows of the shared data
//! directory's traces when present) are mutated with a fixed seed: digits flipped; numbers
//! replaced by huge, negative, NaN, infinite, subnormal or out-of-range values (`u64::MAX`,
//! four billion GPUs); lines and fields deleted or duplicated; the text truncated. Each
//! mutated input must load or give a typed error, never panic (nor abort: a GPU count that
//! would allocate gigabytes is a parse error). A cluster that loads must, with each of a few
//! small fixed workloads, give a [`Problem`] or a typed error; a problem that builds must get
//! a valid HEFT schedule with a finite lower bound, a makespan at least that bound, and
//! finite metrics.
//!
//! A schedule whose only violations are `Violation::Precision` counts as checked, not failed:
//! mutated numbers (a `u64::MAX` latency, a work of `1e26`) put tasks of seconds at times
//! where `f64` numbers are more than their duration apart, where no schedule can be checked
//! and the validator says so.

mod mutation;

use mutation::{Outcome, payload};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;
use worl_cluster::formats::openb::{OpenbModels, parse_openb_node_list};
use worl_cluster::formats::pai::parse_pai_machine_spec;
use worl_cluster::{
    Cluster, ClusterBuilder, ClusterError, GpuModel, Link, Network, TableSample, presets,
};
use worl_dag::generators::shapes;
use worl_dag::{Workload, WorkloadBuilder};

/// Mutated inputs per format.
const INPUTS_PER_FORMAT: usize = 10_000;
/// Lines of a shared trace per seed window.
const WINDOW_LINES: usize = 30;
/// Windows taken of each shared trace.
const WINDOWS: usize = 6;
/// Every this many native inputs also go through `Cluster::load` from a file.
const VIA_FILE_EVERY: usize = 50;

const TOML_SEED: &str = r#"name = "two-nodes"
machines = ["node-0", "node-1"]

[network]
kind = "uniform"
intra = { bandwidth = 12e9, latency = 1e-5 }
inter = { bandwidth = 3.125e9, latency = 5e-5 }

[[models]]
name = "X"
relative_speed = 2.5
mem_gib = 24.0
source = "hand-made"

[[gpus]]
model = "V100-32GB"
machine = 0
ready_time = 0.0
background = 0.0

[[gpus]]
model = "T4"
machine = 0
ready_time = 3.5
background = 0.25

[[gpus]]
model = "X"
machine = 1
speed = 1.5
mem_gib = 40.0
"#;

const JSON_SEED: &str = r#"{
  "name": "pair",
  "machines": ["a", "b", "c"],
  "network": {
    "kind": "uniform",
    "intra": {"bandwidth": 300e9, "latency": 5e-6},
    "inter": {"bandwidth": 1.25e9, "latency": 0.5}
  },
  "gpus": [
    {"model": "A100", "machine": 0},
    {"model": "V100M32", "machine": 1, "background": 0.6},
    {"model": "P100", "machine": 2, "ready_time": 12.0, "speed": 0.4, "mem_gib": 16}
  ]
}
"#;

const PAI_SEED: &str = "\
m0,CPU,96,512,0
m1,V100,64,512,8
m2,T4,96,512,2
m3,P100,64,512,0
m4,MISC,64,256,8
m5,V100M32,96,512,8
m6,P100,64,512,2
";

const OPENB_SEED: &str = "\
sn,cpu_milli,memory_mib,gpu,model
n0,32000,262144,0,
n1,96000,393216,8,G2
n2,104000,524288,2,T4
n3,128000,786432,8,G3
n4,64000,262144,2,P100
n5,96000,393216,4,V100M32
";

/// Replacement numbers: huge, negative, NaN, infinite, subnormal, out of every integer
/// range, GPU counts around and far beyond the caps, utilisations next to 1.
const SPECIAL: &[&str] = &[
    "1e308",
    "-1e308",
    "1e309",
    "1.7976931348623157e308",
    "-1",
    "-0",
    "0",
    "0.0",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "1e-320",
    "5e-324",
    "1e-300",
    "1e300",
    "18446744073709551615",
    "18446744073709551616",
    "4000000000",
    "9223372036854775807",
    "64",
    "65",
    "65536",
    "0.9999999999999999",
    "1",
    "",
];

#[derive(Copy, Clone, Debug, PartialEq)]
enum Format {
    Toml,
    Json,
    Pai,
    Openb,
}

impl Format {
    const ALL: [Format; 4] = [Format::Toml, Format::Json, Format::Pai, Format::Openb];

    fn file(self) -> &'static str {
        match self {
            Format::Toml => "fuzz.toml",
            Format::Json => "fuzz.json",
            Format::Pai => "pai_machine_spec.csv",
            Format::Openb => "openb_node_list.csv",
        }
    }

    /// Loads a cluster from `text`: the native format directly, the trace tables through
    /// [`MachineTable::to_cluster`](worl_cluster::MachineTable::to_cluster) with all GPUs.
    fn load(self, text: &str) -> Result<Cluster, ClusterError> {
        match self {
            Format::Toml => Cluster::from_toml_str(text),
            Format::Json => Cluster::from_json_str(text),
            Format::Pai => parse_pai_machine_spec(text.as_bytes(), self.file())?
                .to_cluster(&TableSample::default()),
            Format::Openb => {
                parse_openb_node_list(text.as_bytes(), self.file(), &OpenbModels::default())?
                    .to_cluster(&TableSample::default())
            }
        }
    }

    /// The hand-made seeds (and, for the native format, presets written in it), then windows
    /// of the shared traces when present.
    fn seeds(self) -> Vec<String> {
        let mut custom = ClusterBuilder::new("custom");
        let m = custom.add_machine("box");
        let k = custom
            .add_gpu(m, &GpuModel::custom("Y", 0.7, 20.0).expect("model"))
            .expect("gpu");
        custom.set_ready_time(k, 2.0).expect("ready");
        custom.add_gpus(m, &GpuModel::h100(), 2).expect("gpus");
        custom.network(Network::uniform(Link::NVLINK4, Link::INFINIBAND_NDR));
        let presets = [
            presets::paper_pool(3, 500.0, 1).expect("paper pool"),
            presets::pai_mix(12, 2).expect("pai mix"),
            custom.build().expect("custom"),
        ];
        let mut seeds: Vec<String> = match self {
            Format::Toml => std::iter::once(TOML_SEED.to_owned())
                .chain(presets.iter().map(|c| c.to_toml_string().expect("toml")))
                .collect(),
            Format::Json => std::iter::once(JSON_SEED.to_owned())
                .chain(presets.iter().map(|c| c.to_json_string()))
                .collect(),
            Format::Pai => vec![PAI_SEED.to_owned()],
            Format::Openb => vec![OPENB_SEED.to_owned()],
        };
        let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory")
        else {
            return seeds;
        };
        let (path, header) = match self {
            Format::Pai => (dir.join("alibaba-pai-v2020/pai_machine_spec.csv"), false),
            Format::Openb => (
                dir.join("alibaba-gpu-v2023/openb_node_list_gpu_node.csv"),
                true,
            ),
            Format::Toml | Format::Json => return seeds,
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return seeds;
        };
        let lines: Vec<&str> = text.lines().collect();
        let body = if header { &lines[1..] } else { &lines[..] };
        // Windows spread over the file (the PAI spec lists its CPU machines first).
        for w in 0..WINDOWS {
            let start = (body.len().saturating_sub(WINDOW_LINES)) * w / (WINDOWS - 1).max(1);
            let mut seed = String::new();
            if header {
                seed.push_str(lines[0]);
                seed.push('\n');
            }
            for l in body.iter().skip(start).take(WINDOW_LINES) {
                seed.push_str(l);
                seed.push('\n');
            }
            // a window of CPU machines only is no cluster: not a seed
            if self.load(&seed).is_ok() {
                seeds.push(seed);
            }
        }
        seeds
    }
}

/// One random mutation of `text` (lines repeated up to 4 times, to pile GPUs onto a
/// machine).
fn mutate(text: &mut String, rng: &mut ChaCha8Rng) {
    match rng.random_range(0..10) {
        0 => mutation::flip_digit(text, rng),
        1..=4 => mutation::replace_number(text, rng, SPECIAL),
        5..=6 => mutation::edit_line(text, rng, 4),
        7 => mutation::edit_field(text, rng),
        8 => mutation::truncate(text, rng),
        _ => mutation::replace_char(text, rng),
    }
}

/// The small fixed workloads every loaded cluster is tried with.
fn workloads() -> Vec<Arc<Workload>> {
    let mut b = WorkloadBuilder::new("mem");
    let j = b.add_job("j").expect("job");
    let a = b.add_task(j, "a", 3.0, Some(12.0)).expect("task");
    let c = b.add_task(j, "c", 1.0, Some(20.0)).expect("task");
    let d = b.add_task(j, "d", 2.0, None).expect("task");
    b.add_edge(a, c, 1.0e9).expect("edge");
    b.add_edge(a, d, 5.0e8).expect("edge");
    vec![
        Arc::new(shapes::fork_join(3, 4.0, 2.0e9).expect("fork-join")),
        Arc::new(shapes::chain(3, 1.0e3, 1.0e8).expect("chain")),
        Arc::new(b.build().expect("mem workload")),
    ]
}

#[derive(Default, Debug)]
struct Counts {
    seeds: usize,
    inputs: usize,
    loaded: usize,
    load_errors: usize,
    problems: usize,
    problem_errors: usize,
    schedules: usize,
    /// HEFT schedules whose only violations are precision ones (see `Outcome`).
    unverifiable: usize,
}

fn run_format(
    format: Format,
    workloads: &[Arc<Workload>],
    dir: &std::path::Path,
    failures: &mut Vec<(Format, String, String)>,
) -> Counts {
    let seeds = format.seeds();
    for (i, s) in seeds.iter().enumerate() {
        if let Err(e) = format.load(s) {
            panic!("{format:?} seed {i} does not load: {e}\n{s}");
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0xC1A5_7E20 + format as u64);
    let mut c = Counts {
        seeds: seeds.len(),
        ..Counts::default()
    };
    let mut fail = |input: &str, what: String| failures.push((format, input.to_owned(), what));
    for n in 0..INPUTS_PER_FORMAT {
        let mut text = seeds[rng.random_range(0..seeds.len())].clone();
        for _ in 0..rng.random_range(1..=3) {
            mutate(&mut text, &mut rng);
        }
        c.inputs += 1;
        let loaded = match catch_unwind(AssertUnwindSafe(|| format.load(&text))) {
            Ok(r) => r,
            Err(p) => {
                fail(&text, format!("load panicked: {}", payload(&*p)));
                continue;
            }
        };
        // The native format through a file: same outcome, errors name the file.
        if matches!(format, Format::Toml | Format::Json) && n % VIA_FILE_EVERY == 0 {
            let path = dir.join(format.file());
            std::fs::write(&path, &text).expect("temp file");
            match catch_unwind(AssertUnwindSafe(|| Cluster::load(&path))) {
                Err(p) => fail(&text, format!("Cluster::load panicked: {}", payload(&*p))),
                Ok(Ok(from_file)) => {
                    if loaded.as_ref().ok() != Some(&from_file) {
                        fail(
                            &text,
                            "Cluster::load differs from the in-memory read".into(),
                        );
                    }
                }
                Ok(Err(e)) => {
                    if loaded.is_ok() {
                        fail(&text, format!("only Cluster::load fails: {e}"));
                    } else if let ClusterError::Parse { file, .. } = &e
                        && !file.ends_with(format.file())
                    {
                        fail(&text, format!("error does not name the file: {e}"));
                    }
                }
            }
        }
        let cluster = match loaded {
            Ok(cl) => Arc::new(cl),
            Err(e) => {
                c.load_errors += 1;
                if e.to_string().is_empty() {
                    fail(&text, "empty error message".into());
                }
                if matches!(format, Format::Pai | Format::Openb)
                    && matches!(&e, ClusterError::Parse { line: 0, file, .. } if file == format.file())
                    && !text.is_empty()
                {
                    // csv errors without a position are allowed only for empty input
                    fail(&text, format!("parse error without a line: {e}"));
                }
                continue;
            }
        };
        c.loaded += 1;
        for w in workloads {
            match mutation::schedule_loaded(w, &cluster) {
                Outcome::ProblemError => c.problem_errors += 1,
                Outcome::Valid => {
                    c.problems += 1;
                    c.schedules += 1;
                }
                Outcome::Unverifiable => {
                    c.problems += 1;
                    c.unverifiable += 1;
                }
                Outcome::Failure(what) => {
                    c.problems += 1;
                    fail(&text, what);
                }
            }
        }
    }
    c
}

#[test]
fn mutated_clusters_load_or_fail_typed_and_schedule_validly() {
    let started = Instant::now();
    let workloads = workloads();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    let mut loaded = 0;
    for format in Format::ALL {
        let t = Instant::now();
        let c = run_format(format, &workloads, dir.path(), &mut failures);
        println!(
            "{format:?}: {} seeds, {} inputs, {} loaded ({} typed load errors), {} problems \
             built ({} typed problem errors), {} valid HEFT schedules, {} beyond f64 \
             precision, {:.2} s",
            c.seeds,
            c.inputs,
            c.loaded,
            c.load_errors,
            c.problems,
            c.problem_errors,
            c.schedules,
            c.unverifiable,
            t.elapsed().as_secs_f64()
        );
        assert_eq!(c.inputs, INPUTS_PER_FORMAT);
        // The mutations leave many inputs loadable: the scheduling path is exercised.
        assert!(c.schedules > 0, "{format:?}: no input reached HEFT");
        loaded += c.loaded;
    }
    println!(
        "total: {} inputs, {loaded} loaded, {:.2} s",
        INPUTS_PER_FORMAT * Format::ALL.len(),
        started.elapsed().as_secs_f64()
    );
    for (format, input, what) in failures.iter().take(10) {
        eprintln!("--- {format:?}: {what}\n{input}\n---");
    }
    assert!(
        failures.is_empty(),
        "{} failures (first ones above)",
        failures.len()
    );
}
