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

/// Most legend entries of a Gantt chart; more groups cycle through the palette unlabelled.
const GANTT_LEGEND_MAX: usize = 20;

/// The type of a task from its name: the part before the first `_`, without trailing digits
/// (`mProject_00001` → `mProject`, `R2_1` → `R`, `split` → `split`).
pub fn task_type(name: &str) -> &str {
    let head = name.split('_').next().unwrap_or(name);
    let trimmed = head.trim_end_matches(|c: char| c.is_ascii_digit());
    if trimmed.is_empty() { head } else { trimmed }
}

/// Colour groups of a Gantt chart: by job when the workload has 2 to
/// [`GANTT_LEGEND_MAX`] jobs, else by [`task_type`] when there are at most that many types,
/// else by job. Returns the group of each task and the group labels (legend order).
fn gantt_groups(problem: &Problem) -> (Vec<usize>, Vec<String>, &'static str) {
    let graph = problem.graph();
    let workload = problem.workload();
    let n_jobs = workload.n_jobs();
    let by_job = || {
        let groups = graph
            .task_ids()
            .map(|v| graph.task(v).job.index())
            .collect();
        let labels = (0..n_jobs)
            .map(|j| workload.job(worl_dag::JobId::new(j)).name.clone())
            .collect();
        (groups, labels, "job")
    };
    if (2..=GANTT_LEGEND_MAX).contains(&n_jobs) {
        return by_job();
    }
    let mut labels: Vec<String> = Vec::new();
    let mut groups = Vec::with_capacity(graph.n_tasks());
    for v in graph.task_ids() {
        let t = task_type(&graph.task(v).name);
        let i = match labels.iter().position(|l| l == t) {
            Some(i) => i,
            None => {
                labels.push(t.to_owned());
                labels.len() - 1
            }
        };
        groups.push(i);
    }
    if labels.len() <= GANTT_LEGEND_MAX {
        (groups, labels, "task type")
    } else {
        by_job()
    }
}

/// Escapes `s` for SVG text and attributes.
fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes a Gantt chart of `schedule` on `problem` to `path` (SVG): one row per GPU
/// (labelled with its id and model), dashed separators between machines, one bar per task
/// from start to finish with a tooltip (`<title>`: task, job, GPU, start, finish), coloured
/// by job when the workload has 2 to 20 jobs, else by task type (the name's prefix,
/// [`task_type`]) when there are at most 20 types, else by job (cycling through the
/// palette), with a legend of up to 20 entries. Size 1200 × (120 + 18·m) pixels.
///
/// Busy windows of the GPUs ([`Problem::busy`], only when [`Problem::has_windows`]) are drawn
/// behind the tasks as grey hatched blocks (`class="busy-window"`, fill `url(#busy-hatch)`,
/// tooltip `busy window on GPU k: a s to b s`), clipped to the plotted time range
/// `[0, 1.02 · makespan]` (a window wholly after it is not drawn), with a legend entry.
/// Without windows the SVG is the same as before windows existed.
///
/// Errors: [`ExperimentError::Io`] creating or rewriting the file; [`ExperimentError::Plot`].
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
    let (groups, labels, by) = gantt_groups(problem);
    let cluster = problem.cluster();
    let graph = problem.graph();
    let mut bars = String::new();
    {
        let root = SVGBackend::new(path, (1200, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
        let end = schedule.makespan().max(f64::MIN_POSITIVE);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 18))
            .margin(10)
            .margin_right(200)
            .x_label_area_size(35)
            .y_label_area_size(130)
            .build_cartesian_2d(0.0..end * 1.02, -0.5..m as f64 - 0.5)
            .map_err(|e| plot_err(path, e))?;
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
        // machine boundaries
        let separators: Vec<f64> = (1..cluster.n_gpus())
            .filter(|&k| {
                let gpus = cluster.gpus();
                gpus[k].machine != gpus[k - 1].machine
            })
            .map(|k| k as f64 - 0.5)
            .collect();
        for y in separators {
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, y), (end * 1.02, y)],
                    4,
                    3,
                    BLACK.mix(0.35).stroke_width(1),
                ))
                .map_err(|e| plot_err(path, e))?;
        }
        // busy windows behind the bars: grey hatched blocks clipped to the plotted range
        if problem.has_windows() {
            let x_end = end * 1.02;
            bars.push_str(
                "<defs><pattern id=\"busy-hatch\" width=\"6\" height=\"6\" \
                 patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
                 <rect width=\"6\" height=\"6\" fill=\"#e0e0e0\"/>\
                 <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#9e9e9e\" \
                 stroke-width=\"2\"/></pattern></defs>\n",
            );
            for k in 0..cluster.n_gpus() {
                let gpu = worl_cluster::GpuId::new(k);
                for &(from, to) in problem.busy(gpu) {
                    if from >= x_end {
                        break;
                    }
                    let (a, b) = (from.max(0.0), to.min(x_end));
                    let g = k as f64;
                    let (x0, y0) = chart.backend_coord(&(a, g - 0.45));
                    let (x1, y1) = chart.backend_coord(&(b, g + 0.45));
                    bars.push_str(&format!(
                        "<rect class=\"busy-window\" x=\"{}\" y=\"{}\" width=\"{}\" \
                         height=\"{}\" fill=\"url(#busy-hatch)\" stroke=\"#9e9e9e\" \
                         stroke-width=\"0.5\"><title>busy window on GPU {k}: {from:.3} s to \
                         {to:.3} s</title></rect>\n",
                        x0.min(x1),
                        y0.min(y1),
                        (x1 - x0).abs().max(1),
                        (y1 - y0).abs().max(1),
                    ));
                }
            }
        }
        // bars as raw SVG with tooltips, in the chart's pixel coordinates
        for (v, t) in schedule.tasks().iter().enumerate() {
            let task = graph.task(worl_dag::TaskId::new(v));
            let g = t.gpu.index() as f64;
            let (x0, y0) = chart.backend_coord(&(t.start, g - 0.38));
            let (x1, y1) = chart.backend_coord(&(t.finish, g + 0.38));
            let c = color(groups[v]);
            bars.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#{:02x}{:02x}{:02x}\" \
                 stroke=\"white\" stroke-width=\"0.3\"><title>{} (job {}) on GPU {}: {:.3} s to \
                 {:.3} s</title></rect>\n",
                x0.min(x1),
                y0.min(y1),
                (x1 - x0).abs().max(1),
                (y1 - y0).abs().max(1),
                c.0,
                c.1,
                c.2,
                xml_escape(&task.name),
                xml_escape(&problem.workload().job(task.job).name),
                t.gpu.index(),
                t.start,
                t.finish
            ));
        }
        // legend: the first groups, in order of first appearance
        let x = 1200 - 190;
        bars.push_str(&format!(
            "<text x=\"{x}\" y=\"40\" font-family=\"{FONT}\" font-size=\"13\">colour: {by}</text>\n"
        ));
        for (i, label) in labels.iter().take(GANTT_LEGEND_MAX).enumerate() {
            let y = 52 + 16 * i as i32;
            let c = color(i);
            let mut label = label.clone();
            if label.chars().count() > 24 {
                label = label.chars().take(23).collect::<String>() + "…";
            }
            bars.push_str(&format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\" fill=\"#{:02x}{:02x}{:02x}\"/>\
                 <text x=\"{}\" y=\"{}\" font-family=\"{FONT}\" font-size=\"12\">{}</text>\n",
                c.0,
                c.1,
                c.2,
                x + 18,
                y + 10,
                xml_escape(&label)
            ));
        }
        let mut below = 52 + 16 * labels.len().min(GANTT_LEGEND_MAX) as i32;
        if labels.len() > GANTT_LEGEND_MAX {
            let y = 52 + 16 * GANTT_LEGEND_MAX as i32 + 10;
            bars.push_str(&format!(
                "<text x=\"{x}\" y=\"{y}\" font-family=\"{FONT}\" font-size=\"12\">… {} more</text>\n",
                labels.len() - GANTT_LEGEND_MAX
            ));
            below = y + 10;
        }
        if problem.has_windows() {
            bars.push_str(&format!(
                "<rect x=\"{x}\" y=\"{below}\" width=\"12\" height=\"12\" \
                 fill=\"url(#busy-hatch)\" stroke=\"#9e9e9e\" stroke-width=\"0.5\"/>\
                 <text x=\"{}\" y=\"{}\" font-family=\"{FONT}\" font-size=\"12\">busy window</text>\n",
                x + 18,
                below + 10
            ));
        }
        root.present().map_err(|e| plot_err(path, e))?;
    }
    let svg = std::fs::read_to_string(path).map_err(|e| ExperimentError::io(path, e))?;
    let Some(at) = svg.rfind("</svg>") else {
        return Err(plot_err(path, "the SVG backend wrote no closing tag"));
    };
    let svg = format!("{}{bars}{}", &svg[..at], &svg[at..]);
    std::fs::write(path, svg).map_err(|e| ExperimentError::io(path, e))
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
    /// CPU seconds since the run started (comparable across algorithms whose iterations
    /// cost a thousand-fold different amounts; [`ConvergencePoint::cpu_seconds`](crate::ConvergencePoint::cpu_seconds)).
    CpuSeconds,
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
                        CurveAxis::CpuSeconds => c.cpu_seconds,
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

    /// The convergence of every search on `problem` with `seed` against CPU time: the
    /// curves of [`convergence_curves`](Self::convergence_curves) with
    /// [`CurveAxis::CpuSeconds`] for the runs that reported progress at least twice (list
    /// schedulers and other one-shot runs are left out), each makespan divided by the best
    /// makespan any run on `problem` found (so 1 is the best known).
    pub fn relative_convergence_curves(&self, problem: &str, seed: u64) -> Vec<Curve> {
        let best = self
            .records()
            .iter()
            .filter(|r| r.problem == problem)
            .map(|r| r.makespan)
            .fold(f64::INFINITY, f64::min);
        let mut curves = self.convergence_curves(problem, seed, CurveAxis::CpuSeconds);
        curves.retain(|c| !c.flat);
        for c in &mut curves {
            for p in &mut c.points {
                p.1 /= best;
            }
        }
        curves
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

/// Writes convergence curves (`y_label`, e.g. best makespan, against `x_label`) to `path`
/// (SVG, 900 × 560); flat curves are thin horizontal lines across the plot. Flat curves above
/// every point of the search curves (a round-robin far above, say) are left out, so that
/// they do not squeeze the band where the searches differ, and the y range ends at 1.25
/// times the highest final value (earlier points above it are drawn on its edge); the y axis is logarithmic when the
/// values span a factor of 5 or more, the x axis when there is no flat curve, every x is
/// positive and they span a factor of 10 or more (CPU time: a search's first improvement
/// comes in microseconds, its last in seconds).
///
/// Errors: [`ExperimentError::Io`] creating the directory; [`ExperimentError::Plot`].
pub fn convergence(
    curves: &[Curve],
    title: &str,
    x_label: &str,
    y_label: &str,
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
    // A flat reference (a list scheduler) above every search point would squeeze the band
    // where the searches differ: such curves are left out. References below (better than
    // the searches' worst) stay, and the y range covers them.
    let search_max = curves
        .iter()
        .filter(|c| !c.flat)
        .flat_map(|c| c.points.iter().map(|p| p.1))
        .fold(f64::NEG_INFINITY, f64::max);
    let curves: Vec<&Curve> = curves
        .iter()
        .filter(|c| {
            !c.flat
                || search_max == f64::NEG_INFINITY
                || c.points.last().is_some_and(|p| p.1 <= search_max)
        })
        .collect();
    // The early points of a slow start would squeeze the band where the curves end: the y
    // range stops at 1.25 times the highest final value.
    let final_max = curves
        .iter()
        .filter_map(|c| c.points.last().map(|p| p.1))
        .fold(f64::NEG_INFINITY, f64::max);
    let (y0, y1) = y_range(
        curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.1))
            .map(|y| {
                if final_max > 0.0 {
                    y.min(1.25 * final_max)
                } else {
                    y
                }
            }),
    );
    let log = y0 > 0.0 && y1 / y0 >= 5.0;
    let x_min = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.0))
        .fold(f64::INFINITY, f64::min);
    let log_x = curves.iter().all(|c| !c.flat) && x_min > 0.0 && x_max / x_min >= 10.0;
    let y_label = if log {
        format!("{y_label} (log scale)")
    } else {
        y_label.to_owned()
    };
    let x_label = if log_x {
        format!("{x_label} (log scale)")
    } else {
        x_label.to_owned()
    };
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .light_line_style(TRANSPARENT)
                .x_desc(x_label.as_str())
                .y_desc(y_label.as_str())
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
    let x_lo = if log_x { x_min } else { 0.0 };
    match (log_x, log) {
        (true, true) => draw!(
            builder
                .build_cartesian_2d((x_lo..x_max).log_scale(), (y0..y1).log_scale())
                .map_err(|e| plot_err(path, e))?
        ),
        (true, false) => draw!(
            builder
                .build_cartesian_2d((x_lo..x_max).log_scale(), y0..y1)
                .map_err(|e| plot_err(path, e))?
        ),
        (false, true) => draw!(
            builder
                .build_cartesian_2d(0.0..x_max, (y0..y1).log_scale())
                .map_err(|e| plot_err(path, e))?
        ),
        (false, false) => draw!(
            builder
                .build_cartesian_2d(0.0..x_max, y0..y1)
                .map_err(|e| plot_err(path, e))?
        ),
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

/// Writes empirical cumulative distribution functions to `path` (SVG, 900 × 560): for each
/// `(label, values)` a step line through `(x_(i), i / n)` over the sorted values (e.g. the
/// job completion times of one simulation policy, the JCT CDF of Decima, Mao et al.,
/// SIGCOMM 2019, Fig. 9). Non-finite values are left out; the x axis is logarithmic when the
/// positive values span a factor of 100 or more. At most 2,000 points per line are drawn
/// (evenly spaced quantiles).
///
/// Errors: [`ExperimentError::Io`] creating the directory; [`ExperimentError::Plot`].
pub fn cdf(
    series: &[(String, Vec<f64>)],
    title: &str,
    x_label: &str,
    path: impl AsRef<Path>,
) -> Result<()> {
    const MAX_POINTS: usize = 2_000;
    let path = path.as_ref();
    ensure_dir(path)?;
    let lines: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(label, values)| {
            let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let step = n.div_ceil(MAX_POINTS).max(1);
            let mut pts: Vec<(f64, f64)> = (0..n)
                .step_by(step)
                .map(|i| (v[i], (i + 1) as f64 / n as f64))
                .collect();
            if let (Some(&last), Some(p)) = (v.last(), pts.last())
                && p.1 < 1.0
            {
                pts.push((last, 1.0));
            }
            (label.as_str(), pts)
        })
        .collect();
    let (lo, hi) = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else if lo.is_finite() {
        (lo - 1.0, hi + 1.0)
    } else {
        (0.0, 1.0)
    };
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .light_line_style(TRANSPARENT)
                .x_desc(x_label)
                .y_desc("fraction of jobs")
                .draw()
                .map_err(|e| plot_err(path, e))?;
            for (i, (label, pts)) in lines.iter().enumerate() {
                let col = color(i);
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), col.stroke_width(2)))
                    .map_err(|e| plot_err(path, e))?
                    .label(label.to_string())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2))
                    });
            }
            legend(&mut chart, SeriesLabelPosition::LowerRight, path)?;
        }};
    }
    let mut builder = line_chart(&root, title);
    if lo > 0.0 && hi / lo >= 100.0 {
        draw!(
            builder
                .build_cartesian_2d((lo * 0.9..hi * 1.1).log_scale(), 0.0..1.02)
                .map_err(|e| plot_err(path, e))?
        );
    } else {
        let pad = (hi - lo) * 0.03;
        draw!(
            builder
                .build_cartesian_2d(lo - pad..hi + pad, 0.0..1.02)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use worl_cluster::{ClusterBuilder, GpuId, GpuModel, Link, Network, ScheduledTask};
    use worl_dag::WorkloadBuilder;

    /// Two GPUs of speed 1 on one machine; tasks a (6 s) and b (5 s) on GPU 0 at 0–6 and
    /// 20–25; GPU 0 busy over `[10, 20)`, GPU 1 over `[2, 4)` and `[100, 200)` (past the
    /// plotted range, `1.02 · 25 = 25.5` s).
    fn windowed(with_windows: bool) -> (Problem, Schedule) {
        let mut w = WorkloadBuilder::new("w");
        let j = w.add_job("j").unwrap();
        let a = w.add_task(j, "a", 6.0, None).unwrap();
        let b = w.add_task(j, "b", 5.0, None).unwrap();
        w.add_edge(a, b, 0.0).unwrap();
        let mut c = ClusterBuilder::new("c");
        let model = GpuModel::custom("S1", 1.0, 32.0).unwrap();
        let m = c.add_machine("node-0");
        c.add_gpus(m, &model, 2).unwrap();
        c.network(Network::uniform(Link::NVLINK2, Link::ETHERNET_25G));
        if with_windows {
            c.add_busy(GpuId::new(0), 10.0, 20.0).unwrap();
            c.add_busy(GpuId::new(1), 2.0, 4.0).unwrap();
            c.add_busy(GpuId::new(1), 100.0, 200.0).unwrap();
        }
        let problem =
            Problem::new(Arc::new(w.build().unwrap()), Arc::new(c.build().unwrap())).unwrap();
        let at = |s: f64, f: f64| ScheduledTask {
            gpu: GpuId::new(0),
            start: s,
            finish: f,
        };
        let schedule = Schedule::new(2, vec![at(0.0, 6.0), at(20.0, 25.0)]).unwrap();
        (problem, schedule)
    }

    #[test]
    fn gantt_draws_busy_windows_behind_the_tasks_clipped_to_the_range() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.svg");
        let (problem, schedule) = windowed(true);
        assert!(schedule.validate(&problem).is_empty());
        gantt(&problem, &schedule, "windows", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        // two windows inside the range; the one at 100 s is past 25.5 s and not drawn
        assert_eq!(svg.matches("class=\"busy-window\"").count(), 2, "{svg}");
        assert!(
            svg.contains("busy window on GPU 0: 10.000 s to 20.000 s"),
            "{svg}"
        );
        assert!(
            svg.contains("busy window on GPU 1: 2.000 s to 4.000 s"),
            "{svg}"
        );
        assert!(!svg.contains("100.000 s"), "{svg}");
        assert!(svg.contains("<pattern id=\"busy-hatch\""), "{svg}");
        assert!(svg.contains(">busy window</text>"), "{svg}");
        // behind the tasks: every block comes before the first task bar
        let last_block = svg.rfind("class=\"busy-window\"").unwrap();
        let first_bar = svg.find("a (job j) on GPU 0").unwrap();
        assert!(last_block < first_bar);
        // the GPU 0 block spans 10 s of the 25 s of the b bar's 5 s: twice its width
        let width = |needle: &str| -> f64 {
            let at = svg.find(needle).unwrap();
            let open = svg[..at].rfind("<rect").unwrap();
            let w = &svg[open..at];
            let from = w.find("width=\"").unwrap() + 7;
            w[from..from + w[from..].find('"').unwrap()]
                .parse()
                .unwrap()
        };
        let (block, bar) = (width("busy window on GPU 0"), width("b (job j) on GPU 0"));
        assert!((block / bar - 2.0).abs() < 0.1, "{block} vs {bar}");
        // without windows, none of it
        let (plain, schedule) = windowed(false);
        gantt(&plain, &schedule, "windows", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            !svg.contains("busy-window") && !svg.contains("busy-hatch"),
            "{svg}"
        );
    }
}
