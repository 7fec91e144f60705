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
//!
//! Top and bottom codes and roundings (`data::recode`, applied to the file
//! before any algorithm) combine with all three. Rank swapping only moves
//! recoded values between records, so they stay recoded. Noise would carry
//! a value past its top code or off its rounding base, so the recodings of
//! a noised attribute are applied again to its noisy values, in the order
//! they were applied to the file: the published file keeps every recoding
//! it states, which the verifier checks on the published values.

use crate::data::number::Decimal;
use crate::data::recode::{round_to, Method as RecodeMethod};
use crate::data::Dataset;
use crate::error::Result;
use crate::progress::Progress;
use crate::release::{
    Guarantee, Perturbation, PerturbationMethod, PerturbedColumn, PublishedValues, Release,
    ReleaseParams,
};

use super::noise::{add_noise, NoiseMethod};
use super::perturbed::{check_attributes, groups_as_published, Rules};
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
                let mut out = add_noise(req.ds, columns, strata, method, req.seed, progress)?;
                for (&c, values) in columns.iter().zip(&mut out.values) {
                    recode_again(req.ds, c, values);
                }
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
        r.groups = groups_as_published(ds, &req.qi, &|c| ds.col(c).codes(), None);
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

/// The attributes hold together (`perturbed::check_attributes`).
fn check_columns(req: &Request<'_>) -> Result<()> {
    check_attributes(
        req,
        &Rules {
            method: "noise and rank swapping",
            numeric: true,
            quasi_identifiers: false,
        },
    )
}

/// The file's recodings of column `c` (top and bottom codes, roundings,
/// in the order they were applied) applied again to its noisy `values`,
/// each compared and rounded as the decimal the published file writes (the
/// shortest text that reads back as the value), as the verifier reads it.
fn recode_again(ds: &Dataset, c: usize, values: &mut [f64]) {
    let name = ds.col(c).name();
    for applied in ds.recodings().iter().filter(|a| a.column == name) {
        let number = |t: &Option<String>| t.as_deref().and_then(Decimal::parse);
        match applied.method {
            RecodeMethod::TopCode | RecodeMethod::BottomCode => {
                let (Some(t), Some(r)) = (number(&applied.threshold), number(&applied.replacement))
                else {
                    continue;
                };
                let top = applied.method == RecodeMethod::TopCode;
                let replacement = r.to_f64();
                for v in values.iter_mut().filter(|v| v.is_finite()) {
                    let Some(d) = Decimal::parse(&v.to_string()) else {
                        continue;
                    };
                    if (top && d > t) || (!top && d < t) {
                        *v = replacement;
                    }
                }
            }
            RecodeMethod::Round => {
                let Some(base) = Decimal::parse(&applied.given) else {
                    continue;
                };
                for v in values.iter_mut().filter(|v| v.is_finite()) {
                    if let Some(rounded) = Decimal::parse(&v.to_string())
                        .and_then(|d| round_to(&d, &base))
                        .and_then(|d| d.to_string().parse::<f64>().ok())
                    {
                        *v = rounded;
                    }
                }
            }
        }
    }
}
