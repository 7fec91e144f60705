use super::*;
use crate::session::Session;

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
