//! anonlab: privacy risk assessment and anonymization of tabular microdata.
//!
//! The library is the whole tool minus the terminal: the CLI and the TUI are
//! thin layers over it. Nothing in the core prints or touches the terminal.

pub mod algorithms;
pub mod anonymize;
pub mod assess;
pub mod data;
pub mod error;
pub mod format;
pub mod metrics;
pub mod partition;
pub mod privacy;
pub mod progress;
pub mod release;
pub mod risk;
pub mod session;
pub mod synth;
#[cfg(feature = "tui")]
pub mod tui;

pub use error::{Error, Result};
