//! Seeded mutation fuzzing of the workload loaders, end to end.
//!
//! For each format (Alibaba v2018 CSV, WfCommons JSON, Pegasus DAX XML, STG, native JSON,
//! Graphviz DOT), small valid seed files (written below, plus a few small files of the shared
//! data directory when present) are mutated with a fixed seed: digits flipped; numbers replaced by huge,
//! negative, NaN, infinite, subnormal or out-of-range values; lines and fields deleted,
//! duplicated or swapped; the text truncated; references broken. Each mutated input must
//! load or give a typed error, never panic. A workload that loads must give a [`Problem`] on
//! a small fixed cluster or a typed error; a problem that builds must get a valid HEFT
//! schedule whose makespan is at least the problem's finite lower bound (up to the rounding
//! tolerance `LOWER_BOUND_TOLERANCE` of the conformance check).
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
use worl_cluster::{Cluster, GpuModel, presets};
use worl_dag::formats::{alibaba, dax, dot, native, stg, wfcommons};
use worl_dag::{DagError, LoadReport, Workload};

/// Mutated inputs per format.
const INPUTS_PER_FORMAT: usize = 10_000;
/// Shared-data files larger than this are not used (the test stays fast).
const MAX_SHARED_BYTES: usize = 8 * 1024;
/// Lines kept of a shared CSV trace (its head).
const SHARED_CSV_LINES: usize = 40;

const ALIBABA_SEED: &str = "\
M1,1,j_1,1,Terminated,100,160,100,0.3
R2_1,1,j_1,1,Terminated,160,170,100,0.3
J3_1_2,2,j_1,1,Terminated,170,190,50,0.5
J4_3_Stg2,1,j_1,1,Terminated,190,190,50,0.5
task_abc,5,j_2,6,Terminated,50,80,,
M1,1,j_3,1,Terminated,10,20,100,0.3
R2_1,1,j_3,1,Failed,20,25,100,0.3
task_xyz,,j_4,6,Waiting,0,0,,
";

const WF15_SEED: &str = r#"{
  "name": "diamond",
  "schemaVersion": "1.5",
  "workflow": {
    "specification": {
      "tasks": [
        {"name": "split", "id": "split_1", "parents": [], "children": ["left_2", "right_3"],
         "inputFiles": ["in"], "outputFiles": ["a", "b"]},
        {"name": "left", "id": "left_2", "parents": ["split_1"], "children": ["join_4"],
         "inputFiles": ["a"], "outputFiles": ["la"]},
        {"name": "right", "id": "right_3", "parents": ["split_1"], "children": ["join_4"],
         "inputFiles": ["a", "b"], "outputFiles": ["rb"]},
        {"name": "join", "id": "join_4", "parents": ["left_2", "right_3"], "children": [],
         "inputFiles": ["la", "rb"], "outputFiles": ["out"]}
      ],
      "files": [
        {"id": "in", "sizeInBytes": 100}, {"id": "a", "sizeInBytes": 1000},
        {"id": "b", "sizeInBytes": 2000}, {"id": "la", "sizeInBytes": 500},
        {"id": "rb", "sizeInBytes": 700}, {"id": "out", "sizeInBytes": 10}
      ]
    },
    "execution": {
      "makespanInSeconds": 60.0,
      "tasks": [
        {"id": "split_1", "runtimeInSeconds": 10.0}, {"id": "left_2", "runtimeInSeconds": 20.5},
        {"id": "right_3", "runtimeInSeconds": 30.0}, {"id": "join_4", "runtimeInSeconds": 5.0}
      ]
    }
  }
}
"#;

const WF14_SEED: &str = r#"{
  "name": "chain-1.4",
  "schemaVersion": "1.4",
  "workflow": {
    "tasks": [
      {"name": "a", "runtimeInSeconds": 10.0, "parents": [],
       "files": [{"link": "output", "name": "x", "sizeInBytes": 1000}]},
      {"name": "b", "runtime": 20.0, "parents": ["a"],
       "files": [{"link": "input", "name": "x", "sizeInBytes": 1000},
                 {"link": "output", "name": "y", "sizeInBytes": 30}]},
      {"name": "c", "runtime": 3.0, "parents": ["a", "b"],
       "files": [{"link": "input", "name": "y"}]}
    ]
  }
}
"#;

const DAX_SEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1" name="small" jobCount="4" childCount="3">
  <job id="ID1" name="pre" runtime="2.5">
    <uses file="x" link="input" size="10"/>
    <uses file="a" link="output" size="400"/>
    <uses file="b" link="output" size="300"/>
  </job>
  <job id="ID2" name="work" runtime="10">
    <uses file="a" link="input" size="400"/>
    <uses file="c" link="output" size="50"/>
  </job>
  <job id="ID3" name="work" runtime="7.25">
    <uses file="b" link="input" size="300"/>
    <uses file="d" link="output" size="60"/>
  </job>
  <job id="ID4" name="post" runtime="1">
    <uses file="c" link="input" size="50"/>
    <uses file="d" link="input" size="60"/>
  </job>
  <child ref="ID2">
    <parent ref="ID1"/>
  </child>
  <child ref="ID3">
    <parent ref="ID1"/>
  </child>
  <child ref="ID4">
    <parent ref="ID2"/>
    <parent ref="ID3"/>
  </child>
</adag>
"#;

const STG_SEED: &str = "\
4
0 0 0
1 5 1 0
2 7 1 1
3 4 1 1
4 2 2 2 3
5 0 1 4
# a hand-made STG graph
";

const STG_COMM_SEED: &str = "\
4
0 0 0
1 3 1 0 0
2 4 1 1 2
3 5 1 1 1
4 2 2 2 3 3 4
5 0 1 4 0
";

const NATIVE_SEED: &str = r#"{
  "format": "worl-workload",
  "version": 1,
  "name": "hand",
  "jobs": [
    {"name": "j1",
     "tasks": [{"id": 0, "name": "M1", "work": 4.0},
               {"id": 1, "name": "R2_1", "work": 2.0, "mem_gib": 8.0},
               {"id": 2, "name": "R3_1", "work": 1.5}],
     "edges": [{"from": "M1", "to": "R2_1", "bytes": 1000000.0},
               {"from": "M1", "to": "R3_1", "bytes": 2.5e9}]},
    {"name": "j2",
     "tasks": [{"id": 3, "name": "M1", "work": 1.5}]}
  ],
  "links": [{"from_job": "j1", "from": "R2_1", "to_job": "j2", "to": "M1", "bytes": 5.0}]
}
"#;

const NATIVE_NO_IDS_SEED: &str = r#"{"format": "worl-workload", "version": 1, "name": "chain",
"jobs": [{"name": "j", "tasks": [{"name": "a", "work": 3.0}, {"name": "b", "work": 0.0},
{"name": "c", "work": 2.5, "mem_gib": 1.0}],
"edges": [{"from": "a", "to": "b", "bytes": 0.0}, {"from": "b", "to": "c", "bytes": 1e9}]}]}
"#;

/// DAGGEN's DOT output (`daggen --dot`): sizes in FLOP, edge sizes in bytes.
const DAGGEN_SEED: &str = "digraph G {
  1 [size=\"2000000000\", alpha=\"0.10\"]
  2 [size=\"4000000000\", alpha=\"0.20\"]
  3 [size=\"1000000000\", alpha=\"0.00\"]
  1 -> 2 [size =\"8388608\"]
  1 -> 3 [size =\"33554432\"]
  2 -> 3 [size =\"1048576\"]
}
";

/// worl's own DOT export (jobs as clusters, exact values in `node`/`edge` defaults).
const DOT_EXPORT_SEED: &str = "digraph \"w\" {
  subgraph cluster_0 {
    label=\"j\";
    node [task=\"a\", work=\"3\", mem_gib=\"\"];
    t0 [label=\"a\\n3.000 s\"];
    node [task=\"b\", work=\"0\", mem_gib=\"1\"];
    t1 [label=\"b\\n0.000 s\"];
  }
  edge [bytes=\"1000000000\"];
  t0 -> t1 [label=\"1.00e9 B\"];
}
";

/// Replacement numbers: huge, negative, NaN, infinite, subnormal, out of every integer range.
const SPECIAL: &[&str] = &[
    "1e308",
    "-1e308",
    "1e309",
    "-1",
    "-0",
    "0",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "1e-320",
    "4.9e-324",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "99999999999999999999999999",
    "1.7976931348623157e308",
    "0.5",
    "",
];

#[derive(Copy, Clone, Debug)]
enum Format {
    Alibaba,
    WfCommons,
    Dax,
    Stg,
    Native,
    Dot,
}

impl Format {
    const ALL: [Format; 6] = [
        Format::Alibaba,
        Format::WfCommons,
        Format::Dax,
        Format::Stg,
        Format::Native,
        Format::Dot,
    ];

    fn source(self) -> &'static str {
        match self {
            Format::Alibaba => "fuzz.csv",
            Format::WfCommons => "fuzz.json",
            Format::Dax => "fuzz.xml",
            Format::Stg => "fuzz.stg",
            Format::Native => "fuzz-native.json",
            Format::Dot => "fuzz.dot",
        }
    }

    fn load(self, text: &str) -> Result<(Workload, LoadReport), DagError> {
        let src = self.source();
        let bytes = text.as_bytes();
        match self {
            Format::Alibaba => alibaba::read(bytes, src, &alibaba::AlibabaOptions::default()),
            Format::WfCommons => wfcommons::read(bytes, src, &wfcommons::WfOptions::default()),
            Format::Dax => dax::read(bytes, src, &dax::DaxOptions::default()),
            Format::Stg => stg::read(bytes, src, &stg::StgOptions::default()),
            Format::Native => native::read(bytes, src),
            Format::Dot => dot::read(bytes, src, &dot::DotOptions::default()),
        }
    }

    /// The hand-made seeds, then small files of the shared data directory (if present).
    fn seeds(self) -> Vec<String> {
        let mut seeds: Vec<String> = match self {
            Format::Alibaba => vec![ALIBABA_SEED.into()],
            Format::WfCommons => vec![WF15_SEED.into(), WF14_SEED.into()],
            Format::Dax => vec![DAX_SEED.into()],
            Format::Stg => vec![STG_SEED.into(), STG_COMM_SEED.into()],
            Format::Native => vec![NATIVE_SEED.into(), NATIVE_NO_IDS_SEED.into()],
            Format::Dot => vec![DAGGEN_SEED.into(), DOT_EXPORT_SEED.into()],
        };
        let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory")
        else {
            return seeds;
        };
        let (sub, ext) = match self {
            Format::Alibaba => ("alibaba-v2018", "csv"),
            Format::WfCommons => ("wfcommons-wfinstances", "json"),
            Format::Dax => ("pegasus-dax-workflowsim", "xml"),
            Format::Stg => ("stg", "stg"),
            Format::Native | Format::Dot => return seeds,
        };
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            return seeds;
        };
        let mut files: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        for path in files {
            if matches!(self, Format::Alibaba) {
                // batch_task only (not machine_meta): the head of the trace.
                if !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("batch_task"))
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("shared CSV");
                let head: String = text
                    .lines()
                    .take(SHARED_CSV_LINES)
                    .flat_map(|l| [l, "\n"])
                    .collect();
                seeds.push(head);
            } else if std::fs::metadata(&path).is_ok_and(|m| m.len() as usize <= MAX_SHARED_BYTES) {
                seeds.push(std::fs::read_to_string(&path).expect("shared file"));
            }
        }
        seeds
    }
}

/// One random mutation of `text`.
fn mutate(text: &mut String, rng: &mut ChaCha8Rng) {
    match rng.random_range(0..10) {
        0 => mutation::flip_digit(text, rng),
        1..=3 => mutation::replace_number(text, rng, SPECIAL),
        4..=5 => mutation::edit_line(text, rng, 1),
        6..=7 => mutation::edit_field(text, rng),
        8 => mutation::truncate(text, rng),
        _ => mutation::break_word(text, rng),
    }
}

#[derive(Default, Debug)]
struct Counts {
    inputs: usize,
    loaded: usize,
    load_errors: usize,
    problems: usize,
    problem_errors: usize,
    schedules: usize,
    /// HEFT schedules whose only violations are precision ones (see `Outcome`).
    unverifiable: usize,
}

/// A failure found: the input and what went wrong.
struct Failure {
    format: Format,
    input: String,
    what: String,
}

fn run_format(format: Format, cluster: &Arc<Cluster>, failures: &mut Vec<Failure>) -> Counts {
    let seeds = format.seeds();
    // Every seed is valid and loads.
    for (i, s) in seeds.iter().enumerate() {
        if let Err(e) = format.load(s) {
            panic!("{format:?} seed {i} does not load: {e}");
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_0000 + format as u64);
    let mut c = Counts::default();
    let mut fail = |input: &str, what: String| {
        failures.push(Failure {
            format,
            input: input.to_owned(),
            what,
        })
    };
    for _ in 0..INPUTS_PER_FORMAT {
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
        let w = match loaded {
            Ok((w, _)) => w,
            Err(e) => {
                c.load_errors += 1;
                let msg = e.to_string();
                if msg.is_empty() || msg.contains(":0:") || msg.contains("line 0") {
                    fail(&text, format!("bad message: {msg}"));
                }
                continue;
            }
        };
        c.loaded += 1;
        let w = Arc::new(w);
        match mutation::schedule_loaded(&w, cluster) {
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
    println!(
        "{format:?}: {} seeds, {} inputs, {} loaded ({} typed load errors), {} problems built \
         ({} typed problem errors), {} valid HEFT schedules, {} beyond f64 precision",
        seeds.len(),
        c.inputs,
        c.loaded,
        c.load_errors,
        c.problems,
        c.problem_errors,
        c.schedules,
        c.unverifiable
    );
    c
}

#[test]
fn mutated_workloads_load_or_fail_typed_and_schedule_validly() {
    let cluster = Arc::new(presets::homogeneous(3, &GpuModel::v100_16gb()).expect("cluster"));
    let mut failures = Vec::new();
    let mut total = Counts::default();
    for format in Format::ALL {
        let c = run_format(format, &cluster, &mut failures);
        assert_eq!(c.inputs, INPUTS_PER_FORMAT);
        assert_eq!(
            c.loaded + c.load_errors + failures_of(&failures, format),
            c.inputs
        );
        // The mutations leave many inputs loadable: the scheduling path is exercised.
        assert!(c.schedules > 0, "{format:?}: no input reached HEFT");
        total.inputs += c.inputs;
        total.loaded += c.loaded;
        total.problems += c.problems;
        total.schedules += c.schedules;
    }
    println!(
        "total: {} inputs, {} loaded, {} problems built, {} valid HEFT schedules",
        total.inputs, total.loaded, total.problems, total.schedules
    );
    for f in failures.iter().take(20) {
        eprintln!("--- {:?}: {}\n{}\n---", f.format, f.what, f.input);
    }
    assert!(
        failures.is_empty(),
        "{} failures (first ones above)",
        failures.len()
    );
}

/// Failures of `format` that happened at load time (panics), counted apart.
fn failures_of(failures: &[Failure], format: Format) -> usize {
    failures
        .iter()
        .filter(|f| f.format as u8 == format as u8)
        .filter(|f| f.what.starts_with("load panicked"))
        .count()
}
