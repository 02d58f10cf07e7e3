//! Busy windows (issue 21) in the cluster files: the compact `busy = ["2 h..4 h"]` at the top
//! level and in `[[machine]]` overrides, the native per-GPU `busy` (strings or `[from, to]`
//! pairs), errors with line and GPU, the compact writer (uniform, per machine, or verbose
//! fallback) and read → write → read round trips.

use proptest::prelude::*;
use worl_cluster::formats::compact::parse_window;
use worl_cluster::{Cluster, ClusterBuilder, ClusterError, GpuId, GpuModel, MachineId};
use worl_cluster::{ClusterSpec, MachineOverride};

fn g(i: usize) -> GpuId {
    GpuId::new(i)
}

const H: f64 = 3600.0;

const COMPACT: &str = r#"
machines = 3
gpus_per_machine = 2
model = "A100-80GB"
inter = "100GbE"
busy = ["2 h..4 h", "10 h..11.5 h"]

[[machine]]
index = 1
busy = ["30 min..45 min", [7200, 7260]]

[[machine]]
index = 2
busy = []
"#;

#[test]
fn compact_busy_applies_to_every_gpu_and_overrides_replace_it() {
    let c = Cluster::from_toml_str(COMPACT).unwrap();
    assert_eq!(c.n_gpus(), 6);
    let top = [(2.0 * H, 4.0 * H), (10.0 * H, 11.5 * H)];
    assert_eq!(c.busy(g(0)), &top[..]);
    assert_eq!(c.busy(g(1)), &top[..]);
    assert_eq!(c.busy(g(2)), &[(1800.0, 2700.0), (7200.0, 7260.0)][..]);
    assert_eq!(c.busy(g(3)), &[(1800.0, 2700.0), (7200.0, 7260.0)][..]);
    assert!(c.busy(g(4)).is_empty() && c.busy(g(5)).is_empty());
    assert!(c.has_windows());
    // The same cluster through the builder.
    let mut b = ClusterBuilder::new("3x2-A100-80GB");
    let a100 = GpuModel::a100_80gb();
    for m in 0..3 {
        let id = b.add_machine(format!("node-{m}"));
        b.add_gpus(id, &a100, 2).unwrap();
    }
    b.network(c.network().clone());
    for gpu in 0..2 {
        for &(f, t) in &top {
            b.add_busy(g(gpu), f, t).unwrap();
        }
    }
    b.add_machine_busy(MachineId::new(1), 1800.0, 2700.0)
        .unwrap();
    b.add_machine_busy(MachineId::new(1), 7200.0, 7260.0)
        .unwrap();
    assert_eq!(b.build().unwrap(), c);
    // JSON reads the same.
    let json = r#"{"machines": 3, "gpus_per_machine": 2, "model": "A100-80GB", "inter": "100GbE",
        "busy": ["2 h..4 h", "10 h..11.5 h"],
        "machine": [{"index": 1, "busy": ["30 min..45 min", [7200, 7260]]},
                    {"index": 2, "busy": []}]}"#;
    assert_eq!(Cluster::from_json_str(json).unwrap(), c);
}

#[test]
fn window_strings_parse_with_the_duration_units() {
    assert_eq!(parse_window("2 h..4 h").unwrap(), (7200.0, 14400.0));
    assert_eq!(parse_window(" 1.5s .. 2500 ms ").unwrap(), (1.5, 2.5));
    assert_eq!(parse_window("0 s..1 min").unwrap(), (0.0, 60.0));
    for bad in ["2 h", "2..4", "2 h..", "x h..4 h", "2 h - 4 h"] {
        let e = parse_window(bad).unwrap_err().to_string();
        assert!(e.contains(&format!("busy window `{bad}`")), "{e}");
    }
}

#[test]
fn native_busy_takes_strings_and_pairs() {
    let text = r#"
name = "two"
machines = ["a", "b"]
[network]
kind = "uniform"
intra = { bandwidth = 12e9, latency = 1e-5 }
inter = { bandwidth = 3.125e9, latency = 5e-5 }
[[gpus]]
model = "A100"
machine = 0
busy = ["2 h..4 h", [50400, 57600]]
[[gpus]]
model = "A100"
machine = 1
"#;
    let c = Cluster::from_toml_str(text).unwrap();
    assert_eq!(c.busy(g(0)), &[(7200.0, 14400.0), (50400.0, 57600.0)][..]);
    assert!(c.busy(g(1)).is_empty());
    // Writing gives pairs, which read back equal.
    let native = c.to_toml_string().unwrap();
    assert_eq!(Cluster::from_toml_str(&native).unwrap(), c);
    assert_eq!(Cluster::from_json_str(&c.to_json_string()).unwrap(), c);
    // A bad string: a parse error at its line naming the key.
    let bad = text.replace("\"2 h..4 h\"", "\"2 h..later\"");
    match Cluster::from_toml_str(&bad).unwrap_err() {
        ClusterError::Parse { line, message, .. } => {
            assert_eq!(line, 11, "{message}");
            assert!(
                message.contains("busy window `2 h..later`: end `later` is not a number"),
                "{message}"
            );
        }
        e => panic!("expected a parse error, got {e:?}"),
    }
    // Overlapping windows: the GPU named as machine/gN.
    let bad = text.replace("[50400, 57600]", "\"3 h..5 h\"");
    let e = Cluster::from_toml_str(&bad).unwrap_err().to_string();
    assert!(e.contains("a/g0") && e.contains("overlap"), "{e}");
    let bad = text.replace("[50400, 57600]", "[1e12, 2e12]");
    let e = Cluster::from_toml_str(&bad).unwrap_err().to_string();
    assert!(e.contains("a/g0") && e.contains("horizon"), "{e}");
}

/// The message of a compact file's error and its line.
fn compact_err(text: &str) -> (usize, String) {
    match Cluster::from_toml_str(text).unwrap_err() {
        ClusterError::Parse { line, message, .. } => (line, message),
        e => panic!("expected a parse error, got {e:?}"),
    }
}

#[test]
fn compact_errors_name_the_line_the_key_and_the_gpu() {
    let (line, m) = compact_err(&COMPACT.replace("\"2 h..4 h\"", "\"2 h\""));
    assert_eq!(line, 6, "{m}");
    assert!(m.contains("busy window `2 h`: expected FROM..TO"), "{m}");
    // Inverted at the top level: the `busy` key's line, GPU node-0/g0.
    let (line, m) = compact_err(&COMPACT.replace("2 h..4 h", "4 h..2 h"));
    assert_eq!(line, 6, "{m}");
    assert!(m.contains("node-0/g0") && m.contains("inverted"), "{m}");
    // Empty in an override: that override's header line, GPU node-1/g2.
    let (line, m) = compact_err(&COMPACT.replace("30 min..45 min", "30 min..0.5 h"));
    assert_eq!(line, 8, "{m}");
    assert!(m.contains("node-1/g2") && m.contains("empty"), "{m}");
    // Overlapping, negative, past the horizon, not finite.
    let (_, m) = compact_err(&COMPACT.replace("10 h..11.5 h", "3 h..5 h"));
    assert!(m.contains("node-0/g0") && m.contains("overlap"), "{m}");
    let (_, m) = compact_err(&COMPACT.replace("[7200, 7260]", "[-5, 7260]"));
    assert!(m.contains("node-1/g2") && m.contains("-5"), "{m}");
    let (_, m) = compact_err(&COMPACT.replace("[7200, 7260]", "\"1 h..400000 h\""));
    assert!(m.contains("node-1/g2") && m.contains("horizon"), "{m}");
    let (_, m) = compact_err(&COMPACT.replace("[7200, 7260]", "[7200, nan]"));
    assert!(m.contains("node-1/g2") && m.contains("finite"), "{m}");
    let (line, m) = compact_err(&COMPACT.replace("[7200, 7260]", "[7200]"));
    assert_eq!(line, 10, "{m}");
}

#[test]
fn compact_writer_writes_windows_uniform_per_machine_or_falls_back() {
    // Uniform: one top-level key with units.
    let spec = ClusterSpec::new(2, 4, &GpuModel::a100_80gb())
        .with_busy(vec![(2.0 * H, 4.0 * H), (10.0 * H, 11.5 * H)]);
    let c = spec.build().unwrap();
    let text = c.to_compact_toml_string().unwrap();
    assert!(
        text.contains(r#"busy = ["2 h..4 h", "10 h..11.5 h"]"#),
        "{text}"
    );
    assert!(
        !text.contains("[[machine]]") && !text.contains("[[gpus]]"),
        "{text}"
    );
    assert_eq!(Cluster::from_toml_str(&text).unwrap(), c);
    // Per machine: the most common windows at the top, the others in overrides; a window
    // that no unit writes exactly stays a pair of seconds.
    let odd = (0.1 + 0.2, 1.0 / 3.0 + 7.0);
    let spec = ClusterSpec::new(3, 2, &GpuModel::a100_80gb())
        .with_busy(vec![(0.0, 90.0)])
        .with_machine(MachineOverride::new(1).with_busy(vec![odd]))
        .with_machine(MachineOverride::new(2).with_busy(vec![]));
    let c = spec.build().unwrap();
    let text = c.to_compact_toml_string().unwrap();
    assert!(text.contains(r#"busy = ["0 s..1.5 min"]"#), "{text}");
    assert!(
        text.contains("busy = [[0.30000000000000004, 7.333333333333333]]"),
        "{text}"
    );
    assert!(text.contains("busy = []"), "{text}");
    assert!(!text.contains("[[gpus]]"), "{text}");
    assert_eq!(Cluster::from_toml_str(&text).unwrap(), c);
    assert_eq!(
        Cluster::from_json_str(&c.to_compact_json_string()).unwrap(),
        c
    );
    // GPUs of one machine with different windows: the verbose form.
    let mut c = ClusterSpec::new(2, 2, &GpuModel::a100_80gb())
        .build()
        .unwrap();
    c.set_busy(g(1), vec![(5.0, 6.0)]).unwrap();
    let text = c.to_compact_toml_string().unwrap();
    assert!(text.contains("[[gpus]]"), "{text}");
    assert_eq!(Cluster::from_toml_str(&text).unwrap(), c);
}

/// Sorted, non-overlapping windows from random gaps and lengths (ms-grained or arbitrary).
fn windows() -> impl Strategy<Value = Vec<(f64, f64)>> {
    prop::collection::vec((0u32..5_000_000, 1u32..5_000_000, any::<bool>()), 0..4).prop_map(
        |steps| {
            let mut t = 0.0;
            let mut out = Vec::new();
            for (gap, len, exact) in steps {
                let scale = if exact { 1e-3 } else { 1.0 / 7.0 };
                let from = t + gap as f64 * scale;
                let to = from + len as f64 * scale;
                out.push((from, to));
                t = to;
            }
            out
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Read → write → read gives the same cluster, whatever the windows per machine or GPU.
    #[test]
    fn windows_round_trip_through_compact_and_native_files(
        per_machine in prop::collection::vec(windows(), 1..4),
        per_gpu in prop::collection::vec((0usize..12, windows()), 0..3),
        gpus in 1usize..4,
    ) {
        let mut spec = ClusterSpec::new(per_machine.len(), gpus, &GpuModel::a100_80gb());
        for (m, w) in per_machine.iter().enumerate() {
            spec = spec.with_machine(MachineOverride::new(m).with_busy(w.clone()));
        }
        let mut c = spec.build().unwrap();
        for (i, w) in per_gpu {
            if i < c.n_gpus() {
                c.set_busy(g(i), w).unwrap();
            }
        }
        let toml = c.to_compact_toml_string().unwrap();
        let back = Cluster::from_toml_str(&toml).unwrap();
        prop_assert_eq!(&back, &c, "{}", toml);
        prop_assert_eq!(&Cluster::from_toml_str(&back.to_compact_toml_string().unwrap()).unwrap(), &c);
        prop_assert_eq!(&Cluster::from_json_str(&c.to_compact_json_string()).unwrap(), &c);
        prop_assert_eq!(&Cluster::from_toml_str(&c.to_toml_string().unwrap()).unwrap(), &c);
    }
}
