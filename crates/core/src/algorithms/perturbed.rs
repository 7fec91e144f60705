//! What the perturbation algorithms share (microaggregation, PRAM, noise,
//! rank swapping; `release::perturbation` says why their attributes are
//! published beside the groups): the rules their attributes follow, and the
//! groups of a release whose quasi-identifiers are published value by
//! value.

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result, Setting};
use crate::partition::Partition;
use crate::release::{Cell, EquivalenceGroup};

use super::Request;

/// The rules of one method's attributes.
pub(crate) struct Rules {
    /// How messages name the method (`MDAV`, `PRAM`).
    pub method: &'static str,
    /// Only numeric columns (every method but PRAM).
    pub numeric: bool,
    /// Quasi-identifiers may be perturbed (PRAM: its groups publish the
    /// drawn categories).
    pub quasi_identifiers: bool,
}

/// The request's attributes to perturb (`Options::numeric`) hold together:
/// at least one, each once, none with a role whose figures read its
/// original values, numeric where the method needs it, the stratum column
/// not among them.
pub(crate) fn check_attributes(req: &Request<'_>, rules: &Rules) -> Result<()> {
    let o = &req.options.numeric;
    let ds = req.ds;
    if o.columns.is_empty() {
        return Err(Error::unmet(
            format!("{} needs the attributes to perturb", rules.method),
            Setting::NumericAttributes,
        ));
    }
    for (i, &c) in o.columns.iter().enumerate() {
        if c >= ds.n_cols() {
            return Err(Error::Internal(format!("column index {c} is out of range")));
        }
        let name = ds.col(c).name();
        if o.columns[..i].contains(&c) {
            return Err(Error::invalid(
                Parameter::Column,
                format!("'{name}' is named twice among the attributes to perturb"),
            ));
        }
        let role = if !rules.quasi_identifiers && req.qi.contains(&c) {
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
                    "'{name}' is {role} and an attribute to perturb ({}): its published values are not its values, and the figures of {role} would describe values that were not published; give it {}",
                    rules.method,
                    if rules.quasi_identifiers {
                        "the role of a quasi-identifier or none"
                    } else {
                        "no role"
                    }
                ),
            ));
        }
        if rules.numeric && !ds.col(c).is_numeric() {
            return Err(Error::invalid(
                Parameter::Column,
                format!(
                    "'{name}' is categorical; {} needs numeric columns",
                    rules.method
                ),
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

/// One group per distinct tuple of the quasi-identifiers as published —
/// `published(c)` gives column c's published code per row (its own codes,
/// or PRAM's drawn ones) — in order of first appearance, each cell its
/// exact value. Rows within a group by `order` (a key per row, e.g. the
/// microaggregation group) then source order, so the file's order says
/// no more than its values.
pub(crate) fn groups_as_published<'a>(
    ds: &'a Dataset,
    qi: &[usize],
    published: &dyn Fn(usize) -> &'a [u32],
    order: Option<&[u32]>,
) -> Vec<EquivalenceGroup> {
    let keys: Vec<(&[u32], usize)> = qi
        .iter()
        .map(|&c| (published(c), ds.col(c).code_space()))
        .collect();
    Partition::by_codes(&keys, ds.n_rows())
        .members()
        .iter()
        .map(|rows| {
            let mut rows = rows.to_vec();
            if let Some(order) = order {
                rows.sort_by_key(|&r| (order[r as usize], r));
            }
            let first = rows[0] as usize;
            let cells = qi
                .iter()
                .map(|&c| Cell::Value {
                    code: published(c)[first],
                })
                .collect();
            EquivalenceGroup { rows, cells }
        })
        .collect()
}
