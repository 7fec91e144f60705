use super::*;

fn key(code: KeyCode, mods: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, mods))
}

#[test]
fn documented_keys_map_to_their_actions() {
    let km = KeyMap::default();
    let on = |screen, code| km.translate(screen, &key(code, KeyModifiers::NONE));
    let ch = KeyCode::Char;
    assert_eq!(on(Screen::Data, ch('j')), Some(Action::Down));
    assert_eq!(on(Screen::Data, KeyCode::Down), Some(Action::Down));
    assert_eq!(on(Screen::Data, ch('G')), Some(Action::Last));
    assert_eq!(on(Screen::Data, ch('r')), Some(Action::CycleRole));
    assert_eq!(
        on(Screen::Data, ch('Q')),
        Some(Action::SetRole(Role::QuasiIdentifier))
    );
    assert_eq!(on(Screen::Data, ch(' ')), Some(Action::ToggleSensitivity));
    assert_eq!(on(Screen::Risk, ch(' ')), Some(Action::ToggleKnown));
    assert_eq!(on(Screen::Risk, ch('K')), Some(Action::MoveKnownUp));
    assert_eq!(
        on(Screen::Risk, ch('2')),
        Some(Action::ShowScreen(Screen::Risk))
    );
    assert_eq!(on(Screen::Data, ch('q')), Some(Action::Quit));
    assert_eq!(on(Screen::Data, KeyCode::Esc), Some(Action::Cancel));
    assert_eq!(on(Screen::Data, ch('x')), None);
    // Role keys belong to the Data screen only.
    assert_eq!(on(Screen::Risk, ch('i')), None);
    assert_eq!(
        on(Screen::Data, ch('3')),
        Some(Action::ShowScreen(Screen::Anonymize))
    );
    assert_eq!(
        on(Screen::Anonymize, ch('a')),
        Some(Action::CycleAlgorithm(1))
    );
    assert_eq!(on(Screen::Anonymize, ch(']')), Some(Action::AdjustK(1)));
    assert_eq!(on(Screen::Anonymize, KeyCode::Right), Some(Action::Right));
    assert_eq!(on(Screen::Anonymize, ch('-')), Some(Action::AdjustL(-1)));
    // `s` is a role on the Data screen and the seed here.
    assert_eq!(on(Screen::Anonymize, ch('s')), Some(Action::NextSeed));
    assert_eq!(on(Screen::Anonymize, ch('p')), Some(Action::AdjustP(1)));
    assert_eq!(on(Screen::Anonymize, ch('P')), Some(Action::AdjustP(-1)));
    assert_eq!(on(Screen::Risk, ch('w')), Some(Action::SaveProject));
    let ctrl_s = key(KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert_eq!(
        km.translate(Screen::Data, &ctrl_s),
        Some(Action::SaveProject)
    );
}

#[test]
fn shift_on_letters_and_ctrl_are_understood() {
    let km = KeyMap::default();
    let shifted = key(KeyCode::Char('S'), KeyModifiers::SHIFT);
    assert_eq!(
        km.translate(Screen::Data, &shifted),
        Some(Action::SetRole(Role::SemiSensitive))
    );
    let ctrl_c = key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(km.translate(Screen::Risk, &ctrl_c), Some(Action::Quit));
    let back = key(KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(km.translate(Screen::Data, &back), Some(Action::PrevScreen));
    let release = Event::Key(KeyEvent::new_with_kind(
        KeyCode::Char('q'),
        KeyModifiers::NONE,
        KeyEventKind::Release,
    ));
    assert_eq!(km.translate(Screen::Data, &release), None);
}

#[test]
fn wheel_scrolls_the_table() {
    let km = KeyMap::default();
    let wheel = Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 0,
        row: 0,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(
        km.translate(Screen::Data, &wheel),
        Some(Action::Scroll(WHEEL_ROWS))
    );
}

#[test]
fn no_input_is_bound_twice_in_one_scope() {
    let km = KeyMap::default();
    for (i, a) in km.bindings.iter().enumerate() {
        for b in &km.bindings[i + 1..] {
            if a.scope == b.scope {
                for input in &a.inputs {
                    assert!(!b.inputs.contains(input), "{input:?} bound twice");
                }
            }
        }
    }
}

#[test]
fn help_is_generated_from_the_table() {
    let km = KeyMap::default();
    let help = km.help(Screen::Data);
    assert!(help.iter().any(|l| l.keys == "k ↑" && l.help == "row up"));
    assert!(help
        .iter()
        .any(|l| l.keys == "q Ctrl-c" && l.help.starts_with("quit")));
    assert!(!help.iter().any(|l| l.help == "recompute"));
}

#[test]
fn a_dialog_takes_typed_characters_but_keeps_its_own_keys() {
    let km = KeyMap::default();
    let on = |code, mods| km.translate_dialog(&key(code, mods));
    let none = KeyModifiers::NONE;
    assert_eq!(on(KeyCode::Char('q'), none), Some(Action::TypeChar('q')));
    assert_eq!(
        on(KeyCode::Char('>'), KeyModifiers::SHIFT),
        Some(Action::TypeChar('>'))
    );
    assert_eq!(on(KeyCode::Enter, none), Some(Action::Confirm));
    assert_eq!(on(KeyCode::Backspace, none), Some(Action::DeleteChar));
    assert_eq!(on(KeyCode::Esc, none), Some(Action::Cancel));
    assert_eq!(on(KeyCode::Tab, none), Some(Action::Complete));
    assert_eq!(
        on(KeyCode::Char('c'), KeyModifiers::CONTROL),
        Some(Action::Quit)
    );
    assert_eq!(on(KeyCode::Char('x'), KeyModifiers::ALT), None);
    assert_eq!(km.keys_for(Scope::Dialog, Action::Down), "↓");
    assert_eq!(km.keys_for(Scope::Dialog, Action::Complete), "Tab");
    assert_eq!(
        km.translate(Screen::Data, &key(KeyCode::Char('m'), none)),
        Some(Action::MarkCells)
    );
}
