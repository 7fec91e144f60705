//! Screen tests of live tuning and the k/l sweep on the Anonymize screen:
//! the app runs on the embedded demo (sex, age and zip quasi-identifiers,
//! disease sensitive with 10 values, 1,500 rows), is driven with actions,
//! drawn into ratatui's `TestBackend` and checked line by line and with
//! insta snapshots. The figures a sweep cell shows are checked against
//! `anonymize::run` + `anonymize::evaluate` for the cell's (k, l), computed
//! here independently of the TUI.
#![cfg(feature = "tui")]

use crate::common;

use std::sync::mpsc;
use std::time::Duration;

use anonlab::algorithms::Request;
use anonlab::anonymize::{self, Measure};
use anonlab::charts;
use anonlab::data::Role;
use anonlab::progress::Progress;
use anonlab_tui::{
    Action, App, JobState, Param, Screen, SweepCell, SweepMetric, MAX_SWEEP_L, SWEEP_KS,
};
use common::screen::{choose_algorithm, demo, masked_text, render, run_to_done, text};

/// The demo on the Anonymize screen with `algorithm`, its run finished,
/// and the sweep opened and computed (inline jobs run to the end).
fn swept(algorithm: &str) -> App {
    let mut app = demo(140, 44);
    choose_algorithm(&mut app, algorithm);
    run_to_done(&mut app);
    app.step(&Action::ToggleSweep);
    assert!(app.sweep().open);
    app.run_pending_jobs_blocking();
    assert_eq!(app.sweep().job, JobState::Done);
    app
}

/// The request the demo's roles make at (k, l), as the TUI builds it for
/// algorithms that do not read the semi-sensitive cells.
fn request(app: &App, k: u32, l: u32) -> Request<'_> {
    let roles = app.roles();
    Request {
        ds: app.dataset(),
        qi: roles.with(Role::QuasiIdentifier),
        sensitive: roles.with(Role::Sensitive),
        identifiers: roles.with(Role::Identifier),
        k,
        l,
        seed: app.params().seed,
        options: Default::default(),
    }
}

#[test]
fn the_sweep_grid_on_the_demo() {
    let app = swept("mondrian-l");
    let s = app.sweep();
    let ks: Vec<u32> = SWEEP_KS.to_vec();
    assert_eq!(s.ks, ks, "the demo has 1,500 rows: every preset k");
    // disease has 10 values: l runs to the cap.
    let ls: Vec<Option<u32>> = (1..=MAX_SWEEP_L).map(Some).collect();
    assert_eq!(s.ls, ls);
    // The cursor starts at the session's point: k = 5, l = 2.
    assert_eq!(s.cursor, (2, 1));
    let t = text(&render(&app));
    for needle in [
        "k/l sweep: mondrian-l",
        "colour: mean breach probability (m)",
        "k \\ l",
        "l = 1",
        "l = 6",
        "k = 100",
        "k = 5, l = 2",
        "Enter uses this point",
        "42 of 42 points",
    ] {
        assert!(t.contains(needle), "no {needle:?} in\n{t}");
    }
    insta::assert_snapshot!(masked_text(&app));
}

#[test]
fn a_cell_shows_what_anonymize_evaluate_gives_for_its_k_and_l() {
    let app = swept("mondrian-l");
    let s = app.sweep();
    let ds = app.dataset();
    let skip_queries = Measure {
        queries: 0,
        query_seed: app.params().seed,
        ..Default::default()
    };
    let mut checked = 0;
    for (r, &k) in s.ks.iter().enumerate() {
        for (c, &l) in s.ls.iter().enumerate() {
            let req = request(&app, k, l.unwrap());
            let ran = anonymize::run("mondrian-l", &req, &Progress::new());
            match (&s.cells[r][c], ran) {
                (SweepCell::Done(f), Ok((release, ms))) => {
                    let e = anonymize::evaluate(&release, ds, ms, &skip_queries, &Progress::new())
                        .unwrap();
                    let b = e.breach.as_ref().unwrap();
                    assert_eq!(f.mean_breach, Some(b.summary.mean), "k={k} l={l:?}");
                    assert_eq!(f.max_breach, Some(b.summary.max));
                    assert_eq!(f.mean_reid, e.reidentification.summary.mean);
                    assert_eq!(f.discernibility, e.utility.discernibility);
                    assert_eq!(f.mean_ncp, e.utility.gcp);
                    assert_eq!(f.groups, e.groups);
                    assert_eq!(f.verified, e.verification.all_hold());
                    checked += 1;
                }
                (SweepCell::Infeasible(why), Err(err)) => assert_eq!(*why, err.to_string()),
                (cell, ran) => panic!("k={k} l={l:?}: {cell:?} but the run gave {ran:?}"),
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn a_refused_point_is_marked_and_says_why_when_focused() {
    // Anatomy needs the most frequent disease (Flu, 251 of 1,500) on at
    // most 1/l of the rows: 251/1,500 > 1/6, so l = 6 is refused.
    let mut app = swept("anatomy");
    let last_l = app.sweep().ls.len() - 1;
    for _ in 0..last_l {
        app.step(&Action::Right);
    }
    let Some(SweepCell::Infeasible(why)) = app.sweep().focused().cloned() else {
        panic!("l = 6 is feasible? {:?}", app.sweep().focused());
    };
    let t = text(&render(&app));
    assert!(t.contains("[✗]"), "{t}");
    assert!(t.contains("the algorithm refused this point"), "{t}");
    let first_words: String = why.chars().take(20).collect();
    assert!(t.contains(&first_words), "{first_words:?} not in\n{t}");
    // The chart gets no value there.
    let (_, _, ls, cells) = app.sweep().heatmap().unwrap();
    assert_eq!(ls.last(), Some(&6));
    assert_eq!(cells[last_l][app.sweep().cursor.0], None);
}

#[test]
fn enter_on_a_cell_sets_k_and_l_and_runs_them() {
    let mut app = swept("mondrian-l");
    // From (k = 5, l = 2) to (k = 10, l = 3).
    app.step(&Action::Down);
    app.step(&Action::Right);
    app.step(&Action::Confirm);
    assert_eq!((app.params().k, app.params().l), (10, 3));
    assert!(!app.sweep().open, "the grid closes on the chosen point");
    assert!(matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!((view.inputs.k, view.inputs.l), (10, Some(3)));
    let t = text(&render(&app));
    assert!(t.contains("mondrian-l k=10 l=3"), "{t}");
    // The grid is kept: k and l are its axes, not its inputs.
    app.step(&Action::ToggleSweep);
    assert_eq!(app.sweep().job, JobState::Done);
    assert_eq!(app.sweep().counts(), (42, 42));
}

#[test]
fn m_cycles_the_measure_and_the_chart_follows_it() {
    let mut app = swept("mondrian");
    // Mondrian reads no l: one column, at l = 1 in the chart.
    assert_eq!(app.sweep().ls, vec![None]);
    for metric in [
        SweepMetric::Discernibility,
        SweepMetric::Ncp,
        SweepMetric::Risk,
    ] {
        app.step(&Action::CycleMeasure(1));
        assert_eq!(app.sweep().metric, metric);
        let (name, ks, ls, cells) = app.sweep().heatmap().unwrap();
        assert_eq!(ls, vec![1]);
        assert!(cells[0].iter().all(Option::is_some));
        assert!(charts::sweep_heatmap(&name, &ks, &ls, cells).is_ok());
        let t = text(&render(&app));
        assert!(t.contains(&format!("colour: {name} (m)")), "{t}");
    }
}

#[test]
fn esc_stops_the_sweep_r_resumes_and_a_new_algorithm_starts_afresh() {
    let mut app = demo(140, 44);
    choose_algorithm(&mut app, "mondrian-l");
    run_to_done(&mut app);
    app.step(&Action::ToggleSweep);
    assert!(app.sweep().job.is_running());
    app.step(&Action::Cancel);
    assert_eq!(app.sweep().job, JobState::Cancelled);
    assert!(app.sweep().open);
    assert!(text(&render(&app)).contains("stopped at 0 of 42 points: R resumes"));
    // Nothing is left queued.
    app.run_pending_jobs_blocking();
    assert_eq!(app.sweep().counts(), (0, 42));
    app.step(&Action::Recompute);
    app.run_pending_jobs_blocking();
    assert_eq!(app.sweep().counts(), (42, 42));
    // Another algorithm: a grid of its own.
    app.step(&Action::CycleAlgorithm(1));
    assert_eq!(app.anonymize().choice().id, "mondrian-distinct-l");
    assert_eq!(app.sweep().counts().0, 0);
    assert!(app.sweep().job.is_running());
    // Esc twice: stop, then close.
    app.step(&Action::Cancel);
    app.step(&Action::Cancel);
    assert!(!app.sweep().open);
}

#[test]
fn the_focused_parameter_is_what_left_and_right_change() {
    let mut app = demo(140, 44);
    choose_algorithm(&mut app, "mondrian-l");
    run_to_done(&mut app);
    assert_eq!(app.anonymize().focused(), Param::K);
    app.step(&Action::Right);
    assert_eq!((app.params().k, app.params().l), (6, 2));
    app.step(&Action::FocusParam);
    assert_eq!(app.anonymize().focused(), Param::L);
    app.step(&Action::Right);
    app.step(&Action::Right);
    app.step(&Action::Left);
    assert_eq!((app.params().k, app.params().l), (6, 3));
    // The old keys still change k and l whatever the focus.
    app.step(&Action::AdjustK(1));
    app.step(&Action::AdjustL(1));
    assert_eq!((app.params().k, app.params().l), (7, 4));
    app.step(&Action::AdjustK(-1));
    app.step(&Action::AdjustL(-1));
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!((view.inputs.k, view.inputs.l), (6, Some(3)));
    let t = text(&render(&app));
    let l_line = t.lines().find(|l| l.contains("│l ")).unwrap();
    assert!(l_line.contains("3  ← →"), "{l_line}");
    insta::assert_snapshot!(masked_text(&app));

    // FocusParam cycles k, l, k; an algorithm without l keeps k focused.
    app.step(&Action::FocusParam);
    assert_eq!(app.anonymize().focused(), Param::K);
    app.step(&Action::FocusParam);
    app.step(&Action::CycleAlgorithm(-1));
    assert_eq!(app.anonymize().choice().id, "mondrian");
    assert_eq!(app.anonymize().focused(), Param::K);
    app.step(&Action::Left);
    assert_eq!((app.params().k, app.params().l), (5, 3));
}

/// The app on its background threads, as the terminal program runs it.
fn threaded(app: &mut App) -> mpsc::Receiver<anonlab_tui::JobMsg> {
    let (tx, rx) = mpsc::channel();
    app.start_worker(move |m| {
        let _ = tx.send(m);
    })
    .unwrap();
    rx
}

#[test]
fn two_quick_presses_show_only_the_last_inputs() {
    let mut app = demo(140, 44);
    choose_algorithm(&mut app, "mondrian");
    let rx = threaded(&mut app);
    let wait = |app: &mut App| {
        while app.anonymize().job.is_running() {
            let m = rx.recv_timeout(Duration::from_secs(60)).unwrap();
            app.on_worker(m);
        }
    };
    wait(&mut app);
    assert_eq!(app.anonymize().view.as_ref().unwrap().inputs.k, 5);
    // Two presses before any result: the first run is superseded.
    app.step(&Action::Right);
    let first = app.anonymize().job.state().clone();
    app.step(&Action::Right);
    assert_ne!(app.anonymize().job, first);
    wait(&mut app);
    assert_eq!(app.anonymize().job, JobState::Done);
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.inputs, app.anonymize_inputs());
    assert_eq!(view.inputs.k, 7);
    // A late message of the first run changes nothing.
    while let Ok(m) = rx.recv_timeout(Duration::from_millis(200)) {
        app.on_worker(m);
    }
    assert_eq!(app.anonymize().view.as_ref().unwrap().inputs.k, 7);
    let t = text(&render(&app));
    assert!(t.contains("ok   7-anonymity"), "{t}");
    assert!(!t.contains("(out of date)"), "{t}");
}

#[test]
fn the_sweep_command_opens_the_grid_from_any_screen() {
    let mut app = demo(140, 44);
    assert_eq!(app.screen(), Screen::Data);
    let command = app.parse_command("sweep").unwrap();
    assert_eq!(app.run_command(command.clone()), Ok(()));
    assert_eq!(app.screen(), Screen::Anonymize);
    assert!(app.sweep().open);
    // Again: it stays open.
    assert_eq!(app.run_command(command), Ok(()));
    assert!(app.sweep().open);
    assert!(app.parse_command("sweep now").is_err());
}

#[test]
fn help_lists_the_live_tuning_and_sweep_keys() {
    let mut app = demo(140, 44);
    app.step(&Action::ShowScreen(Screen::Anonymize));
    app.step(&Action::ToggleHelp);
    let t = text(&render(&app));
    for help in [
        "focused parameter + 1",
        "focus the next parameter",
        "open/close the k/l sweep",
        "sweep: colour by the next measure",
    ] {
        assert!(t.contains(help), "help lacks {help:?}\n{t}");
    }
}

/// The demo on the Anonymize screen with `algorithm`, its run and the
/// neighbour prefetch finished (inline jobs run the prefetch slot too).
fn prefetched(algorithm: &str) -> App {
    let mut app = demo(140, 44);
    choose_algorithm(&mut app, algorithm);
    run_to_done(&mut app);
    assert!(!app.prefetch().is_busy());
    app
}

/// The current inputs with k (or l) moved by `by`.
fn moved(app: &App, by_k: i64, by_l: i64) -> anonlab_tui::AnonymizeInputs {
    let mut i = app.anonymize_inputs();
    i.k = (i64::from(i.k) + by_k) as u32;
    i.l = i.l.map(|l| (i64::from(l) + by_l) as u32);
    i
}

#[test]
fn after_a_run_the_focused_parameters_neighbours_are_cached() {
    let mut app = prefetched("mondrian-l");
    assert_eq!(app.params().k, 5);
    for by in [-1, 1] {
        let n = moved(&app, by, 0);
        let Some(Ok(view)) = app.release_cache().get(&n) else {
            panic!(
                "k{by:+}: {:?}",
                app.release_cache().get(&n).map(|o| o.is_ok())
            );
        };
        assert_eq!(view.inputs, n);
    }
    // l's neighbours are not computed while k is focused ...
    assert!(app.release_cache().get(&moved(&app, 0, 1)).is_none());
    // ... and are once it is.
    app.step(&Action::FocusParam);
    app.run_pending_jobs_blocking();
    assert!(matches!(
        app.release_cache().get(&moved(&app, 0, 1)),
        Some(Ok(_))
    ));
    assert!(matches!(
        app.release_cache().get(&moved(&app, 0, -1)),
        Some(Ok(_))
    ));
}

#[test]
fn a_press_onto_a_prefetched_value_shows_what_a_fresh_run_gives_without_a_run() {
    let mut app = prefetched("mondrian-l");
    app.step(&Action::Right);
    assert_eq!(app.params().k, 6);
    // Shown at once: no anonymize job; the query workload follows once
    // the frame is drawn.
    assert_eq!(app.anonymize().job, JobState::Done);
    assert!(!matches!(
        app.anonymize().queries,
        anonlab_tui::QueriesState::Running { .. }
    ));
    app.after_draw();
    assert!(matches!(
        app.anonymize().queries,
        anonlab_tui::QueriesState::Running { .. }
    ));
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.inputs, app.anonymize_inputs());
    let req = request(&app, 6, 2);
    let (release, ms) = anonymize::run("mondrian-l", &req, &Progress::new()).unwrap();
    assert_eq!(*view.release, release);
    let skip_queries = Measure {
        queries: 0,
        query_seed: app.params().seed,
        ..Default::default()
    };
    let e =
        anonymize::evaluate(&release, app.dataset(), ms, &skip_queries, &Progress::new()).unwrap();
    let shown = &view.evaluation;
    assert_eq!(shown.groups, e.groups);
    assert_eq!(shown.verification.all_hold(), e.verification.all_hold());
    assert_eq!(
        shown.breach.as_ref().unwrap().summary.mean,
        e.breach.as_ref().unwrap().summary.mean
    );
    assert_eq!(
        shown.reidentification.summary.mean,
        e.reidentification.summary.mean
    );
    assert_eq!(shown.utility.discernibility, e.utility.discernibility);
    assert_eq!(shown.utility.gcp, e.utility.gcp);
    let t = text(&render(&app));
    assert!(t.contains("mondrian-l k=6 l=2"), "{t}");
    // The new neighbours follow; k = 5, left, is still cached.
    app.run_pending_jobs_blocking();
    assert!(matches!(
        app.release_cache().get(&moved(&app, 1, 0)),
        Some(Ok(_))
    ));
    app.step(&Action::Left);
    assert_eq!(app.anonymize().job, JobState::Done);
    assert_eq!(app.anonymize().view.as_ref().unwrap().inputs.k, 5);
}

#[test]
fn a_refused_neighbour_is_cached_as_the_refusal() {
    // Anatomy refuses l = 6 on the demo (Flu: 251 of 1,500 rows > 1/6).
    let mut app = demo(140, 44);
    choose_algorithm(&mut app, "anatomy");
    app.step(&Action::FocusParam);
    assert_eq!(app.anonymize().focused(), Param::L);
    app.step(&Action::AdjustL(3));
    run_to_done(&mut app);
    assert_eq!(app.params().l, 5);
    let six = moved(&app, 0, 1);
    let Some(Err(why)) = app.release_cache().get(&six).cloned() else {
        panic!("l = 6 not cached as refused");
    };
    app.step(&Action::Right);
    assert_eq!(app.anonymize().job, JobState::Failed);
    assert_eq!(app.anonymize().error, Some((six, why)));
}

#[test]
fn a_role_change_empties_the_cache_and_the_next_run_misses_it() {
    let mut app = prefetched("mondrian-l");
    assert!(!app.release_cache().is_empty());
    app.step(&Action::ShowScreen(Screen::Data));
    app.step(&Action::SetRole(Role::Insensitive));
    assert!(app.release_cache().is_empty());
    assert!(!app.prefetch().is_busy());
}

#[test]
fn with_the_prefetch_off_nothing_is_computed_ahead() {
    let mut app = demo(140, 44);
    app.set_prefetch(false);
    choose_algorithm(&mut app, "mondrian-l");
    run_to_done(&mut app);
    assert!(app.release_cache().is_empty());
    app.step(&Action::Right);
    assert!(matches!(
        app.anonymize().job.state(),
        JobState::Running { .. }
    ));
    run_to_done(&mut app);
    assert!(app.release_cache().is_empty());
}
