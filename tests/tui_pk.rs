//! Screen tests of p-sensitive k-anonymity and ARP on the Anonymize
//! screen: the p control with Condition 2's maxClusters next to
//! it, computed over every sensitive attribute of the session and checked
//! against `pk::max_clusters` called directly; a p the data rule out,
//! refused with the conditions' message; a pk-enhanced run that the
//! verifier accepts, its clusters counted here from the data, with IL, Div
//! and Hom in the figures; an ARP run with its GLP; p saved in the project.
//! The app runs on the embedded demo, driven with actions, drawn into
//! ratatui's `TestBackend`; times and the query error are masked in the
//! snapshots.
#![cfg(feature = "tui")]

use crate::common;

use anonlab::algorithms::pk::{self, PkBound, PkOptions};
use anonlab::data::{Project, Role};
use anonlab::session::Session;
use anonlab_tui::{Action, App, JobState, Screen};
use common::screen::{choose_algorithm, render, text, thousands};

/// The demo at 140×44 on the Data screen.
fn demo() -> App {
    let mut app = App::new(Session::demo().unwrap()).unwrap();
    app.step(&Action::Resize(140, 44));
    app
}

/// Occupation (semi-sensitive in the demo) made sensitive too, so the
/// pk algorithms see two sensitive attributes: disease and occupation.
fn with_two_sensitive(mut app: App) -> App {
    app.step(&Action::ShowScreen(Screen::Data));
    let c = app.dataset().column_index("occupation").unwrap();
    app.step(&Action::RowStart);
    for _ in 0..c {
        app.step(&Action::Right);
    }
    assert_eq!(app.data_view().col, c);
    app.step(&Action::SetRole(Role::Sensitive));
    assert_eq!(app.roles().get(c), Role::Sensitive);
    app
}

/// On the Anonymize screen with `algorithm` chosen, every job finished.
fn on(mut app: App, algorithm: &str) -> App {
    choose_algorithm(&mut app, algorithm);
    app.run_pending_jobs_blocking();
    app
}

/// The bound computed directly by the algorithm module, over the
/// session's sensitive columns.
fn direct_bound(app: &App, p: u32) -> PkBound {
    let sensitive = app.roles().with(Role::Sensitive);
    pk::max_clusters(
        app.dataset(),
        &sensitive,
        &PkOptions {
            p,
            ..PkOptions::default()
        },
    )
    .unwrap()
}

/// Replace what follows `label` on a line up to `until` (or the panel's
/// border) with one `#`, so a figure that varies between runs does not break
/// a snapshot.
fn mask(text: &str, label: &str, until: &str) -> String {
    text.lines()
        .map(|l| match l.find(label) {
            Some(at) => {
                let start = at + label.len();
                let rest = &l[start..];
                let end = start
                    + [rest.find(until), rest.find('│')]
                        .into_iter()
                        .flatten()
                        .min()
                        .unwrap_or(rest.len());
                // One '#', the width it frees moved before the border, so
                // a figure of another length gives the same text.
                let border = l[end..].find('│').map_or(l.len(), |b| end + b);
                let pad = " ".repeat(l[start..end].chars().count().saturating_sub(1));
                format!("{}#{}{pad}{}", &l[..start], &l[end..border], &l[border..])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The screen with the algorithm's time (the paper measures after it stay)
/// and the query error masked.
fn snapshot_text(app: &App) -> String {
    mask(
        &mask(&text(&render(app)), "time ", "  "),
        "query error ",
        "\u{0}",
    )
}

/// The params panel's line starting with `label`.
fn panel_line(t: &str, label: &str) -> String {
    t.lines()
        .find_map(|l| {
            let inner = l.strip_prefix('│')?;
            inner
                .starts_with(label)
                .then(|| inner.split('│').next().unwrap().trim_end().to_string())
        })
        .unwrap_or_else(|| panic!("no '{label}' line in\n{t}"))
}

#[test]
fn the_p_control_shows_max_clusters_over_every_sensitive_attribute() {
    let mut app = on(with_two_sensitive(demo()), "pk-enhanced");
    assert_eq!(app.params().p, 2, "the default p");
    let bound = direct_bound(&app, 2);
    assert!(bound.feasible());
    assert_eq!(bound.per_attribute.len(), 2, "disease and occupation");
    assert_eq!(app.anonymize().pk_bound, Some(Ok(bound.clone())));
    let t = text(&render(&app));
    assert!(panel_line(&t, "p ").contains("p P"), "{t}");
    let line = panel_line(&t, "maxClust");
    assert!(
        line.contains(&format!(" {} ", thousands(bound.max_clusters))),
        "{line}"
    );

    // p + 1 three times: the bound follows, computed afresh.
    for _ in 0..3 {
        app.step(&Action::AdjustP(1));
    }
    app.run_pending_jobs_blocking();
    assert_eq!(app.params().p, 5);
    let bound5 = direct_bound(&app, 5);
    assert_eq!(app.anonymize().pk_bound, Some(Ok(bound5.clone())));
    let t = text(&render(&app));
    assert!(panel_line(&t, "p ").starts_with("p         5"), "{t}");
    let line = panel_line(&t, "maxClust");
    assert!(
        line.contains(&format!(" {} ", thousands(bound5.max_clusters))),
        "{line}"
    );
    // The limiting attribute is named when an i < p attains the bound.
    if let Some(a) = &bound5.limiting {
        assert!(line.contains(&format!("({a})")), "{line}");
    }
    insta::assert_snapshot!(snapshot_text(&app));

    // Roles change the bound: back to disease alone.
    let mut app = with_two_sensitive(app);
    let occ = app.dataset().column_index("occupation").unwrap();
    assert_eq!(app.data_view().col, occ);
    app.step(&Action::SetRole(Role::SemiSensitive));
    app.step(&Action::ShowScreen(Screen::Anonymize));
    let alone = direct_bound(&app, 5);
    assert_eq!(alone.per_attribute.len(), 1);
    assert_eq!(app.anonymize().pk_bound, Some(Ok(alone)));
}

/// The Release panel's text, its lines joined by spaces.
fn release_panel(t: &str) -> String {
    t.lines()
        .skip(2)
        .take(6)
        .filter_map(|l| l.split('│').nth(3).map(str::trim))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_p_the_data_rule_out_is_refused_with_the_conditions_message() {
    let mut app = on(demo(), "pk-enhanced");
    let disease = app.dataset().column_index("disease").unwrap();
    let distinct = app
        .dataset()
        .col(disease)
        .frequencies()
        .iter()
        .filter(|&&f| f > 0)
        .count() as u32;
    // One more than disease's distinct values.
    for _ in app.params().p..=distinct {
        app.step(&Action::AdjustP(1));
    }
    assert_eq!(app.params().p, distinct + 1);
    let bound = direct_bound(&app, distinct + 1);
    assert!(!bound.feasible());
    let expected = pk::check(&bound, app.params().k).unwrap_err().to_string();
    assert!(expected.contains("impossible"), "{expected}");
    assert_eq!(app.anonymize().blocked.as_deref(), Some(expected.as_str()));
    // Nothing runs with it.
    assert_eq!(app.anonymize().job, JobState::Idle);
    app.run_pending_jobs_blocking();
    assert!(app
        .anonymize()
        .view
        .as_ref()
        .is_none_or(|v| v.inputs.p != Some(distinct + 1)));
    let t = text(&render(&app));
    assert!(panel_line(&t, "maxClust").contains("0: p too large"), "{t}");
    // The Release panel gives the whole message (wrapped at spaces).
    assert_eq!(release_panel(&t), expected, "{t}");
    assert!(expected.contains(&format!("lower p to at most {distinct}")));
    assert!(
        t.contains(&format!("pk-enhanced k=5 p={} │", distinct + 1)),
        "{t}"
    );
    insta::assert_snapshot!(snapshot_text(&app));

    // One step down: it runs again.
    app.step(&Action::AdjustP(-1));
    assert!(app.anonymize().blocked.is_none());
    app.run_pending_jobs_blocking();
    let view = app.anonymize().view.as_ref().unwrap();
    assert_eq!(view.inputs.p.unwrap(), distinct);
    assert!(view.evaluation.verification.all_hold());
}

#[test]
fn pk_enhanced_runs_on_both_sensitive_attributes_and_is_verified() {
    let mut app = on(with_two_sensitive(demo()), "pk-enhanced");
    app.step(&Action::AdjustP(1));
    app.run_pending_jobs_blocking();
    let (k, p) = (app.params().k, app.params().p);
    assert_eq!(p, 3);
    let view = app.anonymize().view.as_ref().expect("a release");
    assert_eq!(view.inputs.p.unwrap(), 3);
    assert!(
        view.evaluation.verification.all_hold(),
        "{:?}",
        view.evaluation.verification
    );
    let ds = app.dataset();
    let sensitive = app.roles().with(Role::Sensitive);
    assert_eq!(view.release.sensitive, sensitive);
    // Counted here from the data: every cluster has k rows and p distinct
    // values of each sensitive attribute, every row is published once.
    let mut seen = vec![false; ds.n_rows()];
    for g in &view.release.groups {
        assert!(g.rows.len() >= k as usize);
        for &s in &sensitive {
            let mut values: Vec<u32> = g.rows.iter().map(|&r| ds.col(s).code(r as usize)).collect();
            values.sort_unstable();
            values.dedup();
            assert!(values.len() >= p as usize, "{}", ds.col(s).name());
        }
        for &r in &g.rows {
            assert!(!std::mem::replace(&mut seen[r as usize], true));
        }
    }
    assert!(seen.iter().all(|&s| s));
    let m = view
        .evaluation
        .pk
        .as_ref()
        .expect("IL, Div and Hom measured");
    assert_eq!(m.p, 3);
    // p-sensitive clusters: no homogeneity left.
    assert_eq!(m.groups_not_p_sensitive, 0);
    assert_eq!(m.mean_homogeneity, 0.0);
    let t = text(&render(&app));
    let figures = format!(
        "IL/n {:.3}  Div {:.2}  Hom {:.2}",
        m.information_loss_per_tuple, m.mean_diversity, m.mean_homogeneity
    );
    assert!(t.contains(&figures), "{figures}\n{t}");
    assert!(
        t.contains("p-sensitive") || t.contains("3-sensitive"),
        "{t}"
    );
    insta::assert_snapshot!(snapshot_text(&app));
}

#[test]
fn an_arp_run_shows_its_glp() {
    let app = on(demo(), "arp");
    let view = app.anonymize().view.as_ref().expect("a release");
    assert!(view.evaluation.verification.all_hold());
    let c = view
        .evaluation
        .correspondence
        .as_ref()
        .expect("ARP publishes buckets: GLP is measured");
    assert_eq!(c.attribute, "disease");
    let t = text(&render(&app));
    let line = format!("GLP {:.4}", c.glp);
    assert!(t.contains(&line), "{line}\n{t}");
    // Not a pk algorithm: l, no p control.
    assert!(panel_line(&t, "l ").contains("- +"), "{t}");
    assert!(!t.contains("maxClust"), "{t}");
    insta::assert_snapshot!(snapshot_text(&app));
}

#[test]
fn p_is_saved_in_the_project_and_left_out_at_its_default() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pk.json");
    let mut app = on(demo(), "pk-greedy").with_project_path(path.clone());
    app.step(&Action::SaveProject);
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(
        !raw.contains("\"p\""),
        "the default p is not written: {raw}"
    );

    app.step(&Action::AdjustP(1));
    app.step(&Action::AdjustP(1));
    app.step(&Action::SaveProject);
    let p = Project::load(&path).unwrap();
    assert_eq!(p.params.p, 4);
    assert_eq!(p.params.algorithm.as_deref(), Some("pk-greedy"));
    let back = App::new(Session::from_project(&p).unwrap()).unwrap();
    assert_eq!(back.params().p, 4);
    let back = on(back, "pk-greedy");
    let view = back.anonymize().view.as_ref().expect("a release");
    assert_eq!(view.inputs.p.unwrap(), 4);
    assert!(view.evaluation.verification.all_hold());
}

#[test]
fn pk_runs_generalize_by_the_sessions_hierarchies() {
    // sex under a middle level: a mixed cluster is published as 'Person',
    // its lowest common ancestor, where the flat scale (no hierarchy) says
    // '*'.
    let rows: Vec<Vec<String>> = ["Female", "Male"]
        .iter()
        .map(|v| vec![v.to_string(), "Person".into(), "*".into()])
        .collect();
    let hierarchy = anonlab::hierarchy::Hierarchy::from_rows("sex", &rows).unwrap();
    let mut session = Session::demo().unwrap();
    session.hierarchies.insert(
        "sex".into(),
        anonlab::session::HeldHierarchy {
            source: anonlab::data::HierarchySource::Inline(rows.clone()),
            hierarchy,
        },
    );
    let mut with = App::new(session).unwrap();
    with.step(&Action::Resize(140, 44));
    let with = on(with, "pk-enhanced");
    let without = on(demo(), "pk-enhanced");
    let sex = with.dataset().column_index("sex").unwrap();
    // Per cluster: how many sexes it holds, and its published sex cell.
    let published = |app: &App| -> Vec<String> {
        let v = app.anonymize().view.as_ref().unwrap();
        assert!(v.evaluation.verification.all_hold());
        let at = v.headers.iter().position(|h| h == "sex").unwrap();
        let col = app.dataset().col(sex);
        let mut first = 0;
        v.release
            .groups
            .iter()
            .map(|g| {
                let sexes: std::collections::BTreeSet<u32> =
                    g.rows.iter().map(|&r| col.code(r as usize)).collect();
                let row = v.row(app.dataset(), first).unwrap();
                first += g.rows.len();
                format!("{}:{}", sexes.len(), row[at])
            })
            .collect()
    };
    // Clusters mixing both sexes: 'Person' with the hierarchy, '*' without.
    let a = published(&with);
    let b = published(&without);
    assert!(a.iter().any(|s| s == "2:Person"), "{a:?}");
    assert!(a.iter().all(|s| s != "2:*"), "{a:?}");
    assert!(b.iter().any(|s| s == "2:*"), "{b:?}");
    assert!(b.iter().all(|s| s != "2:Person"), "{b:?}");
}
