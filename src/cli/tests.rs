//! The front ends open one file with one set of roles into one session:
//! `assess`, `anonymize` and the TUI (`anonlab tui FILE`) each build a
//! `RoleSpec` from their flags and open a `Source` (issue 31), so the
//! roles, the attacker and the request every algorithm gets are the same.

use anonlab::data::Role;
use anonlab::session::Session;
use clap::Parser;

use super::{Cli, Command};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.csv");

const ROLES: [&str; 8] = [
    "--qi",
    "zip,age,sex",
    "--sensitive",
    "disease",
    "--semi-sensitive",
    "occupation",
    "--identifier",
    "name",
];

fn parse(command: &str, extra: &[&str]) -> Command {
    let args = ["anonlab", command, DEMO]
        .into_iter()
        .chain(ROLES)
        .chain(extra.iter().copied());
    Cli::try_parse_from(args).unwrap().command.unwrap()
}

fn assess_session(extra: &[&str]) -> Session {
    let Command::Assess(a) = parse("assess", extra) else {
        unreachable!()
    };
    super::assess::session_from_args(&a).unwrap()
}

#[cfg(feature = "tui")]
fn tui_session() -> Session {
    let Command::Tui(a) = parse("tui", &[]) else {
        unreachable!()
    };
    let roles = super::tui::role_spec(&a);
    let source = super::tui::source(&a, std::path::Path::new(DEMO), &roles).unwrap();
    let (s, grouped) = super::tui::session(&source, &roles).unwrap();
    assert!(grouped.is_none(), "a small file is read in memory");
    s
}

/// What a session gives an algorithm, and what it publishes with.
#[cfg(feature = "tui")]
fn same_requests(a: &Session, b: &Session) {
    assert_eq!(a.roles, b.roles);
    assert_eq!(a.attacker.known, b.attacker.known);
    assert_eq!(a.known_columns().unwrap(), b.known_columns().unwrap());
    for algo in anonlab::algorithms::registry() {
        let id = algo.id();
        let (x, y) = (a.request(id, 3, 2).unwrap(), b.request(id, 3, 2).unwrap());
        assert_eq!(x.qi, y.qi, "{id}");
        assert_eq!(x.sensitive, y.sensitive, "{id}");
        assert_eq!(x.identifiers, y.identifiers, "{id}");
        assert_eq!(x.seed, y.seed, "{id}");
        assert_eq!(x.options.semi_sensitive, y.options.semi_sensitive, "{id}");
    }
}

#[cfg(feature = "tui")]
#[test]
fn assess_and_the_tui_open_a_file_into_the_same_session() {
    let assess = assess_session(&[]);
    let tui = tui_session();
    same_requests(&assess, &tui);
    assert_eq!(assess.to_project(), tui.to_project());
    let col = |n| assess.dataset.column_index(n).unwrap();
    assert_eq!(assess.roles.get(col("name")), Role::Identifier);
    assert_eq!(assess.roles.get(col("occupation")), Role::SemiSensitive);
    // The attacker learns the QIs in the order given, then the
    // semi-sensitive attribute.
    assert_eq!(assess.attacker.known, ["zip", "age", "sex", "occupation"]);
}

#[test]
fn anonymize_publishes_with_the_roles_assess_gives() {
    let flag = ["--sensitive-flag", "hide_occupation"];
    let Command::Anonymize(a) = parse("anonymize", &flag) else {
        unreachable!()
    };
    let p = super::anonymize::prepare(&a.columns).unwrap();
    let assess = assess_session(&["--sensitive-flag", "occupation:hide_occupation"]);
    // The same roles, the flag column hidden by both (not published).
    assert_eq!(p.session.roles, assess.roles);
    let hide = assess.dataset.column_index("hide_occupation").unwrap();
    assert_eq!(assess.roles.get(hide), Role::Identifier);
    assert_eq!(
        super::anonymize::published_roles(&p),
        assess.roles.as_slice()
    );
    // And the same sensitive cells.
    let occ = assess.dataset.column_index("occupation").unwrap();
    assert_eq!(
        p.session.sensitive_cells(occ).unwrap(),
        assess.sensitive_cells(occ).unwrap()
    );
}

#[test]
fn a_column_given_two_roles_is_refused_by_every_command_alike() {
    let two = ["--sensitive", "age"];
    let Command::Assess(a) = parse("assess", &two) else {
        unreachable!()
    };
    let e = super::error_message(&super::assess::session_from_args(&a).unwrap_err());
    assert!(
        e.contains("column 'age' is given two roles (quasi-identifier and sensitive)"),
        "{e}"
    );
    #[cfg(feature = "tui")]
    {
        let Command::Tui(a) = parse("tui", &two) else {
            unreachable!()
        };
        let e = super::tui::role_spec(&a).check().unwrap_err().to_string();
        assert!(
            e.contains("column 'age' is given two roles (quasi-identifier and sensitive)"),
            "{e}"
        );
    }
}
