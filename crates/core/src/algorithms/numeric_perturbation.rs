//! `noise-additive`, `noise-correlated2` and `rank-swap`: sdcMicro's
//! `addNoise` and `rankSwap` (`noise.rs`, `swapping.rs`) as
//! [`Algorithm`]s of the registry, publishing a release of perturbed values
//! as microaggregation does (`microaggregation/release.rs`: the attributes
//! to perturb are numerical key variables of no other role; the
//! quasi-identifiers are published as they are).
//!
//! What each states and what can be checked:
//! - noise states its level (the standard deviation of the random term per
//!   attribute, and per stratum) and, for correlated2, the factor
//!   covariances are multiplied by; no verifier can check from a release
//!   that the noise was drawn as stated, so noise makes no claim: the
//!   release's structural checks run, and the report says the rest;
//! - rank swapping claims `Guarantee::RankSwap`: every attribute's values
//!   only permuted within its stratum, every record's published value the
//!   original of a record fewer than p·N/100 ranks away — both checked by
//!   the verifier from the release and the data.

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result, Setting};
use crate::partition::Partition;
use crate::progress::Progress;
use crate::release::{
    Cell, EquivalenceGroup, Guarantee, Perturbation, PerturbationMethod, PerturbedColumn,
    PublishedValues, Release, ReleaseParams,
};

use super::noise::{add_noise, NoiseMethod};
use super::swapping::rank_swap;
use super::{check_needs, Algorithm, Needs, Request};

/// The parameters of noise and rank swapping (sdcMicro's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseOptions {
    /// `additive`: noise in percent of each attribute's standard deviation.
    pub noise: f64,
    /// `correlated2`: δ in (0, 1].
    pub delta: f64,
    /// Rank swapping's range p, in percent of the records.
    pub swap_p: f64,
}

impl Default for NoiseOptions {
    fn default() -> Self {
        NoiseOptions {
            noise: 150.0,
            delta: 0.1,
            swap_p: 5.0,
        }
    }
}

/// Which method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Additive,
    Correlated2,
    RankSwap,
}

/// A noise or rank-swapping [`Algorithm`].
pub struct NumericPerturbation(pub Kind);

impl Algorithm for NumericPerturbation {
    fn id(&self) -> &'static str {
        match self.0 {
            Kind::Additive => "noise-additive",
            Kind::Correlated2 => "noise-correlated2",
            Kind::RankSwap => "rank-swap",
        }
    }

    fn name(&self) -> &'static str {
        match self.0 {
            Kind::Additive => "Additive noise",
            Kind::Correlated2 => "Correlated noise (correlated2)",
            Kind::RankSwap => "Rank swapping",
        }
    }

    fn needs(&self) -> Needs {
        Needs {
            seed: true,
            numeric: true,
            settings: true,
            ..Needs::default()
        }
    }

    fn check(&self, req: &Request<'_>) -> Result<()> {
        check_needs(self.name(), self.id(), self.needs(), req)?;
        check_columns(req)
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        check_columns(req)?;
        let o = &req.options;
        let columns = &o.numeric.columns;
        let strata = o.numeric.strata;
        let (values, method) = match self.0 {
            Kind::Additive | Kind::Correlated2 => {
                let (method, kind, parameter) = match self.0 {
                    Kind::Additive => (
                        NoiseMethod::Additive {
                            noise: o.noise.noise,
                        },
                        "additive",
                        o.noise.noise,
                    ),
                    _ => (
                        NoiseMethod::Correlated2 {
                            delta: o.noise.delta,
                        },
                        "correlated2",
                        o.noise.delta,
                    ),
                };
                let out = add_noise(req.ds, columns, strata, method, req.seed, progress)?;
                (
                    out.values,
                    PerturbationMethod::Noise {
                        kind: kind.to_string(),
                        parameter,
                        columns: columns.clone(),
                        strata,
                        noise_sd: out.noise_sd,
                        covariance_factor: out.covariance_factor,
                    },
                )
            }
            Kind::RankSwap => {
                let out = rank_swap(req.ds, columns, strata, o.noise.swap_p, req.seed, progress)?;
                (
                    out.values,
                    PerturbationMethod::RankSwap {
                        p: out.p,
                        columns: columns.clone(),
                        strata,
                        swaps: out.swaps,
                    },
                )
            }
        };
        progress.check()?;
        let ds = req.ds;
        let mut r = Release::new(self.id(), ds, req.qi.clone(), req.sensitive.clone());
        req.drop_identifiers(&mut r);
        r.params = ReleaseParams {
            seed: Some(req.seed),
            ..ReleaseParams::default()
        };
        r.groups = as_published(ds, &req.qi);
        if self.0 == Kind::RankSwap {
            r.claims.push(Guarantee::RankSwap {
                attributes: columns
                    .iter()
                    .map(|&c| ds.col(c).name().to_string())
                    .collect(),
                p: o.noise.swap_p,
                strata: strata.map(|s| ds.col(s).name().to_string()),
            });
        }
        r.perturbation = Some(Perturbation {
            methods: vec![method],
            columns: columns
                .iter()
                .zip(values)
                .map(|(&column, values)| PerturbedColumn {
                    column,
                    values: PublishedValues::Numbers { values },
                })
                .collect(),
        });
        Ok(r)
    }
}

/// At least one attribute, each numeric and of no other role, the stratum
/// column not among them.
fn check_columns(req: &Request<'_>) -> Result<()> {
    let o = &req.options.numeric;
    let ds = req.ds;
    if o.columns.is_empty() {
        return Err(Error::unmet(
            "noise and rank swapping need the numeric attributes to perturb",
            Setting::NumericAttributes,
        ));
    }
    for &c in &o.columns {
        if c >= ds.n_cols() {
            return Err(Error::Internal(format!("column index {c} is out of range")));
        }
        let name = ds.col(c).name();
        let role = if req.qi.contains(&c) {
            Some("a quasi-identifier")
        } else if req.sensitive.contains(&c) {
            Some("a sensitive attribute")
        } else if req.identifiers.contains(&c) {
            Some("an identifier")
        } else {
            None
        };
        if let Some(role) = role {
            return Err(Error::invalid(
                Parameter::Roles,
                format!(
                    "'{name}' is {role} and a numeric attribute to perturb: its published values are not its values, and the figures of {role} would describe values that are not published; give it no role"
                ),
            ));
        }
        if !ds.col(c).is_numeric() {
            return Err(Error::invalid(
                Parameter::Column,
                format!("'{name}' is categorical; noise and rank swapping need numeric columns"),
            ));
        }
        if o.strata == Some(c) {
            return Err(Error::invalid(
                Parameter::Strata,
                format!("'{name}' is both the stratum column and an attribute to perturb"),
            ));
        }
    }
    Ok(())
}

/// One group per distinct tuple of the quasi-identifiers, each cell its
/// exact value (rows in source order).
fn as_published(ds: &Dataset, qi: &[usize]) -> Vec<EquivalenceGroup> {
    Partition::by_columns(ds, qi)
        .members()
        .iter()
        .map(|rows| {
            let first = rows[0] as usize;
            EquivalenceGroup {
                rows: rows.to_vec(),
                cells: qi
                    .iter()
                    .map(|&c| Cell::Value {
                        code: ds.col(c).code(first),
                    })
                    .collect(),
            }
        })
        .collect()
}
