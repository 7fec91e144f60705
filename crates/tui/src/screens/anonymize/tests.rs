use super::*;
use anonlab::session::Session;

#[test]
fn the_pk_bound_is_reused_while_the_roles_and_p_stay() {
    let (mut session, _) = SessionState::new(Session::demo().unwrap()).unwrap();
    let mut s = AnonymizeScreen::new(&session);
    assert!(s.choose("pk-enhanced", &mut session));
    let (ds, roles) = (Arc::clone(session.dataset()), session.roles().clone());
    s.state.refresh_pk_bound(&session);
    let p = session.params().p;
    assert_eq!(s.state.pk_bound, Some(pk_bound(&ds, &roles, p)));
    // A memo is returned as is: a planted one shows it.
    let planted: Result<PkBound, String> = Err("planted".into());
    s.state.pk_memo = Some(((session.generations().roles, p), planted.clone()));
    s.state.refresh_pk_bound(&session);
    assert_eq!(s.state.pk_bound, Some(planted));
    // A new p computes it again.
    session.params_mut().p = p + 1;
    s.state.refresh_pk_bound(&session);
    assert_eq!(s.state.pk_bound, Some(pk_bound(&ds, &roles, p + 1)));
    // Algorithms without p show no bound.
    assert!(s.choose("mondrian", &mut session));
    s.state.refresh_pk_bound(&session);
    assert_eq!(s.state.pk_bound, None);
}

#[test]
fn the_gauge_names_the_phase_of_a_cbg_run() {
    let (mut session, _) = SessionState::new(Session::demo().unwrap()).unwrap();
    let mut s = AnonymizeScreen::new(&session);
    assert!(s.choose("cbg", &mut session));
    assert_eq!(s.state.gauge_label(), None);
    s.request(&session);
    assert_eq!(
        s.state.gauge_label().as_deref(),
        Some("running cbg 0%  (Esc cancels)")
    );
    // The phases CBG names, in order, and the job's own after them: what
    // the gauge reads while each runs.
    let progress = anonlab::progress::Progress::new();
    let inputs = s.inputs(&session);
    release::make_view(session.session(), inputs, &progress).unwrap();
    let phases: Vec<String> = progress.phases().iter().map(|p| p.to_string()).collect();
    assert_eq!(
        phases,
        [
            "building the kd-tree 1/3",
            "grouping the batches 2/3",
            "checking cross-bucket l-diversity 3/3",
            "verifying and measuring the release",
        ]
    );
    assert!(s.state.job.is_running(), "{:?}", s.state.job);
    s.state.job.set_fraction(0.25);
    s.state.phase = progress.phases().get(1).copied();
    assert_eq!(
        s.state.gauge_label().as_deref(),
        Some("running cbg: grouping the batches 2/3, 25%  (Esc cancels)")
    );
}
