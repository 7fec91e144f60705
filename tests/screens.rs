//! The TUI's screen tests (TestBackend), one module per `tui_*.rs` file beside
//! this one, linked into one test binary for the reason tests/suite.rs gives.
//! The tmux end-to-end test (tui_tmux.rs) stays its own binary: it drives a
//! real terminal and its waits should not share the cores with these.

mod common;

mod tui_anonymize;
mod tui_commands;
mod tui_compare;
mod tui_engine;
mod tui_explore;
mod tui_export;
mod tui_fingerprint;
mod tui_folder;
mod tui_hierarchies;
mod tui_history;
mod tui_infra;
mod tui_keymap_readme;
mod tui_lattice;
mod tui_layers;
mod tui_lgb;
mod tui_lgb_project;
mod tui_local_suppression;
mod tui_microaggregation;
mod tui_needs;
mod tui_one_after;
mod tui_one_truth;
mod tui_open_async;
mod tui_open_picker;
mod tui_pk;
mod tui_recode;
mod tui_registry;
mod tui_risk;
mod tui_risk_models;
mod tui_screens;
mod tui_side_by_side;
mod tui_sizes;
mod tui_sweep;
mod tui_write;
