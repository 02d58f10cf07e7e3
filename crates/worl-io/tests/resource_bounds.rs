//! Resource bounds of cluster building, cost model set-up and cluster / saga writing
//! (issue 20, F7-F9): work linear in the machines for a uniform network, refusals before
//! any output, and text streamed or refused past a documented size.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use worl_cluster::formats::native::MAX_WRITTEN_PAIR_MACHINES;
use worl_cluster::{
    ClusterBuilder, ClusterError, GpuModel, Link, Network, Problem, description, presets,
};
use worl_dag::{Workload, WorkloadBuilder};
use worl_io::saga;

fn pair() -> Workload {
    let mut b = WorkloadBuilder::new("w");
    let j = b.add_job("j").unwrap();
    let a = b.add_task(j, "a", 1.0, None).unwrap();
    let c = b.add_task(j, "c", 2.0, None).unwrap();
    b.add_edge(a, c, 1e6).unwrap();
    b.build().unwrap()
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("worl-rb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// A writer that records the size of each write it is handed.
#[derive(Default)]
struct Counting {
    bytes: Vec<u8>,
    writes: usize,
    largest: usize,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writes += 1;
        self.largest = self.largest.max(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn uniform_network_mean_link_costs_count_gpu_pairs_in_closed_form() {
    // Machines of 2 and 3 GPUs: ordered pairs of distinct GPUs on one machine 2·1 + 3·2 = 8,
    // across machines 5² − (2² + 3²) = 12.
    let model = GpuModel::custom("m", 1.0, 16.0).unwrap();
    let mut cb = ClusterBuilder::new("two");
    for (name, k) in [("a", 2), ("b", 3)] {
        let m = cb.add_machine(name);
        for _ in 0..k {
            cb.add_gpu(m, &model).unwrap();
        }
    }
    cb.network(Network::uniform(
        Link::new(100.0, 1.0).unwrap(),
        Link::new(10.0, 2.0).unwrap(),
    ));
    let p = Problem::new(Arc::new(pair()), Arc::new(cb.build().unwrap())).unwrap();
    // (8·1 + 12·2) / 20 s of latency; (8/100 + 12/10) / 20 s per byte.
    assert!(
        (p.mean_comm_time(0.0) - 1.6).abs() < 1e-12,
        "{}",
        p.mean_comm_time(0.0)
    );
    assert!(
        (p.mean_comm_time(100.0) - 8.0).abs() < 1e-12,
        "{}",
        p.mean_comm_time(100.0)
    );
}

#[test]
fn a_uniform_65536_machine_cluster_builds_a_problem() {
    // Pairs of machines were enumerated here: 4.3 · 10⁹ of them (16 s).
    let c = description::parse("65536x1:V100-16GB").unwrap();
    assert_eq!((c.n_machines(), c.n_gpus()), (65_536, 65_536));
    let (lat, bw) = (c.network().latency(0, 1), c.network().bandwidth(0, 1));
    let p = Problem::new(Arc::new(pair()), Arc::new(c)).unwrap();
    // One GPU per machine: every pair of distinct GPUs is an inter-machine pair.
    assert_eq!(p.mean_comm_time(0.0), lat);
    assert!((p.mean_comm_time(1e6) - (lat + 1e6 / bw)).abs() < 1e-15);
    c_is_writable_and_uniform(p.cluster());
}

fn c_is_writable_and_uniform(c: &worl_cluster::Cluster) {
    assert!(matches!(c.network(), Network::Uniform { .. }));
    c.check_writable().unwrap();
}

#[test]
fn saga_refusals_come_before_any_output() {
    let w = pair();
    let two = description::parse("2x2:V100-16GB").unwrap();
    let path = temp("two.saga.json");
    let err = saga::save(&w, &two, &path).unwrap_err().to_string();
    assert!(err.contains("has 2 GPUs"), "{err}");
    assert!(!path.exists());
    let mut out = Counting::default();
    assert!(saga::write(&w, &two, &mut out).is_err());
    assert_eq!(out.writes, 0);
}

#[test]
fn saga_refuses_more_machines_than_the_write_limit() {
    // A free uniform network is written as n² links: 4.3 · 10⁹ of them at 65,536 machines.
    let model = GpuModel::custom("m", 1.0, 16.0).unwrap();
    let free = Link::new(1e9, 0.0).unwrap();
    let wide = |n: usize| {
        let mut cb = ClusterBuilder::new("wide");
        for i in 0..n {
            let m = cb.add_machine(format!("n{i}"));
            cb.add_gpu(m, &model).unwrap();
        }
        cb.network(Network::uniform(free, free));
        cb.build().unwrap()
    };
    let c = wide(MAX_WRITTEN_PAIR_MACHINES + 1);
    let err = saga::check_cluster(&c).unwrap_err();
    assert!(matches!(
        err,
        ClusterError::InvalidParameter {
            name: "cluster",
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "invalid parameter `cluster`: cluster `wide` has 1025 machines; a saga network lists \
         every ordered machine pair (1050625 links, about 120 bytes each), and at most 1024 \
         machines are written"
    );
    let path = temp("wide.saga.json");
    assert!(saga::save(&pair(), &c, &path).is_err());
    assert!(!path.exists());
    // The limit itself is written: 1,024² links.
    let mut n = 0usize;
    saga::write(&pair(), &wide(MAX_WRITTEN_PAIR_MACHINES), CountOnly(&mut n)).unwrap();
    assert!(n > 1024 * 1024 * 60, "{n}");
}

/// A writer that only counts the bytes.
struct CountOnly<'a>(&'a mut usize);

impl Write for CountOnly<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        *self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn saga_is_streamed_to_the_writer() {
    let c = presets::paper_pool(64, 500.0, 1).unwrap();
    let mut out = Counting::default();
    saga::write(&pair(), &c, &mut out).unwrap();
    let text = saga::to_string(&pair(), &c).unwrap();
    assert_eq!(out.bytes, text.as_bytes());
    assert!(out.largest <= 1 << 16, "{}", out.largest);
    assert!(
        out.writes >= text.len() / (1 << 16),
        "{} writes",
        out.writes
    );
    // 64² links, each read back.
    let (_, back) = saga::read(text.as_bytes(), "<memory>").unwrap();
    assert_eq!(back.n_machines(), 64);
    assert_eq!(back.network().bandwidth(3, 7), c.network().bandwidth(3, 7));
}

#[test]
fn per_pair_clusters_past_the_write_limit_are_refused() {
    assert_eq!(MAX_WRITTEN_PAIR_MACHINES, 1024);
    presets::paper_pool(1024, 500.0, 1)
        .unwrap()
        .check_writable()
        .unwrap();
    let err = presets::paper_pool(1025, 500.0, 1)
        .unwrap()
        .check_writable()
        .unwrap_err();
    assert!(matches!(
        err,
        ClusterError::InvalidParameter {
            name: "cluster",
            ..
        }
    ));
    let text = err.to_string();
    assert!(
        text.contains("`paper-pool-1025-bw500-seed1` has 1025 machines")
            && text.contains("at most 1024"),
        "{text}"
    );
    // A uniform network is written whatever its size.
    description::parse("65536x1:V100-16GB")
        .unwrap()
        .check_writable()
        .unwrap();
}

#[test]
fn compact_json_is_streamed_to_the_writer() {
    for c in [
        description::parse("4x8:A100-80GB:100GbE").unwrap(),
        presets::paper_pool(40, 500.0, 1).unwrap(),
    ] {
        let mut out = Counting::default();
        c.write_compact_json(&mut out).unwrap();
        assert_eq!(out.bytes, c.to_compact_json_string().as_bytes());
        assert!(out.largest <= 1 << 16, "{}", out.largest);
        assert_eq!(
            worl_cluster::Cluster::from_json_str(&c.to_compact_json_string()).unwrap(),
            c
        );
    }
}
