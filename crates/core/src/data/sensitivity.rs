//! Per-cell sensitivity of semi-sensitive attributes (the LGB paper's model).
//!
//! For a semi-sensitive attribute some cells are sensitive values (the
//! person does not want them known) and the rest act as quasi-identifier
//! values. Which ones is a bitset over rows, filled from one source and then
//! adjusted by hand. Only the source and the hand toggles are stored in the
//! project file; the bitset is derived, so a project stays small and
//! re-derives the same cells from the same data.
//!
//! Choices: a density marks exactly `round(density × rows)` cells, drawn
//! uniformly without replacement by ChaCha8 seeded with the user's seed
//! mixed with the column name (so two attributes with the same seed do not
//! get the same rows). A flag column accepts 0/1, true/false, yes/no (any
//! case); a missing flag means "not sensitive"; anything else is an error
//! naming the row.

use std::collections::BTreeSet;

use fixedbitset::FixedBitSet;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::{Dataset, Rule};
use crate::error::{Error, Parameter, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "source", rename_all = "kebab-case")]
pub enum SensitivitySource {
    /// No cell sensitive except those toggled by hand.
    #[default]
    None,
    /// Cells of the rows that satisfy a rule, e.g. `age>=60`.
    Rule { rule: String },
    /// Cells of the rows whose flag column holds 1 / true / yes.
    FlagColumn { column: String },
    /// A seeded random share of the cells.
    Density { density: f64, seed: u64 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CellSensitivity {
    #[serde(flatten)]
    pub source: SensitivitySource,
    /// Rows whose cell was flipped by hand after the source was applied.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub toggled: BTreeSet<u32>,
}

impl CellSensitivity {
    pub fn new(source: SensitivitySource) -> Self {
        Self {
            source,
            toggled: BTreeSet::new(),
        }
    }

    /// Flip one cell by hand; flipping it twice restores the source's value.
    pub fn toggle(&mut self, row: u32) {
        if !self.toggled.remove(&row) {
            self.toggled.insert(row);
        }
    }

    /// The sensitive rows of `column` in `ds`.
    pub fn resolve(&self, ds: &Dataset, column: &str) -> Result<FixedBitSet> {
        let n = ds.n_rows();
        let mut bits = match &self.source {
            SensitivitySource::None => FixedBitSet::with_capacity(n),
            SensitivitySource::Rule { rule } => Rule::parse(rule)?.evaluate(ds)?,
            SensitivitySource::FlagColumn { column: flag } => flag_bits(ds, flag)?,
            SensitivitySource::Density { density, seed } => {
                // A seeded draw of rows is a draw of records only when a
                // row is one record.
                ds.require_records(&format!(
                    "a random density of sensitive cells of '{column}'"
                ))?;
                density_bits(n, *density, mix_seed(*seed, column))?
            }
        };
        if !self.toggled.is_empty() {
            ds.require_records(&format!("marking cells of '{column}' one by one"))?;
        }
        for &r in &self.toggled {
            if (r as usize) < n {
                bits.toggle(r as usize);
            } else {
                return Err(Error::invalid(
                    Parameter::SensitiveCells,
                    format!(
                        "a toggled cell of '{column}' is at row {r}, but the data has {n} rows"
                    ),
                ));
            }
        }
        Ok(bits)
    }
}

fn flag_bits(ds: &Dataset, flag: &str) -> Result<FixedBitSet> {
    let col = ds.column(flag)?;
    let mut truth = vec![false; col.code_space()];
    for (code, v) in col.dictionary().iter().enumerate() {
        truth[code] = match v.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "y" => true,
            "0" | "false" | "no" | "n" => false,
            other => {
                // A grouped table's rows are not the file's.
                let row = col
                    .codes()
                    .iter()
                    .position(|&c| c as usize == code)
                    .filter(|_| !ds.is_grouped());
                return Err(Error::input(
                    ds.name(),
                    row.map(|r| r as u64 + 2),
                    Some(flag.to_string()),
                    format!("flag column holds '{other}'; expected 0/1, true/false or yes/no"),
                ));
            }
        };
    }
    let mut bits = FixedBitSet::with_capacity(ds.n_rows());
    for (r, &c) in col.codes().iter().enumerate() {
        if truth[c as usize] {
            bits.insert(r);
        }
    }
    Ok(bits)
}

fn density_bits(n: usize, density: f64, seed: u64) -> Result<FixedBitSet> {
    if !(0.0..=1.0).contains(&density) {
        return Err(Error::invalid(
            Parameter::SensitiveDensity,
            format!("sensitive density {density} is not between 0 and 1"),
        ));
    }
    let amount = (density * n as f64).round() as usize;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut bits = FixedBitSet::with_capacity(n);
    for r in rand::seq::index::sample(&mut rng, n, amount.min(n)) {
        bits.insert(r);
    }
    Ok(bits)
}

/// FNV-1a of the column name, xor the seed: stable across platforms and
/// releases, unlike `std`'s hasher.
fn mix_seed(seed: u64, column: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in column.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    seed ^ h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds() -> Dataset {
        let rows: Vec<Vec<String>> = (0..100)
            .map(|i| {
                vec![
                    (20 + i % 60).to_string(),
                    if i % 3 == 0 { "1" } else { "0" }.into(),
                ]
            })
            .collect();
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(|s| s.as_str()).collect())
            .collect();
        Dataset::from_rows(&["age", "hide"], &rows).unwrap()
    }

    #[test]
    fn sources_fill_the_bitset() {
        let d = ds();
        let rule = CellSensitivity::new(SensitivitySource::Rule {
            rule: "age>=70".into(),
        });
        // Ages are 20 + i % 60 for i < 100: only i = 50..59 reach 70.
        assert_eq!(rule.resolve(&d, "age").unwrap().count_ones(..), 10);
        let flag = CellSensitivity::new(SensitivitySource::FlagColumn {
            column: "hide".into(),
        });
        assert_eq!(flag.resolve(&d, "age").unwrap().count_ones(..), 34);
        let dens = CellSensitivity::new(SensitivitySource::Density {
            density: 0.2,
            seed: 7,
        });
        let a = dens.resolve(&d, "age").unwrap();
        assert_eq!(a.count_ones(..), 20);
        assert_eq!(a, dens.resolve(&d, "age").unwrap(), "seeded");
        assert_ne!(
            a,
            dens.resolve(&d, "hide").unwrap(),
            "mixed with the column"
        );
    }

    #[test]
    fn toggles_flip_cells_and_round_trip() {
        let d = ds();
        let mut s = CellSensitivity::new(SensitivitySource::Rule {
            rule: "age>=70".into(),
        });
        s.toggle(0);
        s.toggle(99);
        let bits = s.resolve(&d, "age").unwrap();
        assert!(bits.contains(0));
        // Rows 0 (age 20) and 99 (age 59) were off and are now on.
        assert_eq!(bits.count_ones(..), 12);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<CellSensitivity>(&json).unwrap(), s);
        s.toggle(0);
        assert!(!s.resolve(&d, "age").unwrap().contains(0));
    }

    #[test]
    fn bad_flags_and_densities_are_refused() {
        let d = Dataset::from_rows(&["f"], &[vec!["1"], vec!["maybe"]]).unwrap();
        let e = CellSensitivity::new(SensitivitySource::FlagColumn { column: "f".into() })
            .resolve(&d, "f")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("row 3") && e.contains("'f'") && e.contains("maybe"),
            "{e}"
        );
        let e = CellSensitivity::new(SensitivitySource::Density {
            density: 1.5,
            seed: 1,
        })
        .resolve(&d, "f")
        .unwrap_err();
        assert!(e.to_string().contains("between 0 and 1"));
    }
}
