//! Summary statistics of a workload.

use crate::error::{DagError, Result};
use crate::graph::TaskGraph;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Shape and size of a workload, as reported by [`Workload::stats`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadStats {
    /// Number of tasks.
    pub tasks: usize,
    /// Number of edges.
    pub edges: usize,
    /// Number of jobs.
    pub jobs: usize,
    /// Number of entry tasks (no predecessor).
    pub entry_tasks: usize,
    /// Number of exit tasks (no successor).
    pub exit_tasks: usize,
    /// Number of levels (longest path in tasks).
    pub depth: usize,
    /// Most tasks on one level.
    pub width: usize,
    /// Sum of all tasks' work, reference GPU-seconds.
    pub total_work: f64,
    /// Sum of all edges' data, bytes.
    pub total_bytes: f64,
    /// Work on the longest path by work alone (no communication), reference GPU-seconds:
    /// the makespan bound on infinitely many reference GPUs.
    pub critical_path_work: f64,
    /// The bandwidth the CCR was computed for, bytes/s.
    pub bandwidth: f64,
    /// Communication-to-computation ratio at `bandwidth` on reference GPUs: mean edge
    /// transfer time `bytes / bandwidth` over mean task work (0 without edges; infinite if
    /// every task has zero work but some data moves).
    pub ccr: f64,
}

impl TaskGraph {
    /// Communication-to-computation ratio at `bandwidth` bytes/s on reference GPUs:
    /// `(Σ bytes / bandwidth / |E|) / (Σ work / |V|)` (Topcuoglu et al. 2002, §6.1).
    ///
    /// Errors: [`DagError::InvalidParameter`] unless `bandwidth` is finite and `> 0`.
    pub fn ccr(&self, bandwidth: f64) -> Result<f64> {
        check_bandwidth(bandwidth)?;
        if self.n_edges() == 0 {
            return Ok(0.0);
        }
        let bytes: f64 = self.edges().map(|e| e.bytes).sum();
        let work: f64 = self.tasks().map(|(_, t)| t.work).sum();
        let comm = bytes / bandwidth / self.n_edges() as f64;
        let comp = work / self.n_tasks() as f64;
        Ok(if comm == 0.0 { 0.0 } else { comm / comp })
    }
}

fn check_bandwidth(bandwidth: f64) -> Result<()> {
    if bandwidth.is_finite() && bandwidth > 0.0 {
        Ok(())
    } else {
        Err(DagError::InvalidParameter {
            name: "bandwidth",
            reason: format!("{bandwidth} bytes/s is not a finite number > 0"),
        })
    }
}

impl Workload {
    /// Statistics of the workload, with the CCR computed at `bandwidth` bytes/s.
    ///
    /// Errors: [`DagError::InvalidParameter`] unless `bandwidth` is finite and `> 0`.
    pub fn stats(&self, bandwidth: f64) -> Result<WorkloadStats> {
        let g = self.graph();
        let levels = g.levels();
        let depth = levels.iter().max().map_or(0, |&l| l as usize + 1);
        let mut per_level = vec![0usize; depth];
        for &l in &levels {
            per_level[l as usize] += 1;
        }
        Ok(WorkloadStats {
            tasks: g.n_tasks(),
            edges: g.n_edges(),
            jobs: self.n_jobs(),
            entry_tasks: g.entry_tasks().count(),
            exit_tasks: g.exit_tasks().count(),
            depth,
            width: per_level.into_iter().max().unwrap_or(0),
            total_work: g.tasks().map(|(_, t)| t.work).sum(),
            total_bytes: g.edges().map(|e| e.bytes).sum(),
            critical_path_work: g.critical_path(|t| g.task(t).work, |_, _, _| 0.0).length,
            bandwidth,
            ccr: g.ccr(bandwidth)?,
        })
    }
}

impl fmt::Display for WorkloadStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "tasks               {}", self.tasks)?;
        writeln!(f, "edges               {}", self.edges)?;
        writeln!(f, "jobs                {}", self.jobs)?;
        writeln!(
            f,
            "entry / exit tasks  {} / {}",
            self.entry_tasks, self.exit_tasks
        )?;
        writeln!(f, "depth x width       {} x {}", self.depth, self.width)?;
        writeln!(f, "total work          {:.1} ref GPU-s", self.total_work)?;
        writeln!(
            f,
            "critical path work  {:.1} ref GPU-s",
            self.critical_path_work
        )?;
        writeln!(f, "total data          {:.3e} bytes", self.total_bytes)?;
        write!(f, "CCR @ {:.3e} B/s    {:.3}", self.bandwidth, self.ccr)
    }
}
