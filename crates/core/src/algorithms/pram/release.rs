//! `pram`: PRAM as an [`Algorithm`] of the registry, publishing a release
//! of perturbed values (`release::perturbation` says how a PRAM'd
//! quasi-identifier is published and which figures describe it).
//!
//! The attributes to PRAM are `Options::numeric`'s columns (the same
//! "attributes to perturb" as microaggregation's, categorical here) and
//! its stratum column; each attribute's matrix is built as sdcMicro builds
//! it from `pd` and `alpha` (`Options::pram`), or given by the user. An
//! attribute may be a quasi-identifier (the release's groups are then the
//! distinct published tuples) or have no role; a sensitive attribute or an
//! identifier is refused: the breach figures read a sensitive attribute's
//! original values, and an identifier is never published.

use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::{
    Guarantee, Perturbation, PerturbationMethod, PerturbedColumn, PramMatrix, PublishedValues,
    Release, ReleaseParams,
};

use super::{pram, MatrixSource, MinDiagonal, Pram, PramSpec, TransitionMatrix};
use crate::algorithms::perturbed::{self, groups_as_published, Rules};
use crate::algorithms::{check_needs, Algorithm, Needs, Request};

/// PRAM's parameters beyond the attributes and strata.
#[derive(Debug, Clone, PartialEq)]
pub struct PramOptions {
    /// sdcMicro's `pd`: the least diagonal entry drawn.
    pub pd: f64,
    /// sdcMicro's `alpha`: how much of the invariant matrix is mixed with
    /// the identity.
    pub alpha: f64,
    /// Matrices given by the user, by column, with the file they came from.
    pub given: Vec<(usize, TransitionMatrix, String)>,
}

impl Default for PramOptions {
    /// sdcMicro's defaults.
    fn default() -> Self {
        PramOptions {
            pd: 0.8,
            alpha: 0.5,
            given: Vec::new(),
        }
    }
}

/// The `pram` [`Algorithm`].
pub struct PramAlgorithm;

/// Its id.
pub const ID: &str = "pram";

impl Algorithm for PramAlgorithm {
    fn id(&self) -> &'static str {
        ID
    }

    fn name(&self) -> &'static str {
        "PRAM (post-randomization)"
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
        check_attributes(req)
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        check_attributes(req)?;
        let o = &req.options;
        let specs: Vec<PramSpec> = o
            .numeric
            .columns
            .iter()
            .map(|&column| PramSpec {
                column,
                source: match o.pram.given.iter().find(|(c, _, _)| *c == column) {
                    Some((_, m, _)) => MatrixSource::Given(m.clone()),
                    None => MatrixSource::Invariant {
                        pd: MinDiagonal::Scalar(o.pram.pd),
                        alpha: o.pram.alpha,
                    },
                },
            })
            .collect();
        let out = pram(req.ds, &specs, o.numeric.strata, req.seed, progress)?;
        progress.check()?;
        Ok(release(req, &out))
    }
}

/// The attributes hold together (`perturbed::check_attributes`: a
/// quasi-identifier may be PRAM'd), and each given matrix is one of
/// theirs.
fn check_attributes(req: &Request<'_>) -> Result<()> {
    perturbed::check_attributes(
        req,
        &Rules {
            method: "PRAM",
            numeric: false,
            quasi_identifiers: true,
        },
    )?;
    let o = &req.options.numeric;
    for (c, _, file) in &req.options.pram.given {
        if !o.columns.contains(c) {
            return Err(Error::invalid(
                Parameter::Column,
                format!(
                    "the matrix {file} is for '{}', which is not an attribute to PRAM",
                    req.ds.col(*c).name()
                ),
            ));
        }
    }
    Ok(())
}

/// The release of a PRAM run: one group per distinct published tuple of
/// the quasi-identifiers (a PRAM'd one by its published category), the
/// published categories beside, the matrices recorded.
pub fn release(req: &Request<'_>, out: &Pram) -> Release {
    let ds = req.ds;
    let o = &req.options;
    let mut r = Release::new(ID, ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut r);
    r.params = ReleaseParams {
        seed: Some(req.seed),
        ..ReleaseParams::default()
    };
    let published = |c: usize| -> &[u32] {
        out.attributes
            .iter()
            .find(|a| a.column == c)
            .map_or(ds.col(c).codes(), |a| a.codes.as_slice())
    };
    r.groups = groups_as_published(ds, &req.qi, &published, None);
    let sources: Vec<String> = out
        .attributes
        .iter()
        .map(
            |a| match o.pram.given.iter().find(|(c, _, _)| *c == a.column) {
                Some((_, _, file)) => format!("matrix given by {file}"),
                None => format!("invariant, pd = {}, alpha = {}", o.pram.pd, o.pram.alpha),
            },
        )
        .collect();
    let invariant: Vec<bool> = out
        .attributes
        .iter()
        .map(|a| !o.pram.given.iter().any(|(c, _, _)| *c == a.column))
        .collect();
    r.perturbation = Some(Perturbation {
        methods: vec![PerturbationMethod::Pram {
            columns: out.attributes.iter().map(|a| a.column).collect(),
            strata: out.strata,
            sources,
            invariant,
            matrices: out
                .attributes
                .iter()
                .flat_map(|a| {
                    a.matrices.iter().map(|m| PramMatrix {
                        column: a.column,
                        stratum: m.stratum.clone(),
                        categories: m.matrix.categories.clone(),
                        entries: m.matrix.entries.clone(),
                        frequencies: m.frequencies.clone(),
                        changed: m.changed,
                    })
                })
                .collect(),
            stratum_of: out.stratum_of.clone(),
        }],
        columns: out
            .attributes
            .iter()
            .map(|a| PerturbedColumn {
                column: a.column,
                values: PublishedValues::Codes {
                    codes: a.codes.clone(),
                },
            })
            .collect(),
    });
    r.claims.push(Guarantee::Pram {
        attributes: out.attributes.iter().map(|a| a.name.clone()).collect(),
        strata: out.strata.map(|s| ds.col(s).name().to_string()),
    });
    r
}
