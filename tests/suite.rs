//! The integration tests of the library and the command line, one module per
//! file beside this one, linked into one test binary: each binary links the
//! whole crate with Arrow, DataFusion and Ballista, so one binary instead of
//! one per file saves most of the tests' link time and gigabytes of disk
//! (`autotests = false` in Cargo.toml; tests/architecture.rs checks that
//! every file here is a module of a test binary). `cargo test --test suite
//! NAME` runs one file's tests by its module name.

mod common;

mod algorithm_needs;
mod algorithm_registry;
mod algorithms_adult;
mod algorithms_fig1b;
mod architecture;
mod arp_properties;
mod cbg_adult;
mod charts;
mod cli;
mod cli_anonymize;
mod cli_arp;
mod cli_chart;
mod cli_correlate;
mod cli_fingerprint;
mod cli_full_domain;
mod cli_hierarchy;
mod cli_household;
mod cli_lgb;
mod cli_local_suppression;
mod cli_microaggregation;
mod cli_noise;
mod cli_pk;
mod cli_population;
mod cli_pram;
mod cli_progress;
mod cli_recode;
mod cli_report;
mod construction;
mod core_errors;
mod correlation_adult;
mod correlation_hierarchy;
mod demo_asset;
mod engine;
mod formats;
mod full_domain;
mod golden_adult;
mod golden_hidden;
mod grouped;
mod grouped_release;
mod hierarchy_adult;
mod hierarchy_builders;
mod hostile;
mod hostile_formats;
mod hostile_structure;
mod lgb_adult;
mod lgb_fixture;
mod lgb_measures;
mod lgb_properties;
mod local_suppression;
mod microaggregation;
mod ng;
mod numeric_risk;
mod pk_adult;
mod pk_properties;
mod population_adult;
mod pram;
mod privacy_golden;
mod prob_queries;
mod publish;
mod release_fingerprints;
mod report;
mod report_perturbation;
mod report_population;
mod report_suppression;
mod risk_properties;
mod suda_properties;
mod verify_properties;
