//! The five screens as components, in the manner of gitui and csvlens:
//! each owns its state, its job slots and its job messages, and is stepped
//! by the app with an action, the session state and an [`Out`] for what
//! it asks of the app (a notice, a popup, another screen). Screens read
//! and edit the one session state (`tui::session`); after every change the
//! app lets each screen follow the session's generations (`sync`).
//!
//! [`Out`]: crate::shared::Out

pub mod anonymize;
pub mod compare;
pub mod data;
pub mod explore;
pub mod hier_folder;
pub mod hierarchies;
pub mod lattice;
pub mod mark;
pub mod record;
pub mod release;
pub mod risk;
pub mod risk_models;
pub mod side_by_side;
pub mod sweep;

use std::sync::Arc;

use ratatui::layout::{Position, Rect};
use ratatui::Frame;

use crate::chart::ChartExport;
use crate::keymap::{Action, KeyMap};
use crate::search::SearchState;
use crate::session::{Before, SessionState};
use crate::shared::{Out, Screen};
use crate::worker::WorkerMsg;
use anonlab::data::Inputs;
use anonlab::release::Release;
use anonlab::stats::CorrelationMatrix;
use release::{AnonymizeView, ReleaseCache};

/// What a screen reads beyond its own state when the app routes to it:
/// the session, and the parts of other screens it depends on, lent by
/// the app (screens never hold each other).
pub struct Context<'a> {
    pub session: &'a mut SessionState,
    /// The release the Anonymize screen shows (the Risk screen measures
    /// it).
    pub shown: Option<Arc<Release>>,
    /// The Anonymize screen's release cache, which the Compare screen
    /// reads and fills with its runs; `None` on the Anonymize screen,
    /// which owns it.
    pub cache: Option<&'a mut ReleaseCache>,
    /// The session's files, which an export may not replace; computed
    /// only for a screen that asks ([`Component::needs_inputs`]), as it
    /// builds the project.
    pub inputs: Option<Inputs>,
    /// The last `/` search; a screen's search notes its matches in it.
    pub search: &'a mut SearchState,
}

/// What a screen reads beyond its own state when it is drawn: drawing
/// only reads (STYLE.md, habit 5), so this lends nothing mutable.
pub struct View<'a> {
    pub session: &'a SessionState,
    pub keymap: &'a KeyMap,
    /// The last `/` search, whose matches the tables highlight.
    pub search: &'a SearchState,
    /// The release the Anonymize screen shows (the Risk screen compares
    /// its own figures with it).
    pub shown: Option<&'a AnonymizeView>,
}

/// A message from one of the background job slots: the session's
/// baseline and the exports are the app's, the others a screen's
/// ([`owner`](Self::owner)).
#[derive(Debug)]
pub enum JobMsg {
    /// The session's baseline (boxed, as the others: an assessment).
    Baseline(WorkerMsg<Box<Before>>),
    /// The Risk screen's attacks on the shown release.
    RiskAfter(WorkerMsg<Box<risk::AfterView>>),
    Anonymize(anonymize::AnonymizeMsg),
    Correlation(WorkerMsg<CorrelationMatrix>),
    /// One task of the Compare screen's pass.
    Compare(compare::CompareMsg),
    /// A chart or report written by the export slot.
    Export(WorkerMsg<crate::export::Exported>),
    /// A file `:open` read off the UI thread (one thread per request).
    Open(WorkerMsg<Box<crate::shared::Loaded>>),
}

impl JobMsg {
    /// The screen whose job slot sent the message; `None` for the app's
    /// own slots (the session's baseline, the exports).
    pub fn owner(&self) -> Option<Screen> {
        match self {
            JobMsg::Baseline(_) | JobMsg::Export(_) | JobMsg::Open(_) => None,
            JobMsg::RiskAfter(_) => Some(Screen::Risk),
            JobMsg::Anonymize(_) => Some(Screen::Anonymize),
            JobMsg::Correlation(_) => Some(Screen::Hierarchies),
            JobMsg::Compare(_) => Some(Screen::Compare),
        }
    }
}

/// A screen as the app routes to it, in the manner of gitui's components:
/// its keys, becoming the screen in view, `Esc`, its job messages, its
/// searches and clicks, its chart, and drawing it. The app calls these on
/// the screen in view (or the one owning a job message) without knowing
/// which screen it is; the frame around (tabs, status bar, modals) is the
/// `ui` layer's.
pub trait Component {
    /// Apply an action no modal or global key took.
    fn step(&mut self, action: &Action, cx: &mut Context<'_>, out: &mut Out);
    /// The screen came into view: start what it shows, if stale.
    fn show(&mut self, cx: &mut Context<'_>);
    /// `Esc`: stop the screen's computation; whether one was running.
    fn cancel(&mut self, session: &mut SessionState) -> bool;
    /// The figures of the chart the screen shows, or why there is none
    /// yet (`e` writes it).
    fn chart(&self, session: &SessionState) -> Result<ChartExport, String>;
    /// Whether [`step`](Self::step) reads [`Context::inputs`].
    fn needs_inputs(&self) -> bool {
        false
    }
    /// Draw the screen into `area`, the band between the tabs and the
    /// status bar. Only reads.
    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>);
    /// A message of one of the screen's job slots (the ones whose
    /// [`JobMsg::owner`] is this screen).
    fn on_job(&mut self, msg: JobMsg, cx: &mut Context<'_>, out: &mut Out);
    /// `/` then `n` or `N`: move to the next (previous) match of `query`
    /// in the screen's table or list, wrapping. The notice says where, or
    /// that nothing matches.
    fn search(&mut self, query: &str, forward: bool, cx: &mut Context<'_>) -> String;
    /// A left click at `at`, not on the tabs, in a terminal of `area`:
    /// select what is under it, with the areas the drawing uses.
    fn click(&mut self, area: Rect, at: Position, cx: &mut Context<'_>);
    /// The focused panel of a screen with several (see the keymap's
    /// panels): its keys come first in the help overlay.
    fn focused_panel(&self) -> Option<&'static str> {
        None
    }
    /// The screen whose jobs the status bar always shows for this one
    /// (itself, unless its figures come from another's job).
    fn status_jobs(&self) -> Screen;
}

/// A screen as its drawing reads it: its own state (`me`) and, through
/// `Deref`, the [`View`] of the rest.
pub struct Drawn<'a, S> {
    pub me: &'a S,
    pub view: &'a View<'a>,
}

impl<'a, S> std::ops::Deref for Drawn<'a, S> {
    type Target = View<'a>;
    fn deref(&self) -> &View<'a> {
        self.view
    }
}
