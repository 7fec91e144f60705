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

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result, Setting};
use crate::partition::Partition;
use crate::progress::Progress;
use crate::release::{
    Cell, EquivalenceGroup, Guarantee, Perturbation, PerturbationMethod, PerturbedColumn,
    PublishedValues, Release, ReleaseParams,
};

use super::{mdav, optimal_univariate, Aggregation, Microaggregated, MicroaggregationOptions};
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
            Method::Mdav => mdav(req.ds, &o.columns, o.strata, options, progress)?,
            Method::OptimalUnivariate => {
                optimal_univariate(req.ds, o.columns[0], o.strata, options, progress)?
            }
        };
        progress.check()?;
        Ok(release(self.id(), req, &out))
    }
}

/// The request's numeric columns hold together: at least one (exactly one
/// for the optimal univariate method), each numeric, none with another
/// role, the stratum column not among them.
fn check_columns(method: Method, req: &Request<'_>) -> Result<()> {
    let o = &req.options.numeric;
    let ds = req.ds;
    if o.columns.is_empty() {
        return Err(Error::unmet(
            "microaggregation needs the numeric attributes to aggregate",
            Setting::NumericAttributes,
        ));
    }
    if method == Method::OptimalUnivariate && o.columns.len() != 1 {
        return Err(Error::invalid(
            Parameter::Column,
            format!(
                "the optimal univariate method aggregates one attribute, {} were given: run it once per attribute, or use mdav",
                o.columns.len()
            ),
        ));
    }
    let mut seen = Vec::new();
    for &c in &o.columns {
        if c >= ds.n_cols() {
            return Err(Error::Internal(format!("column index {c} is out of range")));
        }
        let name = ds.col(c).name();
        if seen.contains(&c) {
            return Err(Error::invalid(
                Parameter::Column,
                format!("'{name}' is named twice among the numeric attributes"),
            ));
        }
        seen.push(c);
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
                    "'{name}' is {role} and a numeric attribute to aggregate: its published values would be group {}s, not its values, and the figures of {role} would describe values that are not published; give it no role",
                    match o.aggregation {
                        Aggregation::Mean => "mean",
                        Aggregation::Median => "median",
                    }
                ),
            ));
        }
        if !ds.col(c).is_numeric() {
            return Err(Error::invalid(
                Parameter::Column,
                format!("'{name}' is categorical; microaggregation needs numeric columns"),
            ));
        }
    }
    if let Some(s) = o.strata {
        if o.columns.contains(&s) {
            return Err(Error::invalid(
                Parameter::Strata,
                format!(
                    "'{}' is both the stratum column and an attribute to aggregate",
                    ds.col(s).name()
                ),
            ));
        }
    }
    Ok(())
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
    r.groups = groups_as_published(ds, &req.qi, &out.groups);
    r.perturbation = Some(Perturbation {
        methods: vec![PerturbationMethod::Microaggregation {
            kind: id.to_string(),
            k: req.k,
            aggregation: o.aggregation.into(),
            columns: out.columns.clone(),
            strata: o.strata,
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
    });
    r
}

/// One group per distinct tuple of the quasi-identifiers (in order of
/// first appearance), each cell its exact value; rows within a group by
/// microaggregation group, then source order.
fn groups_as_published(ds: &Dataset, qi: &[usize], micro: &[u32]) -> Vec<EquivalenceGroup> {
    let classes = Partition::by_columns(ds, qi).members();
    classes
        .iter()
        .map(|rows| {
            let mut rows = rows.to_vec();
            rows.sort_by_key(|&r| (micro[r as usize], r));
            let first = rows[0] as usize;
            let cells = qi
                .iter()
                .map(|&c| Cell::Value {
                    code: ds.col(c).code(first),
                })
                .collect();
            EquivalenceGroup { rows, cells }
        })
        .collect()
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
