//! Benchmarks of worl-ddqn at WORL-RTGS-like sizes: state 34 features (2·16 GPUs + 2), 6
//! features per candidate, 16 candidates per decision, MLP [64, 64].
//!
//! * `inference/<backend>/batch_<n>`: Q-values of n decision points (16 candidates each) in one
//!   burn forward call — throughput in states/s;
//! * `inference/snapshot/batch_<n>`: the same with [`PolicySnapshot`] (plain Rust);
//! * `train_step/<backend>/batch_64`: one Double DQN training step.
//!
//! wgpu runs are skipped when no adapter exists, when `WORL_SKIP_WGPU=1`, or in a build without
//! the `wgpu` feature.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use worl_ddqn::{Agent, AgentConfig, CandidateBatch, ComputeDevice, QNetwork, Transition};

const STATE: usize = 34;
const ACTION: usize = 6;
const K: usize = 16;

fn config() -> AgentConfig {
    AgentConfig {
        state_dim: STATE,
        action_dim: ACTION,
        hidden: vec![64, 64],
        batch_size: 64,
        learning_starts: 64,
        replay_capacity: 2_000,
        ..AgentConfig::default()
    }
}

fn random_batch(n: usize, rng: &mut ChaCha8Rng) -> CandidateBatch {
    let mut b = CandidateBatch::new(STATE, ACTION);
    for _ in 0..n {
        let s: Vec<f32> = (0..STATE).map(|_| rng.random()).collect();
        let c: Vec<f32> = (0..K * ACTION).map(|_| rng.random()).collect();
        b.push(&s, &c).unwrap();
    }
    b
}

fn devices() -> Vec<(&'static str, ComputeDevice)> {
    let mut d = vec![("flex", ComputeDevice::flex())];
    d.extend(wgpu_device().map(|w| ("wgpu", w)));
    d
}

/// The wgpu device, or `None` (with a message) when skipped or unavailable.
#[cfg(feature = "wgpu")]
fn wgpu_device() -> Option<ComputeDevice> {
    use worl_ddqn::{DeviceChoice, select_device};
    if std::env::var("WORL_SKIP_WGPU").as_deref() == Ok("1") {
        return None;
    }
    match select_device(DeviceChoice::Wgpu) {
        Ok(w) => {
            eprintln!("wgpu device: {}", w.description());
            Some(w)
        }
        Err(e) => {
            eprintln!("wgpu benches skipped: {e}");
            None
        }
    }
}

/// Without the `wgpu` feature there is no wgpu device to bench.
#[cfg(not(feature = "wgpu"))]
fn wgpu_device() -> Option<ComputeDevice> {
    eprintln!("wgpu benches skipped: worl-ddqn built without the `wgpu` feature");
    None
}

fn inference(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut group = c.benchmark_group("inference");
    for (name, device) in devices() {
        let net = QNetwork::new(&config().network_spec(), 0, device.device()).unwrap();
        for n in [1usize, 256] {
            let batch = random_batch(n, &mut rng);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(
                BenchmarkId::new(name, format!("batch_{n}")),
                &batch,
                |b, batch| b.iter(|| black_box(net.q_values_batch(batch).unwrap())),
            );
        }
    }
    let net = QNetwork::new(&config().network_spec(), 0, ComputeDevice::flex().device()).unwrap();
    let snap = net.snapshot().unwrap();
    for n in [1usize, 256] {
        let batch = random_batch(n, &mut rng);
        let mut scratch = snap.scratch();
        let mut out = vec![0.0f32; K];
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::new("snapshot", format!("batch_{n}")),
            &batch,
            |b, batch| {
                b.iter(|| {
                    for i in 0..batch.len() {
                        snap.q_values(batch.state(i), batch.candidates(i), &mut out, &mut scratch)
                            .unwrap();
                        black_box(&out);
                    }
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("snapshot_greedy", format!("batch_{n}")),
            &batch,
            |b, batch| {
                b.iter(|| {
                    for i in 0..batch.len() {
                        black_box(
                            snap.greedy(batch.state(i), batch.candidates(i), &mut scratch)
                                .unwrap(),
                        );
                    }
                })
            },
        );
    }
    group.finish();
}

fn train_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("train_step");
    group.sample_size(20);
    for (name, device) in devices() {
        let mut agent = Agent::new(config(), &device).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..1_000 {
            let s: Vec<f32> = (0..STATE).map(|_| rng.random()).collect();
            let a: Vec<f32> = (0..ACTION).map(|_| rng.random()).collect();
            let ns: Vec<f32> = (0..STATE).map(|_| rng.random()).collect();
            let nc: Vec<f32> = (0..K * ACTION).map(|_| rng.random()).collect();
            agent
                .remember(&Transition {
                    state: &s,
                    action: &a,
                    reward: rng.random(),
                    next_state: &ns,
                    next_candidates: &nc,
                    done: rng.random::<f32>() < 0.1,
                })
                .unwrap();
        }
        group.bench_function(BenchmarkId::new(name, "batch_64"), |b| {
            b.iter(|| black_box(agent.train_step().unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, inference, train_step);
criterion_main!(benches);
