//! Running the `anonlab` binary in CLI tests and reading its `--json` output.

use assert_cmd::Command;

/// The crate's binary, built by cargo for this test run.
pub fn anonlab() -> Command {
    Command::cargo_bin("anonlab").unwrap()
}

/// The JSON a successful run printed; fails the test with the run's stderr
/// when it did not succeed.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `anonlab anonymize --project PROJECT -o CSV --release CSV.json`: what
/// `:write` must write byte for byte for the same saved session. Fails the
/// test with the run's stderr when the run fails.
pub fn publish_project(project: &std::path::Path, csv: &std::path::Path) -> std::process::Output {
    let out = anonlab()
        .args(["anonymize", "--project"])
        .arg(project)
        .arg("-o")
        .arg(csv)
        .arg("--release")
        .arg(csv.with_extension("json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        project.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `compare --json`'s rows without each run's own time (`time_ms`), so
/// that every other figure can be compared across engines.
pub fn without_run_times(mut rows: serde_json::Value) -> serde_json::Value {
    for row in rows.as_array_mut().into_iter().flatten() {
        if let Some(e) = row["evaluation"].as_object_mut() {
            e.remove("time_ms");
        }
    }
    rows
}

/// The same figures: every count, label and exact figure equal; a float
/// that is a sum over records (a mean) equal up to the order of the
/// summation (relative 1e-12), since the engine's dataset holds the
/// records grouped, not in file order.
pub fn same_json(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value::*;
    match (a, b) {
        (Object(x), Object(y)) => {
            if x.len() != y.len() {
                return Err(format!("{at}: keys differ"));
            }
            for (k, v) in x {
                let w = y.get(k).ok_or_else(|| format!("{at}/{k}: missing"))?;
                same_json(v, w, &format!("{at}/{k}"))?;
            }
            Ok(())
        }
        (Array(x), Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{at}: {} vs {} items", x.len(), y.len()));
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                same_json(v, w, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (Number(x), Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            if (x - y).abs() <= 1e-12 * x.abs().max(1.0) {
                Ok(())
            } else {
                Err(format!("{at}: {x} vs {y}"))
            }
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{at}: {a} vs {b}")),
    }
}

/// `anonlab report PROJECT -o OUT`, which must succeed, and the
/// `report.json` it wrote.
pub fn report_json(project: &std::path::Path, out: &std::path::Path) -> serde_json::Value {
    let run = anonlab()
        .arg("report")
        .arg(project)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "report {}: {}",
        project.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// Whether every check of `anonymize --json`'s verification holds.
pub fn all_hold(v: &serde_json::Value) -> bool {
    v["verification"]["checks"]
        .as_array()
        .expect("verification checks")
        .iter()
        .all(|c| c["holds"] == true)
}

/// A published CSV table: its header and its rows.
pub fn read_table(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).expect("a CSV table");
    let header = r
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    let rows = r
        .records()
        .map(|x| x.expect("a record").iter().map(String::from).collect())
        .collect();
    (header, rows)
}
