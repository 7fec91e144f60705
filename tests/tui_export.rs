//! Exports from the TUI: `e` writes the chart of the screen in view (each
//! screen's file parsed as SVG and checked for its series), a user-named
//! `.png` decodes to the chart's size with more than one colour, and `E`
//! writes the same report as `anonlab report` on the project the TUI saves.

#![cfg(feature = "tui")]

use std::path::{Path, PathBuf};

use crate::common;
use common::cli::anonlab;
use common::screen::{choose_algorithm, command, run_to_done};

use anonlab::charts;
use anonlab::risk::{self, Knowledge};
use anonlab::session::Session;
use anonlab_tui::{Action, App, JobState, Screen, EXPORT_DIR, REPORT_DIR};

/// The demo in an app that saves its project (and exports) into `dir`.
fn demo_app(dir: &Path) -> App {
    let mut app = App::new(Session::demo().unwrap())
        .unwrap()
        .with_project_path(dir.join("demo.json"));
    app.step(&Action::Resize(120, 40));
    app.run_pending_jobs_blocking();
    app
}

/// The demo with `algorithm`'s release on the Anonymize screen.
fn anonymized(dir: &Path, algorithm: &str) -> App {
    let mut app = demo_app(dir);
    choose_algorithm(&mut app, algorithm);
    run_to_done(&mut app);
    app
}

/// Press `e` and finish the export; the files it names in the notice.
fn export_chart(app: &mut App) -> Vec<PathBuf> {
    app.step(&Action::ExportChart);
    app.run_pending_jobs_blocking();
    assert_eq!(app.export_job(), &JobState::Done, "{:?}", app.popup());
    let notice = app.notice().expect("a notice names the files").to_string();
    let files: Vec<PathBuf> = notice
        .split_once(" written: ")
        .expect("'written: FILES'")
        .1
        .split(", ")
        .map(PathBuf::from)
        .collect();
    for f in &files {
        assert!(f.exists(), "{notice}");
    }
    files
}

#[test]
fn the_export_commands_parse() {
    use anonlab_tui::Command;
    let app = common::screen::demo(80, 24);
    let parse_command = |line: &str| app.parse_command(line);
    assert_eq!(
        parse_command("export chart out/x.png"),
        Ok(Command::ExportChart(Some(PathBuf::from("out/x.png"))))
    );
    assert_eq!(
        parse_command("export chart"),
        Ok(Command::ExportChart(None))
    );
    assert_eq!(
        parse_command("export report my report"),
        Ok(Command::ExportReport(
            Some(PathBuf::from("my report")),
            anonlab::report::Audience::Internal
        ))
    );
    assert_eq!(
        parse_command("export report-external"),
        Ok(Command::ExportReport(
            None,
            anonlab::report::Audience::External
        ))
    );
    assert!(parse_command("export")
        .unwrap_err()
        .contains(":export chart"));
    assert!(parse_command("export graph").is_err());
}

/// The SVG's text elements, after checking it is well-formed XML.
fn svg_texts(file: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(file).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(str::to_string))
        .collect()
}

fn has_text(texts: &[String], wanted: &str) -> bool {
    texts.iter().any(|t| t.contains(wanted))
}

#[test]
fn the_data_screen_exports_the_class_sizes_of_the_quasi_identifiers() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = demo_app(dir.path());
    let files = export_chart(&mut app);
    let expected_file = dir.path().join(EXPORT_DIR).join("data-class-sizes.svg");
    assert_eq!(files, vec![expected_file.clone()]);
    // The same chart drawn from class sizes computed here, independently:
    // the simulator's matches for the session's attacker (the demo's
    // quasi-identifiers and occupation, its sensitive cells hidden), the
    // attacker named in the title.
    let ds = app.dataset();
    let known: Vec<usize> = ["sex", "age", "zip", "occupation"]
        .iter()
        .map(|c| ds.column_index(c).unwrap())
        .collect();
    let session = Session::from_project(&app.to_project()).unwrap();
    let hidden = session.hidden_cells(&known).unwrap();
    let refs: Vec<_> = hidden.iter().map(Option::as_ref).collect();
    let knowledge = Knowledge {
        columns: &known,
        hidden: &refs,
    };
    let sim = risk::simulate(ds, knowledge, 0.2, &Default::default()).unwrap();
    let mut chart = charts::class_sizes(&[("original", &sim.matches)]).unwrap();
    let hidden_cells: usize = hidden.iter().flatten().map(|b| b.count_ones(..)).sum();
    chart.title = format!(
        "{} (attacker knows 4 of 4 QIs; {hidden_cells} cells hidden)",
        chart.title
    );
    assert_eq!(
        std::fs::read_to_string(&expected_file).unwrap(),
        chart.to_svg().unwrap()
    );
    assert!(!svg_texts(&expected_file).is_empty());
}

#[test]
fn the_risk_screen_exports_the_cdf_and_histogram_before_and_after() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = anonymized(dir.path(), "mondrian");
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    let files = export_chart(&mut app);
    let export = dir.path().join(EXPORT_DIR);
    assert_eq!(
        files,
        vec![
            export.join("risk-reid-cdf.svg"),
            export.join("risk-reid-histogram.svg")
        ]
    );
    for f in &files {
        let texts = svg_texts(f);
        assert!(has_text(&texts, "original"), "{f:?}: {texts:?}");
        assert!(has_text(&texts, "published (mondrian)"), "{f:?}: {texts:?}");
        assert!(has_text(&texts, "Pr(re-id)"), "{f:?}: {texts:?}");
    }
}

#[test]
fn the_anonymize_screen_exports_breach_cdfs_of_the_shown_release() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = anonymized(dir.path(), "mondrian-l");
    let k = app.params().k;
    let l = app.params().l;
    let files = export_chart(&mut app);
    assert_eq!(
        files,
        vec![dir.path().join(EXPORT_DIR).join("anonymize-breach-cdf.svg")]
    );
    let texts = svg_texts(&files[0]);
    assert!(has_text(&texts, "original"), "{texts:?}");
    assert!(
        has_text(&texts, &format!("mondrian-l k={k} l={l}")),
        "{texts:?}"
    );
    assert!(has_text(&texts, "breach"), "{texts:?}");
}

#[test]
fn the_open_sweep_exports_its_heat_map() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = anonymized(dir.path(), "mondrian-l");
    app.step(&Action::ToggleSweep);
    app.run_pending_jobs_blocking();
    assert_eq!(app.sweep().job, JobState::Done);
    let files = export_chart(&mut app);
    assert_eq!(
        files,
        vec![dir.path().join(EXPORT_DIR).join("anonymize-sweep.svg")]
    );
    // The grid's own numbers, drawn by the chart builder, are the file.
    let (measure, ks, ls, cells) = app.sweep().heatmap().unwrap();
    let mut chart = charts::sweep_heatmap(&measure, &ks, &ls, cells).unwrap();
    // mondrian-l reads no seed, so its title names none (issue 32, item 5).
    chart.title = "Mean breach probability of mondrian-l by k and l".to_string();
    assert_eq!(measure, "mean breach probability");
    assert_eq!(
        std::fs::read_to_string(&files[0]).unwrap(),
        chart.to_svg().unwrap()
    );
    assert!(has_text(&svg_texts(&files[0]), "by k and l"));
}

#[test]
fn the_hierarchies_screen_exports_the_correlation_heat_map() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = demo_app(dir.path());
    app.step(&Action::ShowScreen(Screen::Hierarchies));
    app.run_pending_jobs_blocking();
    let files = export_chart(&mut app);
    assert_eq!(
        files,
        vec![dir
            .path()
            .join(EXPORT_DIR)
            .join("hierarchies-correlation.svg")]
    );
    let matrix = app.hierarchies().matrix.view.clone().unwrap();
    let chart = charts::correlation_heatmap(&matrix).unwrap();
    assert_eq!(
        std::fs::read_to_string(&files[0]).unwrap(),
        chart.to_svg().unwrap()
    );
    let texts = svg_texts(&files[0]);
    for name in &matrix.columns {
        assert!(has_text(&texts, name), "{name}: {texts:?}");
    }
}

#[test]
fn the_compare_screen_exports_one_curve_per_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = anonymized(dir.path(), "mondrian-l");
    app.step(&Action::AddToCompare);
    choose_algorithm(&mut app, "anatomy");
    run_to_done(&mut app);
    app.step(&Action::AddToCompare);
    app.step(&Action::ShowScreen(Screen::Compare));
    app.step(&Action::Recompute);
    app.run_pending_jobs_blocking();
    let files = export_chart(&mut app);
    assert_eq!(
        files,
        vec![dir.path().join(EXPORT_DIR).join("compare-breach-cdf.svg")]
    );
    let texts = svg_texts(&files[0]);
    for entry in app.compare().entries() {
        assert!(has_text(&texts, &entry.to_string()), "{entry}: {texts:?}");
    }
    assert!(has_text(&texts, "original"), "{texts:?}");
}

#[test]
fn a_png_named_by_the_user_decodes_to_the_charts_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = demo_app(dir.path());
    let file = dir.path().join("sub").join("classes.png");
    command(&mut app, &format!("export chart {}", file.display()));
    app.run_pending_jobs_blocking();
    assert_eq!(app.export_job(), &JobState::Done, "{:?}", app.popup());
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        (info.width, info.height),
        (charts::DEFAULT_WIDTH, charts::DEFAULT_HEIGHT)
    );
    let pixels = &buf[..info.buffer_size()];
    let first = &pixels[..3];
    let differing = pixels.chunks(3).filter(|p| *p != first).count();
    assert!(
        differing > pixels.len() / 3 / 100,
        "{differing} pixels differ from the background"
    );
    // A name the formats do not know is refused, naming the file.
    command(
        &mut app,
        &format!("export chart {}", dir.path().join("chart.gif").display()),
    );
    app.run_pending_jobs_blocking();
    assert_eq!(app.export_job(), &JobState::Failed);
    assert!(app.popup().unwrap().message.contains("chart.gif"));
}

#[test]
fn nothing_to_draw_is_said_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(Session::new(
        anonlab::data::Dataset::from_rows(&["a"], &[vec!["1"]]).unwrap(),
        None,
        Default::default(),
    ))
    .unwrap()
    .with_project_path(dir.path().join("p.json"));
    app.step(&Action::ExportChart);
    assert!(
        app.notice()
            .unwrap()
            .contains("the attacker knows no attribute"),
        "{:?}",
        app.notice()
    );
    app.run_pending_jobs_blocking();
    assert!(!dir.path().join(EXPORT_DIR).exists());
}

/// report.json without what differs between two runs: the timings.
fn report_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["release"]["time_ms"] = serde_json::Value::Null;
    v
}

#[test]
fn the_tuis_report_is_the_clis_on_the_saved_project() {
    let dir = tempfile::tempdir().unwrap();
    // A data file beside the project, so the paths go through saving and
    // reopening as they would.
    let data_dir = dir.path().join("data");
    std::fs::create_dir(&data_dir).unwrap();
    let csv = data_dir.join("demo.csv");
    std::fs::write(&csv, anonlab::session::DEMO_CSV).unwrap();
    let mut session = Session::demo().unwrap();
    session.source = Some(csv.clone());
    let project_file = dir.path().join("study.json");
    let mut app = App::new(session)
        .unwrap()
        .with_project_path(project_file.clone());
    app.step(&Action::Resize(120, 40));
    choose_algorithm(&mut app, "mondrian-l");
    app.step(&Action::AdjustK(2));
    run_to_done(&mut app);
    app.step(&Action::SaveProject);
    app.step(&Action::ExportReport);
    app.run_pending_jobs_blocking();
    assert_eq!(app.export_job(), &JobState::Done, "{:?}", app.popup());
    let tui_dir = dir.path().join(REPORT_DIR);
    assert!(
        app.notice()
            .unwrap()
            .contains(&tui_dir.display().to_string()),
        "{:?}",
        app.notice()
    );
    let cli_dir = dir.path().join("cli-report");
    anonlab()
        .args(["report", project_file.to_str().unwrap(), "-o"])
        .arg(&cli_dir)
        .assert()
        .success();
    let (tui, cli) = (report_json(&tui_dir), report_json(&cli_dir));
    assert_eq!(tui, cli);
    assert_eq!(tui["release"]["k"], app.params().k);
    assert_eq!(tui["release"]["algorithm"], "mondrian-l");
    for f in ["report.html", "report.md"] {
        assert!(tui_dir.join(f).exists(), "{f}");
    }
}
