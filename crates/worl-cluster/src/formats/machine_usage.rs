//! Machine usage: an extract of the `machine_usage` table of Alibaba cluster-trace-v2018, read
//! as background utilisation per machine.

use super::{csv_err, field, open, parse_err};
use crate::error::Result;
use std::path::Path;

/// Loads a v2018 `machine_usage` extract with header `machine_id,time_stamp,cpu_util_percent`
/// (such as the `GPU.csv` of the WORL-RTGS authors, Du et al., BDCC 9(11):284, 2025) as
/// `(machine, utilisation)` pairs, the utilisation as a fraction `cpu_util_percent / 100`, in
/// file order. Use the values as background utilisation
/// ([`Cluster::set_background`](crate::Cluster::set_background)) to reproduce their busy state
/// ([`LoadState::paper_busy`](crate::LoadState::paper_busy) draws from the same range).
///
/// Errors: [`ClusterError::Io`](crate::ClusterError::Io);
/// [`ClusterError::Parse`](crate::ClusterError::Parse) with line for a missing column, a
/// non-numeric value, or a value outside `[0, 100)`.
pub fn load_machine_usage(path: impl AsRef<Path>) -> Result<Vec<(String, f64)>> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(open(path)?);
    let header = rdr.headers().map_err(|e| csv_err(&file, e))?.clone();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(mc), Some(uc)) = (col("machine_id"), col("cpu_util_percent")) else {
        return Err(parse_err(
            &file,
            1,
            "header lacks `machine_id` or `cpu_util_percent`".to_owned(),
        ));
    };
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_err(&file, e))?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let util: f64 = field(&file, line, &rec, uc, "cpu_util_percent")?;
        if !(0.0..100.0).contains(&util) {
            return Err(parse_err(
                &file,
                line,
                format!("cpu_util_percent {util} is not in [0, 100)"),
            ));
        }
        out.push((rec.get(mc).unwrap_or("").trim().to_owned(), util / 100.0));
    }
    Ok(out)
}
