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

use crate::chart::ChartExport;
use crate::keymap::Action;
use crate::session::SessionState;
use crate::shared::Out;
use anonlab::data::Inputs;
use anonlab::release::Release;
use release::ReleaseCache;

/// What a screen reads beyond its own state when the app routes to it:
/// the session, and the parts of other screens it depends on, lent by
/// the app (screens never hold each other).
pub struct Context<'a> {
    pub session: &'a mut SessionState,
    /// The release the Anonymize screen shows (the Risk screen measures
    /// it).
    pub shown: Option<Arc<Release>>,
    /// The Anonymize screen's release cache, which the Compare screen
    /// reads; `None` on the Anonymize screen, which owns it.
    pub cache: Option<&'a ReleaseCache>,
    /// The session's files, which an export may not replace; computed
    /// only for a screen that asks ([`Component::needs_inputs`]), as it
    /// builds the project.
    pub inputs: Option<Inputs>,
}

/// A screen as the app routes to it: its keys, becoming the screen in
/// view, `Esc`, and its chart. Its job messages reach it through the
/// app's `JobMsg`, whose variants say whose they are; drawing is the `ui`
/// layer's, which reads the app.
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
}
