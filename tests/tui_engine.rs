//! The TUI on a file opened through its frequency table (issue 19:
//! `anonlab tui FILE --engine datafusion --qi ...`): the Data screen pages
//! a sample of the file and says so; the Risk and Anonymize screens give
//! the figures of the same file read in memory; the algorithms that need
//! records are shown unavailable; `:write` publishes, through the
//! publishing pass over the file, the bytes the in-memory write gives.
#![cfg(all(feature = "tui", feature = "engine"))]

use std::path::{Path, PathBuf};

use anonlab::anonymize::Distribution;
use anonlab::data::{CsvOptions, Role};
use anonlab::session::{Session, SAMPLE_RECORDS};
use anonlab_scale::grouped;
use anonlab_tui::{Action, App, Measures, Screen};

use crate::common;
use common::cli::anonlab;
use common::screen::{choose_algorithm, command, render, run_to_done, text, thousands};

/// The roles of a test: quasi-identifiers (known to the attacker in this
/// order), sensitive attributes and identifiers.
struct Roles<'a> {
    qi: &'a [&'a str],
    sensitive: &'a [&'a str],
    identifier: &'a [&'a str],
}

const DEMO: Roles = Roles {
    qi: &["sex", "age", "zip"],
    sensitive: &["disease"],
    identifier: &["name"],
};

const ADULT: Roles = Roles {
    qi: &["sex", "age", "race", "education"],
    sensitive: &["salary-class"],
    identifier: &[],
};

fn demo_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo.csv")
}

fn names(cols: &[&str]) -> Vec<String> {
    cols.iter().map(|s| s.to_string()).collect()
}

/// Give `s` the roles; the attacker knows the QIs in order.
fn with_roles(mut s: Session, r: &Roles) -> Session {
    for (cols, role) in [
        (r.qi, Role::QuasiIdentifier),
        (r.sensitive, Role::Sensitive),
        (r.identifier, Role::Identifier),
    ] {
        for name in cols {
            // The frequency table holds no identifier column.
            if let Ok(c) = s.dataset.column_index(name) {
                s.roles.set(c, role);
            }
        }
    }
    s.attacker.known = names(r.qi);
    s
}

/// The app on `path` opened as `anonlab tui --engine datafusion` opens it.
fn grouped(path: &Path, r: &Roles, width: u16, height: u16) -> App {
    let opts = CsvOptions::default();
    let columns: Vec<String> =
        r.qi.iter()
            .chain(r.sensitive)
            .map(|s| s.to_string())
            .collect();
    let file = grouped::read_file(path, &opts, &columns, &names(r.identifier)).unwrap();
    let s = grouped::session(&file, path, &opts, &columns).unwrap();
    assert!(s.dataset.is_grouped());
    let mut app = App::new(with_roles(s, r)).unwrap().with_grouped(file);
    app.step(&Action::Resize(width, height));
    app.run_pending_jobs_blocking();
    app
}

/// The app on `path` read in memory, with the same roles.
fn in_memory(path: &Path, r: &Roles, width: u16, height: u16) -> App {
    let s = Session::open(path, CsvOptions::default()).unwrap();
    let mut app = App::new(with_roles(s, r)).unwrap();
    app.step(&Action::Resize(width, height));
    app.run_pending_jobs_blocking();
    app
}

/// Two distributions of per-record probabilities read the same: every
/// count equal, a mean equal up to the order of its floating-point sum.
fn same(what: &str, a: &Distribution, b: &Distribution) {
    let (x, y) = (&a.summary, &b.summary);
    assert_eq!(x.records, y.records, "{what}: records");
    assert_eq!(x.published, y.published, "{what}: published");
    assert!(
        (x.mean - y.mean).abs() < 1e-12,
        "{what}: mean {} {}",
        x.mean,
        y.mean
    );
    assert_eq!(x.max, y.max, "{what}: max");
    assert_eq!(
        x.records_above_threshold, y.records_above_threshold,
        "{what}: above"
    );
    assert_eq!(a.certain(), b.certain(), "{what}: certain");
    let bins = |d: &Distribution| d.histogram.iter().map(|b| b.records).collect::<Vec<_>>();
    assert_eq!(bins(a), bins(b), "{what}: histogram");
}

fn same_measures(what: &str, a: &Measures, b: &Measures) {
    same(
        &format!("{what} key count"),
        &a.simulator.dist,
        &b.simulator.dist,
    );
    same(&format!("{what} linkage"), &a.linkage.dist, &b.linkage.dist);
    match (&a.breach, &b.breach) {
        (Some((n, x)), Some((m, y))) => {
            assert_eq!(n, m);
            same(&format!("{what} breach"), &x.dist, &y.dist);
        }
        (None, None) => {}
        _ => panic!("{what}: a breach figure on one side only"),
    }
}

/// The Risk screen's figures panel: the lines of the three attacks.
fn attack_lines(t: &str) -> Vec<String> {
    t.lines()
        .map(|l| {
            // The figures panel only (right of the attacker picker).
            let start = l.find("││").map_or(0, |i| i + "││".len());
            l[start..].chars().take(80).collect::<String>()
        })
        .filter(|l| {
            let l = l.trim_start();
            ["key count", "linkage", "breach", "after "]
                .iter()
                .any(|a| l.starts_with(a))
                && l.contains('.')
        })
        .collect()
}

/// The Risk screen before and after Mondrian, and the Anonymize screen's
/// evaluation, on the grouped session and on the file in memory.
fn risk_and_anonymize_equal(path: &Path, r: &Roles) {
    let mut g = grouped(path, r, 120, 40);
    let mut m = in_memory(path, r, 120, 40);
    for app in [&mut g, &mut m] {
        app.step(&Action::ShowScreen(Screen::Risk));
        app.run_pending_jobs_blocking();
    }
    let (gb, mb) = (g.risk().before.as_ref(), m.risk().before.as_ref());
    same_measures("before", gb.unwrap(), mb.unwrap());
    assert_eq!(
        attack_lines(&text(&render(&g))),
        attack_lines(&text(&render(&m)))
    );

    for app in [&mut g, &mut m] {
        command(app, "k 5");
        choose_algorithm(app, "mondrian");
        run_to_done(app);
    }
    let (ge, me) = (
        &g.anonymize().view.as_ref().unwrap().evaluation,
        &m.anonymize().view.as_ref().unwrap().evaluation,
    );
    assert!(ge.verification.all_hold());
    assert_eq!(ge.groups, me.groups);
    assert_eq!(ge.suppressed, me.suppressed);
    same("release re-id", &ge.reidentification, &me.reidentification);
    match (&ge.breach, &me.breach) {
        (Some(x), Some(y)) => same("release breach", x, y),
        (x, y) => assert_eq!(x.is_some(), y.is_some()),
    }
    assert_eq!(ge.utility.discernibility, me.utility.discernibility);
    let shown = text(&render(&g));
    assert!(shown.contains("fingerprint on :write"), "{shown}");
    assert!(shown.contains("not run on the frequency table"), "{shown}");

    for app in [&mut g, &mut m] {
        app.step(&Action::ShowScreen(Screen::Risk));
        app.run_pending_jobs_blocking();
    }
    let (ga, ma) = (g.risk().after.as_ref(), m.risk().after.as_ref());
    same_measures("after", &ga.unwrap().measures, &ma.unwrap().measures);
    assert_eq!(
        attack_lines(&text(&render(&g))),
        attack_lines(&text(&render(&m)))
    );
}

#[test]
fn data_screen_pages_a_sample_and_says_the_figures_are_over_every_record() {
    if !common::require(common::have_adult(), "the Adult data") {
        return;
    }
    let path = common::adult_path();
    for (w, h) in [(80, 24), (200, 50)] {
        let app = grouped(&path, &ADULT, w, h);
        let ds = app.dataset();
        assert_eq!(ds.records(), 30_162);
        let t = text(&render(&app));
        let sample = format!("of the file's first {} records", thousands(SAMPLE_RECORDS));
        assert!(t.contains("SAMPLE: rows 1–"), "{w}x{h}\n{t}");
        assert!(t.contains(&sample), "{w}x{h}\n{t}");
        let figures = format!(
            "figures: all 30,162 records, {} combinations (frequency table)",
            thousands(ds.n_rows())
        );
        assert!(t.contains(&figures), "{w}x{h}\n{t}");
        if w == 200 {
            assert!(t.contains("30,162 records in"), "status bar, {w}x{h}\n{t}");
        }
        // The sample holds every column of the file, in file order.
        assert!(t.contains("sex"), "{t}");
        if w == 200 {
            assert!(t.contains("occupation"), "{t}");
            assert!(t.contains("workclass"), "{t}");
        }
    }
}

#[test]
fn a_role_for_a_column_not_in_the_table_is_refused_with_the_reason() {
    let path = demo_path();
    let mut app = grouped(&path, &DEMO, 120, 40);
    // occupation: column 5 of the file, not grouped.
    app.step(&Action::RowStart);
    for _ in 0..4 {
        app.step(&Action::Right);
    }
    assert_eq!(app.column_stats().name, "occupation");
    let roles = app.roles().clone();
    app.step(&Action::SetRole(Role::QuasiIdentifier));
    let popup = app.popup().expect("a popup saying why");
    assert!(
        popup
            .message
            .contains("'occupation' is not in the frequency table"),
        "{}",
        popup.message
    );
    assert_eq!(app.roles(), &roles, "no role changed");
    app.step(&Action::Cancel);
    // A column of the table takes its new role, as in memory.
    app.step(&Action::RowStart);
    app.step(&Action::Right);
    assert_eq!(app.column_stats().name, "sex");
    app.step(&Action::SetRole(Role::Insensitive));
    assert!(app.popup().is_none(), "{:?}", app.popup());
    let sex = app.dataset().column_index("sex").unwrap();
    assert_eq!(app.roles().get(sex), Role::Insensitive);
    // Marking cells needs records.
    app.step(&Action::ToggleSensitivity);
    assert!(
        app.notice().unwrap_or_default().contains("--engine memory"),
        "{:?}",
        app.notice()
    );
}

#[test]
fn risk_and_anonymize_give_the_in_memory_figures_on_the_demo() {
    risk_and_anonymize_equal(&demo_path(), &DEMO);
}

#[test]
fn risk_and_anonymize_give_the_in_memory_figures_on_adult() {
    if !common::require(common::have_adult(), "the Adult data") {
        return;
    }
    risk_and_anonymize_equal(&common::adult_path(), &ADULT);
}

#[test]
fn an_algorithm_that_needs_records_is_shown_unavailable() {
    let mut app = grouped(&demo_path(), &DEMO, 120, 40);
    choose_algorithm(&mut app, "anatomy");
    app.run_pending_jobs_blocking();
    let why = app.anonymize().blocked.clone().expect("anatomy is blocked");
    assert!(why.contains("unavailable"), "{why}");
    assert!(why.contains("--engine memory"), "{why}");
    assert!(app.anonymize().view.is_none() || app.anonymize().error.is_none());
    let t = text(&render(&app));
    assert!(t.contains("unavailable"), "{t}");
    // The algorithms that run on the table stay offered.
    for id in ["mondrian", "mondrian-l", "mondrian-distinct-l"] {
        choose_algorithm(&mut app, id);
        assert!(app.anonymize().blocked.is_none(), "{id}");
    }
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `:write` on each app; the files written.
fn write_both(path: &Path, r: &Roles, dir: &Path) -> [(PathBuf, PathBuf); 2] {
    let before = bytes(path);
    let mut out = Vec::new();
    for (name, mut app) in [
        ("grouped", grouped(path, r, 120, 40)),
        ("memory", in_memory(path, r, 120, 40)),
    ] {
        command(&mut app, "k 5");
        choose_algorithm(&mut app, "mondrian");
        run_to_done(&mut app);
        let table = dir.join(name).join("release.csv");
        command(&mut app, &format!("write {}", table.display()));
        app.run_pending_jobs_blocking();
        assert!(app.popup().is_none(), "{name}: {:?}", app.popup());
        let notice = app.notice().unwrap_or_default().to_string();
        assert!(notice.contains("sha256:"), "{name}: {notice}");
        out.push((table.clone(), table.with_extension("json")));
    }
    assert_eq!(bytes(path), before, "the data file is never written");
    // No temporary file is left beside the releases.
    for (table, _) in &out {
        let dir = table.parent().unwrap();
        for e in std::fs::read_dir(dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.ends_with(".tmp"), "{name} left in {}", dir.display());
        }
    }
    [out[0].clone(), out[1].clone()]
}

#[test]
fn write_publishes_the_bytes_of_the_in_memory_write_on_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let [(gt, gj), (mt, mj)] = write_both(&demo_path(), &DEMO, dir.path());
    assert_eq!(bytes(&gt), bytes(&mt), "published table");
    assert_eq!(bytes(&gj), bytes(&mj), "release JSON");
    // The identifier is not published; the passthrough columns are.
    let head = String::from_utf8(bytes(&gt)).unwrap();
    let header = head.lines().next().unwrap();
    assert!(!header.contains("name"), "{header}");
    assert!(header.contains("occupation"), "{header}");
}

#[test]
fn write_publishes_the_bytes_of_the_in_memory_write_on_adult() {
    if !common::require(common::have_adult(), "the Adult data") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let [(gt, gj), (mt, mj)] = write_both(&common::adult_path(), &ADULT, dir.path());
    assert_eq!(bytes(&gt), bytes(&mt), "published table");
    assert_eq!(bytes(&gj), bytes(&mj), "release JSON");
}

#[test]
fn tui_engine_refuses_bad_arguments_with_a_clear_message() {
    let demo = demo_path();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--engine", "datafusion", "--qi", "sex,agee"],
            "unknown column 'agee'",
        ),
        (
            &[
                "--engine",
                "datafusion",
                "--qi",
                "sex",
                "--identifier",
                "nom",
            ],
            "unknown column 'nom'",
        ),
        (&["--engine", "datafusion"], "name them with --qi"),
        (
            &[
                "--engine",
                "datafusion",
                "--qi",
                "sex",
                "--sensitive",
                "sex",
            ],
            "column 'sex' is given two roles",
        ),
    ];
    for (args, expected) in cases {
        let out = anonlab().arg("tui").arg(&demo).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(
            !err.contains("terminal"),
            "checked before the terminal: {err}"
        );
    }
}

#[test]
fn what_counts_rows_is_refused_on_a_grouped_session_with_the_reason() {
    let mut app = grouped(&demo_path(), &DEMO, 120, 40);
    // The correlation matrix counts rows, which are combinations here.
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    app.run_pending_jobs_blocking();
    let why = app.hierarchies().matrix.error.clone().unwrap_or_default();
    assert!(why.contains("frequency table"), "{why}");
    assert!(why.contains("--engine memory"), "{why}");
    assert!(app.hierarchies().matrix.view.is_none());
    // Before/after pairs records of the file, which is not in memory.
    app.step(&Action::ShowScreen(Screen::Anonymize));
    choose_algorithm(&mut app, "mondrian");
    app.run_pending_jobs_blocking();
    app.step(&Action::ToggleSideBySide);
    assert!(!app.anonymize().side_by_side.open);
    let notice = app.notice().expect("a notice").to_string();
    assert!(notice.contains("--engine memory"), "{notice}");
    // The report renders the published table from the dataset.
    app.step(&Action::ExportReport);
    let popup = app.popup().expect("the report is refused");
    assert!(
        popup.message.contains("--engine memory"),
        "{}",
        popup.message
    );
}

/// A project saved from a grouped session records its grouping and
/// reopens through the frequency table (a file too large for memory stays
/// so): the Data screen pages the sample again, and the Risk and Anonymize
/// screens give the saved session's figures. The CLI replays it through
/// the engine (`anonymize --project` publishes the bytes `:write` wrote,
/// `assess --project` gives the figures of the file read whole) and
/// `--engine memory` reads the file whole, with the same release and the
/// identifier still unpublished.
#[test]
fn a_project_saved_from_a_grouped_session_reopens_through_the_table() {
    use anonlab::data::Project;
    use common::cli::{json_of, same_json};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("demo.csv");
    std::fs::copy(demo_path(), &data).unwrap();
    let mut app = grouped(&data, &DEMO, 120, 40);
    command(&mut app, "k 4");
    choose_algorithm(&mut app, "mondrian");
    run_to_done(&mut app);
    let table = dir.path().join("tui.csv");
    command(&mut app, &format!("write {}", table.display()));
    app.run_pending_jobs_blocking();
    assert!(app.popup().is_none(), "{:?}", app.popup());
    let project = dir.path().join("p.json");
    command(&mut app, &format!("save {}", project.display()));
    let saved = Project::load(&project).unwrap();
    let g = saved.data.grouped.as_ref().expect("the grouping is saved");
    let mut columns = g.columns.clone();
    columns.sort();
    assert_eq!(columns, ["age", "disease", "sex", "zip"]);
    assert_eq!(g.identifiers, ["name"]);

    let mut back = App::open_project(&project).unwrap();
    back.step(&Action::Resize(120, 40));
    back.run_pending_jobs_blocking();
    assert!(back.dataset().is_grouped());
    assert_eq!(back.dataset().n_rows(), app.dataset().n_rows());
    let t = text(&render(&back));
    assert!(t.contains("SAMPLE: rows 1–"), "{t}");
    for a in [&mut app, &mut back] {
        a.step(&Action::ShowScreen(Screen::Risk));
        a.run_pending_jobs_blocking();
    }
    same_measures(
        "reopened",
        app.risk().before.as_ref().unwrap(),
        back.risk().before.as_ref().unwrap(),
    );
    back.step(&Action::ShowScreen(Screen::Anonymize));
    run_to_done(&mut back);
    let (ge, be) = (
        &app.anonymize().view.as_ref().unwrap().evaluation,
        &back.anonymize().view.as_ref().unwrap().evaluation,
    );
    assert_eq!(be.groups, ge.groups);
    assert_eq!(be.utility.discernibility, ge.utility.discernibility);

    // The CLI replays it through the engine: the bytes `:write` wrote.
    let cli = dir.path().join("cli.csv");
    common::cli::publish_project(&project, &cli);
    assert_eq!(bytes(&cli), bytes(&table), "published table");
    assert_eq!(
        bytes(&cli.with_extension("json")),
        bytes(&table.with_extension("json")),
        "release JSON"
    );
    // Read whole, the same release; the identifier stays unpublished.
    let memory = dir.path().join("memory.csv");
    anonlab()
        .args(["anonymize", "--engine", "memory", "--project"])
        .arg(&project)
        .arg("-o")
        .arg(&memory)
        .assert()
        .success();
    assert_eq!(bytes(&memory), bytes(&table), "read in memory");
    let head = String::from_utf8(bytes(&memory)).unwrap();
    assert!(!head.lines().next().unwrap().contains("name"), "{head}");
    let assess = |engine: &str| {
        json_of(
            &anonlab()
                .args(["assess", "--json", "--engine", engine, "--project"])
                .arg(&project)
                .output()
                .unwrap(),
        )
    };
    if let Err(e) = same_json(&assess("memory"), &assess("auto"), "") {
        panic!("assess --project: the table's figures differ from memory's: {e}");
    }
    assert_eq!(
        bytes(&data),
        bytes(&demo_path()),
        "the data is never written"
    );

    // What cannot read a frequency table is refused with the reason,
    // before the file is read.
    let out = anonlab()
        .args(["report", "-o"])
        .arg(dir.path().join("report"))
        .arg(&project)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("frequency table"),
        "{err}"
    );
    let mut in_memory = saved.clone();
    in_memory.data.grouped = None;
    let plain = dir.path().join("plain.json");
    in_memory.save(&plain).unwrap();
    let out = anonlab()
        .args(["assess", "--engine", "datafusion", "--project"])
        .arg(&plain)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("this project's data is read in memory"),
        "{err}"
    );
}
