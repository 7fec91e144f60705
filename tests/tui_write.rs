//! Publishing from the TUI: `:write PATH` (and `W`) writes the release on
//! the Anonymize screen byte for byte as `anonlab anonymize --project P -o
//! PATH --release JSON` writes it for the saved project — the published
//! table, the bucket table of a bucketized release and the release JSON —
//! for every algorithm; it refuses when the release on screen is not the
//! session's. The app is driven through its actions and commands only.
#![cfg(feature = "tui")]

use std::path::Path;
use std::time::Duration;

use anonlab::algorithms;
use anonlab::anonymize::{evaluate, Measure};
use anonlab::progress::Progress;
use anonlab::release::{buckets_path, Guarantee};
use anonlab::session::Session;
use anonlab_tui::{
    verification_lines, Action, AnonymizeMsg, App, JobMsg, JobState, Screen, WorkerMsg,
};

use crate::common;
use common::cli::publish_project;
use common::demo_conditions as conditions;
use common::screen::{build_hierarchies, choose_algorithm, command, render, run_to_done, text};

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn write_gives_the_files_of_anonymize_o_byte_for_byte_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let g = conditions(dir.path());
    let mut bucketized = 0;
    for algo in algorithms::registry() {
        let id = algo.id();
        let project = dir.path().join(format!("{id}.json"));
        let mut session = Session::demo().unwrap();
        if algo.needs().numeric {
            common::perturb_age(&mut session);
        }
        let mut app = App::new(session)
            .unwrap()
            .with_project_path(project.clone());
        app.step(&Action::Resize(140, 44));
        if id == "construction" {
            command(&mut app, &format!("conditions {}", g.display()));
        }
        if id == "full-domain" {
            build_hierarchies(&mut app);
        }
        command(&mut app, "k 3");
        command(&mut app, "l 2");
        choose_algorithm(&mut app, id);
        run_to_done(&mut app);
        app.step(&Action::SaveProject);
        assert!(app.popup().is_none(), "{id}: {:?}", app.popup());

        let tui = dir.path().join(id).join("tui").join("release.csv");
        command(&mut app, &format!("write {}", tui.display()));
        assert!(app.popup().is_none(), "{id}: {:?}", app.popup());
        let notice = app.notice().unwrap_or_default().to_string();
        let fingerprint = app.anonymize().view.as_ref().unwrap().fingerprint.clone();
        assert!(notice.contains(&fingerprint), "{id}: {notice}");
        assert!(
            notice.contains(&tui.display().to_string()),
            "{id}: {notice}"
        );

        let cli_dir = dir.path().join(id).join("cli");
        std::fs::create_dir_all(&cli_dir).unwrap();
        let cli = cli_dir.join("release.csv");
        publish_project(&project, &cli);
        assert_eq!(bytes(&tui), bytes(&cli), "{id}: the published table");
        assert_eq!(
            bytes(&tui.with_extension("json")),
            bytes(&cli.with_extension("json")),
            "{id}: the release JSON"
        );
        let (tb, cb) = (buckets_path(&tui), buckets_path(&cli));
        assert_eq!(tb.exists(), cb.exists(), "{id}: the bucket table");
        if cb.exists() {
            bucketized += 1;
            assert_eq!(bytes(&tb), bytes(&cb), "{id}: the bucket table");
            assert!(notice.contains("release.buckets.csv"), "{id}: {notice}");
        }
    }
    assert!(bucketized > 0, "no algorithm wrote a bucket table");
}

#[test]
fn write_refuses_without_a_release_for_the_session_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(Session::demo().unwrap())
        .unwrap()
        .with_project_path(dir.path().join("p.json"));
    app.step(&Action::Resize(120, 40));
    // Nothing computed yet.
    app.step(&Action::WriteRelease);
    let p = app.popup().expect("refused with a reason").clone();
    assert!(p.message.contains("no release yet"), "{}", p.message);
    app.step(&Action::Cancel);

    // Computed, then the session changes: the release on screen is stale
    // until the new one is shown (no prefetch: k + 1 is not ready at once).
    app.set_prefetch(false);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    run_to_done(&mut app);
    app.step(&Action::AdjustK(1));
    app.step(&Action::WriteRelease);
    let p = app.popup().expect("refused with a reason").clone();
    assert!(
        p.message.contains("not the one of the session"),
        "{}",
        p.message
    );
    app.step(&Action::Cancel);
    assert!(!dir.path().join("anonlab-release").exists());

    // Once shown: written beside the project file by default.
    run_to_done(&mut app);
    app.step(&Action::WriteRelease);
    assert!(app.popup().is_none(), "{:?}", app.popup());
    let out = dir.path().join("anonlab-release");
    assert!(out.join("release.csv").exists());
    assert!(out.join("release.json").exists());

    // The data file is an input: never written over.
    let csv = dir.path().join("people.csv");
    std::fs::write(
        &csv,
        "sex,age,zip\nF,34,1001\nM,34,1001\nM,51,1002\nF,51,1002\n",
    )
    .unwrap();
    let mut app = App::new(Session::open(&csv, anonlab::data::CsvOptions::default()).unwrap())
        .unwrap()
        .with_project_path(dir.path().join("q.json"));
    app.step(&Action::Resize(120, 40));
    command(&mut app, "k 2");
    app.step(&Action::ShowScreen(Screen::Data));
    app.step(&Action::SetRole(anonlab::data::Role::QuasiIdentifier));
    app.step(&Action::ShowScreen(Screen::Anonymize));
    run_to_done(&mut app);
    let before = bytes(&csv);
    command(&mut app, &format!("write {}", csv.display()));
    assert!(
        app.popup().is_some(),
        "writing over the data file is refused"
    );
    assert_eq!(bytes(&csv), before);
}

/// A release the independent verifier refutes is never written: here a
/// Mondrian release whose k claim is raised past its smallest class (as a
/// faulty algorithm would claim), measured again by `anonymize::evaluate`
/// — the real verifier — and delivered to the app as its run's answer.
#[test]
fn write_refuses_a_release_the_verifier_refuted() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(Session::demo().unwrap())
        .unwrap()
        .with_project_path(dir.path().join("p.json"));
    app.step(&Action::Resize(120, 40));
    app.set_prefetch(false);
    choose_algorithm(&mut app, "mondrian");
    run_to_done(&mut app);
    let mut view = app.anonymize().view.clone().unwrap();
    let mut release = (*view.release).clone();
    let smallest = release.group_sizes().into_iter().min().unwrap() as u32;
    for c in &mut release.claims {
        if let Guarantee::KAnonymity { k } = c {
            *k = smallest + 1;
        }
    }
    let ds = app.dataset().clone();
    let measure = Measure {
        queries: 0,
        query_seed: 0,
        ..Default::default()
    };
    view.evaluation = evaluate(&release, &ds, 0.0, &measure, &Progress::new()).unwrap();
    assert!(!view.evaluation.verification.all_hold());
    view.checks = verification_lines(&view.evaluation.verification.checks, release.claims.len());
    view.release = std::sync::Arc::new(release);
    // The run the app waits for answers with the refuted release.
    app.step(&Action::Recompute);
    let JobState::Running { id, .. } = *app.anonymize().job.state() else {
        panic!("{:?}", app.anonymize().job)
    };
    app.on_worker(JobMsg::Anonymize(AnonymizeMsg::Run(WorkerMsg::Done {
        id,
        output: Box::new(view),
        elapsed: Duration::ZERO,
    })));
    assert_eq!(app.anonymize().job, JobState::Done);
    // The screen says it, and :write and W refuse, naming the claim.
    let t = text(&render(&app));
    assert!(t.contains("FAIL") || t.contains("fail"), "{t}");
    let out = dir.path().join("out").join("release.csv");
    command(&mut app, &format!("write {}", out.display()));
    let p = app.popup().expect("refused with a reason").clone();
    assert!(p.message.contains("refuted"), "{}", p.message);
    assert!(
        p.message.contains(&format!("{}-anonymity", smallest + 1)),
        "{}",
        p.message
    );
    app.step(&Action::Cancel);
    app.step(&Action::WriteRelease);
    assert!(app.popup().is_some());
    assert!(!out.exists());
    assert!(!dir.path().join("anonlab-release").exists());
}
