//! Full-domain's lattice view on the Anonymize screen, driven through the
//! app's actions on the embedded demo (sex, age and zip quasi-identifiers
//! with hierarchies built on the Hierarchies screen): what it draws is the
//! search's own per-node answer (`SearchReport::lattice`), the cursor
//! walks the lattice's edges, and Enter publishes the focused node — a
//! release that the independent verifier checks, written by `:write` byte
//! for byte as `anonlab anonymize --project` writes it for the saved
//! project, whose `full_domain.node` holds the node's levels.
#![cfg(feature = "tui")]

use crate::common;

use std::path::Path;

use anonlab::algorithms::full_domain::{NodeStatus, SearchReport};
use anonlab_tui::{Action, App};
use common::cli::publish_project;
use common::screen::{
    build_hierarchies, choose_algorithm, command, demo, masked_text, render, run_to_done, text,
};
use ratatui::style::{Color, Modifier};

/// The demo with hierarchies, full-domain run and its lattice open.
fn lattice(width: u16, height: u16) -> App {
    let mut app = demo(width, height);
    build_hierarchies(&mut app);
    choose_algorithm(&mut app, "full-domain");
    run_to_done(&mut app);
    app.step(&Action::ToggleLattice);
    assert!(app.anonymize().lattice.open);
    app
}

fn report(app: &App) -> &SearchReport {
    app.anonymize()
        .view
        .as_ref()
        .and_then(|v| v.full_domain.as_ref())
        .expect("a full-domain search")
}

fn focused(app: &App) -> Vec<usize> {
    app.anonymize().lattice.focus.clone().expect("a focus")
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_lattice_of_the_demo_at_80x24_and_200x50() {
    let app = lattice(80, 24);
    insta::assert_snapshot!("lattice_80x24", masked_text(&app));
    let app = lattice(200, 50);
    let t = text(&render(&app));
    let r = report(&app);
    // Every row of the lattice fits at 200 × 50: the legend's counts are
    // the map's, and each node is drawn once with its status mark.
    let map = &r.lattice;
    let count = |s: NodeStatus| map.nodes.iter().filter(|n| n.status == s).count();
    let checked = map.nodes.iter().filter(|n| n.checked).count();
    for legend in [
        format!("anonymous {}", count(NodeStatus::Anonymous)),
        format!("not anonymous {}", count(NodeStatus::NotAnonymous)),
        format!("{} nodes, {checked} checked", map.len()),
    ] {
        assert!(t.contains(&legend), "no {legend:?} in\n{t}");
    }
    assert_eq!(checked, r.checked);
    for i in 0..map.len() {
        let levels: String = map.vector(i).iter().map(|l| l.to_string()).collect();
        let mark = if map.vector(i) == r.optimum.levels {
            '*'
        } else {
            match map.nodes[i].status {
                NodeStatus::Anonymous => '+',
                NodeStatus::NotAnonymous => '-',
                NodeStatus::Pruned => '?',
            }
        };
        let cell = format!("{mark}{levels}");
        assert_eq!(
            t.matches(&format!(" {cell} ")).count() + t.matches(&format!("[{cell}]")).count(),
            1,
            "{cell} in\n{t}"
        );
    }
    insta::assert_snapshot!("lattice_200x50", masked_text(&app));
}

#[test]
fn nodes_are_coloured_by_what_the_search_found() {
    let app = lattice(200, 50);
    let buf = render(&app);
    let r = report(&app);
    let t = text(&buf);
    let find = |needle: &str| -> (u16, u16) {
        for (y, line) in t.lines().enumerate() {
            if let Some(x) = line.find(needle) {
                return (line[..x].chars().count() as u16, y as u16);
            }
        }
        panic!("no {needle} in\n{t}");
    };
    let packed = |l: &[usize]| l.iter().map(|x| x.to_string()).collect::<String>();
    // The optimum: focused at first (reversed), yellow, in brackets as the
    // published node.
    let (x, y) = find(&format!("[*{}]", packed(&r.optimum.levels)));
    let cell = &buf[(x + 1, y)];
    assert_eq!(cell.fg, Color::Yellow);
    assert!(cell.modifier.contains(Modifier::REVERSED));
    // A checked anonymous node is green and bold; a checked node that is
    // not anonymous red and bold; an inferred one dim.
    let map = &r.lattice;
    for (status, color) in [
        (NodeStatus::Anonymous, Color::Green),
        (NodeStatus::NotAnonymous, Color::Red),
    ] {
        for checked in [true, false] {
            let Some(i) = (0..map.len()).find(|&i| {
                map.nodes[i].status == status
                    && map.nodes[i].checked == checked
                    && map.vector(i) != r.optimum.levels
            }) else {
                continue;
            };
            let mark = if status == NodeStatus::Anonymous {
                '+'
            } else {
                '-'
            };
            let (x, y) = find(&format!(" {mark}{} ", packed(&map.vector(i))));
            let cell = &buf[(x + 1, y)];
            assert_eq!(cell.fg, color, "{:?}", map.vector(i));
            let m = if checked {
                Modifier::BOLD
            } else {
                Modifier::DIM
            };
            assert!(cell.modifier.contains(m), "{:?}", map.vector(i));
        }
    }
}

#[test]
fn the_cursor_walks_the_edges_of_the_lattice() {
    let mut app = lattice(120, 40);
    let r = report(&app).clone();
    let map = &r.lattice;
    assert_eq!(
        focused(&app),
        r.optimum.levels,
        "the focus starts on the optimum"
    );
    let start = map.index(&focused(&app)).unwrap();
    app.step(&Action::Up);
    let up = map.index(&focused(&app)).unwrap();
    assert!(
        map.successors(start).contains(&up),
        "↑: a direct generalization"
    );
    app.step(&Action::Down);
    let down = map.index(&focused(&app)).unwrap();
    assert!(
        map.predecessors(up).contains(&down),
        "↓: a direct specialization"
    );
    app.step(&Action::First);
    assert_eq!(map.index(&focused(&app)), Some(0), "g: the bottom node");
    app.step(&Action::Down);
    assert_eq!(
        map.index(&focused(&app)),
        Some(0),
        "nothing below the bottom"
    );
    app.step(&Action::Last);
    assert_eq!(focused(&app), map.vector(map.len() - 1), "G: the top node");
    app.step(&Action::Right);
    assert_eq!(
        focused(&app),
        map.vector(map.len() - 1),
        "the top row has one node"
    );
    // Within a row ← and → keep the height.
    app.step(&Action::First);
    app.step(&Action::Up);
    let h = map.height(map.index(&focused(&app)).unwrap());
    app.step(&Action::Right);
    assert_eq!(map.height(map.index(&focused(&app)).unwrap()), h);
    // The keys move the lattice's cursor, not k nor the table.
    assert_eq!(app.params().k, 5);
    // Esc closes the view.
    app.step(&Action::Cancel);
    assert!(!app.anonymize().lattice.open);
}

/// Publish the node `levels` from the lattice view: move the cursor there
/// with the view's keys, Enter, run.
fn publish(app: &mut App, levels: &[usize]) {
    let map = report(app).lattice.clone();
    let target = map.index(levels).unwrap();
    // Along the rows: First, then ↑ to the target's height, then → / ←.
    app.step(&Action::First);
    for _ in 0..map.height(target) {
        app.step(&Action::Up);
    }
    let row: Vec<usize> = (0..map.len())
        .filter(|&i| map.height(i) == map.height(target))
        .collect();
    let at = |app: &App| {
        let i = map.index(&focused(app)).unwrap();
        row.iter().position(|&x| x == i).unwrap()
    };
    let goal = row.iter().position(|&x| x == target).unwrap();
    while at(app) != goal {
        let step = if at(app) < goal {
            Action::Right
        } else {
            Action::Left
        };
        app.step(&step);
    }
    assert_eq!(focused(app), levels);
    app.step(&Action::Confirm);
    run_to_done(app);
}

#[test]
fn publishing_a_chosen_node_gives_the_release_anonymize_gives_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.json");
    let mut app = lattice(160, 48).with_project_path(project.clone());
    let r = report(&app).clone();
    let map = &r.lattice;
    // An anonymous node other than the optimum, and one that is not
    // anonymous (every failing class then suppressed past the limit).
    let other = (0..map.len())
        .find(|&i| {
            map.nodes[i].status == NodeStatus::Anonymous && map.vector(i) != r.optimum.levels
        })
        .map(|i| map.vector(i))
        .expect("the demo's lattice has anonymous nodes besides the optimum");
    let failing = (0..map.len())
        .rev()
        .find(|&i| map.nodes[i].status == NodeStatus::NotAnonymous)
        .map(|i| map.vector(i))
        .expect("the demo's lattice has nodes that are not anonymous");
    for (n, levels) in [other, failing].into_iter().enumerate() {
        publish(&mut app, &levels);
        let view = app.anonymize().view.as_ref().unwrap();
        let fd = view.full_domain.as_ref().unwrap();
        let chosen = fd.chosen.as_ref().expect("the chosen node is reported");
        assert_eq!(chosen.node.levels, levels);
        assert_eq!(
            chosen.within_limit,
            map.nodes[map.index(&levels).unwrap()].status == NodeStatus::Anonymous
        );
        assert_eq!(fd.optimum, r.optimum, "the optimum is still the search's");
        assert_eq!(
            view.release.suppressed_rows.len() as u64,
            chosen.node.suppressed_rows
        );
        assert!(
            view.evaluation.verification.all_hold(),
            "{}",
            view.evaluation.verification
        );
        assert_eq!(app.params().full_domain.node.as_deref(), Some(&levels[..]));
        let t = text(&render(&app));
        assert!(t.contains("published (chosen)"), "{t}");
        assert!(t.contains("verified ✓"), "{t}");
        assert!(t.contains("chosen"), "the parameters panel says so:\n{t}");

        // The saved project names the node; anonymize --project writes
        // what :write writes.
        app.step(&Action::SaveProject);
        assert!(app.popup().is_none(), "{:?}", app.popup());
        let saved = std::fs::read_to_string(&project).unwrap();
        assert!(saved.contains("\"node\""), "{saved}");
        let tui = dir.path().join(format!("tui{n}")).join("release.csv");
        command(&mut app, &format!("write {}", tui.display()));
        assert!(app.popup().is_none(), "{:?}", app.popup());
        let cli = dir.path().join(format!("cli{n}.csv"));
        let out = publish_project(&project, &cli);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            stdout.contains("chosen node") || stderr.contains("chosen node"),
            "{stdout}{stderr}"
        );
        assert_eq!(bytes(&tui), bytes(&cli), "the published table");
        assert_eq!(
            bytes(&tui.with_extension("json")),
            bytes(&cli.with_extension("json")),
            "the release JSON"
        );
    }

    // Enter on the optimum publishes it again; undo brings the node back.
    let last = focused(&app);
    publish(&mut app, &r.optimum.levels);
    assert_eq!(app.params().full_domain.node, None);
    assert!(report(&app).chosen.is_none());
    app.step(&Action::Undo);
    assert_eq!(app.params().full_domain.node.as_deref(), Some(&last[..]));
}

#[test]
fn the_lattice_is_full_domains_and_node_commands_reach_it() {
    let mut app = demo(120, 40);
    choose_algorithm(&mut app, "mondrian");
    app.step(&Action::ToggleLattice);
    assert!(!app.anonymize().lattice.open);
    assert!(app.notice().unwrap_or_default().contains("full-domain"));
    build_hierarchies(&mut app);
    command(&mut app, "algo full-domain");
    command(&mut app, "lattice");
    assert!(app.anonymize().lattice.open);
    run_to_done(&mut app);
    // A node outside the lattice is the algorithm's refusal, named.
    command(&mut app, "node 9,9,9");
    assert_eq!(app.params().full_domain.node, Some(vec![9, 9, 9]));
    app.run_pending_jobs_blocking();
    let (_, error) = app.anonymize().error.clone().expect("refused");
    assert!(error.contains("[9, 9, 9]"), "{error}");
    command(&mut app, "node optimum");
    assert_eq!(app.params().full_domain.node, None);
    run_to_done(&mut app);
    // The sweep and the lattice take the same room: one at a time.
    app.step(&Action::ToggleSweep);
    assert!(!app.anonymize().lattice.open);
    app.step(&Action::ToggleLattice);
    assert!(!app.sweep().open);
}

/// Adult's eight quasi-identifiers with its ARX hierarchies bound from
/// their folder: a lattice of 6,480 nodes in rows far wider than a
/// terminal, drawn as windows around the cursor.
#[test]
fn adults_lattice_of_6480_nodes_is_drawn_in_windows_around_the_cursor() {
    use anonlab::data::{CsvOptions, Role};
    use anonlab::session::Session;
    if !common::require(common::have_adult(), "Adult (../shared/data/adult)") {
        return;
    }
    let csv = common::adult_path();
    let mut s = Session::open(&csv, CsvOptions::default()).unwrap();
    for q in common::ADULT_QI8 {
        let c = s.dataset.column_index(q).unwrap();
        s.roles.set(c, Role::QuasiIdentifier);
    }
    let mut app = App::new(s).unwrap();
    app.step(&Action::Resize(120, 40));
    let dir = csv.parent().unwrap().to_path_buf();
    command(&mut app, &format!("hierarchies {}", dir.display()));
    app.step(&Action::Confirm);
    assert_eq!(app.session().hierarchies().len(), 9);
    choose_algorithm(&mut app, "full-domain");
    run_to_done(&mut app);
    app.step(&Action::ToggleLattice);
    let r = report(&app).clone();
    let map = &r.lattice;
    assert_eq!(map.len(), 6480);
    let t = text(&render(&app));
    assert!(t.contains("6,480 nodes"), "{t}");
    let count = |st: NodeStatus| map.nodes.iter().filter(|n| n.status == st).count();
    for legend in [
        format!("anonymous {}", count(NodeStatus::Anonymous)),
        format!("not anonymous {}", count(NodeStatus::NotAnonymous)),
    ] {
        assert!(t.contains(&legend), "no {legend:?} in\n{t}");
    }
    let packed = |l: &[usize]| l.iter().map(|x| x.to_string()).collect::<String>();
    // The focused node is always drawn, reversed, and each row says how
    // many of its nodes lie outside the window on either side.
    let shows_focus = |app: &App| {
        let buf = render(app);
        let t = text(&buf);
        let levels = focused(app);
        let cell = packed(&levels);
        let (y, line) = t
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(&cell))
            .unwrap_or_else(|| panic!("the focus {cell} is not drawn:\n{t}"));
        let x = line[..line.find(&cell).unwrap()].chars().count() as u16;
        assert!(
            buf[(x, y as u16)].modifier.contains(Modifier::REVERSED),
            "{cell} is not reversed"
        );
        let h = map.height(map.index(&levels).unwrap());
        let row_len = (0..map.len()).filter(|&i| map.height(i) == h).count();
        let row_line = t
            .lines()
            .find(|l| l.contains(&format!("h {h:<3}")))
            .unwrap();
        let drawn = row_line
            .split_whitespace()
            .filter(|w| w.trim_matches(['[', ']']).starts_with(['+', '-', '?', '*']))
            .count();
        // "‹7 " before the window, " 84›" after it.
        let before = row_line
            .split_once('‹')
            .and_then(|(_, p)| p.split_whitespace().next()?.parse::<usize>().ok());
        let after = row_line
            .split_once('›')
            .and_then(|(p, _)| p.split_whitespace().last()?.parse::<usize>().ok());
        let hidden = before.unwrap_or(0) + after.unwrap_or(0);
        assert!(
            drawn + hidden == row_len || row_line.contains('…'),
            "row {h}: {drawn} drawn + {hidden} left out != {row_len}:\n{row_line}"
        );
    };
    assert_eq!(focused(&app), r.optimum.levels);
    shows_focus(&app);
    // Along the widest row, end to end.
    let widest = (0..=map.height(map.len() - 1))
        .max_by_key(|&h| (0..map.len()).filter(|&i| map.height(i) == h).count())
        .unwrap();
    app.step(&Action::First);
    for _ in 0..widest {
        app.step(&Action::Up);
    }
    let row_len = (0..map.len()).filter(|&i| map.height(i) == widest).count();
    assert!(row_len > 400, "the widest row has {row_len} nodes");
    for step in 0..row_len {
        if step % 37 == 0 {
            shows_focus(&app);
        }
        app.step(&Action::Right);
    }
    shows_focus(&app);
    app.step(&Action::Last);
    shows_focus(&app);
    // A direct generalization of the optimum is anonymous: published,
    // verified.
    publish(&mut app, &r.optimum.levels);
    app.step(&Action::Up);
    let up = focused(&app);
    assert_ne!(up, r.optimum.levels);
    app.step(&Action::Confirm);
    run_to_done(&mut app);
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(
        view.full_domain
            .as_ref()
            .unwrap()
            .chosen
            .as_ref()
            .unwrap()
            .node
            .levels,
        up
    );
    assert!(
        view.evaluation.verification.all_hold(),
        "{}",
        view.evaluation.verification
    );
    let t = text(&render(&app));
    assert!(t.contains("verified ✓"), "{t}");
}

/// Move the suppression limit (up, else down) until full-domain's optimum
/// moves; the new optimum.
fn move_the_optimum(app: &mut App) -> Vec<usize> {
    let before = report(app).optimum.levels.clone();
    for by in [1, -1] {
        for _ in 0..10 {
            app.step(&Action::AdjustSuppression(by));
            run_to_done(app);
            let now = report(app).optimum.levels.clone();
            if now != before {
                return now;
            }
        }
    }
    panic!("no suppression limit moves the demo's optimum from {before:?}");
}

/// Issue 32, item 7: the view opened on the node the cursor was left on,
/// stale once a change moved the optimum.
#[test]
fn the_lattice_opens_on_the_current_optimum_after_a_change() {
    let mut app = lattice(120, 40);
    let first = report(&app).optimum.levels.clone();
    assert_eq!(focused(&app), first, "the view opens on the optimum");
    // The cursor left on another node, the view closed, the optimum moved.
    app.step(&Action::Last);
    assert_ne!(focused(&app), first);
    app.step(&Action::ToggleLattice);
    assert!(!app.anonymize().lattice.open);
    let moved = move_the_optimum(&mut app);
    app.step(&Action::ToggleLattice);
    assert_eq!(focused(&app), moved);
    assert!(text(&render(&app)).contains("published (the optimum)"));
    // `o` goes back to the optimum from anywhere, and opens the view.
    app.step(&Action::First);
    assert_ne!(focused(&app), moved);
    app.step(&Action::FocusOptimum);
    assert_eq!(focused(&app), moved);
    app.step(&Action::ToggleLattice);
    app.step(&Action::FocusOptimum);
    assert!(app.anonymize().lattice.open);
    assert_eq!(focused(&app), moved);
}

/// While the view is open, a cursor on the optimum follows it to the new
/// one; a cursor the user moved elsewhere stays on its node.
#[test]
fn an_open_lattice_follows_the_optimum_only_from_the_optimum() {
    let mut app = lattice(120, 40);
    let moved = move_the_optimum(&mut app);
    assert_eq!(focused(&app), moved);
    app.step(&Action::First);
    let bottom = focused(&app);
    assert_ne!(bottom, moved);
    let again = move_the_optimum(&mut app);
    assert_ne!(again, moved);
    assert_eq!(focused(&app), bottom, "a node the user chose stays focused");
}
