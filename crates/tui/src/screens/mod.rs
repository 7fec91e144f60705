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
