//! `mdav` and `optimal-univariate`: microaggregation as [`Algorithm`]s of
//! the registry, publishing a release of perturbed values
//! (`release::perturbation` says why they are published beside the groups,
//! not as cells).
//!
//! The numerical key variables (`Options::numeric`, sdcMicro's `numVars`)
//! are microaggregated; the quasi-identifiers (the categorical keys) are
//! published as they are, one equivalence group per distinct tuple, so the
//! class-based figures describe them exactly as before; sensitive and other
//! columns are published as they are. A column to aggregate may not be a
//! quasi-identifier, a sensitive attribute or an identifier: its published
//! values are not truthful, and the figures that read those roles would
//! describe values that were not published.
//!
//! Rows are written class by class, and within a class by microaggregation
//! group (then source order), so the file's order says no more than its
//! values.

use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::{
    Guarantee, Perturbation, PerturbationMethod, PerturbedColumn, PublishedValues, Release,
    ReleaseParams,
};

use super::{mdav, optimal_univariate, Aggregation, Microaggregated, MicroaggregationOptions};
use crate::algorithms::perturbed::{check_attributes, groups_as_published, Rules};
use crate::algorithms::{check_k, check_needs, Algorithm, Needs, Request};

/// The numerical key variables to perturb and how (read by `mdav` and
/// `optimal-univariate`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NumericOptions {
    /// Columns to microaggregate (together for MDAV; one for the optimal
    /// univariate method).
    pub columns: Vec<usize>,
    /// Microaggregate within each value of this column.
    pub strata: Option<usize>,
    pub aggregation: Aggregation,
    /// Sampling weights: each group's weighted mean or median.
    pub weights: Option<usize>,
}

/// Which method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Mdav,
    OptimalUnivariate,
}

/// A microaggregation [`Algorithm`].
pub struct Microaggregation(pub Method);

impl Algorithm for Microaggregation {
    fn id(&self) -> &'static str {
        match self.0 {
            Method::Mdav => "mdav",
            Method::OptimalUnivariate => "optimal-univariate",
        }
    }

    fn name(&self) -> &'static str {
        match self.0 {
            Method::Mdav => "Microaggregation (MDAV)",
            Method::OptimalUnivariate => "Microaggregation (optimal univariate)",
        }
    }

    fn needs(&self) -> Needs {
        Needs {
            k: true,
            numeric: true,
            // The aggregation and the strata (`Options::numeric`).
            settings: true,
            ..Needs::default()
        }
    }

    fn check(&self, req: &Request<'_>) -> Result<()> {
        check_needs(self.name(), self.id(), self.needs(), req)?;
        check_columns(self.0, req)
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        check_k(req)?;
        check_columns(self.0, req)?;
        let o = &req.options.numeric;
        let options = MicroaggregationOptions {
            k: req.k as usize,
            aggregation: o.aggregation,
        };
        let out = match self.0 {
            Method::Mdav => mdav(req.ds, &o.columns, o.strata, o.weights, options, progress)?,
            Method::OptimalUnivariate => {
                optimal_univariate(req.ds, o.columns[0], o.strata, o.weights, options, progress)?
            }
        };
        progress.check()?;
        Ok(release(self.id(), req, &out))
    }
}

/// The request's numeric columns hold together (`perturbed::check_attributes`),
/// and the optimal univariate method has one.
fn check_columns(method: Method, req: &Request<'_>) -> Result<()> {
    let n = req.options.numeric.columns.len();
    if method == Method::OptimalUnivariate && n > 1 {
        return Err(Error::invalid(
            Parameter::Column,
            format!(
                "the optimal univariate method aggregates one attribute, {n} were given: run it once per attribute, or use mdav"
            ),
        ));
    }
    // A top or bottom code survives aggregation (a group's mean or median
    // lies within its values), a rounding does not: refused here rather
    // than published as a release whose rounding check fails.
    for &c in &req.options.numeric.columns {
        let name = req.ds.col(c).name();
        if let Some(r) = req
            .ds
            .recodings()
            .iter()
            .find(|a| a.column == name && a.method == crate::data::recode::Method::Round)
        {
            return Err(Error::invalid(
                Parameter::Recode,
                format!(
                    "'{name}' is rounded to a multiple of {} and microaggregated: a group's {} is no such multiple; round it or microaggregate it, not both",
                    r.given,
                    crate::release::AggregationName::from(req.options.numeric.aggregation).as_str()
                ),
            ));
        }
    }
    if let Some(w) = req.options.numeric.weights {
        if req.options.numeric.columns.contains(&w) {
            return Err(Error::invalid(
                Parameter::Weights,
                format!(
                    "'{}' is the sampling weight and an attribute to microaggregate: weights are published as they are",
                    req.ds.col(w).name()
                ),
            ));
        }
    }
    check_attributes(
        req,
        &Rules {
            method: "microaggregation",
            numeric: true,
            quasi_identifiers: false,
        },
    )
}

/// The release of a microaggregation: the quasi-identifiers as they are
/// (one group per distinct tuple), the aggregated values beside them.
pub fn release(id: &str, req: &Request<'_>, out: &Microaggregated) -> Release {
    let ds = req.ds;
    let o = &req.options.numeric;
    let mut r = Release::new(id, ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut r);
    r.params = ReleaseParams {
        k: Some(req.k),
        ..ReleaseParams::default()
    };
    r.groups = groups_as_published(ds, &req.qi, &|c| ds.col(c).codes(), Some(&out.groups));
    r.perturbation = Some(Perturbation {
        methods: vec![PerturbationMethod::Microaggregation {
            kind: id.to_string(),
            k: req.k,
            aggregation: o.aggregation.into(),
            columns: out.columns.clone(),
            strata: o.strata,
            weights: o.weights,
            groups: out.groups.clone(),
            n_groups: out.n_groups,
        }],
        columns: out
            .columns
            .iter()
            .zip(&out.values)
            .map(|(&column, values)| PerturbedColumn {
                column,
                values: PublishedValues::Numbers {
                    values: values.clone(),
                },
            })
            .collect(),
    });
    r.claims.push(Guarantee::MicroaggregationK {
        k: req.k,
        attributes: out
            .columns
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect(),
        aggregation: o.aggregation.into(),
        strata: o.strata.map(|s| ds.col(s).name().to_string()),
        weights: o.weights.map(|w| ds.col(w).name().to_string()),
    });
    r
}

impl From<Aggregation> for crate::release::AggregationName {
    fn from(a: Aggregation) -> Self {
        match a {
            Aggregation::Mean => crate::release::AggregationName::Mean,
            Aggregation::Median => crate::release::AggregationName::Median,
        }
    }
}

impl From<crate::release::AggregationName> for Aggregation {
    fn from(a: crate::release::AggregationName) -> Self {
        match a {
            crate::release::AggregationName::Mean => Aggregation::Mean,
            crate::release::AggregationName::Median => Aggregation::Median,
        }
    }
}
