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
use anonlab::data::Role;

// The binding table itself, apart from the types and lookups it feeds.
mod table;

/// Rows moved by one notch of the mouse wheel.
pub const WHEEL_ROWS: i32 = 3;

/// What the user asked for. Applied by [`App::step`](super::App::step).
/// Its variants' names in snake_case (strum) are the config file's
/// binding ids ([`binding_id`](super::binding_id)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
pub enum Action {
    Quit,
    /// Stop the process as a shell's job (Ctrl-Z); `fg` brings it back.
    Suspend,
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
    /// The `:open` picker: recent files and the project's folder.
    OpenFile,
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
    /// Anonymize screen: open or close full-domain's lattice view.
    ToggleLattice,
    /// Anonymize screen: full-domain's lattice view, focused on the
    /// optimum.
    FocusOptimum,
    /// Anonymize screen: open or close the original and published tables
    /// side by side.
    ToggleSideBySide,
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
mod tests;
