//! The release fingerprint (`release::fingerprint`, SHA-256 of the
//! published files): for every algorithm, `anonlab anonymize --project` on
//! a saved project and `anonlab report` on it describe the same release,
//! and the fingerprint is the hash of the files `anonymize -o` writes.
//! (The TUI's side of the same check is in `tests/tui_fingerprint.rs`.)

use std::path::Path;

use anonlab::algorithms;
use anonlab::session::Session;
use sha2::{Digest, Sha256};

use crate::common;
use common::cli::{anonlab, json_of};

/// The demo's project with `algorithm` chosen at k = 3, l = 2, saved in
/// `dir`; Construction gets a conditions file beside it.
fn project(dir: &Path, algorithm: &str) -> std::path::PathBuf {
    let mut s = Session::demo().unwrap();
    s.params.algorithm = Some(algorithm.to_string());
    s.params.k = 3;
    s.params.l = 2;
    if algorithm == "construction" {
        s.params.conditions = Some(common::demo_conditions(dir));
    }
    if algorithms::by_id(algorithm).unwrap().needs().numeric {
        common::perturb_age(&mut s);
    }
    let path = dir.join(format!("{algorithm}.json"));
    s.to_project().save(&path).unwrap();
    path
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn anonymize_and_report_on_a_project_publish_one_release_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    for algo in algorithms::registry() {
        let id = algo.id();
        let p = project(dir.path(), id);
        let out = dir.path().join(format!("{id}.csv"));
        // No -a, -k, -l: the project's.
        let run = anonlab()
            .args(["anonymize", "--project"])
            .arg(&p)
            .args(["--json", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let eval = json_of(&run);
        assert_eq!(eval["algorithm"], id, "{id}");
        let fingerprint = eval["fingerprint"].as_str().unwrap().to_string();
        assert!(fingerprint.starts_with("sha256:"), "{id}: {fingerprint}");

        // The fingerprint hashes the files written: the table first, then
        // the bucket tables, each with its role.
        let mut files: Vec<(String, std::path::PathBuf)> = vec![("table".into(), out.clone())];
        let buckets = dir.path().join(format!("{id}.buckets.csv"));
        if buckets.exists() {
            files.push(("buckets".into(), buckets.clone()));
        }
        for attribute in ["occupation", "disease"] {
            let local = dir.path().join(format!("{id}.{attribute}.buckets.csv"));
            if local.exists() {
                files.push((format!("buckets {attribute}"), local.clone()));
            }
        }
        let mut all = Sha256::new();
        for (name, file) in &files {
            all.update(name.as_bytes());
            all.update(b"\n");
            all.update(Sha256::digest(std::fs::read(file).unwrap()));
        }
        assert_eq!(
            fingerprint,
            format!("sha256:{}", hex(&all.finalize())),
            "{id}"
        );
        // The demo's flag column is not published.
        let table = std::fs::read_to_string(&out).unwrap();
        let header = table.lines().next().unwrap();
        assert!(!header.contains("hide_occupation"), "{id}: {header}");

        let report_dir = dir.path().join(format!("{id}-report"));
        let run = anonlab()
            .arg("report")
            .arg(&p)
            .arg("-o")
            .arg(&report_dir)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report_dir.join("report.json")).unwrap())
                .unwrap();
        assert_eq!(
            report["release"]["fingerprint"], fingerprint,
            "{id}: the report describes another release"
        );
        for f in &files {
            let _ = std::fs::remove_file(&f.1);
        }
    }
}
