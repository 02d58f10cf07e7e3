//! Conversions between JSON / Python values and the helpers every class uses.

use pyo3::exceptions::{PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};
use serde_json::Value;

/// A JSON value as Python objects (objects become dicts, arrays lists).
pub(super) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// `pandas.DataFrame(rows)`, or an `ImportError` saying how to install pandas.
pub(super) fn data_frame<'py>(
    py: Python<'py>,
    rows: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let pd = py.import("pandas").map_err(|_| {
        PyImportError::new_err(
            "to_pandas() needs pandas, which is not installed: pip install pandas",
        )
    })?;
    pd.getattr("DataFrame")?.call1((rows,))
}

/// `str(obj)`.
pub(super) fn py_str(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(obj.str()?.to_string())
}

/// A number from a Python attribute value, or a `ValueError` naming `what`.
pub(super) fn number(v: &Bound<'_, PyAny>, what: &dyn Fn() -> String) -> PyResult<f64> {
    let not_a_number = || -> PyResult<f64> {
        Err(PyValueError::new_err(format!(
            "{}: `{}` is not a number",
            what(),
            py_str(v)?
        )))
    };
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyString>() {
        return not_a_number();
    }
    match v.extract::<f64>() {
        Ok(x) => Ok(x),
        Err(_) => not_a_number(),
    }
}

// ------------------------------------------------------------------ Workload
