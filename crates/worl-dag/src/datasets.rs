//! Locating the real public traces of the project (`shared/data`, see its `SOURCES.md`).
//!
//! The traces are never copied into the repository. Tests, benches and examples of every
//! worl crate find them with [`shared_data_dir`] (or [`data_file`]): a missing directory is
//! skipped with a printed notice, except under `CI=true` where it is an error, so that a CI
//! run can never pass by skipping.

use crate::error::{DagError, Result};
use std::path::{Path, PathBuf};

/// Environment variable naming the data directory; it overrides the default.
pub const DATA_DIR_ENV: &str = "WORL_DATA_DIR";

/// The data directory found from `start`: `start/shared/data`, else the same in the nearest
/// parent directory that has one (from a checkout of the repository next to `shared/`, the
/// tests, examples and benches find `../shared/data` wherever they run). `None` if no
/// ancestor has one. Nothing about where this crate was built is kept.
///
/// ```
/// let root = std::env::temp_dir().join(format!("worl-find-data-{}", std::process::id()));
/// let data = root.join("shared/data");
/// let deep = root.join("repo/crates/x");
/// std::fs::create_dir_all(&data)?;
/// std::fs::create_dir_all(&deep)?;
/// assert_eq!(worl_dag::datasets::find_data_dir(&deep), Some(data));
/// assert_eq!(worl_dag::datasets::find_data_dir(&root), Some(root.join("shared/data")));
/// std::fs::remove_dir_all(&root)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn find_data_dir(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|a| a.join("shared").join("data"))
        .find(|d| d.is_dir())
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The shared data directory, if present.
///
/// Looks at `WORL_DATA_DIR` if set, else for `shared/data` in the current directory or its
/// nearest parent that has one ([`find_data_dir`]). Returns `Ok(Some(dir))` if it is a
/// directory; `Ok(None)` after printing a skip notice to stderr if not; and
/// [`DagError::DataMissing`] if not while the environment variable `CI` is `true` (or `1`).
///
/// ```
/// match worl_dag::datasets::shared_data_dir() {
///     Ok(Some(dir)) => assert!(dir.is_dir()),
///     Ok(None) => {} // absent here: skipped with a notice
///     Err(e) => eprintln!("{e}"), // absent under CI=true
/// }
/// ```
pub fn shared_data_dir() -> Result<Option<PathBuf>> {
    let (dir, how) = match std::env::var_os(DATA_DIR_ENV) {
        Some(d) if !d.is_empty() => (PathBuf::from(d), format!("from ${DATA_DIR_ENV}")),
        _ => {
            let cwd = std::env::current_dir().unwrap_or_default();
            match find_data_dir(&cwd) {
                Some(dir) => return Ok(Some(dir)),
                None => (
                    cwd,
                    format!("no shared/data in it or any parent directory, ${DATA_DIR_ENV} unset"),
                ),
            }
        }
    };
    if dir.is_dir() {
        return Ok(Some(dir));
    }
    if ci() {
        return Err(DagError::DataMissing {
            path: dir,
            reason: how,
        });
    }
    eprintln!(
        "note: shared data directory {} not found ({how}); skipping what needs it",
        dir.display()
    );
    Ok(None)
}

/// The file `relative` inside the shared data directory (e.g.
/// `"alibaba-v2018/batch_task_head50k.csv"`), if the directory is present.
///
/// Same rules as [`shared_data_dir`]; in addition a present directory that lacks the file is
/// [`DagError::DataMissing`] (a file that should be there is missing: never skipped).
pub fn data_file(relative: impl AsRef<Path>) -> Result<Option<PathBuf>> {
    let Some(dir) = shared_data_dir()? else {
        return Ok(None);
    };
    let path = dir.join(relative.as_ref());
    if path.is_file() {
        Ok(Some(path))
    } else {
        Err(DagError::DataMissing {
            reason: format!("the data directory {} lacks this file", dir.display()),
            path,
        })
    }
}
