//! Every key and mouse binding of the TUI, in one table.
//!
//! Input becomes an [`Action`] here and nowhere else (STYLE.md, habit 4):
//! screens handle actions, never raw key codes, and tests drive the app with
//! actions. The help overlay is generated from the same table, so the keys
//! it lists cannot drift from the keys that work. The table is a plain
//! value ([`KeyMap::bindings`]) so a user override can replace it later.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::shared::Screen;
use crate::data::Role;

/// Rows moved by one notch of the mouse wheel.
pub const WHEEL_ROWS: i32 = 3;

/// What the user asked for. Applied by [`App::step`](super::App::step).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    ToggleHelp,
    ShowScreen(Screen),
    NextScreen,
    PrevScreen,
    /// Close the popup or help overlay, else cancel the running computation.
    Cancel,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    /// First row.
    First,
    /// Last row.
    Last,
    /// First column.
    RowStart,
    /// Last column.
    RowEnd,
    /// Move the view by this many rows (mouse wheel), the cursor following.
    Scroll(i32),
    /// Give the focused column the next role in [`Role::ALL`].
    CycleRole,
    SetRole(Role),
    /// Mark or unmark the cell under the cursor as a sensitive value
    /// (semi-sensitive columns only).
    ToggleSensitivity,
    /// Add or remove the attribute under the picker cursor from what the
    /// attacker knows.
    ToggleKnown,
    /// Move the attribute under the picker cursor one place earlier in the
    /// attacker's order (the prefix table follows this order).
    MoveKnownUp,
    MoveKnownDown,
    /// Raise the Pr(re-id) threshold to the next preset.
    ThresholdUp,
    ThresholdDown,
    /// Run the screen's computation again (attack simulation, anonymization).
    Recompute,
    /// Pick the algorithm this many places on in the registry (wrapping).
    CycleAlgorithm(i32),
    /// Change k by this much (at least 1, at most the rows).
    AdjustK(i32),
    /// Change l by this much (at least 1).
    AdjustL(i32),
    /// Use the next seed for randomized algorithms.
    NextSeed,
    /// Change p of p-sensitive k-anonymity by this much (at least 1).
    AdjustP(i32),
    /// Write the session to the project file.
    SaveProject,
    /// Protect the next sensitive or semi-sensitive attribute by
    /// t-closeness instead of l-diversity (LGB), or none.
    CycleTCloseness,
    /// Open the dialog that marks the focused semi-sensitive column's
    /// sensitive cells by rule, density or flag column.
    MarkCells,
    /// Apply the open dialog.
    Confirm,
    /// A character typed into the open dialog's text field.
    TypeChar(char),
    /// Delete the last character of the open dialog's text field.
    DeleteChar,
    /// Open or close the hierarchy node under the cursor.
    ToggleNode,
    /// Open every node of the hierarchy tree (`true`), or close all.
    OpenAllNodes(bool),
    /// Show the correlation matrix in the measure this many places on.
    CycleMeasure(i32),
    /// Open the dialog building a hierarchy for the focused attribute.
    BuildHierarchy,
    /// Open the dialog reading an ARX hierarchy file.
    ImportHierarchy,
    /// Open the dialog writing the focused hierarchy as an ARX file.
    ExportHierarchy,
    /// Drop the focused attribute's hierarchy.
    RemoveHierarchy,
    /// Change full-domain's record-suppression limit by this many percent.
    AdjustSuppression(i32),
    /// Next information-loss metric for full-domain.
    CycleMetric,
    /// Next privacy model besides k for full-domain (its l, c, t and p are
    /// the session's).
    CycleModel,
    /// The terminal now has this many columns and rows.
    Resize(u16, u16),
    /// Add the Anonymize screen's current algorithm and parameters to the
    /// compare set.
    AddToCompare,
    /// Remove the selected entry from the compare set.
    RemoveFromCompare,
    /// Risk screen: show the record under the list's cursor on the Data
    /// screen (on the attribute picker: toggle the attribute, as Space).
    JumpToRecord,
    /// Risk screen: the attacker knows every attribute of the picker, or
    /// (when they already do) none.
    ToggleAllKnown,
    /// Risk screen: list the records above the threshold before or after
    /// anonymization.
    SwitchRecordList,
    /// Open the `:` command line.
    OpenCommandLine,
    /// Open the `/` search line of the screen's table.
    OpenSearch,
    /// Go to the next match of the last search.
    SearchNext,
    /// Go to the previous match of the last search.
    SearchPrev,
    /// A left click at this terminal cell.
    Click {
        column: u16,
        row: u16,
    },
    /// Anonymize screen: the parameter ←/→ change becomes the next one
    /// the algorithm reads (k, l, p).
    FocusParam,
    /// Anonymize screen: open or close the k/l sweep grid.
    ToggleSweep,
    /// Write the chart of the screen in view as SVG into the export
    /// directory beside the project file.
    ExportChart,
    /// Write the session's stakeholder report (HTML, Markdown, JSON) into
    /// the report directory beside the project file.
    ExportReport,
    /// Undo the last edit of the session (roles, cells, attacker,
    /// hierarchies, parameters).
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Write the verified release on the Anonymize screen (`:write`).
    WriteRelease,
    /// Data: sort the view by the focused column.
    Sort {
        descending: bool,
    },
    /// Data: the command line with `filter ` typed (`|`).
    OpenFilter,
    /// Data: the focused column's frequency table.
    ShowFrequencies,
    /// Data: the focused column drawn wider (narrower).
    WidenColumn(i32),
    /// Tab in a dialog: on the command line, complete the path; in the
    /// other dialogs, the next field (as ↓).
    Complete,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Screen(Screen),
    /// An open dialog: its bindings, and every other plain character is
    /// typed into it.
    Dialog,
}

/// One physical input: a key with its modifiers, or a wheel notch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    Key(KeyCode, KeyModifiers),
    WheelUp,
    WheelDown,
}

impl Input {
    const fn key(code: KeyCode) -> Self {
        Input::Key(code, KeyModifiers::NONE)
    }
    const fn ch(c: char) -> Self {
        Input::Key(KeyCode::Char(c), KeyModifiers::NONE)
    }
    const fn ctrl(c: char) -> Self {
        Input::Key(KeyCode::Char(c), KeyModifiers::CONTROL)
    }
    const fn shift(code: KeyCode) -> Self {
        Input::Key(code, KeyModifiers::SHIFT)
    }

    /// From a key event. Terminals disagree on whether an upper-case letter
    /// carries SHIFT, so SHIFT is dropped for characters: the character
    /// itself already says it.
    pub fn from_key(ev: &KeyEvent) -> Self {
        let mut mods = ev.modifiers;
        if matches!(ev.code, KeyCode::Char(_)) {
            mods.remove(KeyModifiers::SHIFT);
        }
        // Shift-Tab arrives as BackTab, with or without SHIFT.
        if ev.code == KeyCode::BackTab {
            mods.remove(KeyModifiers::SHIFT);
        }
        Input::Key(ev.code, mods)
    }

    /// How the help overlay writes this input.
    pub fn label(&self) -> String {
        let (code, mods) = match self {
            Input::WheelUp => return "wheel ↑".into(),
            Input::WheelDown => return "wheel ↓".into(),
            Input::Key(code, mods) => (code, mods),
        };
        let name = match code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Backspace => "Backspace".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        let mut out = String::new();
        if mods.contains(KeyModifiers::CONTROL) {
            out.push_str("Ctrl-");
        }
        if mods.contains(KeyModifiers::ALT) {
            out.push_str("Alt-");
        }
        if mods.contains(KeyModifiers::SHIFT) {
            out.push_str("Shift-");
        }
        out.push_str(&name);
        out
    }
}

/// Inputs that trigger one action in one scope, and what to call it in help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub scope: Scope,
    pub inputs: Vec<Input>,
    pub action: Action,
    pub help: &'static str,
    /// The panel of the screen the binding acts in, when the screen has
    /// several (the help overlay lists the focused panel's keys first).
    pub panel: Option<&'static str>,
}

/// One line of the help overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpLine {
    pub keys: String,
    pub help: &'static str,
}

/// The binding table. Screen bindings win over global ones.
#[derive(Debug, Clone)]
pub struct KeyMap {
    pub bindings: Vec<Binding>,
}

impl Default for KeyMap {
    fn default() -> Self {
        use Action as A;
        use Input as I;
        use KeyCode as K;
        let data = Scope::Screen(Screen::Data);
        let risk = Scope::Screen(Screen::Risk);
        let anon = Scope::Screen(Screen::Anonymize);
        let hier = Scope::Screen(Screen::Hierarchies);
        let compare = Scope::Screen(Screen::Compare);
        let dialog = Scope::Dialog;
        let b = |scope, inputs: &[Input], action, help| Binding {
            scope,
            inputs: inputs.to_vec(),
            action,
            help,
            panel: panel_of(scope, action),
        };
        let bindings = vec![
            // Data screen.
            b(data, &[I::ch('k'), I::key(K::Up)], A::Up, "row up"),
            b(data, &[I::ch('j'), I::key(K::Down)], A::Down, "row down"),
            b(data, &[I::ch('h'), I::key(K::Left)], A::Left, "column left"),
            b(
                data,
                &[I::ch('l'), I::key(K::Right)],
                A::Right,
                "column right",
            ),
            b(
                data,
                &[I::key(K::PageUp), I::ctrl('b')],
                A::PageUp,
                "page up",
            ),
            b(
                data,
                &[I::key(K::PageDown), I::ctrl('f')],
                A::PageDown,
                "page down",
            ),
            b(data, &[I::ch('g')], A::First, "first row"),
            b(data, &[I::ch('G')], A::Last, "last row"),
            b(data, &[I::key(K::Home)], A::RowStart, "first column"),
            b(data, &[I::key(K::End)], A::RowEnd, "last column"),
            b(data, &[I::WheelUp], A::Scroll(-WHEEL_ROWS), "scroll up"),
            b(data, &[I::WheelDown], A::Scroll(WHEEL_ROWS), "scroll down"),
            b(data, &[I::ch('r')], A::CycleRole, "cycle the column's role"),
            b(
                data,
                &[I::ch('i')],
                A::SetRole(Role::Identifier),
                "role: identifier",
            ),
            b(
                data,
                &[I::ch('Q')],
                A::SetRole(Role::QuasiIdentifier),
                "role: quasi-identifier",
            ),
            b(
                data,
                &[I::ch('s')],
                A::SetRole(Role::Sensitive),
                "role: sensitive",
            ),
            b(
                data,
                &[I::ch('S')],
                A::SetRole(Role::SemiSensitive),
                "role: semi-sensitive",
            ),
            b(
                data,
                &[I::ch('p')],
                A::SetRole(Role::Insensitive),
                "role: insensitive (published as is)",
            ),
            b(
                data,
                &[I::ch(' ')],
                A::ToggleSensitivity,
                "mark/unmark the cell sensitive (semi-sensitive columns)",
            ),
            b(
                data,
                &[I::ch('m')],
                A::MarkCells,
                "mark the column's sensitive cells by rule, density or flag",
            ),
            b(
                data,
                &[I::ch('[')],
                A::Sort { descending: false },
                "sort by the column, ascending (again: file order)",
            ),
            b(
                data,
                &[I::ch(']')],
                A::Sort { descending: true },
                "sort by the column, descending (again: file order)",
            ),
            b(
                data,
                &[I::ch('|')],
                A::OpenFilter,
                "filter the rows by a rule (:filter RULE; empty: all rows)",
            ),
            b(
                data,
                &[I::ch('F')],
                A::ShowFrequencies,
                "the column's value frequencies and their small classes",
            ),
            b(data, &[I::ch('>')], A::WidenColumn(4), "widen the column"),
            b(data, &[I::ch('<')], A::WidenColumn(-4), "narrow the column"),
            b(data, &[I::key(K::Enter)], A::Confirm, "the record's values"),
            // Risk screen.
            b(
                risk,
                &[I::ch('k'), I::key(K::Up)],
                A::Up,
                "previous attribute",
            ),
            b(
                risk,
                &[I::ch('j'), I::key(K::Down)],
                A::Down,
                "next attribute",
            ),
            b(risk, &[I::ch('g')], A::First, "first attribute"),
            b(risk, &[I::ch('G')], A::Last, "last attribute"),
            b(
                risk,
                &[I::ch(' ')],
                A::ToggleKnown,
                "attacker knows / does not know the attribute",
            ),
            b(
                risk,
                &[I::key(K::Enter)],
                A::JumpToRecord,
                "list: show the record on the Data screen (picker: toggle)",
            ),
            b(
                risk,
                &[I::ch('h'), I::key(K::Left)],
                A::Left,
                "focus the attribute picker",
            ),
            b(
                risk,
                &[I::ch('l'), I::key(K::Right)],
                A::Right,
                "focus the list of records above the threshold",
            ),
            b(risk, &[I::key(K::PageUp)], A::PageUp, "page up"),
            b(risk, &[I::key(K::PageDown)], A::PageDown, "page down"),
            b(
                risk,
                &[I::WheelUp],
                A::Scroll(-WHEEL_ROWS),
                "scroll the list up",
            ),
            b(
                risk,
                &[I::WheelDown],
                A::Scroll(WHEEL_ROWS),
                "scroll the list down",
            ),
            b(
                risk,
                &[I::ch('a')],
                A::ToggleAllKnown,
                "attacker knows every attribute / none",
            ),
            b(
                risk,
                &[I::ch('v')],
                A::SwitchRecordList,
                "list records above the threshold before / after",
            ),
            b(
                risk,
                &[I::ch('m')],
                A::CycleMeasure(1),
                "chart: next (CDFs of key count, linkage, breach; combinations)",
            ),
            b(
                risk,
                &[I::ch('M')],
                A::CycleModel,
                "risk model: next (prosecutor, journalist, marketer, ...)",
            ),
            b(
                risk,
                &[I::ch('K'), I::shift(K::Up)],
                A::MoveKnownUp,
                "move the attribute earlier",
            ),
            b(
                risk,
                &[I::ch('J'), I::shift(K::Down)],
                A::MoveKnownDown,
                "move the attribute later",
            ),
            b(
                risk,
                &[I::ch('+'), I::ch('=')],
                A::ThresholdUp,
                "raise the threshold",
            ),
            b(risk, &[I::ch('-')], A::ThresholdDown, "lower the threshold"),
            b(
                risk,
                &[I::ch('R'), I::key(K::F(5))],
                A::Recompute,
                "recompute",
            ),
            // Anonymize screen.
            b(anon, &[I::ch('a')], A::CycleAlgorithm(1), "next algorithm"),
            b(
                anon,
                &[I::ch('A')],
                A::CycleAlgorithm(-1),
                "previous algorithm",
            ),
            b(
                anon,
                &[I::ch('l'), I::key(K::Right)],
                A::Right,
                "focused parameter + 1 (sweep: next l)",
            ),
            b(
                anon,
                &[I::ch('h'), I::key(K::Left)],
                A::Left,
                "focused parameter - 1 (sweep: previous l)",
            ),
            b(
                anon,
                &[I::ch('f')],
                A::FocusParam,
                "focus the next parameter",
            ),
            b(anon, &[I::ch(']')], A::AdjustK(1), "k + 1"),
            b(anon, &[I::ch('[')], A::AdjustK(-1), "k - 1"),
            b(
                anon,
                &[I::ch('v')],
                A::ToggleSweep,
                "open/close the k/l sweep",
            ),
            b(
                anon,
                &[I::ch('m')],
                A::CycleMeasure(1),
                "sweep: colour by the next measure",
            ),
            b(anon, &[I::ch('+'), I::ch('=')], A::AdjustL(1), "l + 1"),
            b(anon, &[I::ch('-')], A::AdjustL(-1), "l - 1"),
            b(anon, &[I::ch('s')], A::NextSeed, "next seed"),
            b(anon, &[I::ch('p')], A::AdjustP(1), "pk: p + 1"),
            b(anon, &[I::ch('P')], A::AdjustP(-1), "pk: p - 1"),
            b(
                anon,
                &[I::ch('k'), I::key(K::Up)],
                A::Up,
                "table: previous record (sweep: smaller k)",
            ),
            b(
                anon,
                &[I::ch('j'), I::key(K::Down)],
                A::Down,
                "table: next record (sweep: larger k)",
            ),
            b(
                anon,
                &[I::key(K::Enter)],
                A::Confirm,
                "show/hide the record's matching tuples (sweep: use the cell)",
            ),
            b(
                anon,
                &[I::ch('T')],
                A::CycleTCloseness,
                "LGB: t-closeness on the next attribute",
            ),
            b(
                anon,
                &[I::key(K::PageUp), I::ctrl('b')],
                A::PageUp,
                "table: page up",
            ),
            b(
                anon,
                &[I::key(K::PageDown), I::ctrl('f')],
                A::PageDown,
                "table: page down",
            ),
            b(anon, &[I::ch('g')], A::First, "table: first row"),
            b(anon, &[I::ch('G')], A::Last, "table: last row"),
            b(anon, &[I::WheelUp], A::Scroll(-WHEEL_ROWS), "scroll up"),
            b(anon, &[I::WheelDown], A::Scroll(WHEEL_ROWS), "scroll down"),
            b(
                anon,
                &[I::ch('R'), I::key(K::F(5))],
                A::Recompute,
                "run again",
            ),
            b(
                anon,
                &[I::ch('>')],
                A::AdjustSuppression(1),
                "full-domain: suppression limit + 1 %",
            ),
            b(
                anon,
                &[I::ch('<')],
                A::AdjustSuppression(-1),
                "full-domain: suppression limit - 1 %",
            ),
            b(
                anon,
                &[I::ch('M')],
                A::CycleMetric,
                "full-domain: next metric",
            ),
            b(
                anon,
                &[I::ch('O')],
                A::CycleModel,
                "full-domain: next privacy model besides k",
            ),
            b(
                anon,
                &[I::ch('c')],
                A::AddToCompare,
                "add the algorithm and parameters to the compare set",
            ),
            // Compare screen.
            b(
                compare,
                &[I::ch('k'), I::key(K::Up)],
                A::Up,
                "previous entry",
            ),
            b(
                compare,
                &[I::ch('j'), I::key(K::Down)],
                A::Down,
                "next entry",
            ),
            b(compare, &[I::ch('g')], A::First, "first entry"),
            b(compare, &[I::ch('G')], A::Last, "last entry"),
            b(
                compare,
                &[I::ch('h'), I::key(K::Left)],
                A::Left,
                "table: scroll the metrics left",
            ),
            b(
                compare,
                &[I::ch('l'), I::key(K::Right)],
                A::Right,
                "table: scroll the metrics right",
            ),
            b(
                compare,
                &[I::ch('x'), I::key(K::Delete)],
                A::RemoveFromCompare,
                "remove the entry",
            ),
            b(
                compare,
                &[I::ch('R'), I::key(K::F(5))],
                A::Recompute,
                "run the entries whose inputs changed",
            ),
            b(
                compare,
                &[I::key(K::Enter)],
                A::Confirm,
                "load the entry into the Anonymize screen",
            ),
            // Hierarchies screen.
            b(
                hier,
                &[I::ch('k'), I::key(K::Up)],
                A::Up,
                "previous attribute / node",
            ),
            b(
                hier,
                &[I::ch('j'), I::key(K::Down)],
                A::Down,
                "next attribute / node",
            ),
            b(hier, &[I::ch('g')], A::First, "first attribute / node"),
            b(hier, &[I::ch('G')], A::Last, "last attribute / node"),
            b(
                hier,
                &[I::ch('h'), I::key(K::Left)],
                A::Left,
                "focus the attribute list",
            ),
            b(
                hier,
                &[I::ch('l'), I::key(K::Right)],
                A::Right,
                "focus the hierarchy tree",
            ),
            b(
                hier,
                &[I::ch(' '), I::key(K::Enter)],
                A::ToggleNode,
                "open/close the node",
            ),
            b(
                hier,
                &[I::ch('o')],
                A::OpenAllNodes(true),
                "open every node",
            ),
            b(
                hier,
                &[I::ch('c')],
                A::OpenAllNodes(false),
                "close every node",
            ),
            b(hier, &[I::ch('b')], A::BuildHierarchy, "build a hierarchy"),
            b(
                hier,
                &[I::ch('i')],
                A::ImportHierarchy,
                "import an ARX file",
            ),
            // `e` exports the chart on every screen, so the ARX export is `a`.
            b(
                hier,
                &[I::ch('a')],
                A::ExportHierarchy,
                "export the hierarchy as an ARX file",
            ),
            b(
                hier,
                &[I::ch('x')],
                A::RemoveHierarchy,
                "remove the hierarchy",
            ),
            b(
                hier,
                &[I::ch('m')],
                A::CycleMeasure(1),
                "next correlation measure",
            ),
            b(
                hier,
                &[I::ch('M')],
                A::CycleMeasure(-1),
                "previous correlation measure",
            ),
            b(
                hier,
                &[I::ch('R'), I::key(K::F(5))],
                A::Recompute,
                "recompute the correlations",
            ),
            // An open dialog.
            b(dialog, &[I::key(K::Enter)], A::Confirm, "apply"),
            b(
                dialog,
                &[I::key(K::Tab)],
                A::Complete,
                "next field; on the command line, complete the file path",
            ),
            b(dialog, &[I::key(K::Down)], A::Down, "next field"),
            b(
                dialog,
                &[I::key(K::BackTab), I::key(K::Up)],
                A::Up,
                "previous field",
            ),
            b(
                dialog,
                &[I::key(K::Left)],
                A::Left,
                "previous choice; cursor left in a line",
            ),
            b(
                dialog,
                &[I::key(K::Right)],
                A::Right,
                "next choice; cursor right in a line",
            ),
            b(dialog, &[I::key(K::Home)], A::RowStart, "start of the line"),
            b(dialog, &[I::key(K::End)], A::RowEnd, "end of the line"),
            b(
                dialog,
                &[I::key(K::Backspace)],
                A::DeleteChar,
                "delete a character",
            ),
            b(dialog, &[I::key(K::Esc)], A::Cancel, "close"),
            b(dialog, &[I::ctrl('c')], A::Quit, "quit"),
            // Everywhere.
            b(
                Scope::Global,
                &[I::ch('1')],
                A::ShowScreen(Screen::Data),
                "Data screen",
            ),
            b(
                Scope::Global,
                &[I::ch('2')],
                A::ShowScreen(Screen::Risk),
                "Risk screen",
            ),
            b(
                Scope::Global,
                &[I::ch('3')],
                A::ShowScreen(Screen::Anonymize),
                "Anonymize screen",
            ),
            b(
                Scope::Global,
                &[I::ch('4')],
                A::ShowScreen(Screen::Hierarchies),
                "Hierarchies screen",
            ),
            b(
                Scope::Global,
                &[I::ch('5')],
                A::ShowScreen(Screen::Compare),
                "Compare screen",
            ),
            b(
                Scope::Global,
                &[I::ch('w'), I::ctrl('s')],
                A::SaveProject,
                "save the project file",
            ),
            b(
                Scope::Global,
                &[I::ch('e')],
                A::ExportChart,
                "export the chart in view (SVG, anonlab-export/)",
            ),
            b(
                Scope::Global,
                &[I::ch('E')],
                A::ExportReport,
                "write the report (HTML, Markdown, JSON; anonlab-report/)",
            ),
            b(
                Scope::Global,
                &[I::key(K::Tab)],
                A::NextScreen,
                "next screen",
            ),
            b(
                Scope::Global,
                &[I::key(K::BackTab)],
                A::PrevScreen,
                "previous screen",
            ),
            b(
                Scope::Global,
                &[I::ch(':')],
                A::OpenCommandLine,
                "command line (:k 5, :algo ID, :save, :help)",
            ),
            b(
                Scope::Global,
                &[I::ch('/')],
                A::OpenSearch,
                "search the table or list in view",
            ),
            b(Scope::Global, &[I::ch('n')], A::SearchNext, "next match"),
            b(
                Scope::Global,
                &[I::ch('N')],
                A::SearchPrev,
                "previous match",
            ),
            b(
                Scope::Global,
                &[I::ch('?')],
                A::ToggleHelp,
                "show/hide this help",
            ),
            b(
                Scope::Global,
                &[I::key(K::Esc)],
                A::Cancel,
                "close popup, or cancel the computation",
            ),
            b(
                Scope::Global,
                &[I::ch('W')],
                A::WriteRelease,
                "write the verified release (anonlab-release/)",
            ),
            b(
                Scope::Global,
                &[I::ch('u')],
                A::Undo,
                "undo the last edit of the session",
            ),
            b(
                Scope::Global,
                &[I::ctrl('r')],
                A::Redo,
                "redo the undone edit",
            ),
            b(
                Scope::Global,
                &[I::ch('q'), I::ctrl('c')],
                A::Quit,
                "quit (asks first when there are unsaved changes)",
            ),
        ];
        KeyMap { bindings }
    }
}

impl KeyMap {
    /// The action bound to an input on a screen, if any.
    pub fn action_for(&self, screen: Screen, input: Input) -> Option<Action> {
        let find = |scope: Scope| {
            self.bindings
                .iter()
                .find(|b| b.scope == scope && b.inputs.contains(&input))
                .map(|b| b.action)
        };
        find(Scope::Screen(screen)).or_else(|| find(Scope::Global))
    }

    /// The action for a terminal event. Key releases are ignored (terminals
    /// with the kitty protocol report them), resizes pass through.
    pub fn translate(&self, screen: Screen, event: &Event) -> Option<Action> {
        match event {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                self.action_for(screen, Input::from_key(k))
            }
            Event::Mouse(MouseEvent {
                kind, column, row, ..
            }) => match kind {
                MouseEventKind::ScrollUp => self.action_for(screen, Input::WheelUp),
                MouseEventKind::ScrollDown => self.action_for(screen, Input::WheelDown),
                MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                    column: *column,
                    row: *row,
                }),
                _ => None,
            },
            Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
            _ => None,
        }
    }

    /// The action for a terminal event while a dialog is open: the
    /// dialog's bindings, and any other character (with or without Shift)
    /// typed into its text field. Screen and global keys do not apply, so
    /// typing `q` into a rule does not quit.
    pub fn translate_dialog(&self, event: &Event) -> Option<Action> {
        match event {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                let input = Input::from_key(k);
                let bound = self
                    .bindings
                    .iter()
                    .find(|b| b.scope == Scope::Dialog && b.inputs.contains(&input))
                    .map(|b| b.action);
                match (bound, input) {
                    (Some(a), _) => Some(a),
                    (None, Input::Key(KeyCode::Char(c), mods))
                        if !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
                    {
                        Some(Action::TypeChar(c))
                    }
                    _ => None,
                }
            }
            Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
            _ => None,
        }
    }

    /// The keys bound to an action in a scope, as the help overlay writes
    /// them (`"Tab ↓"`), for the hints a dialog draws.
    pub fn keys_for(&self, scope: Scope, action: Action) -> String {
        self.bindings
            .iter()
            .filter(|b| b.scope == scope && b.action == action)
            .flat_map(|b| b.inputs.iter().map(Input::label))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The help overlay's lines for a screen: its own bindings, then the
    /// global ones.
    pub fn help(&self, screen: Screen) -> Vec<HelpLine> {
        self.help_sections(screen, None)
            .into_iter()
            .flat_map(|(_, lines)| lines)
            .collect()
    }

    /// The help overlay's sections for a screen whose focused panel is
    /// `panel`: that panel's bindings first, then the screen's other
    /// bindings (other panels after them), then the global ones. Titles
    /// name the panel or say "screen" / "everywhere".
    pub fn help_sections(
        &self,
        screen: Screen,
        panel: Option<&str>,
    ) -> Vec<(String, Vec<HelpLine>)> {
        let line = |b: &Binding| HelpLine {
            keys: b
                .inputs
                .iter()
                .map(Input::label)
                .collect::<Vec<_>>()
                .join(" "),
            help: b.help,
        };
        let own: Vec<&Binding> = self
            .bindings
            .iter()
            .filter(|b| b.scope == Scope::Screen(screen))
            .collect();
        let mut panels: Vec<&'static str> = Vec::new();
        for b in &own {
            if let Some(p) = b.panel {
                if !panels.contains(&p) {
                    panels.push(p);
                }
            }
        }
        // The focused panel first, the others in table order.
        panels.sort_by_key(|p| Some(*p) != panel);
        let mut sections = Vec::new();
        let mut push = |title: String, lines: Vec<HelpLine>| {
            if !lines.is_empty() {
                sections.push((title, lines));
            }
        };
        let of_panel = |p: Option<&str>| {
            own.iter()
                .filter(|b| b.panel == p)
                .map(|b| line(b))
                .collect::<Vec<_>>()
        };
        if let Some(first) = panels.first().filter(|p| Some(**p) == panel) {
            push(first.to_string(), of_panel(Some(first)));
        }
        push(format!("{} screen", screen.title()), of_panel(None));
        for p in panels.iter().filter(|p| Some(**p) != panel) {
            push(p.to_string(), of_panel(Some(p)));
        }
        let global = self
            .bindings
            .iter()
            .filter(|b| b.scope == Scope::Global)
            .map(line)
            .collect();
        push("everywhere".to_string(), global);
        sections
    }
}

/// The panel a binding acts in, on screens with several panels whose keys
/// differ. Keys that act in whichever panel is focused have none.
fn panel_of(scope: Scope, action: Action) -> Option<&'static str> {
    use Action as A;
    match (scope, action) {
        (
            Scope::Screen(Screen::Anonymize),
            A::CycleAlgorithm(_)
            | A::AdjustK(_)
            | A::AdjustL(_)
            | A::AdjustP(_)
            | A::NextSeed
            | A::CycleTCloseness
            | A::AdjustSuppression(_)
            | A::CycleMetric
            | A::CycleModel,
        ) => Some("parameters"),
        (
            Scope::Screen(Screen::Anonymize),
            A::Up
            | A::Down
            | A::PageUp
            | A::PageDown
            | A::First
            | A::Last
            | A::Scroll(_)
            | A::Confirm,
        ) => Some("published table"),
        (
            Scope::Screen(Screen::Hierarchies),
            A::BuildHierarchy | A::ImportHierarchy | A::ExportHierarchy | A::RemoveHierarchy,
        ) => Some("attribute list"),
        (Scope::Screen(Screen::Hierarchies), A::ToggleNode | A::OpenAllNodes(_)) => {
            Some("hierarchy tree")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
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
}
