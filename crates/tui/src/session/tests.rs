use super::*;

#[test]
fn the_most_exposed_come_first_and_at_most_max_listed() {
    let matches: Vec<u32> = (0..(MAX_LISTED as u32 + 10)).map(|r| r % 7 + 1).collect();
    let l = most_exposed(&matches);
    assert_eq!(l.len(), MAX_LISTED);
    assert!(l
        .windows(2)
        .all(|w| (w[0].matches, w[0].row) < (w[1].matches, w[1].row)));
    assert_eq!(l[0], Listed { row: 0, matches: 1 });
    assert!(most_exposed(&[0, 2, 2]).iter().all(|l| l.row != 0));
}

#[test]
fn edits_bump_their_generations_and_jobs_keep_their_copy() {
    let (mut s, _) = SessionState::new(Session::demo().unwrap()).unwrap();
    let held = Arc::clone(s.session());
    let g0 = s.generations();
    s.params_mut().k = 7;
    assert_eq!(held.params.k, Session::demo().unwrap().params.k);
    assert_eq!(s.params().k, 7);
    let g1 = s.generations();
    assert!(g1.session > g0.session);
    assert_eq!(
        (g1.roles, g1.cells, g1.attacker),
        (g0.roles, g0.cells, g0.attacker)
    );
    let occ = s.dataset().column_index("occupation").unwrap();
    s.toggle_cell(occ, 0);
    assert_eq!(s.generations().cells, g1.cells + 1);
    // LGB's inputs follow the cells; Mondrian's do not.
    let lgb = s.current_inputs("lgb-mdp");
    let mondrian = s.current_inputs("mondrian");
    s.toggle_cell(occ, 0);
    assert_ne!(s.current_inputs("lgb-mdp"), lgb);
    assert_eq!(s.current_inputs("mondrian"), mondrian);
}
