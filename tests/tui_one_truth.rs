//! One truth: over random sessions (roles, semi-sensitive attributes and
//! their hidden cells, what the attacker knows, the algorithm), the
//! "before" figures are the same wherever they appear — the Risk screen,
//! the Anonymize screen, the Compare screen, the data of every exported
//! chart, the report (`report::build`, what `anonlab report` writes as
//! report.json) and `anonlab assess` (`assess::assess` on the saved
//! project).
#![cfg(feature = "tui")]

use std::path::Path;

use anonlab::anonymize::Distribution;
use anonlab::assess::{assess, Baseline};
use anonlab::data::Role;
use anonlab::progress::Progress;
use anonlab::report;
use anonlab::session::Session;
use anonlab_tui::{step_series, Action, App, ChartData, Dist, Screen};
use proptest::prelude::*;

use crate::common;
use common::screen::{choose_algorithm, render, text};

/// The demo's columns a session may give a role to (name and zip stay as
/// the demo has them: an identifier and a quasi-identifier).
const COLUMNS: [&str; 4] = ["sex", "age", "occupation", "disease"];
const ROLES: [Role; 4] = [
    Role::QuasiIdentifier,
    Role::SemiSensitive,
    Role::Sensitive,
    Role::Insensitive,
];
const ALGORITHMS: [&str; 4] = ["mondrian", "anatomy", "lgb-mdp", "cbg"];

/// The step line a distribution is drawn as.
fn series(d: &Distribution) -> Vec<(f64, f64)> {
    step_series(d.cdf.iter().map(|p| (p.probability, p.share)))
}

/// A chart's "original" series.
fn original(data: &ChartData) -> Option<&Dist> {
    match data {
        ChartData::Reidentification(d) | ChartData::Breach(d) => {
            d.iter().find(|d| d.label == "original")
        }
        _ => None,
    }
}

/// The session the app would save, reopened as the CLI opens it.
fn reopened(app: &App) -> Session {
    Session::from_project(&app.to_project()).unwrap()
}

fn check(roles: [usize; 4], hidden: Vec<u32>, forget: Vec<bool>, algorithm: usize) {
    let mut app = App::new(Session::demo().unwrap()).unwrap();
    app.step(&Action::Resize(140, 44));
    for (name, &r) in COLUMNS.iter().zip(&roles) {
        let c = app.dataset().column_index(name).unwrap();
        app.step(&Action::ShowScreen(Screen::Data));
        while app.data_view().col < c {
            app.step(&Action::Right);
        }
        while app.data_view().col > c {
            app.step(&Action::Left);
        }
        app.step(&Action::SetRole(ROLES[r]));
        if ROLES[r] == Role::SemiSensitive {
            // Toggle some of its cells (row numbers modulo the rows).
            for &row in &hidden {
                let row = row as usize % app.dataset().n_rows();
                while app.data_view().row < row {
                    app.step(&Action::Down);
                }
                while app.data_view().row > row {
                    app.step(&Action::Up);
                }
                app.step(&Action::ToggleSensitivity);
            }
        }
    }
    // The attacker forgets some of what they could know.
    app.step(&Action::ShowScreen(Screen::Risk));
    app.step(&Action::First);
    for (i, &f) in forget.iter().enumerate() {
        if i >= app.session().order().len() {
            break;
        }
        if f {
            app.step(&Action::ToggleKnown);
        }
        app.step(&Action::Down);
    }
    app.run_pending_jobs_blocking();
    let Some(before) = app.session().baseline().cloned() else {
        // No attribute the attacker could know: nothing to compare, and
        // the Risk screen says so.
        assert!(app.session().known_columns().is_empty());
        return;
    };
    let baseline: &Baseline = before.baseline();

    // `anonlab assess` and the report on the saved project.
    let session = reopened(&app);
    let assessed = assess(&session, &Progress::new()).unwrap();
    assert_eq!(&assessed.report.baseline, baseline, "anonlab assess");

    // The Risk screen's three rows and its exported charts.
    let risk = app.risk().before.as_ref().unwrap();
    assert_eq!(risk.simulator.dist, baseline.key_count);
    assert_eq!(risk.linkage.dist, baseline.linkage);
    assert_eq!(
        risk.breach.as_ref().map(|(_, f)| &f.dist),
        baseline.breach.as_ref().map(|b| &b.distribution)
    );
    for _ in 0..3 {
        if let Ok(export) = app.chart_in_view() {
            if let Some(d) = original(&export.data) {
                let expected = [&baseline.key_count, &baseline.linkage]
                    .into_iter()
                    .chain(baseline.breach.as_ref().map(|b| &b.distribution))
                    .map(series)
                    .collect::<Vec<_>>();
                assert!(expected.contains(&d.series()), "risk chart's original");
            }
            let who = export.attacker.unwrap_or_default();
            assert!(who.contains(&baseline.attacker.to_string()), "{who}");
        }
        app.step(&Action::CycleMeasure(1));
    }

    // The Data screen's class sizes are the baseline's.
    app.step(&Action::ShowScreen(Screen::Data));
    if let Ok(export) = app.chart_in_view() {
        if let ChartData::ClassSizes(b) = &export.data {
            assert_eq!(b.baseline(), baseline);
        }
    }

    // The Anonymize screen: its "before" is drawn from the baseline and
    // labelled with its attacker; its chart's "original" too.
    let id = ALGORITHMS[algorithm];
    choose_algorithm(&mut app, id);
    app.run_pending_jobs_blocking();
    let t = text(&render(&app));
    if app.anonymize().view.is_some() && app.anonymize().blocked.is_none() {
        assert!(
            t.contains(&format!("{:.3}→", baseline.linkage.summary.mean)),
            "{id}: {t}"
        );
        assert!(t.contains(&baseline.attacker.to_string()), "{id}: {t}");
        if let Ok(export) = app.chart_in_view() {
            let d = original(&export.data).expect("the original's curve");
            let expected = match (&export.data, &baseline.breach) {
                (ChartData::Breach(_), Some(b)) => series(&b.distribution),
                _ => series(&baseline.linkage),
            };
            assert_eq!(d.series(), expected, "{id}: anonymize chart's original");
        }

        // The report on the project the app would save.
        let built = report::build(
            &reopened(&app),
            Path::new("project.json"),
            None,
            &Progress::new(),
        )
        .unwrap();
        assert_eq!(&built.report.risk.baseline, baseline, "report.json");
    }

    // The Compare screen's "original".
    app.step(&Action::ShowScreen(Screen::Compare));
    if let Some(d) = app.compare().original(app.session()) {
        let breach = baseline.breach.as_ref().map(|b| &b.distribution);
        assert!(
            *d == baseline.linkage || Some(d) == breach,
            "compare's original"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    #[test]
    fn before_is_one_figure_on_every_surface(
        roles in prop::array::uniform4(0usize..4),
        hidden in prop::collection::vec(0u32..40, 0..6),
        forget in prop::collection::vec(any::<bool>(), 0..5),
        algorithm in 0usize..4,
    ) {
        check(roles, hidden, forget, algorithm);
    }
}
