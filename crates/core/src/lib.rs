//! anonlab: privacy risk assessment and anonymization of tabular microdata.
//!
//! The library is the whole tool minus the terminal: the CLI and the TUI are
//! thin layers over it. Nothing in the core prints or touches the terminal.
//!
//! ```
//! use anonlab::data::Dataset;
//! use anonlab::progress::Progress;
//! use anonlab::risk::{simulate, Knowledge};
//!
//! // Who can be singled out by an attacker who knows sex and age?
//! let ds = Dataset::from_rows(
//!     &["sex", "age", "disease"],
//!     &[vec!["M", "30", "Flu"], vec!["M", "30", "HIV"], vec!["F", "41", "Flu"]],
//! )
//! .unwrap();
//! let sim = simulate(&ds, Knowledge::plain(&[0, 1]), 0.2, &Progress::new()).unwrap();
//! assert_eq!(sim.summary.uniques, 1); // the 41-year-old woman
//! assert_eq!(sim.probability(0), 0.5);
//! ```

pub mod algorithms;
pub mod anonymize;
pub mod assess;
pub mod charts;
pub mod data;
pub mod error;
pub mod format;
pub mod hierarchy;
pub mod metrics;
pub mod partition;
pub mod privacy;
pub mod progress;
pub mod release;
pub mod report;
pub mod risk;
pub mod session;
pub mod stats;
pub mod synth;

pub use error::{Error, Result};
