//! The LGB flags of `anonymize` and `compare` (the local generalization and
//! bucketization paper): which attributes are semi-sensitive, which of their
//! cells are sensitive, and which attributes use t-closeness instead of
//! l-diversity. Parsed raw by clap, then validated into the library's
//! `algorithms::Options` in one step ([`LgbArgs::options`]).
//!
//! Choices:
//! - One source marks the sensitive cells of every semi-sensitive attribute:
//!   a rule or a flag column selects rows (the same rows on each attribute);
//!   a density draws each attribute's cells separately (`CellSensitivity`
//!   mixes the seed with the column name), which is how the paper's 10–40 %
//!   experiments mark cells.
//! - Algorithms that know nothing of semi-sensitive cells (Mondrian, Anatomy,
//!   CBG) leave the semi-sensitive attributes out of their release, as the
//!   TUI, a project and the report do (README, "How semi-sensitive cells
//!   are matched": a sensitive cell must not be published as a
//!   quasi-identifier value); the output names them "not published". The
//!   LGB paper's baselines, which "can only regard semi-sensitive
//!   attributes as QI attributes", are run by naming those attributes in
//!   --qi for them: a choice the command line states, never one it makes.

use std::collections::BTreeMap;

use anyhow::{bail, Context};
use clap::Args;

use anonlab::algorithms::lgb::NcpMeasure;
use anonlab::data::{Dataset, SensitivitySource};
use anonlab::session::Session;

#[derive(Debug, Args, Clone, Default)]
pub struct LgbArgs {
    /// Semi-sensitive attributes (lgb-mdp, lgb-ncp): cells marked sensitive are
    /// bucketized, the others act as quasi-identifier values.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub semi_sensitive: Vec<String>,
    /// Mark as sensitive the cells of the rows satisfying a rule, e.g. 'age>=60'.
    #[arg(long, value_name = "RULE", conflicts_with_all = ["sensitive_density", "sensitive_flag"])]
    pub sensitive_when: Option<String>,
    /// Mark a seeded random share in (0, 1] of each semi-sensitive attribute's
    /// cells (seed: --seed).
    #[arg(long, value_name = "SHARE", conflicts_with = "sensitive_flag")]
    pub sensitive_density: Option<f64>,
    /// Mark the cells of the rows whose flag column holds 1, true or yes.
    #[arg(long, value_name = "COL")]
    pub sensitive_flag: Option<String>,
    /// Protect these attributes by t-closeness instead of l-diversity, e.g.
    /// 'sex=0.2' (semi-sensitive or sensitive attributes). Default with
    /// --project: the project's choice, for those of its attributes that
    /// are semi-sensitive or sensitive here.
    #[arg(long, value_delimiter = ',', value_name = "ATTR=T")]
    pub t_closeness: Vec<String>,
    /// How lgb-ncp measures a categorical cell: 'paper' (the LGB paper's
    /// size(v*)/|A|, the default) or 'normalized' ((|v*| − 1)/(|A| − 1),
    /// the NCP anonlab reports for every release).
    #[arg(long, value_name = "MEASURE")]
    pub lgb_ncp: Option<String>,
}

impl LgbArgs {
    /// Whether any LGB flag is given (with --project they replace the
    /// project's roles and cells).
    pub fn any(&self) -> bool {
        !self.semi_sensitive.is_empty()
            || self.sensitive_when.is_some()
            || self.sensitive_density.is_some()
            || self.sensitive_flag.is_some()
            || !self.t_closeness.is_empty()
    }

    /// The semi-sensitive columns, checked against the other roles.
    pub fn columns(
        &self,
        ds: &Dataset,
        qi: &[usize],
        sensitive: &[usize],
    ) -> anyhow::Result<Vec<usize>> {
        let mut out = Vec::with_capacity(self.semi_sensitive.len());
        for name in &self.semi_sensitive {
            let c = ds
                .column_index(name)
                .context("--semi-sensitive names a column the file does not have")?;
            if qi.contains(&c) {
                bail!("'{name}' is both a quasi-identifier and semi-sensitive: name it in one of --qi and --semi-sensitive");
            }
            if sensitive.contains(&c) {
                bail!("'{name}' is both the sensitive attribute and semi-sensitive: name it in one of --sensitive and --semi-sensitive");
            }
            if out.contains(&c) {
                bail!("'{name}' is named twice in --semi-sensitive");
            }
            out.push(c);
        }
        let has_source = self.sensitive_when.is_some()
            || self.sensitive_density.is_some()
            || self.sensitive_flag.is_some();
        if out.is_empty() && has_source {
            bail!("--sensitive-when, --sensitive-density and --sensitive-flag mark cells of semi-sensitive attributes: name them with --semi-sensitive");
        }
        if !out.is_empty() && !has_source {
            bail!("say which cells of {} are sensitive: add --sensitive-when RULE, --sensitive-density SHARE or --sensitive-flag COL", self.semi_sensitive.join(", "));
        }
        Ok(out)
    }

    /// Refuse a semi-sensitive attribute of `session` (`columns`) none of
    /// whose cells is sensitive: LGB would have nothing to protect, and
    /// the other algorithms would leave it out for nothing.
    pub fn check_marked(&self, session: &Session, columns: &[usize]) -> anyhow::Result<()> {
        for &c in columns {
            let name = session.dataset.col(c).name();
            let cells = session
                .sensitive_cells(c)
                .with_context(|| format!("marking the sensitive cells of '{name}'"))?;
            if cells.count_ones(..) == 0 {
                bail!(
                    "no cell of '{name}' is sensitive with {}: LGB needs at least one (mark more cells, or make '{name}' a quasi-identifier)",
                    self.describe_source()
                );
            }
        }
        Ok(())
    }

    /// The t-closeness attributes with their t (`Params::t_closeness`),
    /// each a `semi_sensitive` or `sensitive` categorical attribute.
    pub fn t_closeness(
        &self,
        ds: &Dataset,
        semi_sensitive: &[usize],
        sensitive: &[usize],
    ) -> anyhow::Result<BTreeMap<String, f64>> {
        let mut out = BTreeMap::new();
        for spec in &self.t_closeness {
            let Some((name, t)) = spec.split_once('=') else {
                bail!("--t-closeness takes ATTR=T, e.g. sex=0.2, not '{spec}'");
            };
            let (name, t) = (name.trim(), t.trim());
            let c = ds.column_index(name)?;
            let t: f64 = t
                .parse()
                .ok()
                .filter(|t: &f64| *t > 0.0 && *t <= 1.0)
                .with_context(|| {
                    format!("--t-closeness {name}={t}: t must be a number in (0, 1]")
                })?;
            if !semi_sensitive.contains(&c) && !sensitive.contains(&c) {
                bail!("--t-closeness {name}: '{name}' is neither semi-sensitive nor the sensitive attribute, so it has no sensitive cells to protect");
            }
            if ds.col(c).is_numeric() {
                bail!("--t-closeness {name}: '{name}' is numeric; t-closeness is offered for categorical attributes (such as sex, with two values, where l-diversity cannot protect); use l-diversity for '{name}'");
            }
            if out.insert(name.to_string(), t).is_some() {
                bail!("--t-closeness names '{name}' twice");
            }
        }
        Ok(out)
    }

    /// LGB_NCP's categorical measure (--lgb-ncp).
    pub fn ncp(&self) -> anyhow::Result<NcpMeasure> {
        Ok(match self.lgb_ncp.as_deref() {
            None | Some("paper") => NcpMeasure::Paper,
            Some("normalized") => NcpMeasure::Normalized,
            Some(other) => {
                bail!("--lgb-ncp {other}: the measures are 'paper' and 'normalized'")
            }
        })
    }

    /// Where the sensitive cells come from; a density draws with `seed`.
    pub fn source(&self, ds: &Dataset, seed: u64) -> anyhow::Result<Option<SensitivitySource>> {
        if let Some(rule) = &self.sensitive_when {
            return Ok(Some(SensitivitySource::Rule { rule: rule.clone() }));
        }
        if let Some(d) = self.sensitive_density {
            if !(d > 0.0 && d <= 1.0) {
                bail!("--sensitive-density {d}: the share of sensitive cells must be in (0, 1], e.g. 0.2 for 20 %");
            }
            return Ok(Some(SensitivitySource::Density { density: d, seed }));
        }
        if let Some(flag) = &self.sensitive_flag {
            ds.column_index(flag)?;
            return Ok(Some(SensitivitySource::FlagColumn {
                column: flag.clone(),
            }));
        }
        Ok(None)
    }

    fn describe_source(&self) -> String {
        if let Some(r) = &self.sensitive_when {
            format!("the rule '{r}'")
        } else if let Some(d) = self.sensitive_density {
            format!("density {d}")
        } else if let Some(f) = &self.sensitive_flag {
            format!("the flag column '{f}'")
        } else {
            "no source".into()
        }
    }
}
