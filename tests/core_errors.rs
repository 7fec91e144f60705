//! The library's errors speak of its concepts (quasi-identifiers, the
//! sensitive attribute, the conditions of generalization, the reader's
//! limits), never of the CLI's flags: each refusal below is made through
//! the library, carries the setting that mends it, and names no `--flag`.
//! The CLI's own messages name the flag (tests/cli.rs, cli_full_domain.rs,
//! cli_pk.rs and `cli_names_the_flag_of_the_setting` below). A parameter
//! the library refuses is likewise a typed `Error::Invalid` naming the
//! parameter by concept, which the CLI says by its flag.

use anonlab::algorithms::{by_id, Options, Request};
use anonlab::data::{load_csv_bytes, CsvOptions, Dataset};
use anonlab::error::{Error, Parameter, Setting};
use anonlab::privacy::Model;
use anonlab::progress::Progress;
use assert_cmd::Command;

/// Six rows: two QIs (age, zip), a sensitive column with two values.
fn table() -> Dataset {
    let csv =
        b"age,zip,ill\n30,100,flu\n31,100,cold\n32,101,flu\n33,101,cold\n34,102,flu\n35,102,cold\n";
    load_csv_bytes(csv, "t.csv", &CsvOptions::default()).unwrap()
}

fn request(ds: &Dataset, qi: Vec<usize>, sensitive: Vec<usize>, options: Options) -> Request<'_> {
    Request {
        ds,
        qi,
        sensitive,
        identifiers: vec![],
        k: 2,
        l: 2,
        seed: 1,
        options,
    }
}

/// `algorithm`'s refusal of `req`: an unmet `setting`, named by concept.
fn refused(algorithm: &str, req: &Request<'_>, setting: Setting) -> String {
    let e = match by_id(algorithm).unwrap().run(req, &Progress::new()) {
        Ok(_) => panic!("{algorithm} ran without {setting:?}"),
        Err(e) => e,
    };
    assert_eq!(e.setting(), Some(setting), "{algorithm}: {e}");
    let text = e.to_string();
    assert!(text.contains(setting.remedy()), "{algorithm}: {text}");
    assert!(!text.contains("--"), "{algorithm} names a CLI flag: {text}");
    text
}

#[test]
fn algorithms_name_the_setting_not_a_flag() {
    let ds = table();
    let none = || Options::default();
    let t = refused(
        "mondrian",
        &request(&ds, vec![], vec![2], none()),
        Setting::QuasiIdentifiers,
    );
    assert!(
        t.starts_with("no quasi-identifiers: name at least one quasi-identifier"),
        "{t}"
    );
    let g = Options {
        conditions: Some(Default::default()),
        ..none()
    };
    let t = refused(
        "construction",
        &request(&ds, vec![], vec![2], g),
        Setting::QuasiIdentifiers,
    );
    assert!(t.contains("quasi-identifier"), "{t}");
    refused(
        "anatomy",
        &request(&ds, vec![0, 1], vec![], none()),
        Setting::SensitiveAttribute,
    );
    refused(
        "construction",
        &request(&ds, vec![0, 1], vec![2], none()),
        Setting::Conditions,
    );
    refused(
        "pk-enhanced",
        &request(&ds, vec![0, 1], vec![], none()),
        Setting::SensitiveAttribute,
    );
    let mut pk = none();
    pk.pk.protected = vec!["flu".into()];
    refused(
        "pk-enhanced",
        &request(&ds, vec![0, 1], vec![2], pk),
        Setting::SensitiveHierarchy,
    );
    refused(
        "lgb-mdp",
        &request(&ds, vec![0, 1], vec![], none()),
        Setting::SemiSensitiveOrSensitive,
    );
    let mut fd = none();
    fd.full_domain.model = Model::DistinctL { l: 2 };
    refused(
        "full-domain",
        &request(&ds, vec![0, 1], vec![], fd),
        Setting::SensitiveAttribute,
    );
}

#[test]
fn the_readers_limits_name_the_setting_not_a_flag() {
    let opts = CsvOptions {
        max_columns: 2,
        ..Default::default()
    };
    let e = load_csv_bytes(b"a,b,c\n1,2,3\n", "t.csv", &opts).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Unmet {
                setting: Setting::MaxColumns,
                ..
            }
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.starts_with("t.csv, row 1: the header has 3 columns"),
        "{text}"
    );
    assert!(
        text.contains("csv.max_columns") && !text.contains("--"),
        "{text}"
    );
}

/// Every setting's words are the library's: no flag among them.
#[test]
fn no_remedy_names_a_flag() {
    for s in [
        Setting::QuasiIdentifiers,
        Setting::SensitiveAttribute,
        Setting::SemiSensitiveOrSensitive,
        Setting::SemiSensitiveAttribute,
        Setting::Conditions,
        Setting::Hierarchy,
        Setting::SensitiveHierarchy,
        Setting::ProtectedValues,
        Setting::SuppressionLimit,
        Setting::CorrelatedColumns,
        Setting::MaxFileBytes,
        Setting::MaxRowBytes,
        Setting::MaxFieldBytes,
        Setting::MaxColumns,
    ] {
        assert!(!s.remedy().contains("--"), "{s:?}: {}", s.remedy());
    }
}

/// The binary's stderr (it failed) and stdout for `args`.
fn anonlab(args: &[&str]) -> (String, String) {
    let out = Command::cargo_bin("anonlab")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stderr), text(&out.stdout))
}

/// The CLI says its flag for the setting a library error asks for.
#[test]
fn cli_names_the_flag_of_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(
        &csv,
        "age,zip,ill\n30,100,flu\n31,100,cold\n32,101,flu\n33,101,cold\n",
    )
    .unwrap();
    let file = csv.to_str().unwrap();
    let (err, _) = anonlab(&["assess", file, "--qi", "age", "--max-columns", "2"]);
    assert!(
        err.contains("the header has 3 columns, over the limit of 2; raise it with --max-columns"),
        "{err}"
    );
    let output = dir.path().join("o.csv");
    let output = output.to_str().unwrap();
    let (err, _) = anonlab(&[
        "anonymize",
        file,
        "-a",
        "pk-enhanced",
        "--qi",
        "age",
        "-k",
        "2",
        "-o",
        output,
    ]);
    assert!(
        err.contains("needs a sensitive attribute: name one with --sensitive"),
        "{err}"
    );
    // compare's infeasible row: the same words as the error.
    let (_, text) = anonlab(&[
        "compare",
        file,
        "--qi",
        "age",
        "--algorithms",
        "full-domain",
        "--model",
        "l-distinct",
        "-k",
        "2",
    ]);
    assert!(
        text.contains(
            "infeasible: the privacy model reads a sensitive attribute: name one with --sensitive"
        ),
        "{text}"
    );
}

/// A refused parameter is an [`Error::Invalid`] a caller matches on, not a
/// text to read: which parameter, named by concept.
#[test]
fn a_refused_parameter_is_matched_by_what_it_is() {
    let ds = table();
    let mut req = request(&ds, vec![0, 1], vec![2], Options::default());
    req.k = 0;
    let e = by_id("mondrian")
        .unwrap()
        .run(&req, &Progress::new())
        .unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Invalid {
                parameter: Parameter::K,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.to_string(), "invalid k: k must be at least 1");

    // 'ill' has two distinct values: l = 3 asks for more.
    req.k = 2;
    req.l = 3;
    let e = by_id("mondrian-l")
        .unwrap()
        .run(&req, &Progress::new())
        .unwrap_err();
    assert_eq!(e.parameter(), Some(Parameter::L), "{e}");
    assert!(
        e.to_string().starts_with("invalid l: l = 3 is larger"),
        "{e}"
    );

    let e = by_id("no-such-algorithm").err().unwrap();
    assert_eq!(e.parameter(), Some(Parameter::Algorithm), "{e}");
    assert!(
        e.to_string()
            .contains("unknown algorithm 'no-such-algorithm'"),
        "{e}"
    );

    let e = Model::parse("no-such-model", &Default::default()).unwrap_err();
    assert_eq!(e.parameter(), Some(Parameter::Model), "{e}");
    assert!(!e.to_string().contains("--"), "names a CLI flag: {e}");

    // Not every refusal is a parameter's.
    assert_eq!(
        Error::unmet("no quasi-identifiers", Setting::QuasiIdentifiers).parameter(),
        None
    );
}

/// The CLI says its flag for the parameter a library error finds invalid.
#[test]
fn cli_names_the_flag_of_the_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(
        &csv,
        "age,zip,ill\n30,100,flu\n31,100,cold\n32,101,flu\n33,101,cold\n",
    )
    .unwrap();
    let file = csv.to_str().unwrap();
    let output = dir.path().join("o.csv");
    let output = output.to_str().unwrap();
    let run = |algorithm: &str, more: &[&str]| {
        let mut args = vec![
            "anonymize",
            file,
            "-a",
            algorithm,
            "--qi",
            "age,zip",
            "-o",
            output,
        ];
        args.extend_from_slice(more);
        anonlab(&args).0
    };
    let err = run("mondrian", &["-k", "0"]);
    assert!(err.contains("invalid -k: k must be at least 1"), "{err}");
    let err = run("no-such-algorithm", &["-k", "2"]);
    assert!(
        err.contains("invalid --algorithm(s): unknown algorithm 'no-such-algorithm'"),
        "{err}"
    );
}
