//! The Hierarchies screen's model: the generalization hierarchies the
//! session holds, the focused attribute's hierarchy as a collapsible tree
//! with the class counts each level gives on the data, the correlation
//! matrix drawn as a heat map, and the dialogs that build, import and
//! export hierarchies. The hierarchies themselves are the session's
//! ([`SessionState::hierarchies`]): the screen edits them there, and every
//! release that reads them follows the session's generation.
//!
//! Everything drawn is derived when it changes: the tree's nodes and
//! per-level figures when a hierarchy or the focused attribute changes, the
//! visible tree lines when a node is opened or closed, the builder's
//! preview on every edit of its fields. The builders work on the column's
//! distinct values, so a preview costs O(distinct values + levels) and is
//! computed in place; the correlation matrix reads every row and runs in
//! the screen's own job slot.

use std::path::PathBuf;

use crate::chart::{ChartData, ChartExport};
use crate::jobs::{Job, Update};
use crate::keymap::Action;
use crate::layout;
use crate::screens::hier_folder::FolderPreview;
use crate::search;
use crate::session::SessionState;
use crate::shared::{JobState, Out, Screen};
use crate::worker::{JobFn, WorkerMsg};
use anonlab::data::{Dataset, HierarchySource, Inputs, Role, Roles};
use anonlab::hierarchy::arx;
use anonlab::session::HeldHierarchy;
use anonlab::stats::{correlation_matrix, CorrelationMatrix, Discretization, Measure};
use ratatui::layout::{Position, Rect};
use ratatui::Frame;

mod dialog;
mod tree;
use dialog::builder_fields;
#[cfg(test)]
use dialog::round_width;
pub use dialog::{Builder, DialogKind, Field, HierarchyDialog};
pub use tree::TreeView;

/// Which panel of the screen the cursor keys move in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Attributes,
    Tree,
}

/// The correlation job's state.
#[derive(Debug)]
pub struct MatrixState {
    pub measure: Measure,
    /// Dataset columns of the matrix: every column but identifiers.
    pub columns: Vec<usize>,
    pub view: Option<CorrelationMatrix>,
    pub job: Job<CorrelationMatrix>,
    /// Measure and columns of the latest request.
    requested: Option<(Measure, Vec<usize>)>,
    pub error: Option<String>,
}

/// Everything the Hierarchies screen shows.
#[derive(Debug)]
pub struct HierarchiesState {
    /// Index of the focused column of the dataset.
    pub cursor: usize,
    pub focus: Focus,
    /// The focused column's hierarchy, or why it cannot be shown.
    pub tree: Option<Result<TreeView, String>>,
    pub matrix: MatrixState,
    pub dialog: Option<HierarchyDialog>,
}

/// What the screen must do after handling an action.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Effect {
    None,
    /// Compute the correlation matrix for the current measure and columns.
    RequestMatrix,
    Notice(String),
}

impl HierarchiesState {
    pub fn new(session: &SessionState) -> Self {
        let mut s = HierarchiesState {
            cursor: 0,
            focus: Focus::Attributes,
            tree: None,
            matrix: MatrixState {
                measure: Measure::Phi2,
                columns: Vec::new(),
                view: None,
                job: Job::inline(),
                requested: None,
                error: None,
            },
            dialog: None,
        };
        s.sync_roles(session.roles());
        s.refresh_tree(session);
        s
    }

    /// Follow a role change: identifiers leave the matrix.
    pub fn sync_roles(&mut self, roles: &Roles) {
        self.matrix.columns = (0..roles.as_slice().len())
            .filter(|&c| roles.get(c) != Role::Identifier)
            .collect();
    }

    /// Whether the matrix shown or requested is not the one asked for now.
    pub fn matrix_stale(&self) -> bool {
        self.matrix.requested.as_ref() != Some(&(self.matrix.measure, self.matrix.columns.clone()))
    }

    /// The job computing the matrix for the current measure and columns,
    /// recorded as requested.
    pub fn matrix_job(&mut self, ds: std::sync::Arc<Dataset>) -> JobFn<CorrelationMatrix> {
        let measure = self.matrix.measure;
        let columns = self.matrix.columns.clone();
        self.matrix.requested = Some((measure, columns.clone()));
        Box::new(move |progress| {
            progress.check()?;
            correlation_matrix(&ds, &columns, measure, &Discretization::default())
        })
    }

    /// Apply the correlation worker's message; a failure is kept for the
    /// matrix panel to show.
    pub fn on_matrix(&mut self, msg: WorkerMsg<CorrelationMatrix>) {
        match self.matrix.job.apply(msg) {
            Some(Update::Done(output)) => {
                self.matrix.view = Some(output);
                self.matrix.error = None;
            }
            Some(Update::Failed(error)) => self.matrix.error = Some(error),
            _ => {}
        }
    }

    /// Put the attribute list's cursor on column `c` (a click, a search
    /// match) and show its tree.
    pub fn select_attribute(&mut self, session: &SessionState, c: usize) {
        if c < session.dataset().n_cols() && c != self.cursor {
            self.cursor = c;
            self.refresh_tree(session);
        }
    }

    /// Rebuild the focused column's tree.
    pub fn refresh_tree(&mut self, session: &SessionState) {
        let ds = session.dataset();
        if ds.n_cols() == 0 {
            self.tree = None;
            return;
        }
        let name = ds.col(self.cursor).name();
        self.tree = session
            .hierarchies()
            .get(name)
            .map(|h| TreeView::new(ds, self.cursor, &h.hierarchy).map_err(|e| e.to_string()));
    }

    fn tree_mut(&mut self) -> Option<&mut TreeView> {
        self.tree.as_mut().and_then(|t| t.as_mut().ok())
    }

    /// Apply an action of the screen (no dialog open).
    fn step(&mut self, action: &Action, session: &mut SessionState) -> Effect {
        let ds = std::sync::Arc::clone(session.dataset());
        let k = session.params().k;
        let last_col = ds.n_cols().saturating_sub(1);
        match (*action, self.focus) {
            (Action::Left, _) => self.focus = Focus::Attributes,
            (Action::Right, _) if self.tree_mut().is_some() => self.focus = Focus::Tree,
            (Action::Up | Action::Down | Action::First | Action::Last, Focus::Attributes) => {
                let old = self.cursor;
                self.cursor = match *action {
                    Action::Up => self.cursor.saturating_sub(1),
                    Action::Down => (self.cursor + 1).min(last_col),
                    Action::First => 0,
                    _ => last_col,
                };
                if self.cursor != old {
                    self.refresh_tree(session);
                }
            }
            (Action::Up | Action::Down | Action::First | Action::Last, Focus::Tree) => {
                if let Some(t) = self.tree_mut() {
                    let last = t.lines.len().saturating_sub(1);
                    t.cursor = match *action {
                        Action::Up => t.cursor.saturating_sub(1),
                        Action::Down => (t.cursor + 1).min(last),
                        Action::First => 0,
                        _ => last,
                    };
                }
            }
            (Action::ToggleNode, _) => {
                self.focus = Focus::Tree;
                if let Some(t) = self.tree_mut() {
                    t.toggle();
                }
            }
            (Action::OpenAllNodes(open), _) => {
                if let Some(t) = self.tree_mut() {
                    t.open_all(open);
                }
            }
            (Action::CycleMeasure(by), _) => {
                let all = Measure::ALL;
                let i = all
                    .iter()
                    .position(|&m| m == self.matrix.measure)
                    .unwrap_or(0) as i64;
                let n = all.len() as i64;
                self.matrix.measure = all[(i + i64::from(by)).rem_euclid(n) as usize];
                return Effect::RequestMatrix;
            }
            (Action::Recompute, _) => return Effect::RequestMatrix,
            (Action::BuildHierarchy, _) if ds.n_cols() > 0 => self.open_build(&ds, k),
            (Action::ImportHierarchy, _) if ds.n_cols() > 0 => {
                self.open_path(&ds, DialogKind::Import, String::new())
            }
            (Action::ExportHierarchy, _) if ds.n_cols() > 0 => {
                let name = ds.col(self.cursor).name().to_string();
                if !session.hierarchies().contains_key(&name) {
                    return Effect::Notice(format!(
                        "'{name}' has no hierarchy to export: build (b) or import (i) one first"
                    ));
                }
                self.open_path(&ds, DialogKind::Export, format!("hierarchy_{name}.csv"));
            }
            (Action::RemoveHierarchy, _) if ds.n_cols() > 0 => {
                let name = ds.col(self.cursor).name().to_string();
                if session.hierarchies().contains_key(&name) {
                    session.set_hierarchy(&name, None);
                    self.focus = Focus::Attributes;
                    self.refresh_tree(session);
                    return Effect::Notice(format!("{name}: hierarchy removed"));
                }
            }
            _ => {}
        }
        Effect::None
    }

    fn open_build(&mut self, ds: &Dataset, k: u32) {
        let column = self.cursor;
        let builder = if ds.col(column).is_numeric() {
            Builder::Intervals
        } else {
            Builder::Frequency
        };
        let fields = builder_fields(ds, column, builder, k);
        let mut d = HierarchyDialog::new(DialogKind::Build, ds, column, builder, fields);
        d.candidates = self.matrix.columns.clone();
        d.refresh_preview(ds);
        self.dialog = Some(d);
    }

    fn open_path(&mut self, ds: &Dataset, kind: DialogKind, path: String) {
        let fields = vec![Field {
            label: "file or folder",
            value: path,
        }];
        self.dialog = Some(HierarchyDialog::new(
            kind,
            ds,
            self.cursor,
            Builder::Mask,
            fields,
        ));
    }

    /// Apply an action to the open dialog (it is modal).
    fn step_dialog(
        &mut self,
        action: &Action,
        session: &mut SessionState,
        inputs: &Inputs,
    ) -> Effect {
        let ds = std::sync::Arc::clone(session.dataset());
        let ds = &*ds;
        let k = session.params().k;
        let Some(d) = self.dialog.as_mut() else {
            return Effect::None;
        };
        let rows = d.rows();
        let mut edited = false;
        match *action {
            Action::Cancel => {
                self.dialog = None;
                return Effect::None;
            }
            Action::Up => d.focus = (d.focus + rows - 1) % rows.max(1),
            Action::Down => d.focus = (d.focus + 1) % rows.max(1),
            Action::Left | Action::Right if d.kind == DialogKind::Build && d.focus == 0 => {
                let by: i64 = if *action == Action::Left { -1 } else { 1 };
                let all = Builder::ALL;
                let i = all.iter().position(|&b| b == d.builder).unwrap_or(0) as i64;
                d.builder = all[(i + by).rem_euclid(all.len() as i64) as usize];
                d.fields = builder_fields(ds, d.column, d.builder, k);
                edited = true;
            }
            Action::TypeChar(c) => {
                if let Some(f) = d.focused_field().and_then(|i| d.fields.get_mut(i)) {
                    f.value.push(c);
                    edited = true;
                }
            }
            Action::DeleteChar => {
                if let Some(f) = d.focused_field().and_then(|i| d.fields.get_mut(i)) {
                    f.value.pop();
                    edited = true;
                }
            }
            Action::Confirm => return self.confirm(session, inputs),
            _ => {}
        }
        if edited {
            d.error = None;
            d.folder = None;
            if d.kind == DialogKind::Build {
                d.refresh_preview(ds);
            }
        }
        Effect::None
    }

    /// Enter in the dialog: keep the built or imported hierarchy, or write
    /// the export; on failure the dialog stays open and says why.
    fn confirm(&mut self, session: &mut SessionState, inputs: &Inputs) -> Effect {
        let ds = std::sync::Arc::clone(session.dataset());
        let ds = &*ds;
        let Some(d) = self.dialog.as_mut() else {
            return Effect::None;
        };
        let path = || {
            let p = PathBuf::from(d.fields[0].value.trim());
            if p.is_relative() {
                std::env::current_dir().unwrap_or_default().join(p)
            } else {
                p
            }
        };
        let outcome: Result<(Option<HeldHierarchy>, String), String> = match d.kind {
            DialogKind::Build => match (&d.built, &d.preview) {
                (Some(h), Ok(stats)) => {
                    let rows = h
                        .rows()
                        .map(|r| r.into_iter().map(str::to_string).collect())
                        .collect();
                    Ok((
                        Some(HeldHierarchy {
                            source: HierarchySource::Inline(rows),
                            hierarchy: h.clone(),
                        }),
                        format!(
                            "{}: {} hierarchy with {} levels",
                            d.attribute,
                            d.builder.name(),
                            stats.len()
                        ),
                    ))
                }
                (_, Err(e)) => Err(e.clone()),
                _ => Err("nothing built yet".into()),
            },
            DialogKind::Import if d.fields[0].value.trim().is_empty() => Err(
                "type the path of an ARX hierarchy file (leaf;level 1;...;*), or of a folder of \
                 '*hierarchy_<column>.csv' files"
                    .into(),
            ),
            // A folder: the first Enter previews its files, the second
            // binds those that passed.
            DialogKind::Import if path().is_dir() => {
                let dir = path();
                match d.folder.take().filter(|f| f.dir == dir) {
                    Some(preview) if preview.passed().next().is_some() => {
                        let names: Vec<&str> = preview.passed().map(|(n, _)| n).collect();
                        let msg = format!(
                            "{} hierarchies bound from {}: {}",
                            names.len(),
                            dir.display(),
                            names.join(", ")
                        );
                        for (name, h) in preview.passed() {
                            session.set_hierarchy(name, Some(h.clone()));
                        }
                        self.dialog = None;
                        self.refresh_tree(session);
                        return Effect::Notice(msg);
                    }
                    _ => {
                        let held = session.hierarchies();
                        match FolderPreview::read(&dir, ds, |n| held.contains_key(n)) {
                            Ok(p) => {
                                d.folder = Some(p);
                                return Effect::None;
                            }
                            Err(e) => Err(e),
                        }
                    }
                }
            }
            DialogKind::Import => {
                let p = path();
                HeldHierarchy::load(ds, d.column, HierarchySource::File(p.clone()))
                    .map(|h| {
                        let levels = h.hierarchy.levels();
                        let msg =
                            format!("{}: {levels} levels read from {}", d.attribute, p.display());
                        (Some(h), msg)
                    })
                    .map_err(|e| e.to_string())
            }
            DialogKind::Export => {
                let p = path();
                match session.hierarchies().get(&d.attribute) {
                    Some(h) => arx::save(&h.hierarchy, &p, inputs)
                        .map(|()| {
                            let msg =
                                format!("{}: hierarchy written to {}", d.attribute, p.display());
                            (None, msg)
                        })
                        .map_err(|e| e.to_string()),
                    None => Err(format!("'{}' has no hierarchy", d.attribute)),
                }
            }
        };
        match outcome {
            Err(e) => {
                d.error = Some(e);
                Effect::None
            }
            Ok((held, msg)) => {
                let name = d.attribute.clone();
                self.dialog = None;
                if let Some(h) = held {
                    session.set_hierarchy(&name, Some(h));
                    self.refresh_tree(session);
                }
                Effect::Notice(msg)
            }
        }
    }
}

/// The Hierarchies screen: its state and the correlation matrix's slot.
pub struct HierarchiesScreen {
    pub state: HierarchiesState,
}

impl HierarchiesScreen {
    pub fn new(session: &SessionState) -> Self {
        HierarchiesScreen {
            state: HierarchiesState::new(session),
        }
    }

    pub fn job_mut(&mut self) -> &mut Job<CorrelationMatrix> {
        &mut self.state.matrix.job
    }

    /// Whether the build, import or export dialog is open (modal).
    pub fn dialog_open(&self) -> bool {
        self.state.dialog.is_some()
    }

    /// Apply an action: to the open dialog, else to the screen.
    /// `inputs`: the session's files, which an export may not replace.
    pub fn step(
        &mut self,
        action: &Action,
        session: &mut SessionState,
        inputs: &Inputs,
        out: &mut Out,
    ) {
        let effect = if self.state.dialog.is_some() {
            self.state.step_dialog(action, session, inputs)
        } else {
            self.state.step(action, session)
        };
        match effect {
            Effect::None => {}
            Effect::RequestMatrix => self.request_matrix(session),
            Effect::Notice(n) => out.notice(n),
        }
    }

    /// `:hierarchies PATH`: the import dialog with PATH, read at once — a
    /// folder's preview, or a single file's import (the dialog stays open
    /// and says why when it fails).
    pub fn import(
        &mut self,
        path: &str,
        session: &mut SessionState,
        inputs: &Inputs,
        out: &mut Out,
    ) {
        let ds = std::sync::Arc::clone(session.dataset());
        self.state
            .open_path(&ds, DialogKind::Import, path.to_string());
        self.step(&Action::Confirm, session, inputs, out);
    }

    /// Follow the session: identifiers leave the matrix, and the tree
    /// shows the focused attribute's hierarchy as the session holds it.
    pub fn sync(&mut self, session: &SessionState, visible: bool) {
        self.state.sync_roles(session.roles());
        self.state.refresh_tree(session);
        if visible && self.state.matrix_stale() {
            self.request_matrix(session);
        }
    }

    /// Queue the correlation matrix for the current measure and columns.
    pub fn request_matrix(&mut self, session: &SessionState) {
        // The measures count rows; a grouped table's rows are
        // combinations, so the matrix would not be the file's.
        if let Err(e) = session.dataset().require_records("the correlation matrix") {
            self.state.matrix.error = Some(e.to_string());
            self.state.matrix.job.settle(JobState::Failed);
            return;
        }
        let job = self
            .state
            .matrix_job(std::sync::Arc::clone(session.dataset()));
        self.state.matrix.job.submit(job);
    }

    pub fn on_matrix(&mut self, msg: WorkerMsg<CorrelationMatrix>) {
        self.state.on_matrix(msg);
    }

    /// Stop the matrix's job; whether one was running.
    pub fn cancel(&mut self) -> bool {
        self.state.matrix.job.cancel()
    }
}

mod draw;

impl super::Component for HierarchiesScreen {
    fn draw(&self, frame: &mut Frame, area: Rect, view: &super::View<'_>) {
        draw::draw(frame, area, &super::Drawn { me: self, view });
    }

    fn on_job(&mut self, msg: super::JobMsg, _cx: &mut super::Context<'_>, _out: &mut Out) {
        if let super::JobMsg::Correlation(m) = msg {
            self.on_matrix(m);
        }
    }

    /// The attributes' names, or the open nodes of the tree, as focused.
    fn search(&mut self, q: &str, forward: bool, cx: &mut super::Context<'_>) -> String {
        let found = match self.state.focus {
            Focus::Attributes => {
                let ds = std::sync::Arc::clone(cx.session.dataset());
                let found = search::next_match(ds.n_cols(), self.state.cursor, forward, |c| {
                    search::contains(ds.col(c).name(), q)
                });
                found
                    .map(|c| {
                        self.state.select_attribute(cx.session, c);
                        format!("/{q}: attribute {}", ds.col(c).name())
                    })
                    .ok_or("among the attributes")
            }
            Focus::Tree => {
                let tree = self.state.tree.as_mut().and_then(|t| t.as_mut().ok());
                let found = tree.and_then(|t| {
                    let hit = search::next_match(t.lines.len(), t.cursor, forward, |i| {
                        search::contains(&t.lines[i].label, q)
                    });
                    if let Some(i) = hit {
                        t.cursor = i;
                    }
                    hit.map(|i| t.lines[i].label.clone())
                });
                found
                    .map(|label| format!("/{q}: node {label}"))
                    .ok_or("in the open nodes of the tree")
            }
        };
        found.unwrap_or_else(|place| format!("'{q}' not found {place}"))
    }

    fn click(&mut self, area: Rect, at: Position, cx: &mut super::Context<'_>) {
        let h = &self.state;
        let n = cx.session.dataset().n_cols();
        if let Some(c) =
            layout::hierarchies_attribute_at(area, h.matrix.columns.len(), n, h.cursor, at)
        {
            self.state.focus = Focus::Attributes;
            self.state.select_attribute(cx.session, c);
        }
    }

    fn focused_panel(&self) -> Option<&'static str> {
        Some(match self.state.focus {
            Focus::Attributes => "attribute list",
            Focus::Tree => "hierarchy tree",
        })
    }

    fn status_jobs(&self) -> Screen {
        Screen::Hierarchies
    }

    fn step(&mut self, action: &Action, cx: &mut super::Context<'_>, out: &mut Out) {
        // `needs_inputs` asks the app for them; without them an export
        // could replace one of the session's files, so nothing is done.
        let Some(inputs) = cx.inputs.as_ref() else {
            return;
        };
        HierarchiesScreen::step(self, action, cx.session, inputs, out);
    }

    fn show(&mut self, cx: &mut super::Context<'_>) {
        self.sync(cx.session, true);
    }

    fn cancel(&mut self, _session: &mut SessionState) -> bool {
        HierarchiesScreen::cancel(self)
    }

    fn chart(&self, _session: &SessionState) -> Result<ChartExport, String> {
        let m = self
            .state
            .matrix
            .view
            .clone()
            .ok_or("the correlations are being computed")?;
        Ok(ChartExport {
            screen: "hierarchies",
            data: ChartData::Correlation(m),
            attacker: None,
        })
    }

    fn needs_inputs(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
