//! The Risk screen's model selector: the `:population`,
//! `:weights`, `:suda` and `:attributes` commands, the model panel
//! (prosecutor, journalist, marketer, population uniqueness, individual
//! risk), each record's minimal sample uniques in the list and the chart of
//! attribute combinations by uniqueness — at 80×24 and 200×50 — and the
//! agreement test: the screen's figures are `anonlab assess --json`'s on
//! the project the TUI saved, and the report's.
#![cfg(feature = "tui")]

use crate::common;

use std::path::{Path, PathBuf};

use anonlab::assess::{IndividualRiskReport, PopulationReport};
use anonlab::data::Project;
use anonlab::progress::Progress;
use anonlab::report;
use anonlab::session::Session;
use anonlab_tui::{Action, App, RiskChart, RiskModel, Screen};
use common::cli::{anonlab, json_of};
use common::screen::{render, text};

/// The demo with a column of sampling weights, seeded (seed 17, a linear
/// congruential generator; every weight in [1, 200]), in `dir`.
fn weighted_demo(dir: &Path) -> PathBuf {
    let demo =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.csv"))
            .unwrap();
    let mut state: u64 = 17;
    let mut out = String::new();
    for (i, line) in demo.lines().enumerate() {
        let cell = if i == 0 {
            "weight".to_string()
        } else {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            format!("{}", 1 + (state >> 33) % 200)
        };
        out.push_str(&format!("{line},{cell}\n"));
    }
    let csv = dir.join("demo_weighted.csv");
    std::fs::write(&csv, out).unwrap();
    // The demo's roles and cell sensitivity, on the weighted file.
    let mut project = Session::demo().unwrap().to_project();
    project.data.path = Some(csv);
    let file = dir.join("weighted.json");
    project.save(&file).unwrap();
    file
}

fn command(app: &mut App, line: &str) {
    let c = app
        .parse_command(line)
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    app.run_command(c).unwrap_or_else(|e| panic!("{line}: {e}"));
}

/// The weighted demo on the Risk screen with every measure on.
fn app_with_measures(dir: &Path, width: u16, height: u16) -> App {
    let project = Project::load(&weighted_demo(dir)).unwrap();
    let mut app = App::new(Session::from_project(&project).unwrap()).unwrap();
    app.step(&Action::Resize(width, height));
    app.step(&Action::ShowScreen(Screen::Risk));
    for line in [
        "population 0.1",
        "weights weight",
        "suda 3",
        "attributes on",
    ] {
        command(&mut app, line);
    }
    app.run_pending_jobs_blocking();
    assert!(app.session().baseline_current());
    app
}

fn select(app: &mut App, model: RiskModel) {
    for _ in 0..RiskModel::ALL.len() {
        if app.risk().model == model {
            return;
        }
        app.step(&Action::CycleModel);
    }
    panic!("{model:?} is not offered");
}

#[test]
fn each_model_shows_its_figures_and_they_are_assess_json_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with_measures(dir.path(), 200, 50);
    let saved = dir.path().join("tui.json");
    command(&mut app, &format!("save {}", saved.display()));
    assert!(saved.exists(), "{:?}", app.notice());

    // `assess --json` on the project the TUI saved: the settings travel
    // with it, and the figures are the same numbers.
    let out = anonlab()
        .args(["assess", "--json", "--project"])
        .arg(&saved)
        .assert()
        .success();
    let json = json_of(out.get_output());
    let before = app.session().baseline().unwrap();
    let screen = &before.assessment.report;
    let pop: PopulationReport = serde_json::from_value(json["population"].clone()).unwrap();
    let ind: IndividualRiskReport =
        serde_json::from_value(json["individual_risk"].clone()).unwrap();
    assert_eq!(screen.population.as_ref(), Some(&pop));
    assert_eq!(screen.individual_risk.as_ref(), Some(&ind));
    assert_eq!(
        serde_json::to_value(&screen.suda).unwrap(),
        json["suda"],
        "SUDA2"
    );
    assert_eq!(
        serde_json::to_value(&screen.attribute_risks).unwrap(),
        json["attribute_risks"]
    );

    // The report built from the same project: the same figures.
    let session = Session::from_project(&Project::load(&saved).unwrap()).unwrap();
    let built = report::build(&session, &saved, None, &Progress::new()).unwrap();
    let r = &built.report.sample;
    assert_eq!(r.population.as_ref(), Some(&pop));
    assert_eq!(r.individual_risk.as_ref(), Some(&ind));
    assert_eq!(r.suda, screen.suda);
    assert_eq!(r.attribute_risks, screen.attribute_risks);

    // What each model's panel prints, from the JSON's numbers.
    let p4 = |x: f64| format!("{x:.4}");
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let shown = |app: &mut App, model: RiskModel| {
        select(app, model);
        text(&render(app))
    };
    let t = shown(&mut app, RiskModel::Prosecutor);
    assert!(t.contains("Risk model: prosecutor"), "{t}");
    let pr = &json["population"]["prosecutor"];
    assert!(
        t.contains(&format!(
            "mean {}, max {}",
            p4(f(&pr["mean"])),
            p4(f(&pr["max"]))
        )),
        "{t}"
    );
    let t = shown(&mut app, RiskModel::Journalist);
    let j = &json["population"]["journalist"];
    assert!(
        t.contains(&format!(
            "mean {}, max {}",
            p4(f(&j["mean"])),
            p4(f(&j["max"]))
        )),
        "{t}"
    );
    assert!(t.contains("F = 0.1"), "{t}");
    // The list gains the journalist's per-record figure.
    assert!(t.contains("journ"), "{t}");
    let t = shown(&mut app, RiskModel::Marketer);
    assert!(
        t.contains(&format!(
            "(marketer {})",
            p4(f(&json["population"]["marketer"]))
        )),
        "{t}"
    );
    let t = shown(&mut app, RiskModel::PopulationUniqueness);
    let u = &json["population"]["population_uniques"];
    let model = u["dankar_model"].as_str().unwrap();
    let label = match model {
        "pitman" => "Pitman",
        "zayatz" => "Zayatz",
        "snb" => "SNB",
        other => panic!("{other}"),
    };
    assert!(t.contains(&format!("Dankar's rule picks {label}")), "{t}");
    for (name, key) in [("Pitman", "pitman"), ("Zayatz", "zayatz"), ("SNB", "snb")] {
        let figure = u[key]
            .as_f64()
            .map_or("did not converge".to_string(), share);
        assert!(t.contains(&format!("{name} {figure}")), "{name}: {t}");
    }
    let t = shown(&mut app, RiskModel::Individual);
    let i = &json["individual_risk"];
    assert!(
        t.contains(&format!(
            "mean {}, max {}",
            p4(f(&i["mean"])),
            p4(f(&i["max"]))
        )),
        "{t}"
    );
    assert!(t.contains(&format!(
        "expected re-identifications {:.2}",
        f(&i["expected_reidentifications"])
    )));
    assert!(t.contains("indiv"), "{t}");
    // SUDA2's line is under every model.
    let s = &json["suda"];
    assert!(
        t.contains(&format!(
            "{} records with an MSU",
            common::screen::thousands(s["records_with_msu"].as_u64().unwrap() as usize)
        )),
        "{t}"
    );
    // The model wraps round to the prosecutor's.
    app.step(&Action::CycleModel);
    assert_eq!(app.risk().model, RiskModel::Prosecutor);
}

/// A share as the model panel prints it.
fn share(x: f64) -> String {
    if x > 0.0 && x < 0.001 {
        format!("{:.4}%", 100.0 * x)
    } else {
        format!("{:.2}%", 100.0 * x)
    }
}

#[test]
fn the_list_names_each_records_minimal_sample_uniques() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_with_measures(dir.path(), 200, 50);
    let before = app.session().baseline().unwrap();
    let sample = &before.assessment.sample;
    let suda = sample.suda.as_ref().unwrap();
    let t = text(&render(&app));
    assert!(t.contains("minimal sample uniques"), "{t}");
    // The first listed record's MSUs, in the screen's words, from SUDA2's
    // masks over the attacker's attributes.
    let first = before.listed[0].row as usize;
    let words: Vec<String> = suda
        .msus(first)
        .iter()
        .map(|&m| {
            let names: Vec<&str> = sample
                .attributes
                .iter()
                .enumerate()
                .filter(|(a, _)| m & (1 << a) != 0)
                .map(|(_, n)| n.as_str())
                .collect();
            format!("{{{}}}", names.join(", "))
        })
        .collect();
    assert!(
        !words.is_empty(),
        "the most exposed record is a sample unique"
    );
    let expect = format!("unique on {}", words[0]);
    assert!(t.contains(&expect), "{expect}\n{t}");
    insta::assert_snapshot!("risk_models_200x50", t);
}

#[test]
fn the_combinations_chart_ranks_what_singles_people_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with_measures(dir.path(), 200, 50);
    // m: key count → linkage → breach → combinations.
    for _ in 0..3 {
        app.step(&Action::CycleMeasure(1));
    }
    assert_eq!(app.risk().chart, RiskChart::Combinations);
    let t = text(&render(&app));
    assert!(t.contains("Unique records by attribute combination"), "{t}");
    let risks = app
        .session()
        .baseline()
        .unwrap()
        .assessment
        .report
        .attribute_risks
        .clone()
        .unwrap();
    // The riskiest single attribute is drawn with its share.
    let best = risks
        .iter()
        .filter(|r| r.attributes.len() == 1)
        .max_by(|a, b| a.uniques.total_cmp(&b.uniques))
        .unwrap();
    assert!(t.contains(&format!("{{{}}}", best.attributes[0])), "{t}");
    assert!(t.contains(&share(best.uniques)), "{t}");
    // Without attribute risks the chart is not offered and falls back.
    command(&mut app, "attributes off");
    app.run_pending_jobs_blocking();
    assert_eq!(app.risk().chart, RiskChart::KeyCount);
}

#[test]
fn at_80_by_24_the_panel_fits_and_the_commands_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with_measures(dir.path(), 80, 24);
    select(&mut app, RiskModel::Journalist);
    let t = text(&render(&app));
    assert!(t.contains("Risk model: journalist"), "{t}");
    insta::assert_snapshot!("risk_models_80x24", t);

    for (line, says) in [
        ("population 10", "smaller than the"),
        ("weights nope", "no column 'nope'"),
    ] {
        let c = app.parse_command(line).unwrap();
        let e = app.run_command(c).unwrap_err();
        assert!(e.contains(says), "{line}: {e}");
    }
    for (line, says) in [
        ("population 1.5", "sampling fraction"),
        ("population x", "'x'"),
        ("suda 0", "at least 1"),
        ("weights w sometimes", "approx nor exact"),
    ] {
        let e = app.parse_command(line).unwrap_err();
        assert!(e.contains(says), "{line}: {e}");
    }
    // A weight column the attacker knows is refused by the assessment,
    // with the column named.
    command(&mut app, "weights age");
    app.run_pending_jobs_blocking();
    let t = text(&render(&app));
    assert!(t.contains("'age' is both a sampling-weight column"), "{t}");
    // Off again: the panel goes, the prosecutor stays.
    for line in [
        "weights off",
        "population off",
        "suda off",
        "attributes off",
    ] {
        command(&mut app, line);
    }
    app.run_pending_jobs_blocking();
    assert_eq!(app.risk().model, RiskModel::Prosecutor);
    assert!(!text(&render(&app)).contains("Risk model"));
}

/// `:household COL` and `:risky M [T]` (issue 33): the model panel gains
/// a line for each, with the figures of the session's assessment, and a
/// bad column or size is named.
#[test]
fn household_and_risky_cells_in_the_model_panel() {
    let mut app = App::new(Session::demo().unwrap()).unwrap();
    app.step(&Action::Resize(200, 50));
    app.step(&Action::ShowScreen(Screen::Risk));
    app.run_pending_jobs_blocking();
    // The attacker knows sex and age: zip is the households' column, and
    // occupation's hidden cells are out of what the attacker knows.
    for _ in 0..2 {
        app.step(&Action::Down);
    }
    app.step(&Action::ToggleKnown);
    app.step(&Action::Down);
    app.step(&Action::ToggleKnown);
    command(&mut app, "household zip");
    command(&mut app, "risky 2");
    app.run_pending_jobs_blocking();
    let sample = &app.session().baseline().unwrap().assessment.sample;
    let h = sample.household.as_ref().expect("household risk");
    let c = sample.risky_cells.as_ref().expect("risky cells");
    assert_eq!(h.key_variables, ["sex", "age"]);
    assert_eq!(c.key_variables, ["sex", "age"]);
    let t = text(&render(&app));
    let panel = t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        panel.contains(&format!(
            "households by 'zip': mean {:.4}, max {:.4}",
            h.mean, h.max
        )),
        "{t}"
    );
    assert!(
        panel.contains(&format!(
            "risky cells (≤ 1 records, up to 2 attributes): {} cells",
            c.total_cells
        )),
        "{t}"
    );
    for (line, error) in [
        ("household nope", "no column 'nope'"),
        ("risky 0", "at least 1"),
    ] {
        let e = app
            .parse_command(line)
            .map_err(|e| e.to_string())
            .and_then(|c| app.run_command(c).map_err(|e| e.to_string()))
            .unwrap_err();
        assert!(e.contains(error), "{line}: {e}");
    }
    command(&mut app, "household off");
    command(&mut app, "risky off");
    app.run_pending_jobs_blocking();
    let sample = &app.session().baseline().unwrap().assessment.sample;
    assert!(sample.household.is_none() && sample.risky_cells.is_none());
}
