//! The Anonymize screen's t-closeness choice (`T`) travels with the project
//! (issue 4 follow-up): saved as `params.t_closeness`, restored when the
//! project is opened, and replayed by LGB. The app runs on the embedded demo
//! (occupation semi-sensitive, disease sensitive).
#![cfg(feature = "tui")]

use crate::common;

use anonlab::data::{Project, Role};
use anonlab::release::Guarantee;
use anonlab::session::Session;
use anonlab_tui::{Action, App};
use common::screen::{choose_algorithm, render, run_to_done, steps, text};

/// `app` on the Anonymize screen with `algorithm` chosen and every job run.
fn on_anonymize(mut app: App, algorithm: &str) -> App {
    app.step(&Action::Resize(140, 44));
    choose_algorithm(&mut app, algorithm);
    run_to_done(&mut app);
    app
}

/// The attributes the shown release protects by local t-closeness.
fn t_close_attributes(app: &App) -> Vec<(String, f64)> {
    let view = app.anonymize().view.as_ref().expect("a release");
    assert!(view.evaluation.verification.all_hold());
    view.release
        .claims
        .iter()
        .filter_map(|c| match c {
            Guarantee::LocalTCloseness { attribute, t } => Some((attribute.clone(), *t)),
            _ => None,
        })
        .collect()
}

/// The demo's sensitive and semi-sensitive columns, in column order (the
/// candidates `T` cycles through).
fn candidates(app: &App) -> Vec<usize> {
    let s = Session::demo().unwrap();
    (0..app.dataset().n_cols())
        .filter(|&c| matches!(s.roles.get(c), Role::Sensitive | Role::SemiSensitive))
        .collect()
}

fn reopen(path: &std::path::Path) -> App {
    App::new(Session::from_project(&Project::load(path).unwrap()).unwrap()).unwrap()
}

#[test]
fn the_t_closeness_choice_survives_saving_and_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lgb.json");
    let mut app = on_anonymize(App::new(Session::demo().unwrap()).unwrap(), "lgb-ncp")
        .with_project_path(path.clone());
    let cands = candidates(&app);
    assert_eq!(cands.len(), 2, "occupation and disease");
    // The second candidate, so the first `T` alone would not pass.
    steps(
        &mut app,
        &[Action::CycleTCloseness, Action::CycleTCloseness],
    );
    let chosen = cands[1];
    let name = app.dataset().col(chosen).name().to_string();
    let t = app.params().t;
    assert_eq!(app.t_closeness(), vec![(chosen, t)]);
    app.run_pending_jobs_blocking();
    assert_eq!(t_close_attributes(&app), vec![(name.clone(), t)]);

    app.step(&Action::SaveProject);
    assert!(app.popup().is_none(), "{:?}", app.popup());
    let p = Project::load(&path).unwrap();
    assert_eq!(
        p.params.t_closeness.iter().collect::<Vec<_>>(),
        vec![(&name, &t)]
    );
    assert_eq!(p.params.algorithm.as_deref(), Some("lgb-ncp"));

    let back = on_anonymize(reopen(&path), "lgb-ncp");
    assert!(back.popup().is_none(), "{:?}", back.popup());
    assert_eq!(back.t_closeness(), app.t_closeness());
    // The same request (the generation counters are each app's own).
    let asked = |a: &App| {
        let i = a.anonymize_inputs();
        (i.algorithm, i.k, i.l, i.p, i.seed)
    };
    assert_eq!(asked(&back), asked(&app));
    assert_eq!(t_close_attributes(&back), vec![(name.clone(), t)]);
    assert_eq!(
        back.anonymize().view.as_ref().unwrap().release.groups.len(),
        app.anonymize().view.as_ref().unwrap().release.groups.len()
    );
    assert!(text(&render(&back)).contains(&format!("{name} t={t}")));
    assert_eq!(back.to_project(), app.to_project());
}

#[test]
fn no_choice_saves_no_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.json");
    let mut app = on_anonymize(App::new(Session::demo().unwrap()).unwrap(), "lgb-mdp")
        .with_project_path(path.clone());
    // T cycles through both candidates and back to none.
    steps(&mut app, &[Action::CycleTCloseness; 3]);
    assert!(app.t_closeness().is_empty());
    app.step(&Action::SaveProject);
    let json = std::fs::read_to_string(&path).unwrap();
    assert!(!json.contains("t_closeness"), "{json}");
    let back = on_anonymize(reopen(&path), "lgb-mdp");
    assert!(back.t_closeness().is_empty());
    assert!(t_close_attributes(&back).is_empty());
}

#[test]
fn a_hand_edited_project_restores_what_the_screen_can_show() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edited.json");
    let mut p = Session::demo().unwrap().to_project();
    p.params.algorithm = Some("lgb-mdp".into());
    // Both candidates at t = 0.3, and a quasi-identifier.
    for name in ["occupation", "disease", "age"] {
        p.params.t_closeness.insert(name.into(), 0.3);
    }
    p.save(&path).unwrap();
    let app = reopen(&path);
    let cands = candidates(&app);
    let first = app.dataset().col(cands[0]).name().to_string();
    let second = app.dataset().col(cands[1]).name().to_string();
    // Both candidates, in column order, at the project's t.
    assert_eq!(app.t_closeness(), vec![(cands[0], 0.3), (cands[1], 0.3)]);
    let popup = app.popup().expect("the left-out entries are named");
    assert!(
        popup.message.contains("age=0.3")
            && !popup.message.contains(&format!("{first}=0.3"))
            && !popup.message.contains(&format!("{second}=0.3")),
        "{popup:?}"
    );
    let mut app = app;
    app.step(&Action::Cancel);
    let app = on_anonymize(app, "lgb-mdp");
    let mut both = vec![(first.clone(), 0.3), (second.clone(), 0.3)];
    assert_eq!(t_close_attributes(&app), both);
    // Saved back, the project holds what the screen ran.
    let saved = app.to_project();
    both.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        saved.params.t_closeness.into_iter().collect::<Vec<_>>(),
        both
    );

    // A column the data lack is refused when the project is opened.
    p.params.t_closeness.insert("gender".into(), 0.2);
    p.save(&path).unwrap();
    let e = Session::from_project(&Project::load(&path).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("gender"), "{e}");
}

#[test]
fn the_cli_applies_the_projects_t_closeness() {
    use assert_cmd::Command;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.json");
    let mut p = Session::demo().unwrap().to_project();
    // disease is sensitive and occupation semi-sensitive in the project:
    // `anonymize --project` makes the session's request, as the TUI does,
    // so both are protected by t-closeness.
    p.params.t_closeness.insert("disease".into(), 0.3);
    p.params.t_closeness.insert("occupation".into(), 0.3);
    p.save(&path).unwrap();
    let release = dir.path().join("release.json");
    let out = Command::cargo_bin("anonlab")
        .unwrap()
        .args(["anonymize", "--project"])
        .arg(&path)
        .args(["-a", "lgb-mdp", "-k", "3", "--release"])
        .arg(&release)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&release).unwrap()).unwrap();
    let claims = json["claims"].as_array().expect("claims").clone();
    let mut t_close: Vec<(String, f64)> = claims
        .iter()
        .filter(|c| c["model"] == "local-t-closeness")
        .map(|c| {
            (
                c["attribute"].as_str().unwrap().to_string(),
                c["t"].as_f64().unwrap(),
            )
        })
        .collect();
    t_close.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        t_close,
        vec![
            ("disease".to_string(), 0.3),
            ("occupation".to_string(), 0.3)
        ],
        "{claims:?}"
    );
}
