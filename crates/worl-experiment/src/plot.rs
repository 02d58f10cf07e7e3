//! SVG plots of experiments (plotters, SVG backend only: text is emitted as SVG `<text>`, no
//! font library is needed): Gantt chart of a schedule, convergence curves, makespan against
//! DAG size, and the critical-difference diagram of a rank test (Demšar 2006, Fig. 1).

use crate::error::{ExperimentError, Result};
use crate::run::Results;
use crate::stats::RankTest;
use crate::summary::Metric;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::path::Path;
use worl_cluster::{Problem, Schedule};

const FONT: &str = "sans-serif";

fn plot_err(path: &Path, e: impl std::fmt::Display) -> ExperimentError {
    ExperimentError::Plot {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn ensure_dir(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ExperimentError::io(dir, e))?;
    }
    Ok(())
}

fn color(i: usize) -> RGBColor {
    let c = Palette99::pick(i).to_rgba();
    RGBColor(c.0, c.1, c.2)
}

/// Writes a Gantt chart of `schedule` on `problem` to `path` (SVG): one row per GPU
/// (labelled with its id and model), one bar per task from start to finish, coloured by job
/// (99-colour palette, cycling). Size 1000 × (120 + 18·m) pixels.
///
/// Errors: [`ExperimentError::Io`] creating the directory; [`ExperimentError::Plot`].
pub fn gantt(
    problem: &Problem,
    schedule: &Schedule,
    title: &str,
    path: impl AsRef<Path>,
) -> Result<()> {
    let path = path.as_ref();
    ensure_dir(path)?;
    let m = schedule.n_gpus().max(1);
    let height = 120 + 18 * m as u32;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let end = schedule.makespan().max(f64::MIN_POSITIVE);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(130)
        .build_cartesian_2d(0.0..end * 1.02, -0.5..m as f64 - 0.5)
        .map_err(|e| plot_err(path, e))?;
    let cluster = problem.cluster();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(m.min(40))
        .y_label_formatter(&|y| {
            let g = y.round();
            if (y - g).abs() > 1e-6 || g < 0.0 || g as usize >= cluster.n_gpus() {
                return String::new();
            }
            let id = worl_cluster::GpuId::new(g as usize);
            format!("GPU {} {}", g as usize, cluster.model_of(id).name)
        })
        .x_desc("time (s)")
        .draw()
        .map_err(|e| plot_err(path, e))?;
    let graph = problem.graph();
    chart
        .draw_series(schedule.tasks().iter().enumerate().map(|(v, t)| {
            let job = graph.task(worl_dag::TaskId::new(v)).job.index();
            let g = t.gpu.index() as f64;
            Rectangle::new(
                [(t.start, g - 0.38), (t.finish, g + 0.38)],
                color(job).filled(),
            )
        }))
        .map_err(|e| plot_err(path, e))?;
    root.present().map_err(|e| plot_err(path, e))
}

/// One line of a convergence plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Legend label.
    pub label: String,
    /// `(x, best makespan)` points in x order.
    pub points: Vec<(f64, f64)>,
    /// Drawn as a horizontal line across the plot at its last value (a scheduler without a
    /// search: a reference level).
    pub flat: bool,
}

/// The x axis of convergence curves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CurveAxis {
    /// The progress step (iteration).
    Step,
    /// Plan evaluations so far (comparable across algorithms with different population
    /// sizes).
    Evaluations,
}

impl Results {
    /// The convergence curve of every scheduler's run on `problem` with `seed` (a
    /// deterministic scheduler's only run, whatever its seed). A run with fewer than two
    /// progress events becomes a flat curve at its makespan.
    pub fn convergence_curves(&self, problem: &str, seed: u64, axis: CurveAxis) -> Vec<Curve> {
        let mut out = Vec::new();
        for s in self.schedulers() {
            let Some(r) = self
                .runs(problem, s)
                .find(|r| !r.stochastic || r.seed == seed)
            else {
                continue;
            };
            let points: Vec<(f64, f64)> = r
                .convergence
                .iter()
                .map(|c| {
                    let x = match axis {
                        CurveAxis::Step => c.step as f64,
                        CurveAxis::Evaluations => c.evaluations as f64,
                    };
                    (x, c.best_makespan)
                })
                .collect();
            if points.len() >= 2 {
                out.push(Curve {
                    label: s.clone(),
                    points,
                    flat: false,
                });
            } else {
                out.push(Curve {
                    label: s.clone(),
                    points: vec![(0.0, r.makespan)],
                    flat: true,
                });
            }
        }
        out
    }

    /// Per scheduler, `(tasks, mean, std)` of `metric` over every run on problems of each
    /// size (number of tasks), sizes ascending.
    pub fn size_series(&self, metric: Metric) -> Vec<Series> {
        let mut out = Vec::new();
        for s in self.schedulers() {
            let mut by_size: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
            for r in self.records().iter().filter(|r| &r.scheduler == s) {
                by_size.entry(r.tasks).or_default().push(metric.of(r));
            }
            let points = by_size
                .into_iter()
                .map(|(n, v)| {
                    let st = crate::stats::Stats::of(&v).expect("non-empty");
                    (n as f64, st.mean, st.std)
                })
                .collect();
            out.push(Series {
                label: s.clone(),
                points,
            });
        }
        out
    }
}

/// One line of a size plot: `(x, mean, std)` points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// `(x, mean, standard deviation)` in x order.
    pub points: Vec<(f64, f64, f64)>,
}

/// The chart builder of the line charts: caption, margins, axis label areas.
fn line_chart<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(title, (FONT, 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70);
    builder
}

/// Draws the series legend of a line chart at `position`.
fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    path: &Path,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .draw()
        .map_err(|e| plot_err(path, e))
}

fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-9);
    (lo - pad, hi + pad)
}

/// Writes convergence curves (best makespan against `x_label`) to `path` (SVG, 900 × 560);
/// flat curves are thin horizontal lines across the plot. The y axis is logarithmic when the
/// values span a factor of 5 or more.
///
/// Errors: [`ExperimentError::Io`] creating the directory; [`ExperimentError::Plot`].
pub fn convergence(
    curves: &[Curve],
    title: &str,
    x_label: &str,
    path: impl AsRef<Path>,
) -> Result<()> {
    let path = path.as_ref();
    ensure_dir(path)?;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let x_max = curves
        .iter()
        .filter(|c| !c.flat)
        .flat_map(|c| c.points.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let (y0, y1) = y_range(curves.iter().flat_map(|c| c.points.iter().map(|p| p.1)));
    let log = y0 > 0.0 && y1 / y0 >= 5.0;
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .light_line_style(TRANSPARENT)
                .x_desc(x_label)
                .y_desc(if log {
                    "best makespan (s, log scale)"
                } else {
                    "best makespan (s)"
                })
                .draw()
                .map_err(|e| plot_err(path, e))?;
            for (i, c) in curves.iter().enumerate() {
                let col = color(i);
                let pts: Vec<(f64, f64)> = if c.flat {
                    let y = c.points.last().map_or(0.0, |p| p.1);
                    vec![(0.0, y), (x_max, y)]
                } else {
                    c.points.clone()
                };
                let width = if c.flat { 1 } else { 2 };
                chart
                    .draw_series(LineSeries::new(pts, col.stroke_width(width)))
                    .map_err(|e| plot_err(path, e))?
                    .label(if c.flat {
                        format!("{} (no search)", c.label)
                    } else {
                        c.label.clone()
                    })
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2))
                    });
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight, path)?;
        }};
    }
    let mut builder = line_chart(&root, title);
    if log {
        draw!(
            builder
                .build_cartesian_2d(0.0..x_max, (y0..y1).log_scale())
                .map_err(|e| plot_err(path, e))?
        );
    } else {
        draw!(
            builder
                .build_cartesian_2d(0.0..x_max, y0..y1)
                .map_err(|e| plot_err(path, e))?
        );
    }
    root.present().map_err(|e| plot_err(path, e))
}

/// Writes mean ± std lines (one per series, error bars at each point) against `x_label` to
/// `path` (SVG, 900 × 560); the x axis is logarithmic when the x values span a factor of 10
/// or more.
///
/// Errors: [`ExperimentError::Io`] creating the directory; [`ExperimentError::Plot`].
pub fn mean_std_lines(
    series: &[Series],
    title: &str,
    x_label: &str,
    y_label: &str,
    path: impl AsRef<Path>,
) -> Result<()> {
    let path = path.as_ref();
    ensure_dir(path)?;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (x_lo, x_hi) = if x_lo.is_finite() && x_hi > x_lo {
        (x_lo, x_hi)
    } else if x_lo.is_finite() {
        (x_lo * 0.9 - 1.0, x_hi * 1.1 + 1.0)
    } else {
        (0.0, 1.0)
    };
    let (y0, y1) = y_range(
        series
            .iter()
            .flat_map(|s| s.points.iter().flat_map(|p| [p.1 - p.2, p.1 + p.2])),
    );
    let log = x_lo > 0.0 && x_hi / x_lo >= 10.0;
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .light_line_style(TRANSPARENT)
                .x_desc(x_label)
                .y_desc(y_label)
                .draw()
                .map_err(|e| plot_err(path, e))?;
            for (i, s) in series.iter().enumerate() {
                let col = color(i);
                chart
                    .draw_series(LineSeries::new(
                        s.points.iter().map(|p| (p.0, p.1)),
                        col.stroke_width(2),
                    ))
                    .map_err(|e| plot_err(path, e))?
                    .label(s.label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2))
                    });
                chart
                    .draw_series(s.points.iter().map(|p| {
                        PathElement::new(
                            vec![(p.0, p.1 - p.2), (p.0, p.1 + p.2)],
                            col.stroke_width(1),
                        )
                    }))
                    .map_err(|e| plot_err(path, e))?;
                chart
                    .draw_series(
                        s.points
                            .iter()
                            .map(|p| Circle::new((p.0, p.1), 3, col.filled())),
                    )
                    .map_err(|e| plot_err(path, e))?;
            }
            legend(&mut chart, SeriesLabelPosition::UpperLeft, path)?;
        }};
    }
    let mut builder = line_chart(&root, title);
    if log {
        draw!(
            builder
                .build_cartesian_2d((x_lo * 0.9..x_hi * 1.1).log_scale(), y0..y1)
                .map_err(|e| plot_err(path, e))?
        );
    } else {
        let pad = (x_hi - x_lo) * 0.03;
        draw!(
            builder
                .build_cartesian_2d(x_lo - pad..x_hi + pad, y0..y1)
                .map_err(|e| plot_err(path, e))?
        );
    }
    root.present().map_err(|e| plot_err(path, e))
}

/// Writes the critical-difference diagram of `test` to `path` (SVG): the average-rank axis
/// (1 on the left), each scheduler joined to its rank, the best half labelled on the left
/// and the rest on the right, the CD as a bar above the axis, and thick bars joining groups
/// whose ranks lie within CD of each other (Demšar 2006, §3.2.2, Fig. 1).
///
/// Errors: [`ExperimentError::Io`] creating the directory; [`ExperimentError::Plot`].
pub fn cd_diagram(test: &RankTest, title: &str, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    ensure_dir(path)?;
    let k = test.names.len();
    let order = test.order();
    let cliques = test.cliques();
    let left_n = k.div_ceil(2);
    let rows = left_n.max(k - left_n);
    let (w, axis_y) = (900i32, 90i32);
    let clique_y0 = axis_y + 14;
    let label_y0 = clique_y0 + 10 * cliques.len() as i32 + 22;
    let h = label_y0 + 24 * rows as i32 + 20;
    let root = SVGBackend::new(path, (w as u32, h as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let (x0, x1) = (220i32, w - 220);
    let kf = k.max(2) as f64;
    let xr = |rank: f64| x0 + ((rank - 1.0) / (kf - 1.0) * (x1 - x0) as f64).round() as i32;
    let text = |s: &str, pos: (i32, i32), size: u32, anchor: Pos| {
        Text::new(
            s.to_owned(),
            pos,
            TextStyle::from((FONT, size).into_font()).pos(anchor),
        )
    };
    let draw_err = |e| plot_err(path, e);
    root.draw(&text(
        title,
        (w / 2, 16),
        17,
        Pos::new(HPos::Center, VPos::Center),
    ))
    .map_err(draw_err)?;
    // axis with ticks
    root.draw(&PathElement::new(
        vec![(x0, axis_y), (x1, axis_y)],
        BLACK.stroke_width(1),
    ))
    .map_err(draw_err)?;
    for r in 1..=k {
        let x = xr(r as f64);
        root.draw(&PathElement::new(
            vec![(x, axis_y - 6), (x, axis_y)],
            BLACK.stroke_width(1),
        ))
        .map_err(draw_err)?;
        root.draw(&text(
            &r.to_string(),
            (x, axis_y - 14),
            13,
            Pos::new(HPos::Center, VPos::Center),
        ))
        .map_err(draw_err)?;
    }
    // CD bar
    if let Some(cd) = test.cd {
        let (a, b) = (xr(1.0), xr(1.0 + cd));
        let y = 44;
        root.draw(&PathElement::new(
            vec![(a, y), (b, y)],
            BLACK.stroke_width(2),
        ))
        .map_err(draw_err)?;
        for x in [a, b] {
            root.draw(&PathElement::new(
                vec![(x, y - 5), (x, y + 5)],
                BLACK.stroke_width(1),
            ))
            .map_err(draw_err)?;
        }
        root.draw(&text(
            &format!("CD = {cd:.3} (α = {})", test.alpha),
            ((a + b) / 2, y - 12),
            12,
            Pos::new(HPos::Center, VPos::Center),
        ))
        .map_err(draw_err)?;
    } else {
        root.draw(&text(
            "no tabulated CD for this many schedulers",
            (w / 2, 44),
            12,
            Pos::new(HPos::Center, VPos::Center),
        ))
        .map_err(draw_err)?;
    }
    // cliques
    let ranks = &test.friedman.average_ranks;
    for (c, &(a, b)) in cliques.iter().enumerate() {
        let y = clique_y0 + 10 * c as i32;
        let (ra, rb) = (ranks[order[a]], ranks[order[b]]);
        root.draw(&PathElement::new(
            vec![(xr(ra) - 3, y), (xr(rb) + 3, y)],
            BLACK.stroke_width(4),
        ))
        .map_err(draw_err)?;
    }
    // schedulers
    for (pos, &j) in order.iter().enumerate() {
        let x = xr(ranks[j]);
        let (row, left) = if pos < left_n {
            (pos, true)
        } else {
            (k - 1 - pos, false)
        };
        let y = label_y0 + 24 * row as i32;
        let end_x = if left { x0 - 10 } else { x1 + 10 };
        root.draw(&PathElement::new(
            vec![(x, axis_y), (x, y), (end_x, y)],
            BLACK.stroke_width(1),
        ))
        .map_err(draw_err)?;
        let label = format!("{} ({:.2})", test.names[j], ranks[j]);
        let anchor = if left {
            Pos::new(HPos::Right, VPos::Center)
        } else {
            Pos::new(HPos::Left, VPos::Center)
        };
        let lx = if left { end_x - 4 } else { end_x + 4 };
        root.draw(&text(&label, (lx, y), 14, anchor))
            .map_err(draw_err)?;
    }
    root.present().map_err(|e| plot_err(path, e))
}
