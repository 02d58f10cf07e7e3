//! Toy discrete problems implemented through the `WhaleProblem` extension point, shared by the
//! integration tests.
#![allow(dead_code)]

use rand::Rng;
use worl_woa::{Move, Target, WhaleProblem, WhaleRng};

/// Minimise `Σ (x_i − t_i)²` over integer vectors `x ∈ {0..=max}^n`; optimum 0 at `x = t`.
/// Moves apply the canonical WOA coordinate update, round and clamp; the scratch buffer holds
/// the continuous intermediate values so `move_into` does not allocate.
pub struct IntegerTarget {
    pub target: Vec<i64>,
    pub max: i64,
}

impl IntegerTarget {
    /// `t_i = (7 i + 3) mod (max + 1)`.
    pub fn new(n: usize, max: i64) -> Self {
        IntegerTarget {
            target: (0..n as i64).map(|i| (7 * i + 3) % (max + 1)).collect(),
            max,
        }
    }
}

impl WhaleProblem for IntegerTarget {
    type Whale = Vec<i64>;
    type Scratch = Vec<f64>;

    fn scratch(&self) -> Vec<f64> {
        Vec::with_capacity(self.target.len())
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut Vec<f64>) -> Vec<i64> {
        (0..self.target.len())
            .map(|_| rng.random_range(0..=self.max))
            .collect()
    }

    fn fitness(&self, x: &Vec<i64>, _: &mut Vec<f64>) -> f64 {
        x.iter()
            .zip(&self.target)
            .map(|(a, b)| ((a - b) * (a - b)) as f64)
            .sum()
    }

    fn moved(
        &self,
        x: &Vec<i64>,
        target: &Target<'_, Vec<i64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Vec<f64>,
    ) -> Vec<i64> {
        let mut out = x.clone();
        self.move_into(x, target, mv, rng, scratch, &mut out);
        out
    }

    fn move_into(
        &self,
        x: &Vec<i64>,
        target: &Target<'_, Vec<i64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        buf: &mut Vec<f64>,
        out: &mut Vec<i64>,
    ) {
        // Deliberately poison the scratch first: results must not depend on its contents.
        buf.clear();
        buf.extend(x.iter().map(|&v| v as f64 + 0.5));
        for (j, b) in buf.iter_mut().enumerate() {
            *b = mv.apply_component(x[j] as f64, target.component_whale(rng)[j] as f64);
        }
        out.clear();
        out.extend(
            buf.iter()
                .map(|v| v.round().clamp(0.0, self.max as f64) as i64),
        );
    }

    fn distance(&self, a: &Vec<i64>, b: &Vec<i64>) -> Option<f64> {
        Some(a.iter().zip(b).map(|(x, y)| (x - y).abs() as f64).sum())
    }
}

/// A GPU-assignment toy in the style of RTGS: tasks with work `w_i` on machines
/// with speed `c_g`, no precedence; fitness = makespan = max machine load. A whale is a task →
/// machine vector; its position for WOA is the running-time vector `RT_i = load of the machine
/// hosting i`. A move builds `hope_i = RT_i(T) + s_i·F·(RT_i(T) − RT_i(X))` (`s_i = ±1`, `F` =
/// `Move::step_factor`) and decodes it greedily: task `i` goes to the machine whose load after
/// taking it is closest to `hope_i`.
pub struct LoadBalance {
    pub work: Vec<f64>,
    pub speed: Vec<f64>,
}

/// Reused buffers of one worker.
#[derive(Default)]
pub struct LoadScratch {
    loads_x: Vec<f64>,
    loads_t: Vec<f64>,
    current: Vec<f64>,
}

impl LoadBalance {
    /// Tasks with work 1..=9 on 3 unit-speed machines: optimum makespan 15 (sum 45).
    pub fn nine_tasks_three_machines() -> Self {
        LoadBalance {
            work: (1..=9).map(f64::from).collect(),
            speed: vec![1.0; 3],
        }
    }

    fn loads_into(&self, plan: &[u16], loads: &mut Vec<f64>) {
        loads.clear();
        loads.resize(self.speed.len(), 0.0);
        for (i, &g) in plan.iter().enumerate() {
            loads[g as usize] += self.work[i] / self.speed[g as usize];
        }
    }
}

impl WhaleProblem for LoadBalance {
    type Whale = Vec<u16>;
    type Scratch = LoadScratch;

    fn scratch(&self) -> LoadScratch {
        LoadScratch::default()
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut LoadScratch) -> Vec<u16> {
        (0..self.work.len())
            .map(|_| rng.random_range(0..self.speed.len() as u16))
            .collect()
    }

    fn fitness(&self, plan: &Vec<u16>, s: &mut LoadScratch) -> f64 {
        self.loads_into(plan, &mut s.current);
        s.current.iter().copied().fold(0.0, f64::max)
    }

    fn moved(
        &self,
        plan: &Vec<u16>,
        target: &Target<'_, Vec<u16>>,
        mv: &Move,
        rng: &mut WhaleRng,
        s: &mut LoadScratch,
    ) -> Vec<u16> {
        let mut out = plan.clone();
        self.move_into(plan, target, mv, rng, s, &mut out);
        out
    }

    fn move_into(
        &self,
        plan: &Vec<u16>,
        target: &Target<'_, Vec<u16>>,
        mv: &Move,
        rng: &mut WhaleRng,
        s: &mut LoadScratch,
        out: &mut Vec<u16>,
    ) {
        let t = target.whale();
        self.loads_into(plan, &mut s.loads_x);
        self.loads_into(t, &mut s.loads_t);
        s.current.clear();
        s.current.resize(self.speed.len(), 0.0);
        let factor = mv.step_factor();
        out.clear();
        for i in 0..self.work.len() {
            let rt_t = s.loads_t[t[i] as usize];
            let rt_x = s.loads_x[plan[i] as usize];
            let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
            let hope = rt_t + sign * factor * (rt_t - rt_x);
            let mut best = 0;
            let mut best_gap = f64::INFINITY;
            for (g, (&cur, &c)) in s.current.iter().zip(&self.speed).enumerate() {
                let gap = (hope - (cur + self.work[i] / c)).abs();
                if gap < best_gap {
                    best_gap = gap;
                    best = g;
                }
            }
            s.current[best] += self.work[i] / self.speed[best];
            out.push(best as u16);
        }
    }

    /// Scheduling plan distance: Euclidean distance of the running-time vectors.
    fn distance(&self, a: &Vec<u16>, b: &Vec<u16>) -> Option<f64> {
        let (mut la, mut lb) = (Vec::new(), Vec::new());
        self.loads_into(a, &mut la);
        self.loads_into(b, &mut lb);
        Some(
            a.iter()
                .zip(b)
                .map(|(&x, &y)| (la[x as usize] - lb[y as usize]).powi(2))
                .sum::<f64>()
                .sqrt(),
        )
    }
}
