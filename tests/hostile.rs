//! The hostile-input catalogue: one test per family of hostile input
//! (README, "Limits and hostile input"), each case run through the binary as a user would, asserting the
//! exact outcome — a clean refusal (exit code 2, a one-line message naming
//! the file, row, column or value and the limit) or a correct result — and,
//! after every case, that the input files still hash as before and that no
//! temporary file was left beside them.
//!
//! The stable-toolchain fuzzing of the same readers is in `tests/fuzz.rs`;
//! seed inputs of these cases are in `tests/hostile/`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::cli::anonlab;

/// A case's directory and the input files whose bytes must not change.
struct Case {
    dir: tempfile::TempDir,
    inputs: Vec<(PathBuf, u64)>,
}

fn hash_file(p: &Path) -> u64 {
    let mut h = DefaultHasher::new();
    std::fs::read(p).unwrap().hash(&mut h);
    h.finish()
}

impl Case {
    fn new() -> Case {
        Case {
            dir: tempfile::tempdir().unwrap(),
            inputs: Vec::new(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Write an input file of the case; it is hashed now and after every run.
    fn input(&mut self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap();
        self.inputs.push((p.clone(), hash_file(&p)));
        p
    }

    /// Run the binary in the case's directory; check the inputs and that
    /// no temporary file is left.
    fn run(&self, args: &[&str]) -> Output {
        let out = anonlab()
            .current_dir(self.dir.path())
            .env_remove("ANONLAB_MAX_TEXT_BYTES")
            .args(args)
            .output()
            .unwrap();
        self.check_untouched(args);
        out
    }

    fn check_untouched(&self, what: &[&str]) {
        for (p, h) in &self.inputs {
            assert_eq!(
                hash_file(p),
                *h,
                "{what:?} changed the input {}",
                p.display()
            );
        }
        let left: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{what:?} left temporary files {left:?}");
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A clean refusal: exit code 2 and one line naming every `needle`.
#[track_caller]
fn refused(out: &Output, needles: &[&str]) {
    let e = stderr(out);
    assert_eq!(out.status.code(), Some(2), "expected a refusal, got: {e}");
    assert!(e.starts_with("anonlab: error: "), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    for n in needles {
        assert!(e.contains(n), "missing {n:?} in: {e}");
    }
}

#[track_caller]
fn succeeded(out: &Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    stdout(out)
}

/// A small table with a numeric and two categorical QIs and a sensitive one.
fn people(rows: usize) -> String {
    let mut s = String::from("sex,age,zip,disease\n");
    let diseases = ["flu", "hiv", "cold", "cancer"];
    for r in 0..rows {
        let sex = if r % 2 == 0 { "F" } else { "M" };
        s.push_str(&format!(
            "{sex},{},{},{}\n",
            20 + r % 50,
            47600 + r % 7,
            diseases[r % 4]
        ));
    }
    s
}

fn nested(depth: usize) -> String {
    format!("{}age>60{}", "(".repeat(depth), ")".repeat(depth))
}

/// Whether a Unix device is there; under `CI=true` its absence fails.
fn device(path: &str) -> bool {
    let ok = Path::new(path).exists();
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{path} is needed by this test"
        );
        eprintln!("skipped: {path} is not there");
    }
    ok
}

// Family 1: rules nested deeper than the stack — through a flag, a
// conditions file's `when` and a project's sensitivity rule.
#[test]
fn deeply_nested_rules_are_refused_not_a_stack_overflow() {
    let mut c = Case::new();
    c.input("d.csv", people(40));
    let deep = nested(8000);
    let out = c.run(&[
        "assess",
        "d.csv",
        "--qi",
        "sex,zip",
        "--semi-sensitive",
        "age",
        "--sensitive-when",
        &deep,
    ]);
    refused(&out, &["d.csv", "invalid rule", "nest more than 100 deep"]);
    assert!(stderr(&out).len() < 400, "the rule is cut in the message");

    let g = serde_json::json!({"conditions": [{"when": deep, "delete": "record"}]});
    c.input("g.json", g.to_string());
    let out = c.run(&[
        "anonymize",
        "d.csv",
        "--qi",
        "sex,age",
        "-a",
        "construction",
        "--conditions",
        "g.json",
    ]);
    refused(&out, &["condition 1", "nest more than 100 deep"]);

    let p = serde_json::json!({
        "version": 1,
        "data": {"path": "d.csv"},
        "roles": {"sex": "quasi-identifier", "age": "semi-sensitive"},
        "sensitivity": {"age": {"source": "rule", "rule": deep}},
    });
    c.input("p.json", p.to_string());
    let out = c.run(&["assess", "--project", "p.json"]);
    refused(&out, &["nest more than 100 deep"]);
}

// Family 2: reads and loops without end.
/// A FIFO (named pipe) that no one writes, given as the data, a project,
/// a conditions or a hierarchy file, is refused at once instead of being
/// waited on forever, on every path (issue 36, item 9); so is a project
/// whose fingerprinted data path is a device that never ends.
#[cfg(unix)]
#[test]
fn fifos_and_endless_devices_are_refused_not_waited_on() {
    let mut c = Case::new();
    c.input("d.csv", people(40));
    let made = std::process::Command::new("mkfifo")
        .arg(c.path("pipe.csv"))
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    c.input(
        "pz.json",
        r#"{"version":1,"data":{"path":"/dev/zero","fingerprint":{"size":1,"hash":"fnv1a64:0000000000000000"}},"roles":{"a":"quasi-identifier"}}"#,
    );
    // Each run is bounded: a wait would be killed and fail the refusal.
    let within = |args: &[&str]| -> Output {
        let out = anonlab()
            .current_dir(c.dir.path())
            .timeout(std::time::Duration::from_secs(60))
            .args(args)
            .output()
            .unwrap();
        c.check_untouched(args);
        out
    };
    let fifo = [
        "pipe.csv",
        "FIFO (named pipe)",
        "write the data to a file first",
    ];
    refused(&within(&["assess", "pipe.csv", "--qi", "a"]), &fifo);
    refused(
        &within(&["assess", "pipe.csv", "--qi", "a", "--format", "parquet"]),
        &fifo,
    );
    if cfg!(feature = "engine") {
        refused(
            &within(&["assess", "pipe.csv", "--qi", "a", "--engine", "datafusion"]),
            &fifo,
        );
    }
    refused(&within(&["assess", "--project", "pipe.csv"]), &fifo);
    refused(
        &within(&[
            "anonymize",
            "d.csv",
            "--qi",
            "sex,age",
            "-a",
            "construction",
            "--conditions",
            "pipe.csv",
        ]),
        &fifo,
    );
    refused(
        &within(&[
            "anonymize",
            "d.csv",
            "--qi",
            "sex,age",
            "-a",
            "full-domain",
            "--hierarchies",
            "age=pipe.csv",
        ]),
        &fifo,
    );
    // A project whose data path is an endless device, with a fingerprint
    // to check: refused, never read forever.
    if device("/dev/zero") {
        let out = within(&["assess", "--project", "pz.json"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    }
}

#[test]
fn endless_and_oversized_inputs_stop_at_their_limits() {
    let mut c = Case::new();
    c.input("d.csv", people(40));
    if cfg!(unix) && device("/dev/zero") {
        let out = c.run(&["assess", "/dev/zero", "--qi", "a"]);
        refused(
            &out,
            &[
                "/dev/zero, row 1",
                "limit of 16,777,216 bytes",
                "--max-row-bytes",
            ],
        );
        let out = c.run(&[
            "anonymize",
            "d.csv",
            "--qi",
            "sex,age",
            "-a",
            "construction",
            "--conditions",
            "/dev/zero",
        ]);
        refused(
            &out,
            &["/dev/zero", "conditions file", "ANONLAB_MAX_TEXT_BYTES"],
        );
        let out = c.run(&["assess", "--project", "/dev/zero"]);
        refused(
            &out,
            &["/dev/zero", "project file", "limit of 268,435,456 bytes"],
        );
        c.input(
            "pz.json",
            r#"{"version":1,"data":{"path":"/dev/zero"},"roles":{"a":"quasi-identifier"}}"#,
        );
        let out = c.run(&["assess", "--project", "pz.json"]);
        refused(&out, &["/dev/zero, row 1", "--max-row-bytes"]);
    }
    // A short row over a small row limit is refused where it is, not only
    // once the reader has buffered more than the limit past it.
    c.input("short.csv", "a,b\n1,2\n3,456789012345\n5,6\n");
    // Blank lines before a row are not part of it.
    c.input("blank.csv", format!("a,b\n1,2\n{}3,4\n", "\n".repeat(40)));
    let out = c.run(&["assess", "blank.csv", "--qi", "a", "--max-row-bytes", "10"]);
    succeeded(&out);
    let out = c.run(&["assess", "short.csv", "--qi", "a", "--max-row-bytes", "10"]);
    refused(
        &out,
        &["short.csv, row 3", "limit of 10 bytes", "--max-row-bytes"],
    );
    let out = c.run(&["assess", "short.csv", "--qi", "a", "--max-row-bytes", "3"]);
    refused(&out, &["short.csv, row 1", "limit of 3 bytes"]);
    let adult = common::adult_path();
    if common::require(adult.exists(), "Adult at ../shared/data/adult/") {
        // Adult's first lines are 88, 82 and 97 bytes with their line
        // breaks: the third is the first over 90.
        let out = c.run(&[
            "assess",
            adult.to_str().unwrap(),
            "--qi",
            "age",
            "--max-row-bytes",
            "90",
        ]);
        refused(&out, &["adult.csv, row 3", "limit of 90 bytes"]);
    }
    // 100,000 columns in 600 KB: refused at the header; raised, correlate
    // refuses the 5 billion pairs before any work.
    let wide: String = (0..100_000)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(",")
        + "\n"
        + &vec!["1"; 100_000].join(",")
        + "\n";
    c.input("wide.csv", &wide);
    let out = c.run(&["correlate", "wide.csv"]);
    refused(
        &out,
        &[
            "wide.csv, row 1",
            "100,000 columns",
            "limit of 10,000",
            "--max-columns",
        ],
    );
    let out = c.run(&["correlate", "wide.csv", "--max-columns", "200000"]);
    refused(
        &out,
        &[
            "100,000 columns",
            "5,000,050,000 pairs",
            "at most 1000 columns are correlated at once: name them with --columns",
        ],
    );
    // A fanout of 2^64 − 1 ends with the right hierarchy.
    c.input("ages.csv", "age\n1\n2\n50\n");
    let out = c.run(&[
        "hierarchy",
        "build",
        "ages.csv",
        "--column",
        "age",
        "--intervals",
        "5",
        "--fanout",
        "18446744073709551615",
    ]);
    let text = succeeded(&out);
    assert!(text.contains("[0-4], [50-54]"), "{text}");
    // p far beyond the sensitive values: refused at once by Condition 1.
    let out = c.run(&[
        "anonymize",
        "d.csv",
        "--qi",
        "sex,age",
        "--sensitive",
        "disease",
        "-a",
        "pk-greedy",
        "-p",
        "4294967295",
    ]);
    refused(&out, &["only 4 distinct values", "lower p to at most 4"]);
    // A workload of 10^11 queries: refused before the algorithm runs.
    let out = c.run(&[
        "anonymize",
        "d.csv",
        "--qi",
        "sex,age",
        "-a",
        "mondrian",
        "--queries",
        "100000000000",
    ]);
    refused(&out, &["100000000000 queries", "1000000"]);
    // A hierarchy of 200,000 leaves reads in linear time, every leaf kept.
    let mut h = String::new();
    for i in 0..200_000 {
        h.push_str(&format!("v{i};g{};*\n", i % 50));
    }
    c.input("hierarchy_x.csv", h);
    let out = c.run(&["hierarchy", "show", "hierarchy_x.csv", "--labels", "0"]);
    assert!(
        succeeded(&out).contains("200,000 leaves"),
        "{}",
        stdout(&out)
    );
}

// Family 3: outputs that would destroy an input, devices, write errors.
#[test]
fn no_output_replaces_an_input_and_devices_stay_devices() {
    let mut c = Case::new();
    c.input("d.csv", people(60));
    let base = [
        "anonymize",
        "d.csv",
        "--qi",
        "sex,age",
        "-a",
        "mondrian",
        "--queries",
        "0",
    ];
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        base.iter().copied().chain(more.iter().copied()).collect()
    };
    for out_flag in [
        &["-o", "d.csv"][..],
        &["--release", "d.csv"],
        &["-o", "./d.csv"],
    ] {
        let out = c.run(&with(out_flag));
        refused(
            &out,
            &[
                "cannot write file",
                "it is the input",
                "never writes its inputs",
            ],
        );
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(c.path("d.csv"), c.path("link.csv")).unwrap();
        refused(
            &c.run(&with(&["-o", "link.csv"])),
            &["link.csv", "it is the input"],
        );
        std::fs::remove_file(c.path("link.csv")).unwrap();
    }
    // Two outputs naming one file.
    refused(
        &c.run(&with(&["-o", "r.csv", "--release", "r.csv"])),
        &["already an output"],
    );
    // The bucket table beside a bucketized release, naming the input.
    c.input("r.buckets.csv", people(60));
    let out = c.run(&[
        "anonymize",
        "r.buckets.csv",
        "--qi",
        "sex,age",
        "--sensitive",
        "disease",
        "-a",
        "anatomy",
        "-l",
        "2",
        "-o",
        "r.csv",
    ]);
    refused(&out, &["r.buckets.csv", "it is the input"]);
    assert!(
        !c.path("r.csv").exists(),
        "nothing written before the check"
    );
    // --save-project, hierarchy build -o, correlate -o / --conditions-out.
    refused(
        &c.run(&[
            "assess",
            "d.csv",
            "--qi",
            "sex,age",
            "--save-project",
            "d.csv",
        ]),
        &["it is the input"],
    );
    refused(
        &c.run(&[
            "hierarchy",
            "build",
            "d.csv",
            "--column",
            "age",
            "--intervals",
            "10",
            "-o",
            "d.csv",
        ]),
        &["it is the input"],
    );
    for flag in ["-o", "--conditions-out"] {
        refused(
            &c.run(&[
                "correlate",
                "d.csv",
                "--build-hierarchy",
                "age",
                "--min-records",
                "5",
                flag,
                "d.csv",
            ]),
            &["it is the input"],
        );
    }
    // The population table is an input too (issue 36, item 6): neither a
    // saved project nor a release written from that project may name it.
    c.input("pop.csv", people(240));
    refused(
        &c.run(&[
            "assess",
            "d.csv",
            "--qi",
            "sex,age",
            "--population",
            "pop.csv",
            "--save-project",
            "pop.csv",
        ]),
        &["pop.csv", "it is the input"],
    );
    succeeded(&c.run(&[
        "assess",
        "d.csv",
        "--qi",
        "sex,age",
        "--population",
        "pop.csv",
        "--save-project",
        "p.json",
    ]));
    c.input("p.json", std::fs::read(c.path("p.json")).unwrap());
    refused(
        &c.run(&[
            "anonymize",
            "--project",
            "p.json",
            "-a",
            "mondrian",
            "--queries",
            "0",
            "-o",
            "pop.csv",
        ]),
        &["pop.csv", "it is the input"],
    );
    // A device is written directly, never renamed over.
    if cfg!(unix) && device("/dev/null") {
        succeeded(&c.run(&with(&["-o", "/dev/null"])));
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null is still a device");
    }
    if cfg!(unix) && device("/dev/full") {
        refused(
            &c.run(&with(&["-o", "/dev/full"])),
            &["/dev/full: cannot write file", "No space left on device"],
        );
        // The table and the release JSON are one unit (issue 36, item 7):
        // a JSON that cannot be written leaves no table either.
        refused(
            &c.run(&with(&["-o", "unit.csv", "--release", "/dev/full"])),
            &["/dev/full: cannot write file"],
        );
        assert!(!c.path("unit.csv").exists(), "the table was left behind");
        // So on the query engine's path, whose publishing pass stages the
        // table as it reads the file and puts it in place with the JSON.
        if cfg!(feature = "engine") {
            refused(
                &c.run(&with(&[
                    "--engine",
                    "datafusion",
                    "-o",
                    "unit.csv",
                    "--release",
                    "/dev/full",
                ])),
                &["/dev/full: cannot write file"],
            );
            assert!(
                !c.path("unit.csv").exists(),
                "the engine's table was left behind"
            );
            let left: Vec<String> = std::fs::read_dir(c.dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".tmp"))
                .collect();
            assert!(left.is_empty(), "temporary files left: {left:?}");
        }
    }
    // A write that fails is worded as a write.
    if cfg!(target_os = "linux") && device("/proc/version") {
        refused(
            &c.run(&with(&["-o", "/proc/anonlab-hostile.csv"])),
            &["/proc/anonlab-hostile.csv: cannot write file"],
        );
    }
    // And a good output is written, in memory and through the engine,
    // the JSON beside the engine's table.
    succeeded(&c.run(&with(&["-o", "out.csv"])));
    assert!(std::fs::read_to_string(c.path("out.csv"))
        .unwrap()
        .starts_with("sex,age,"));
    if !cfg!(feature = "engine") {
        return;
    }
    succeeded(&c.run(&with(&[
        "--engine",
        "datafusion",
        "-o",
        "engine.csv",
        "--release",
        "engine.json",
    ])));
    assert!(std::fs::read_to_string(c.path("engine.csv"))
        .unwrap()
        .starts_with("sex,age,"));
    assert!(c.path("engine.json").exists());
}

#[cfg(unix)]
#[test]
fn signals_mid_write_leave_no_temporary_file() {
    use std::time::{Duration, Instant};
    let c = Case::new();
    let temporary = || {
        std::fs::read_dir(c.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with(".big.csv.") && n.ends_with(".tmp"))
    };
    for (signal, name) in [
        (libc::SIGINT, "INT"),
        (libc::SIGTERM, "TERM"),
        (libc::SIGKILL, "KILL"),
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_anonlab"))
            .current_dir(c.dir.path())
            .args(["synth", "--rows", "5000000", "-o", "big.csv"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while temporary().is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no temporary file appeared"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "SIG{name}: the write was to be interrupted"
        );
        assert!(!c.path("big.csv").exists(), "SIG{name}: no output either");
        if signal == libc::SIGKILL {
            // Nothing can run on SIGKILL: the next write of the target
            // removes what the dead process left.
            assert!(temporary().is_some());
            succeeded(&c.run(&["synth", "--rows", "10", "-o", "big.csv"]));
        }
        assert_eq!(temporary(), None, "SIG{name} left a temporary file");
    }
    c.check_untouched(&["signals"]);
}

// Family 4: releases and hierarchies that misstate the values.
#[test]
fn releases_and_hierarchies_never_misstate_values() {
    let mut c = Case::new();
    c.input("ages.csv", "age\n1\n2\n");
    let out = c.run(&[
        "hierarchy",
        "build",
        "ages.csv",
        "--column",
        "age",
        "--intervals",
        "1",
        "--anchor",
        "1e20",
        "-o",
        "h.csv",
    ]);
    succeeded(&out);
    let h = std::fs::read_to_string(c.path("h.csv")).unwrap();
    assert_eq!(h, "1;[1-1];*\n2;[2-2];*\n");
    // Values beyond 2^53 and beyond i64, published exactly.
    c.input(
        "big.csv",
        "id,n\na,100000000000000000000\nb,100000000000000000001\nc,100000000000000000003\n",
    );
    let out = c.run(&[
        "anonymize",
        "big.csv",
        "--qi",
        "n",
        "-a",
        "mondrian",
        "-k",
        "3",
        "--queries",
        "0",
        "-o",
        "r.csv",
    ]);
    succeeded(&out);
    let r = std::fs::read_to_string(c.path("r.csv")).unwrap();
    assert!(
        r.contains("[100000000000000000000-100000000000000000003]"),
        "{r}"
    );
    // A hierarchy whose labels are other leaves' values.
    c.input("d.csv", people(20));
    c.input("hierarchy_sex.csv", "F;M;*\nM;F;*\n");
    let out = c.run(&[
        "anonymize",
        "d.csv",
        "--qi",
        "sex",
        "-a",
        "full-domain",
        "-k",
        "2",
        "--hierarchies",
        "sex=hierarchy_sex.csv",
        "--queries",
        "0",
    ]);
    refused(
        &out,
        &[
            "hierarchy_sex.csv, row 1",
            "the label 'M' at level 1 is also the leaf 'M'",
        ],
    );
    // A condition's label that is not a generalization of what it replaces.
    c.input(
        "g.json",
        r#"{"conditions":[{"when":"age>=60","generalize":"age","to":"39"}]}"#,
    );
    let out = c.run(&[
        "anonymize",
        "d.csv",
        "--qi",
        "sex,age",
        "-a",
        "construction",
        "--conditions",
        "g.json",
    ]);
    // people(20) has no age ≥ 60: the condition selects nothing, nothing lies.
    succeeded(&out);
    c.input("old.csv", "sex,age\nF,70\nM,39\nF,39\nM,70\n");
    let out = c.run(&[
        "anonymize",
        "old.csv",
        "--qi",
        "sex,age",
        "-a",
        "construction",
        "--conditions",
        "g.json",
    ]);
    refused(
        &out,
        &[
            "condition 1",
            "the label '39' is not a generalization of the value '70'",
            "row 2",
        ],
    );
}

// Family 5: numbers equal as numbers are one value, published canonically.
#[test]
fn numbers_equal_as_numbers_are_one_value() {
    let mut c = Case::new();
    c.input(
        "z.csv",
        "x,y\n-0,a\n0,a\n0.0,a\n00,a\n39,a\n39.0,a\n039,a\n3.9e1,a\n",
    );
    let out = c.run(&["assess", "z.csv", "--qi", "x", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&succeeded(&out)).unwrap();
    assert_eq!(v["classes"], 2, "{v}");
    assert_eq!(v["k"], 4, "{v}");
    let out = c.run(&[
        "anonymize",
        "z.csv",
        "--qi",
        "x",
        "-a",
        "mondrian",
        "-k",
        "8",
        "--queries",
        "0",
        "-o",
        "r.csv",
    ]);
    succeeded(&out);
    let r = std::fs::read_to_string(c.path("r.csv")).unwrap();
    assert!(
        r.contains("[0-39]") && !r.contains("039") && !r.contains("e1"),
        "{r}"
    );
    // Rules and hierarchies read the same numbers.
    let out = c.run(&[
        "assess",
        "z.csv",
        "--qi",
        "y",
        "--semi-sensitive",
        "x",
        "--sensitive-when",
        "x = 39.00",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&succeeded(&out)).unwrap();
    assert_eq!(v["hidden_cells"], 4, "{v}");
    let out = c.run(&[
        "hierarchy",
        "build",
        "z.csv",
        "--column",
        "x",
        "--intervals",
        "10",
    ]);
    let text = succeeded(&out);
    assert!(
        text.contains("2 values") && text.contains("0, 39"),
        "{text}"
    );
}

// Family 6: NaN and infinities never become figures.
#[test]
fn nan_is_never_a_figure() {
    let mut c = Case::new();
    // Beyond 1e150 a value is text: the column is categorical, no NaN.
    c.input("e.csv", "v,s\n1e308,a\n-1e308,b\n1,a\n2,b\n");
    let out = c.run(&[
        "anonymize",
        "e.csv",
        "--qi",
        "v",
        "-a",
        "mondrian",
        "-k",
        "2",
        "--queries",
        "0",
    ]);
    let text = succeeded(&out);
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    // Within the bound: numeric, and every figure finite.
    c.input("f.csv", "v,s\n9e149,a\n-9e149,b\n1,a\n2,b\n");
    let out = c.run(&[
        "anonymize",
        "f.csv",
        "--qi",
        "v",
        "-a",
        "mondrian",
        "-k",
        "2",
        "--queries",
        "0",
        "--json",
    ]);
    let text = succeeded(&out);
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    // serde_json writes a NaN figure as null: the only nulls are the
    // parameters and blocks that are absent (UNSET_PARAMETERS).
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut nulls = Vec::new();
    null_keys(&v, "", &mut nulls);
    assert!(
        nulls.iter().all(|k| UNSET_PARAMETERS.contains(&k.as_str())),
        "{nulls:?} in {text}"
    );
    c.input("d.csv", people(20));
    for rule in ["age>=NaN", "age!=NaN", "age<inf"] {
        let out = c.run(&[
            "assess",
            "d.csv",
            "--qi",
            "sex",
            "--semi-sensitive",
            "age",
            "--sensitive-when",
            rule,
        ]);
        refused(&out, &["invalid rule", "is not a number"]);
    }
    // Sampling weights follow the same number rule (issue 36, item 10):
    // 1e308 is refused naming the cell, where it made the exact individual
    // risk NaN; 9e149 is a number, and every figure stays finite.
    c.input(
        "w.csv",
        "sex,age,w\nF,30,1e308\nF,30,1e308\nM,40,2\nM,40,3\n",
    );
    c.input(
        "w2.csv",
        "sex,age,w\nF,30,9e149\nF,30,9e149\nM,40,2\nM,40,3\n",
    );
    let weighted = |file: &str| -> Output {
        c.run(&[
            "assess",
            file,
            "--qi",
            "sex,age",
            "--weights",
            "w",
            "--individual-method",
            "exact",
            "--json",
        ])
    };
    refused(
        &weighted("w.csv"),
        &["w.csv, row 2", "'1e308' is not a number", "1e150"],
    );
    let text = succeeded(&weighted("w2.csv"));
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut nulls = Vec::new();
    null_keys(&v, "", &mut nulls);
    assert!(
        nulls.is_empty() || nulls.iter().all(|k| UNSET_PARAMETERS.contains(&k.as_str())),
        "{nulls:?} in {text}"
    );
}

/// Issue 36, item 10: `--individual-method exact` printed "mean NaN …
/// expected re-identifications NaN" with weights of 1e308. Weights now
/// stop below 1e150 (the data's number rule); across the extremes left —
/// the largest weights in a class of hundreds, the smallest step above 1
/// (p a few ulps below 1), huge and unit weights in one class, a unique
/// record of weight 9e149 — every figure of `assess --json` is a finite
/// number (serde_json writes NaN as null) and every risk lies in [0, 1].
#[test]
fn exact_individual_risk_is_never_nan_for_extreme_weights() {
    let mut c = Case::new();
    let layouts: [&[(&str, usize, &str)]; 4] = [
        // (key, records, weight)
        &[("F,30", 500, "9.99e149"), ("M,40", 3, "1.0000000000000002")],
        &[("F,30", 1, "9e149"), ("M,40", 1, "1"), ("M,41", 2, "1")],
        &[
            ("F,30", 2, "9.99e149"),
            ("F,30", 2, "1"),
            ("M,40", 40, "1.5"),
        ],
        &[
            ("F,30", 1000, "1.0000000000000002"),
            ("M,40", 1, "9.99e149"),
        ],
    ];
    for (i, layout) in layouts.iter().enumerate() {
        let mut csv = String::from("sex,age,w\n");
        for (key, records, weight) in layout.iter() {
            for _ in 0..*records {
                csv.push_str(&format!("{key},{weight}\n"));
            }
        }
        let file = format!("w{i}.csv");
        c.input(&file, csv);
        let args = [
            "assess",
            &file,
            "--qi",
            "sex,age",
            "--weights",
            "w",
            "--individual-method",
            "exact",
        ];
        let text = succeeded(&c.run(&args));
        assert!(
            !text.contains("NaN") && !text.contains("inf"),
            "{file}: {text}"
        );
        let json = succeeded(&c.run(&[&args[..], &["--json"]].concat()));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut nulls = Vec::new();
        null_keys(&v, "", &mut nulls);
        assert!(
            nulls.iter().all(|k| UNSET_PARAMETERS.contains(&k.as_str())),
            "{file}: {nulls:?} in {json}"
        );
        let individual = &v["individual_risk"];
        for key in ["mean", "max", "global_risk"] {
            let x = individual[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{file}: no {key} in {json}"));
            assert!((0.0..=1.0).contains(&x), "{file}: {key} {x}");
        }
        let expected = individual["expected_reidentifications"].as_f64().unwrap();
        let records: usize = layout.iter().map(|(_, n, _)| n).sum();
        assert!(
            (0.0..=records as f64).contains(&expected),
            "{file}: expected re-identifications {expected}"
        );
    }
}

/// Keys a JSON output leaves null for a reason other than a figure: the
/// parameters the algorithm does not read, the breach block of a table
/// without sensitive attributes and the workload of `--queries 0`. Each is
/// an object or a parameter, never an f64, so a NaN figure cannot hide here.
/// `seed` is null for an algorithm that reads no seed (issue 32: no
/// surface prints a seed that played no part).
const UNSET_PARAMETERS: &[&str] = &["l", "p", "c", "t", "breach", "queries", "seed"];

/// The keys whose values are null anywhere in `v`.
fn null_keys(v: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Null => out.push(key.to_string()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| null_keys(x, key, out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| null_keys(x, k, out)),
        _ => {}
    }
}

// Family 7: checks the CLI made but other paths skipped.
#[test]
fn every_path_makes_the_same_checks() {
    let mut c = Case::new();
    c.input("d.csv", people(40));
    let out = c.run(&[
        "anonymize",
        "d.csv",
        "--qi",
        "sex,sex,age",
        "-a",
        "mondrian",
        "-o",
        "r.csv",
    ]);
    refused(&out, &["'sex' is named twice as a quasi-identifier"]);
    assert!(!c.path("r.csv").exists());
    c.input(
        "p.json",
        r#"{"version":1,"data":{"path":"d.csv"},"roles":{"sex":"quasi-identifier","disease":"sensitive"},"attacker":{"known":["sex","disease"],"threshold":0.2}}"#,
    );
    refused(
        &c.run(&["assess", "--project", "p.json"]),
        &["the attacker is said to know 'disease', which is sensitive"],
    );
    refused(
        &c.run(&[
            "chart",
            "reid-cdf",
            "d.csv",
            "--qi",
            "sex,age",
            "-a",
            "construction",
            "-o",
            "c.svg",
        ]),
        // The algorithm's own check (`Algorithm::check`), before any run.
        &["none were given: add --conditions G.json"],
    );
    assert!(!c.path("c.svg").exists());
}

/// Issue 36, item 10: a project whose data path was /etc/shadow printed
/// the file's first line (the unknown-column message listed its header).
/// A file a project names is not one the user asked to read: the message
/// says the project's column is not in it and how many columns it has,
/// and quotes nothing of it — in memory, through the query engine (a
/// grouped project) and for a known attribute the project names. A file
/// named on the command line still lists its columns: the user chose it.
#[test]
fn a_project_never_quotes_the_file_it_names() {
    let mut c = Case::new();
    c.input(
        "shadow",
        "root:$6$secret:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
    );
    c.input(
        "p.json",
        r#"{"version":1,"data":{"path":"shadow"},"roles":{"sex":"quasi-identifier"}}"#,
    );
    c.input(
        "g.json",
        r#"{"version":1,"data":{"path":"shadow","grouped":{"columns":["sex"]}},"roles":{"sex":"quasi-identifier"}}"#,
    );
    c.input(
        "k.json",
        r#"{"version":1,"data":{"path":"shadow"},"roles":{},"attacker":{"known":["zip"],"threshold":0.2}}"#,
    );
    let quiet = |out: &Output, column: &str| {
        refused(
            out,
            &[
                "shadow: the project's column",
                &format!("'{column}' is not in this file, which has 1 column"),
            ],
        );
        let e = stderr(out);
        assert!(!e.contains("root") && !e.contains("secret"), "{e}");
    };
    quiet(&c.run(&["assess", "--project", "p.json"]), "sex");
    quiet(
        &c.run(&["anonymize", "--project", "p.json", "-k", "2", "-o", "x.csv"]),
        "sex",
    );
    assert!(!c.path("x.csv").exists());
    quiet(&c.run(&["assess", "--project", "k.json"]), "zip");
    #[cfg(feature = "engine")]
    quiet(&c.run(&["assess", "--project", "g.json"]), "sex");
    // Given on the command line, it is not quoted either: a header that
    // does not look like column names is counted, never shown.
    let out = c.run(&["assess", "shadow", "--qi", "sex"]);
    refused(
        &out,
        &[
            "unknown column 'sex'",
            "1 header field not shown",
            "--delimiter",
        ],
    );
    assert!(!stderr(&out).contains("root"), "{}", stderr(&out));
}

// Family 8: messages — rows right for every line ending, names escaped,
// lists cut, writes worded as writes, the TUI without a terminal.
#[test]
fn messages_name_the_right_row_and_stay_readable() {
    let mut c = Case::new();
    for (eol, name) in [("\r\n", "crlf.csv"), ("\r", "cr.csv"), ("\n", "lf.csv")] {
        let ragged = ["a,b,c", "1,2,3", "4,5,6", "7,8,9", "1,2,3", "1,2"].join(eol) + eol;
        c.input(name, ragged);
        refused(
            &c.run(&["assess", name, "--qi", "a"]),
            &[&format!("{name}, row 6, column 'c'"), "ragged row"],
        );
        let bad = format!("a,b{eol}1,\u{0}");
        let mut bytes = bad.into_bytes();
        bytes.pop();
        bytes.extend(b"\xff");
        bytes.extend(eol.as_bytes());
        let bad_name = format!("bad-{name}");
        c.input(&bad_name, bytes);
        refused(
            &c.run(&["assess", &bad_name, "--qi", "a"]),
            &[&format!("{bad_name}, row 2, column 'b'"), "UTF-8"],
        );
    }
    c.input("esc.csv", "a,\u{1b}[31mred\u{1b}[0m\n1,2\n");
    let out = c.run(&["assess", "esc.csv", "--qi", "a"]);
    refused(&out, &["esc.csv, row 1, column '#2'", "U+001B"]);
    assert!(
        !out.stderr.contains(&0x1b),
        "no raw escape reaches the terminal"
    );
    // An unknown column among 20,000: the list is cut.
    let wide: String = (0..20_000)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(",")
        + "\n"
        + &vec!["1"; 20_000].join(",")
        + "\n";
    c.input("wide.csv", wide);
    let out = c.run(&[
        "assess",
        "wide.csv",
        "--qi",
        "nope",
        "--max-columns",
        "20000",
    ]);
    refused(&out, &["unknown column 'nope'", "and 19970 more"]);
    assert!(stderr(&out).len() < 1000, "{}", stderr(&out).len());
    // The TUI without a terminal (stdout captured here); a build without
    // the TUI says that instead.
    let out = c.run(&["tui", "lf.csv"]);
    if cfg!(feature = "tui") {
        refused(&out, &["the terminal UI needs a terminal"]);
    } else {
        refused(&out, &["built without the terminal UI"]);
    }
}

// Issue 36, family 4: a malformed Parquet footer (`PAR1PAR1`, a footer
// length past the file) is refused in one line naming the file on every
// path; the query engine reads the metadata as the in-memory reader does
// before DataFusion, whose reader panicked on these, sees the file.
#[test]
fn malformed_parquet_footers_are_refused_on_every_path() {
    let mut c = Case::new();
    c.input("par1.parquet", b"PAR1PAR1");
    let mut lie = b"PAR1".to_vec();
    lie.extend([0u8; 16]);
    lie.extend(0x7fff_ffffu32.to_le_bytes());
    lie.extend(b"PAR1");
    c.input("lie.parquet", &lie);
    let mut engines = vec!["memory"];
    if cfg!(feature = "engine") {
        engines.push("datafusion");
    }
    for file in ["par1.parquet", "lie.parquet"] {
        for engine in &engines {
            refused(
                &c.run(&["assess", file, "--qi", "a", "--engine", engine]),
                &[file, "not a readable Parquet file"],
            );
        }
    }
}

/// Issue 36, item 10: a file that is no table (a project or a command
/// pointing at `/etc/shadow`, here a file with a line of its kind) is
/// refused without quoting its first line, on every path that lists the
/// columns: in memory, through the engine, through a project.
#[test]
fn a_header_that_is_no_table_is_never_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shadow");
    let secret = "root:$6$Jz1Yc0aBsecretsalt$0123456789abcdefHASH:19000:0:99999:7:::";
    std::fs::write(&file, format!("{secret}\ndaemon:*:19000:0:99999:7:::\n")).unwrap();
    for engine in ["memory", "datafusion"] {
        let out = anonlab()
            .args(["assess"])
            .arg(&file)
            .args(["--qi", "age", "--engine", engine])
            .output()
            .unwrap();
        let e = stderr(&out);
        assert!(!out.status.success(), "{engine}: {e}");
        assert!(e.contains("unknown column 'age'"), "{engine}: {e}");
        assert!(e.contains("--delimiter"), "{engine}: {e}");
        for leak in ["root", "$6$", "secretsalt", "HASH"] {
            assert!(!e.contains(leak), "{engine} quotes the file: {e}");
        }
    }
}

/// `anonlab ARGS --engine E` for the in-memory path and (in a build with
/// the engine) the query engine: the same outcome on each — the same
/// figures (`assess --json`), the same published bytes (a file `-o OUT`
/// names, compared after each run) or the same one-line refusal, byte for
/// byte. The in-memory run's output.
#[track_caller]
fn same_on_every_path(c: &Case, args: &[&str], out: Option<&str>) -> Output {
    let mut engines = vec!["memory"];
    if cfg!(feature = "engine") {
        engines.push("datafusion");
    }
    let mut first: Option<(Output, Option<Vec<u8>>)> = None;
    for engine in engines {
        if let Some(o) = out {
            let _ = std::fs::remove_file(c.path(o));
        }
        let mut all = args.to_vec();
        all.extend(["--engine", engine]);
        let run = c.run(&all);
        let published = out.and_then(|o| std::fs::read(c.path(o)).ok());
        let Some((m, m_published)) = &first else {
            first = Some((run, published));
            continue;
        };
        assert_eq!(
            run.status.code(),
            m.status.code(),
            "{args:?} --engine {engine}: {} / memory: {}",
            stderr(&run),
            stderr(m)
        );
        assert_eq!(stderr(&run), stderr(m), "{args:?}: the refusals differ");
        if m.status.success() && args.contains(&"--json") {
            let (a, b) = (
                serde_json::from_slice::<serde_json::Value>(&m.stdout).unwrap(),
                serde_json::from_slice::<serde_json::Value>(&run.stdout).unwrap(),
            );
            if let Err(e) = common::cli::same_json(&a, &b, "") {
                panic!("{args:?}: the engine's figures differ: {e}");
            }
        }
        assert!(
            &published == m_published,
            "{args:?}: the published tables differ"
        );
    }
    first.unwrap().0
}

/// Issue 36, item 5: one reading of a file on every path. The engine's
/// CSV reader (DataFusion's) had none of the in-memory loader's rules;
/// now the loader's own check runs over the text first, and the in-memory
/// loader follows the quoting as the csv crate reads it. Each case has
/// the same outcome in memory and through the engine (the cluster's
/// client makes the same check: tests/cluster.rs).
#[test]
fn one_reading_of_a_file_on_every_path() {
    let mut c = Case::new();
    // A quote inside an unquoted field: RFC 4180 has no place for it, but
    // the csv crate and DataFusion's reader both read `x"y` as it stands;
    // the loader called it an unclosed quote at the end of the file and
    // named the last row. Read alike, and published as `"x""y"`.
    let mut text = String::from("a,b\n1,x\"y\n");
    for i in 0..11 {
        text.push_str(&format!("{},z{}\n", 1 + i % 2, i % 3));
    }
    c.input("q.csv", &text);
    let v = succeeded(&same_on_every_path(
        &c,
        &["assess", "q.csv", "--qi", "a", "--sensitive", "b", "--json"],
        None,
    ));
    assert!(v.contains("\"rows\": 12"), "{v}");
    same_on_every_path(
        &c,
        &[
            "anonymize",
            "q.csv",
            "--qi",
            "a",
            "--sensitive",
            "b",
            "-a",
            "mondrian",
            "-k",
            "2",
            "-o",
            "r.csv",
        ],
        Some("r.csv"),
    );
    let published = std::fs::read_to_string(c.path("r.csv")).unwrap();
    assert!(published.contains("\"x\"\"y\""), "{published}");
    // Quotes after a closed quoted field and an escaped one stay literal
    // too; a quoted field left open at the end is refused naming its row.
    c.input("q2.csv", "a,b\n1,\"x\"y\"\n2,\"a\"\"b\"\n1,z\n2,z\n");
    same_on_every_path(&c, &["assess", "q2.csv", "--qi", "a,b", "--json"], None);
    c.input("open.csv", "a,b\n1,x\"y\n2,\"z\n1,w\n");
    refused(
        &same_on_every_path(&c, &["assess", "open.csv", "--qi", "a"], None),
        &["open.csv, row 3", "a double quote is never closed"],
    );

    // A field over the limits in a column the assessment does not read:
    // the engine read only the columns it groups, past the file's head.
    let rows: String = (0..2000).map(|i| format!("{},y\n", i % 5)).collect();
    let field = "x".repeat(2 << 20);
    c.input("field.csv", format!("a,b\n{rows}1,{field}\n2,y\n"));
    refused(
        &same_on_every_path(&c, &["assess", "field.csv", "--qi", "a"], None),
        &[
            "field.csv, row 2002, column 'b'",
            "field is 2097152 bytes long",
            "--max-field-bytes",
        ],
    );
    let field = "x".repeat(17 << 20);
    c.input("row.csv", format!("a,b\n{rows}1,{field}\n2,y\n"));
    refused(
        &same_on_every_path(&c, &["assess", "row.csv", "--qi", "a"], None),
        &[
            "row.csv, row 2002",
            "longer than the limit of 16,777,216 bytes",
            "--max-row-bytes",
        ],
    );
    // Raised, both read it.
    same_on_every_path(
        &c,
        &[
            "assess",
            "row.csv",
            "--qi",
            "a",
            "--json",
            "--max-field-bytes",
            "20000000",
            "--max-row-bytes",
            "20000000",
        ],
        None,
    );
    // A field that is not UTF-8 in an unread column.
    let mut bad = b"a,b\n1,y\n2,caf".to_vec();
    bad.extend([0xe9, b'\n']);
    c.input("utf8.csv", &bad);
    refused(
        &same_on_every_path(&c, &["assess", "utf8.csv", "--qi", "a"], None),
        &["utf8.csv, row 3, column 'b'", "not valid UTF-8"],
    );

    // (The Arrow reader is the `formats` feature's.)
    #[cfg(feature = "formats")]
    {
        // An Arrow IPC stream whose second batch replaces the first's
        // dictionary: read as its batches say (F, M, F, M, X, F, X, X).
        c.input("dict.arrows", common::craft::arrow_replaced_dictionaries());
        let v = succeeded(&same_on_every_path(
            &c,
            &["assess", "dict.arrows", "--qi", "sex,age", "--json"],
            None,
        ));
        let v: serde_json::Value = serde_json::from_str(&v).unwrap();
        assert_eq!(v["rows"], 8, "{v}");
        // (F,30) ×2, (M,30), (F,40), (M,40), (X,30), (X,40) ×2: 6 classes.
        assert_eq!(v["classes"], 6, "{v}");
        same_on_every_path(
            &c,
            &[
                "anonymize",
                "dict.arrows",
                "--qi",
                "sex,age",
                "-a",
                "mondrian",
                "-k",
                "2",
                "-o",
                "d.csv",
            ],
            Some("d.csv"),
        );
    }

    // 100,000 columns: the real count on every path.
    let header: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
    c.input(
        "wide.csv",
        format!("{}\n{}\n", header.join(","), vec!["1"; 100_000].join(",")),
    );
    refused(
        &same_on_every_path(&c, &["assess", "wide.csv", "--qi", "c0"], None),
        &[
            "wide.csv, row 1",
            "the header has 100,000 columns, over the limit of 10,000",
        ],
    );
}
