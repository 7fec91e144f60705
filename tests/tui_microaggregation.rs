//! Microaggregation on the Anonymize screen (issue 34): `:perturb` and
//! `:aggregation` set the session's settings (refused when a column does
//! not exist), the parameters panel shows them, and the figures panel
//! shows the release's interval risk and IL1s — the evaluation's, which
//! `anonymize --json` prints for the same settings (one truth).
#![cfg(feature = "tui")]

use std::path::Path;

use anonlab::data::Role;
use anonlab::session::Session;
use anonlab_tui::{Action, App};

use crate::common;
use common::cli::{anonlab, json_of};
use common::screen::{choose_algorithm, command, render, run_to_done, text};

const TESTDATA: &str = "tests/data/sdcmicro/testdata.csv";

fn testdata_app() -> App {
    let mut s = Session::open(Path::new(TESTDATA), Default::default()).unwrap();
    for k in ["roof", "sex"] {
        let c = s.dataset.column_index(k).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    s.attacker.known = vec!["roof".into(), "sex".into()];
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(160, 48));
    app
}

#[test]
fn perturb_sets_the_attributes_and_the_panel_shows_the_figures() {
    let mut app = testdata_app();
    choose_algorithm(&mut app, "mdav");
    command(&mut app, "perturb nosuch");
    let notice = app.notice().unwrap_or_default().to_string();
    assert!(notice.contains("no column 'nosuch'"), "{notice}");
    assert!(app.params().perturbation.attributes.is_empty());
    command(&mut app, "perturb income,expend,savings");
    command(&mut app, "k 3");
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().expect("a release");
    let f = view
        .evaluation
        .perturbation
        .clone()
        .expect("perturbation figures");
    assert!((f.il1s.unwrap() - 533.343357020245).abs() < 1e-9);
    let screen = text(&render(&app));
    assert!(
        screen.contains("perturb   income,expend,savings"),
        "{screen}"
    );
    assert!(screen.contains("aggregate mean"), "{screen}");
    assert!(
        screen.contains(&format!("dRisk {:.2}%", f.interval_risk.unwrap() * 100.0)),
        "{screen}"
    );
    assert!(screen.contains("IL1s 533.34"), "{screen}");

    // One truth: the CLI on the same settings prints the same figures.
    let v = json_of(
        &anonlab()
            .args([
                "anonymize",
                TESTDATA,
                "--qi",
                "roof,sex",
                "-a",
                "mdav",
                "-k",
                "3",
            ])
            .args(["--perturb", "income,expend,savings", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(
        v["perturbation"],
        serde_json::to_value(&f).unwrap(),
        "the TUI and the CLI differ"
    );

    // The median, set by command, reaches the release.
    command(&mut app, "aggregation median");
    run_to_done(&mut app);
    let screen = text(&render(&app));
    assert!(screen.contains("aggregate median"), "{screen}");
    assert!(screen.contains("group median"), "{screen}");
}
