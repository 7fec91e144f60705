//! Mondrian: multidimensional partitioning for k-anonymity (LeFevre,
//! DeWitt & Ramakrishnan, "Mondrian Multidimensional K-Anonymity", ICDE
//! 2006, Section 4: the greedy `Anonymize` recursion, `choose_dimension`,
//! `find_median` and allowable cuts), and its two l-diverse variants:
//!
//! - `mondrian`: k-anonymity;
//! - `mondrian-l`: the cross-bucket paper's baseline (its Section 4, where
//!   "Mondrian complies with l-diversity"), l-diversity as that paper's
//!   Definition 6 states it — p(t, s) ≤ 1/l for every tuple — which a
//!   generalized table meets when no sensitive value holds more than 1/l of
//!   any group's rows. Claimed as `BreachProbability` and re-checked by the
//!   verifier with the Section 4.1 formula over matching tuples;
//! - `mondrian-distinct-l`: distinct l-diversity (at least l different
//!   sensitive values per group), claimed as `GroupLDiversity`.
//!
//! A node (a set of rows) is cut in two on one quasi-identifier; the cut is
//! *allowable* when both sides satisfy the model ([`allowable`], one check
//! shared by the three and by LGB's Algorithm 3). When no dimension has an
//! allowable cut the node becomes an equivalence group, published with the
//! smallest cells covering its rows ([`Cell::covering`]).
//!
//! Choices where the paper leaves room:
//!
//! - **Which dimension.** The widest normalized range first (see
//!   `Dim::width`): numeric, the node's range over the table's; categorical,
//!   its distinct values over the table's. Ties go to the earlier
//!   quasi-identifier; a dimension with one value in the node is never
//!   tried. When the widest has no allowable cut the next is tried; the
//!   paper's "if no allowable cut, return" applies once every dimension has
//!   failed.
//! - **Where to cut: the allowable cut nearest the median.** The paper's
//!   strict partitioning cuts at the median value; when equal values
//!   cannot be split, a median that is the node's largest value (sex on
//!   Adult: 67 % Male) or a median cut leaving a side too small or not
//!   l-diverse blocks the dimension for good. Here the cut moves to the
//!   position of the dimension's order whose left side is closest to half
//!   the node's rows among those leaving both sides allowable. Values never
//!   straddle a cut (regions stay disjoint, as in strict partitioning): the
//!   paper's relaxed partitioning, which splits the median value's rows
//!   between the sides, would publish overlapping cells. Which orders and
//!   positions each kind of attribute has is in [`order`]: numbers by
//!   value; categorical attributes along their hierarchy when
//!   `Options::hierarchies` holds one for them, otherwise by a
//!   frequency-balanced split of the node's value set.
//! - **Published cells** are the smallest covering the group: an interval
//!   (numbers), the set of values it holds (categories; labelled with the
//!   hierarchy node's name when the set is exactly a node's values), `*`
//!   when it holds every value.
//! - **Missing values** carry the column's missing code, which sorts after
//!   every number, so they are cut off like a largest value; a missing
//!   sensitive value counts as a value of its own (as in `privacy`).
//!
//! Deterministic: no randomness, so no seed is recorded. Groups are listed
//! left to right in the order of the cuts, rows in each in source order.
//! Each leaf's cells are built from precomputed domain sizes, in parallel,
//! rather than through `Release::push_covering_group` (`Cell::covering`
//! counts the column's missing cells on every call, O(rows) per group); a
//! property test compares them.

mod allowable;
mod dim;
mod order;
mod partition;

use std::sync::Mutex;

use rayon::prelude::*;

use crate::data::Dataset;
use crate::error::Result;
use crate::hierarchy::HierarchySet;
use crate::progress::Progress;
use crate::release::{Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

pub(crate) use allowable::{Allowable, Diversity};
pub(crate) use dim::{covering_groups, present_span};
pub(crate) use partition::TracedCut;

use super::{check_k, check_l, Algorithm, Needs, Request};
use dim::Dim;
use partition::{partition, Ctx, Scratch};

/// Mondrian for k-anonymity (`mondrian`), with the cross-bucket paper's
/// l-diversity (`mondrian-l`) or with distinct l-diversity
/// (`mondrian-distinct-l`), on the first sensitive attribute.
#[derive(Debug, Clone, Copy)]
pub struct Mondrian {
    variant: Variant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    K,
    BreachL,
    DistinctL,
}

impl Mondrian {
    pub fn k_anonymous() -> Self {
        Self {
            variant: Variant::K,
        }
    }
    /// The cross-bucket paper's baseline: p(t, s) ≤ 1/l (Definition 6).
    pub fn l_diverse() -> Self {
        Self {
            variant: Variant::BreachL,
        }
    }
    pub fn distinct_l_diverse() -> Self {
        Self {
            variant: Variant::DistinctL,
        }
    }

    fn allowable(&self, k: u32, l: u32) -> Allowable {
        let l = l as usize;
        Allowable {
            k: k as usize,
            diversity: match self.variant {
                Variant::K => Diversity::None,
                Variant::BreachL => Diversity::Frequency(l),
                Variant::DistinctL => Diversity::Distinct(l),
            },
        }
    }

    /// The run, with every cut recorded in `trace` (for tests).
    pub(crate) fn run_traced(
        &self,
        req: &Request<'_>,
        progress: &Progress,
        trace: Option<&Mutex<Vec<TracedCut>>>,
    ) -> Result<Release> {
        check_k(req)?;
        let sensitive = if self.variant == Variant::K {
            None
        } else {
            Some(check_l(req)?)
        };
        let ds = req.ds;
        let n = ds.n_rows();
        // Rows: a grouped table's distinct combinations (each cut by the
        // records it stands for).
        progress.set_total(n as u64);
        let rows: Vec<u32> = (0..n as u32).collect();
        let allow = self.allowable(req.k, req.l);
        let groups = partition_rows(
            ds,
            &req.qi,
            &rows,
            sensitive,
            allow,
            &req.options.hierarchies,
            progress,
            trace,
        )?;

        let mut release = Release::new(self.id(), ds, req.qi.clone(), req.sensitive.clone());
        req.drop_identifiers(&mut release);
        release.params = ReleaseParams {
            k: Some(req.k),
            l: sensitive.map(|_| req.l),
            t: None,
            seed: None,
        };
        release.groups = groups;
        release.claims.push(Guarantee::KAnonymity { k: req.k });
        if let Some(s) = sensitive {
            let attribute = ds.col(s).name().to_string();
            release.claims.push(match self.variant {
                Variant::DistinctL => Guarantee::GroupLDiversity {
                    attribute,
                    l: req.l,
                },
                _ => Guarantee::BreachProbability {
                    attribute,
                    l: req.l,
                },
            });
        }
        Ok(release)
    }
}

impl Algorithm for Mondrian {
    fn id(&self) -> &'static str {
        match self.variant {
            Variant::K => "mondrian",
            Variant::BreachL => "mondrian-l",
            Variant::DistinctL => "mondrian-distinct-l",
        }
    }

    fn name(&self) -> &'static str {
        match self.variant {
            Variant::K => "Mondrian (LeFevre et al. 2006)",
            Variant::BreachL => "Mondrian, l-diverse: p(t,s) ≤ 1/l (cross-bucket paper, Def. 6)",
            Variant::DistinctL => "Mondrian, distinct l-diversity",
        }
    }

    /// Grouped tables: cuts are judged by records, a grouped table's rows
    /// weigh what they stand for, and records with equal QI values never
    /// straddle a cut, so the groups are those of the records.
    fn needs(&self) -> Needs {
        let l = self.variant != Variant::K;
        Needs {
            k: true,
            l,
            sensitive: l,
            grouped: true,
            numeric: false,
            ..Needs::default()
        }
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        self.run_traced(req, progress, None)
    }
}

/// The Mondrian partition of `rows` on the columns `qi` into groups that
/// `allow` accepts (reading the codes of `sensitive` when it has a
/// diversity requirement), each with the cells covering its rows, in the
/// order of the cuts. Categorical columns with a hierarchy in
/// `hierarchies` are cut along it. Mondrian runs it on the whole table;
/// LGB's Algorithm 3 inside each subset of its QI partition.
#[allow(clippy::too_many_arguments)]
pub(crate) fn partition_rows(
    ds: &Dataset,
    qi: &[usize],
    rows: &[u32],
    sensitive: Option<usize>,
    allow: Allowable,
    hierarchies: &HierarchySet,
    progress: &Progress,
    trace: Option<&Mutex<Vec<TracedCut>>>,
) -> Result<Vec<EquivalenceGroup>> {
    let sensitive = sensitive.filter(|_| allow.reads_sensitive());
    let dims = qi
        .iter()
        .map(|&c| {
            let col = ds.col(c);
            let bound = match hierarchies.get(col.name()) {
                Some(h) if !col.is_numeric() => Some(h.bind(col)?),
                _ => None,
            };
            Ok(Dim::new(col, bound))
        })
        .collect::<Result<Vec<_>>>()?;
    let d = dims.len();
    // A grouped table's rows carry the records they stand for, last.
    let weights = ds.multiplicities();
    let stride = 1 + d + usize::from(sensitive.is_some()) + usize::from(weights.is_some());
    let mut records = Vec::with_capacity(rows.len() * stride);
    for &row in rows {
        records.push(row);
        records.extend(qi.iter().map(|&c| ds.col(c).code(row as usize)));
        if let Some(s) = sensitive {
            records.push(ds.col(s).code(row as usize));
        }
        if let Some(w) = weights {
            records.push(w[row as usize]);
        }
    }
    let ctx = Ctx {
        dims,
        stride,
        sens_at: 1 + d,
        weight_at: weights.map(|_| stride - 1),
        allow: if sensitive.is_some() {
            allow
        } else {
            Allowable::k(allow.k)
        },
        sensitive_space: sensitive.map_or(0, |s| ds.col(s).code_space()),
        progress,
        trace,
    };
    let mut scratch = Scratch::new(&ctx);
    let leaves = partition(&ctx, &mut records, 0, &mut scratch)?;
    Ok(leaves
        .par_iter()
        .map(|leaf| {
            let part = &records[leaf.start * stride..leaf.end * stride];
            let mut rows: Vec<u32> = part.chunks_exact(stride).map(|r| r[0]).collect();
            rows.sort_unstable();
            let mut codes = Vec::with_capacity(rows.len());
            let cells: Vec<Cell> = (0..d)
                .map(|j| {
                    codes.clear();
                    codes.extend(part.chunks_exact(stride).map(|r| r[1 + j]));
                    ctx.dims[j].covering(&mut codes)
                })
                .collect();
            EquivalenceGroup { rows, cells }
        })
        .collect())
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
