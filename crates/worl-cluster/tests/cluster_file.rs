//! The compact cluster file (`docs/cluster-file.md`): the 4 × 8 A100 on 100 GbE example
//! with hand-checked links, overrides, units, round trips through the verbose form, exact
//! error messages, and every file of `examples/clusters` loading.

use std::path::PathBuf;
use worl_cluster::formats::compact::{parse_bandwidth, parse_duration};
use worl_cluster::presets;
use worl_cluster::{Cluster, ClusterError, GpuId, GpuModel, Link, MachineId, Network};
use worl_cluster::{ClusterSpec, MachineOverride, PerGpu};

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/clusters")
}

fn g(i: usize) -> GpuId {
    GpuId::new(i)
}

/// The message of a parse error, as `file:line: message`.
fn err_of(r: Result<Cluster, ClusterError>) -> String {
    match r {
        Ok(c) => panic!("expected an error, got cluster `{}`", c.name()),
        Err(e @ ClusterError::Parse { .. }) => e.to_string(),
        Err(e) => panic!("expected a parse error, got {e:?}"),
    }
}

const A100_4X8: &str = r#"
name = "a100-4x8-100gbe"
machines = 4
gpus_per_machine = 8
model = "A100-80GB"
intra = "NVLink3"
inter = "100GbE"
"#;

#[test]
fn a100_4x8_on_100gbe_has_32_gpus_and_the_right_links() {
    let c = Cluster::from_toml_str(A100_4X8).unwrap();
    assert_eq!(c.name(), "a100-4x8-100gbe");
    assert_eq!((c.n_gpus(), c.n_machines()), (32, 4));
    assert_eq!(c.machines()[3], "node-3");
    let ids: Vec<usize> = c
        .gpus_of(MachineId::new(3))
        .iter()
        .map(|g| g.index())
        .collect();
    assert_eq!(ids, (24..32).collect::<Vec<_>>());
    assert_eq!(c.gpu_counts()["A100-80GB"], 32);
    assert_eq!(c.gpu(g(5)).mem_gib, 80.0);
    // within a machine: NVLink 3, 600 GB/s, 5 us
    let intra = c.link(g(0), g(7)).unwrap();
    assert_eq!((intra.bandwidth, intra.latency), (600.0e9, 5.0e-6));
    // between machines: 100 Gbit/s = 12.5e9 B/s, 20 us
    let inter = c.link(g(7), g(8)).unwrap();
    assert_eq!((inter.bandwidth, inter.latency), (12.5e9, 20.0e-6));
    assert_eq!(c.link(g(31), g(0)), Some(inter));
    // 1.25 GB over 100 GbE: 20 us + 0.1 s
    assert!((inter.transfer_time(1.25e9) - 0.100_020).abs() < 1e-12);
    assert!(matches!(c.network(), Network::Uniform { .. }));
    // the same cluster from code
    let spec = ClusterSpec::new(4, 8, &GpuModel::a100_80gb())
        .with_name("a100-4x8-100gbe")
        .with_intra(Link::NVLINK3)
        .with_inter(Link::ETHERNET_100G);
    assert_eq!(spec.build().unwrap(), c);
    // and from JSON, the model in another case and the link by an alias
    let json = r#"{"name": "a100-4x8-100gbe", "machines": 4, "gpus_per_machine": 8,
        "model": "a100-80gb", "intra": "NVLink 3.0", "inter": "100 Gbit/s Ethernet"}"#;
    assert_eq!(Cluster::from_json_str(json).unwrap(), c);
}

#[test]
fn defaults_intra_from_the_model_and_25gbe_between_machines() {
    let c =
        Cluster::from_toml_str("machines = 2\ngpus_per_machine = 4\nmodel = \"V100\"\n").unwrap();
    assert_eq!(c.name(), "2x4-V100-16GB");
    assert_eq!(c.link(g(0), g(1)), Some(Link::NVLINK2));
    assert_eq!(
        c.link(g(0), g(4)),
        Some(Link {
            bandwidth: 3.125e9,
            latency: 50.0e-6
        })
    );
    assert_eq!(c.gpu(g(7)).background, 0.0);
    assert_eq!(c.gpu(g(7)).ready_time, 0.0);
}

#[test]
fn overrides_change_model_count_links_and_load_per_machine_and_gpu() {
    let c = Cluster::load(examples_dir().join("mixed.toml")).unwrap();
    assert_eq!((c.n_gpus(), c.n_machines()), (8 * 4 + 4 + 2, 6));
    assert_eq!(c.machines()[0], "busy-0");
    assert_eq!(c.machines()[4], "node-4");
    let counts = c.gpu_counts();
    assert_eq!(
        (counts["V100-32GB"], counts["A100-80GB"], counts["T4"]),
        (32, 4, 2)
    );
    assert_eq!(c.gpu(g(32)).model, "A100-80GB");
    assert_eq!(c.gpu(g(36)).model, "T4");
    // intra links follow each machine's model; 25 Gbit/s = 3.125e9 B/s, 50 us between
    assert_eq!(c.link(g(0), g(1)), Some(Link::NVLINK2));
    assert_eq!(c.link(g(32), g(35)), Some(Link::NVLINK3));
    assert_eq!(c.link(g(36), g(37)), Some(Link::PCIE3_X16));
    assert_eq!(c.link(g(0), g(37)), Some(Link::ETHERNET_25G));
    assert_eq!(c.link(g(35), g(36)), Some(Link::ETHERNET_25G));
    assert!(matches!(c.network(), Network::PerMachinePair { .. }));
    // machine 0 half busy, machine 1 ready after 2 min, machine 5 per GPU
    assert!((0..8).all(|k| c.gpu(g(k)).background == 0.5));
    assert!((8..16).all(|k| c.gpu(g(k)).ready_time == 120.0));
    assert_eq!(c.gpu(g(16)).ready_time, 0.0);
    assert_eq!(
        (c.gpu(g(36)).background, c.gpu(g(37)).background),
        (0.25, 0.0)
    );
    assert_eq!(c.gpu(g(36)).ready_time, 0.0);

    // the same from code
    let spec = ClusterSpec::new(6, 8, &GpuModel::v100_32gb())
        .with_name("mixed")
        .with_machine(
            MachineOverride::new(0)
                .with_name("busy-0")
                .with_background(PerGpu::All(0.5)),
        )
        .with_machine(MachineOverride::new(1).with_ready_time(PerGpu::All(120.0)))
        .with_machine(
            MachineOverride::new(4)
                .with_model(&GpuModel::a100_80gb())
                .with_gpus(4),
        )
        .with_machine(
            MachineOverride::new(5)
                .with_model(&GpuModel::t4())
                .with_gpus(2)
                .with_background(PerGpu::Each(vec![0.25, 0.0])),
        );
    assert_eq!(spec.build().unwrap(), c);

    // one override for several machines, an explicit intra link, a machine without GPUs
    let text = r#"
machines = 3
machine_prefix = "gpu"
gpus_per_machine = 2
model = "T4"
intra = "PCIe4"
background = 0.1
ready_time = 4.5
[[machine]]
index = [0, 2]
intra = { bandwidth = "32 GB/s", latency = "2 us" }
ready_time = ["1 ms", 0]
[[machine]]
index = 1
gpus = 0
"#;
    let c = Cluster::from_toml_str(text).unwrap();
    assert_eq!((c.n_gpus(), c.n_machines()), (4, 3));
    assert!(c.gpus_of(MachineId::new(1)).is_empty());
    assert_eq!(c.machines(), ["gpu0", "gpu1", "gpu2"]);
    assert_eq!(
        c.link(g(0), g(1)),
        Some(Link {
            bandwidth: 32.0e9,
            latency: 2.0e-6
        })
    );
    assert_eq!(c.network().bandwidth(1, 1), Link::PCIE4_X16.bandwidth);
    let ready: Vec<f64> = c.gpus().iter().map(|g| g.ready_time).collect();
    assert_eq!(ready, [0.001, 0.0, 0.001, 0.0]);
    assert!(c.gpus().iter().all(|g| g.background == 0.1));
}

#[test]
fn units_are_parsed() {
    assert_eq!(parse_bandwidth("100 Gbit/s").unwrap(), 12.5e9);
    assert_eq!(parse_bandwidth("100Gbps").unwrap(), 12.5e9);
    assert_eq!(parse_bandwidth("12.5 GB/s").unwrap(), 12.5e9);
    assert_eq!(parse_bandwidth("500 Mbit/s").unwrap(), 62.5e6);
    assert_eq!(parse_bandwidth("8 bit/s").unwrap(), 1.0);
    assert_eq!(parse_bandwidth("1e9 B/s").unwrap(), 1.0e9);
    assert_eq!(parse_bandwidth("2 GiB/s").unwrap(), 2_147_483_648.0);
    assert_eq!(parse_duration("5 us").unwrap(), 5.0e-6);
    assert_eq!(parse_duration("5µs").unwrap(), 5.0e-6);
    assert_eq!(parse_duration("2 ms").unwrap(), 0.002);
    assert_eq!(parse_duration("1.5 s").unwrap(), 1.5);
    assert_eq!(parse_duration("3 ns").unwrap(), 3.0e-9);
    assert_eq!(parse_duration("2 min").unwrap(), 120.0);
    assert_eq!(parse_duration("1 h").unwrap(), 3600.0);
    assert_eq!(
        parse_bandwidth("100 Gbit").unwrap_err().to_string(),
        "invalid parameter `bandwidth`: `100 Gbit` is not a number with a unit (bit/s, Mbit/s, Gbit/s, B/s, MB/s, GB/s, ...)"
    );
    assert!(parse_bandwidth("fast GB/s").is_err());
    assert!(parse_bandwidth("12.5").is_err());
    assert_eq!(
        parse_duration("5").unwrap_err().to_string(),
        "invalid parameter `duration`: `5` is not a number with a unit (ns, us, ms, s, min, h)"
    );
    assert!(parse_duration("5 parsecs").is_err());
    // plain numbers in files are bytes/s and seconds
    let text = "machines = 2\ngpus_per_machine = 1\nmodel = \"T4\"\ninter = { bandwidth = 1e9, latency = 0.001 }\n";
    let c = Cluster::from_toml_str(text).unwrap();
    assert_eq!(
        c.link(g(0), g(1)),
        Some(Link {
            bandwidth: 1.0e9,
            latency: 0.001
        })
    );
}

#[test]
fn named_links_are_unique_and_resolve() {
    for n in presets::NAMED_LINKS {
        assert_eq!(presets::link_by_name(n.name), Some(n.link), "{}", n.name);
        assert_eq!(presets::link_name(&n.link), Some(n.name));
        for a in n.aliases {
            assert_eq!(presets::link_by_name(a), Some(n.link), "{a}");
        }
    }
    assert_eq!(presets::link_by_name("ib-hdr"), Some(Link::INFINIBAND_HDR));
    assert_eq!(presets::link_by_name("400gbe").unwrap().bandwidth, 50.0e9);
    assert_eq!(
        presets::link_by_name("PCIe 5.0 x16").unwrap().bandwidth,
        48.0e9
    );
    assert_eq!(presets::link_by_name("10GbE"), Some(Link::ETHERNET_10G));
    assert_eq!(presets::link_by_name("NVLink5"), None);
}

#[test]
fn compact_to_verbose_and_back_gives_an_identical_cluster() {
    for text in [
        A100_4X8.to_owned(),
        std::fs::read_to_string(examples_dir().join("mixed.toml")).unwrap(),
    ] {
        let c = Cluster::from_toml_str(&text).unwrap();
        let verbose = c.to_toml_string().unwrap();
        assert!(verbose.contains("[[gpus]]"));
        assert_eq!(Cluster::from_toml_str(&verbose).unwrap(), c);
        assert_eq!(Cluster::from_json_str(&c.to_json_string()).unwrap(), c);
        // and the compact writer gives it back
        let compact = c.to_compact_toml_string().unwrap();
        assert!(!compact.contains("[[gpus]]"), "{compact}");
        assert_eq!(Cluster::from_toml_str(&compact).unwrap(), c, "{compact}");
        assert_eq!(
            Cluster::from_json_str(&c.to_compact_json_string()).unwrap(),
            c
        );
    }
    let c = Cluster::from_toml_str(A100_4X8).unwrap();
    assert_eq!(c.to_toml_string().unwrap().lines().count(), 278);
    assert_eq!(
        c.to_compact_toml_string().unwrap(),
        "name = \"a100-4x8-100gbe\"\nmachines = 4\ngpus_per_machine = 8\nmodel = \"A100-80GB\"\nintra = \"NVLink3\"\ninter = \"100GbE\"\n"
    );
}

#[test]
fn compact_writer_covers_presets_and_falls_back_to_verbose() {
    // expressible: homogeneous, DGX, the PAI mix (per-machine models and intra links)
    for c in [
        presets::homogeneous(20, &GpuModel::t4()).unwrap(),
        presets::dgx(3, &GpuModel::h100()).unwrap(),
        presets::pai_mix(60, 3).unwrap(),
    ] {
        let spec = ClusterSpec::from_cluster(&c).unwrap_or_else(|| panic!("{}", c.name()));
        assert_eq!(spec.build().unwrap(), c);
        let t = c.to_compact_toml_string().unwrap();
        assert!(!t.contains("[[gpus]]"), "{t}");
        assert_eq!(Cluster::from_toml_str(&t).unwrap(), c);
    }
    let t = presets::dgx(3, &GpuModel::h100())
        .unwrap()
        .to_compact_toml_string()
        .unwrap();
    assert_eq!(
        t,
        "name = \"dgx-3x8xH100\"\nmachines = 3\nmachine_prefix = \"dgx-\"\ngpus_per_machine = 8\nmodel = \"H100\"\nintra = \"NVLink4\"\ninter = \"IB-NDR\"\n"
    );
    // explicit links are written with units that read back exactly
    let mut c = presets::dgx(2, &GpuModel::a100_40gb()).unwrap();
    let odd_link = Link {
        bandwidth: 3.3e9,
        latency: 7.0e-6,
    };
    c.set_network(Network::uniform(Link::NVLINK3, odd_link))
        .unwrap();
    let t = c.to_compact_toml_string().unwrap();
    assert!(
        t.contains("[inter]\nbandwidth = \"3.3 GB/s\"\nlatency = \"7 us\"\n"),
        "{t}"
    );
    assert_eq!(Cluster::from_toml_str(&t).unwrap(), c);
    let t = presets::homogeneous(20, &GpuModel::t4())
        .unwrap()
        .to_compact_toml_string()
        .unwrap();
    assert!(t.contains("[[machine]]\nindex = 2\ngpus = 4\n"), "{t}");
    // busy GPUs with different loads: per-GPU lists
    let mut c = presets::dgx(2, &GpuModel::a100_40gb()).unwrap();
    c.apply_load(&worl_cluster::LoadState::paper_busy(), 1)
        .unwrap();
    let t = c.to_compact_toml_string().unwrap();
    assert!(t.contains("background = ["), "{t}");
    assert_eq!(Cluster::from_toml_str(&t).unwrap(), c);
    // not expressible: random links between machines, a GPU with its own speed
    let pool = presets::paper_pool(6, 500.0, 1).unwrap();
    assert!(ClusterSpec::from_cluster(&pool).is_none());
    let t = pool.to_compact_toml_string().unwrap();
    assert!(t.contains("[[gpus]]"));
    assert_eq!(Cluster::from_toml_str(&t).unwrap(), pool);
    let mut b = worl_cluster::ClusterBuilder::new("odd");
    let m = b.add_machine("n0");
    let k = b.add_gpu(m, &GpuModel::t4()).unwrap();
    b.set_speed(k, 0.9).unwrap();
    let odd = b.build().unwrap();
    assert!(ClusterSpec::from_cluster(&odd).is_none());
    assert_eq!(
        odd.to_compact_toml_string().unwrap(),
        odd.to_toml_string().unwrap()
    );
}

#[test]
fn errors_name_the_line_and_the_item() {
    let base = "machines = 4\ngpus_per_machine = 8\nmodel = \"A100-80GB\"\ninter = \"100GbE\"\n";
    let cases: Vec<(String, &str)> = vec![
        (
            base.replace("A100-80GB", "Z9"),
            "<memory>:3: unknown GPU model `Z9` (catalog: K80, M60, P100, V100-16GB, V100-32GB, T4, A10, A100-40GB, A100-80GB, H100, H200; or give { name, relative_speed, mem_gib })",
        ),
        (
            base.replace("100GbE", "100GbF"),
            "<memory>:4: unknown link `100GbF` (known: NVLink2, NVLink3, NVLink4, PCIe3, PCIe4, PCIe5, 1GbE, 10GbE, 25GbE, 40GbE, 100GbE, 200GbE, 400GbE, IB-EDR, IB-HDR, IB-NDR; or give { bandwidth, latency })",
        ),
        (
            base.replace(
                "\"100GbE\"",
                "{ bandwidth = \"100 Gbit\", latency = \"5 us\" }",
            ),
            "<memory>:4: invalid parameter `bandwidth`: `100 Gbit` is not a number with a unit (bit/s, Mbit/s, Gbit/s, B/s, MB/s, GB/s, ...)",
        ),
        (
            base.replace("\"100GbE\"", "{ bandwidth = \"100 Gbit/s\" }"),
            "<memory>:4: missing field `latency`",
        ),
        (
            base.replace("gpus_per_machine", "gpus_per_node"),
            "<memory>:2: unknown field `gpus_per_node`, expected one of `name`, `machines`, `machine_prefix`, `gpus_per_machine`, `model`, `intra`, `inter`, `background`, `ready_time`, `busy`, `machine`",
        ),
        (
            base.replace("machines = 4", "machines = 0"),
            "<memory>:1: invalid parameter `machines`: 0 is not in 1..=65536",
        ),
        (
            base.replace("gpus_per_machine = 8", "gpus_per_machine = 80"),
            "<memory>:2: gpus_per_machine: 80 GPUs exceed the limit of 64",
        ),
        (
            format!("{base}background = 1.5\n"),
            "<memory>:5: cluster (top level): background = 1.5 is invalid (expected a utilisation in [0, 1))",
        ),
        (
            format!("{base}ready_time = \"-1 s\"\n"),
            "<memory>:5: cluster (top level): ready_time = -1 is invalid (expected a finite number >= 0)",
        ),
        (
            format!("{base}\n[[machine]]\nindex = 1\ngpus = 2\n\n[[machine]]\nindex = 7\n"),
            "<memory>:10: invalid parameter `machine.index`: [[machine]] index = 7: machine 7 does not exist (the cluster has 4 machines, 0..=3)",
        ),
        (
            format!("{base}\n[[machine]]\nindex = [1, 2]\n[[machine]]\nindex = 2\n"),
            "<memory>:8: invalid parameter `machine.index`: [[machine]] index = 2: machine 2 is already overridden by `[[machine]] index = [1, 2]`",
        ),
        (
            format!("{base}[[machine]]\nindex = 3\ngpus = 2\nbackground = [0.1, 0.2, 0.3]\n"),
            "<memory>:5: invalid parameter `machine.background`: [[machine]] index = 3: 3 values given for the 2 GPUs of machine 3",
        ),
        (
            format!("{base}[[machine]]\nindex = 2\nbackground = [0, 0, 0, 0, 0, 0, 0.99, 1]\n"),
            "<memory>:5: machine 2 (`node-2`), GPU 7: background = 1 is invalid (expected a utilisation in [0, 1))",
        ),
        (
            format!("{base}[[machine]]\nindex = -1\n"),
            "<memory>:6: invalid value: integer `-1`, expected a machine index (integer >= 0) or a list of them",
        ),
        (
            format!(
                "{base}[[machine]]\nindex = 1\nmodel = {{ name = \"X\", relative_speed = 0, mem_gib = 8 }}\n"
            ),
            "<memory>:5: GPU model `X`: relative_speed = 0 is invalid (expected a finite number > 0, not subnormal (>= 2.2e-308))",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err_of(Cluster::from_toml_str(&text)), want, "{text}");
    }
    // JSON: the line of the key or of the override's object
    let json = "{\n  \"machines\": 2,\n  \"gpus_per_machine\": 1,\n  \"model\": \"T4\",\n  \"machine\": [\n    {\"index\": 0},\n    {\"index\": 5}\n  ]\n}";
    assert_eq!(
        err_of(Cluster::from_json_str(json)),
        "<memory>:7: invalid parameter `machine.index`: [[machine]] index = 5: machine 5 does not exist (the cluster has 2 machines, 0..=1)"
    );
    assert_eq!(
        err_of(Cluster::from_json_str(&json.replace("\"T4\"", "\"Z9\""))),
        "<memory>:4: unknown GPU model `Z9` (catalog: K80, M60, P100, V100-16GB, V100-32GB, T4, A10, A100-40GB, A100-80GB, H100, H200; or give { name, relative_speed, mem_gib }) at line 4 column 15"
    );
    assert_eq!(
        err_of(Cluster::from_json_str(
            &json.replace("\"machines\": 2", "\"machines\": 0")
        )),
        "<memory>:2: invalid parameter `machines`: 0 is not in 1..=65536"
    );
    // a file: its path
    let path = std::env::temp_dir().join(format!("worl-cluster-file-{}.toml", std::process::id()));
    std::fs::write(&path, base.replace("A100-80GB", "Z9")).unwrap();
    let err = err_of(Cluster::load(&path));
    std::fs::remove_file(&path).unwrap();
    assert!(
        err.starts_with(&format!("{}:3: unknown GPU model `Z9`", path.display())),
        "{err}"
    );
}

#[test]
fn every_example_cluster_file_loads() {
    let mut n = 0;
    for entry in std::fs::read_dir(examples_dir()).unwrap() {
        let path = entry.unwrap().path();
        let c = Cluster::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.n_gpus() > 0);
        // compact -> verbose -> load: identical
        assert_eq!(
            Cluster::from_toml_str(&c.to_toml_string().unwrap()).unwrap(),
            c
        );
        n += 1;
    }
    assert!(n >= 3, "{n} example files");
    let h = Cluster::load(examples_dir().join("h100-2x8-ndr.json")).unwrap();
    assert_eq!(h.n_gpus(), 16);
    assert_eq!(h.link(g(0), g(8)), Some(Link::INFINIBAND_NDR));
    assert_eq!(h.link(g(0), g(7)), Some(Link::NVLINK4));
}

#[test]
fn mutated_compact_files_give_errors_not_panics() {
    use rand::{Rng, SeedableRng};
    let toml_text = std::fs::read_to_string(examples_dir().join("mixed.toml")).unwrap();
    let json_text = Cluster::from_toml_str(&toml_text)
        .unwrap()
        .to_compact_json_string();
    let alphabet = b"0123456789-.e[]{}=\",: \nabcGBs/ux";
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let (mut ok, mut failed) = (0, 0);
    for round in 0..3000 {
        let base = if round % 2 == 0 {
            &toml_text
        } else {
            &json_text
        };
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..rng.random_range(1..4) {
            let i = rng.random_range(0..bytes.len());
            match rng.random_range(0..3) {
                0 => bytes[i] = alphabet[rng.random_range(0..alphabet.len())],
                1 => {
                    bytes.remove(i);
                }
                _ => bytes.insert(i, alphabet[rng.random_range(0..alphabet.len())]),
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let r = if round % 2 == 0 {
            Cluster::from_toml_str(&text)
        } else {
            Cluster::from_json_str(&text)
        };
        match r {
            Ok(c) => {
                assert!(c.n_gpus() > 0);
                ok += 1;
            }
            Err(ClusterError::Parse { file, .. }) => {
                assert_eq!(file, "<memory>");
                failed += 1;
            }
            Err(e) => panic!("not a parse error: {e:?}\n{text}"),
        }
    }
    // both outcomes occur: the mutations reach valid and invalid files
    assert!(ok > 100 && failed > 100, "{ok} ok, {failed} failed");
}

#[test]
fn a_large_busy_cluster_writes_compactly_and_quickly() {
    // 1,024 machines x 8 GPUs, every GPU with its own background: one override per machine
    let mut c = ClusterSpec::new(1024, 8, &GpuModel::v100_32gb())
        .build()
        .unwrap();
    c.apply_load(&worl_cluster::LoadState::paper_busy(), 9)
        .unwrap();
    let start = std::time::Instant::now();
    let spec = ClusterSpec::from_cluster(&c).unwrap();
    assert!(start.elapsed().as_secs_f64() < 5.0);
    assert_eq!(spec.overrides.len(), 1024);
    assert_eq!(spec.build().unwrap(), c);
    // idle machines that differ only in GPU count share one override
    let mut spec = ClusterSpec::new(6, 8, &GpuModel::t4());
    for m in [1, 3, 5] {
        spec = spec.with_machine(MachineOverride::new(m).with_gpus(2));
    }
    let c = spec.build().unwrap();
    let back = ClusterSpec::from_cluster(&c).unwrap();
    assert_eq!(
        back.overrides,
        [MachineOverride::for_machines(vec![1, 3, 5]).with_gpus(2)]
    );
}

/// Issue 20: malformed compact files said `invalid type: integer 2, expected a sequence`
/// (what the verbose form expected), whatever was wrong; now the message names the fault.
#[test]
fn compact_cluster_errors_say_what_is_wrong() {
    let json = |t: &str| {
        worl_cluster::Cluster::from_json_str(t)
            .unwrap_err()
            .to_string()
    };
    let toml = |t: &str| {
        worl_cluster::Cluster::from_toml_str(t)
            .unwrap_err()
            .to_string()
    };
    let cases = [
        json(r#"{"machines": 2, "gpus_per_machine": NaN, "model": "T4"}"#),
        json(r#"{"machines": 2, "gpus_per_machine": 1e400, "model": "T4"}"#),
        json(r#"{"machines": 2, "gpus_per_machine": 8, "model": "T4"} junk"#),
        json(r#"{"machines": 18446744073709551616, "gpus_per_machine": 8, "model": "T4"}"#),
        toml("machines = 2\ngpus_per_machine = 8\nmodel = \"T4\"\njunk junk\n"),
        toml("machines = 18446744073709551616\ngpus_per_machine = 8\nmodel = \"T4\"\n"),
        toml("machines = 2\ngpus_per_machine = nan\nmodel = \"T4\"\n"),
    ];
    for e in &cases {
        assert!(!e.contains("expected a sequence"), "{e}");
    }
    assert!(
        cases[0].starts_with("<memory>:1: expected value at line 1 column"),
        "{}",
        cases[0]
    );
    assert!(cases[1].contains("number out of range"), "{}", cases[1]);
    assert!(cases[2].contains("trailing characters"), "{}", cases[2]);
    assert!(
        cases[3].contains("18446744073709552000") || cases[3].contains("expected usize"),
        "{}",
        cases[3]
    );
    assert!(cases[4].starts_with("<memory>:4: "), "{}", cases[4]);
    assert!(cases[5].starts_with("<memory>:1: "), "{}", cases[5]);
    assert!(cases[6].starts_with("<memory>:2: "), "{}", cases[6]);
    // A GPU model without a name.
    let e = json(
        r#"{"machines": 1, "gpus_per_machine": 1, "model": {"name": "", "relative_speed": 1, "mem_gib": 16}}"#,
    );
    assert!(e.contains("GPU model name \"\" is empty"), "{e}");
    assert!(worl_cluster::GpuModel::custom("", 1.0, 16.0).is_err());
    assert!(worl_cluster::GpuModel::custom("A\0B", 1.0, 16.0).is_err());
}
