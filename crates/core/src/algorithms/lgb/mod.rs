//! Local generalization and bucketization (LGB): Li, He & Sun, "Local
//! Generalization and Bucketization Technique for Personalized Privacy
//! Preservation", Sections 2–3 (Algorithms 1–4).
//!
//! Cells, not attributes, are sensitive: a semi-sensitive attribute
//! (`Options::semi_sensitive`, with a bitset of the rows whose cell there is
//! a sensitive value) carries QI values on some rows and sensitive values on
//! others; a sensitive attribute (`Request::sensitive`) only sensitive
//! values. Algorithm 1:
//!
//! 1. **Local bucketization**, per attribute with sensitive cells
//!    (`bucketize`): the attribute's sensitive cells are partitioned into
//!    local buckets — Algorithm 2 for l-diversity (the default), or the
//!    t-closeness bucketization for the attributes named in
//!    `Options::t_closeness` (mixed in one run, as the paper's Section 4
//!    does for sex).
//! 2. **Local generalization** over the QI partition (Definition 7): rows
//!    are grouped by which attributes carry QI values for them (the QI
//!    attributes plus the semi-sensitive ones where their cell is not
//!    sensitive); inside each subset, rows are grouped into local
//!    equivalence groups of at least k rows by Algorithm 3 (LGB_MDP,
//!    multidimensional partition: Mondrian's cut nearest the median,
//!    [`super::mondrian::partition_rows`], on the subset's QI attributes)
//!    or Algorithm 4 (LGB_NCP, [`ncp`]; by default with the paper's NCP,
//!    size(v*)/|A| for a categorical cell, `Options::lgb_ncp`).
//!
//! The release (see `release` for the shape): quasi-identifiers are the QI
//! columns then the semi-sensitive ones; each group belongs to one
//! `QiSubset`, its cells cover its rows on the subset's QI columns and are
//! `Suppressed` on the others, whose cells are in the local buckets; the
//! claims are k-anonymity and, per attribute with sensitive cells,
//! `LocalLDiversity` (Corollary 3) or `LocalTCloseness`.
//!
//! Choices where the paper leaves room (each tested):
//!
//! - **A QI-partition subset with fewer than k rows** cannot form a local
//!   equivalence group (the paper's Proposition 2 assumes every subset has
//!   k rows). Its rows are suppressed — not published at all — and this is
//!   decided before bucketization, so the local buckets hold only published
//!   cells and keep their guarantee. The count is in `suppressed_rows`.
//! - **No sensitive cells on a semi-sensitive attribute**: the attribute is
//!   a plain QI attribute for every row; it gets no local buckets, and its
//!   claim holds vacuously (the verifier says "0 sensitive cells").
//! - **Fewer than l distinct values among an attribute's sensitive cells,
//!   or a value on more than 1/l of them** (not l-eligible, so no local
//!   bucketization can meet Corollary 2): refused, naming the attribute,
//!   the value and its count, and suggesting t-closeness for it.
//! - **t-closeness on a numeric attribute** is accepted: its EMD uses the
//!   ordered distance, as `privacy::emd` does for numeric columns.
//! - A t-closeness attribute does not need l-eligibility; t must lie in
//!   [0, 1].
//! - Sensitive-cell bitsets must have one bit per row; a semi-sensitive
//!   attribute may not also be a QI, sensitive or identifier column.
//! - Algorithm 2 and the MDP partition are deterministic; LGB_NCP draws
//!   its start rows and its row order from `ChaCha8Rng` seeded with the
//!   request's seed, recorded in `params.seed`.

mod bucketize;
mod ncp;

use fixedbitset::FixedBitSet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::{Error, Parameter, Result, Setting};
use crate::progress::Progress;
use crate::release::{
    Cell, EquivalenceGroup, Guarantee, LocalBuckets, QiSubset, Release, ReleaseParams,
};

pub use bucketize::{eligible, l_diverse_buckets, reference_distribution, t_close_buckets};
pub use ncp::NcpMeasure;

use super::mondrian::{covering_groups, partition_rows, Allowable};
use super::{check_k, Algorithm, Needs, Request};

/// Which local generalization LGB runs (Section 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalGeneralization {
    /// Algorithm 3, LGB_MDP: multidimensional median partition.
    MedianPartition,
    /// Algorithm 4, LGB_NCP: top-down cuts minimising NCP.
    MinimalNcp,
}

/// LGB as a registered algorithm: `lgb-mdp` or `lgb-ncp`.
#[derive(Debug, Clone, Copy)]
pub struct Lgb {
    how: LocalGeneralization,
}

impl Lgb {
    pub fn mdp() -> Self {
        Self {
            how: LocalGeneralization::MedianPartition,
        }
    }
    pub fn ncp() -> Self {
        Self {
            how: LocalGeneralization::MinimalNcp,
        }
    }
}

impl Algorithm for Lgb {
    fn id(&self) -> &'static str {
        match self.how {
            LocalGeneralization::MedianPartition => "lgb-mdp",
            LocalGeneralization::MinimalNcp => "lgb-ncp",
        }
    }

    fn name(&self) -> &'static str {
        match self.how {
            LocalGeneralization::MedianPartition => "LGB, median partition (Li, He & Sun)",
            LocalGeneralization::MinimalNcp => "LGB, minimal NCP (Li, He & Sun)",
        }
    }

    /// The seed draws LGB_NCP's starting records.
    fn needs(&self) -> Needs {
        Needs {
            k: true,
            l: true,
            t: true,
            seed: self.how == LocalGeneralization::MinimalNcp,
            sensitive: true,
            semi_sensitive: true,
            settings: true,
            ..Needs::default()
        }
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        lgb(req, self.how, progress)
    }
}

/// LGB_MDP (Algorithms 1–3).
pub fn lgb_mdp(req: &Request<'_>, progress: &Progress) -> Result<Release> {
    lgb(req, LocalGeneralization::MedianPartition, progress)
}

/// LGB_NCP (Algorithms 1, 2 and 4).
pub fn lgb_ncp(req: &Request<'_>, progress: &Progress) -> Result<Release> {
    lgb(req, LocalGeneralization::MinimalNcp, progress)
}

/// How one attribute's sensitive cells are protected.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Principle {
    LDiversity(u32),
    TCloseness(f64),
}

/// An attribute with sensitive cells, as LGB reads the request.
#[derive(Debug, Clone)]
pub struct SensitiveAttribute {
    pub column: usize,
    /// Rows whose cell is a sensitive value; `None`: every row (a sensitive
    /// attribute).
    pub cells: Option<FixedBitSet>,
    pub principle: Principle,
}

impl SensitiveAttribute {
    fn is_sensitive(&self, row: usize) -> bool {
        self.cells.as_ref().is_none_or(|b| b.contains(row))
    }
}

/// The request's semi-sensitive and sensitive attributes, checked: see the
/// module doc for what is refused and why.
pub fn sensitive_attributes(req: &Request<'_>) -> Result<Vec<SensitiveAttribute>> {
    let ds = req.ds;
    let n = ds.n_rows();
    let name = |c: usize| ds.col(c).name().to_string();
    let in_range = |c: usize, what: &str| {
        if c < ds.n_cols() {
            Ok(())
        } else {
            Err(Error::Internal(format!(
                "{what} column {c} does not exist ({} columns)",
                ds.n_cols()
            )))
        }
    };
    let mut seen: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let semi = req
        .options
        .semi_sensitive
        .iter()
        .map(|(c, bits)| (*c, Some(bits)));
    let full = req.sensitive.iter().map(|&c| (c, None));
    for (c, bits) in semi.chain(full) {
        in_range(c, "semi-sensitive or sensitive")?;
        let role = if bits.is_some() {
            "semi-sensitive"
        } else {
            "sensitive"
        };
        if seen.contains(&c) {
            return Err(Error::invalid(
                Parameter::Roles,
                format!(
                    "'{}' is named twice among the semi-sensitive and sensitive attributes",
                    name(c)
                ),
            ));
        }
        if req.qi.contains(&c) {
            return Err(Error::invalid(Parameter::Roles, format!(
                "'{}' is both a quasi-identifier and {role}: a semi-sensitive attribute already carries QI values where its cells are not sensitive",
                name(c)
            )));
        }
        if req.identifiers.contains(&c) {
            return Err(Error::invalid(
                Parameter::Roles,
                format!("'{}' is both an identifier and {role}", name(c)),
            ));
        }
        if let Some(b) = bits {
            if b.len() != n {
                return Err(Error::Internal(format!(
                    "the sensitive cells of '{}' are given for {} rows, the data have {n}",
                    name(c),
                    b.len()
                )));
            }
        }
        seen.push(c);
        let principle = match req.options.t_closeness.iter().find(|(tc, _)| *tc == c) {
            Some(&(_, t)) if !(0.0..=1.0).contains(&t) => {
                return Err(Error::invalid(
                    Parameter::TCloseness,
                    format!("t = {t} for '{}' is outside [0, 1]", name(c)),
                ))
            }
            Some(&(_, t)) => Principle::TCloseness(t),
            None => Principle::LDiversity(req.l),
        };
        out.push(SensitiveAttribute {
            column: c,
            cells: bits.cloned(),
            principle,
        });
    }
    if let Some((c, _)) = req
        .options
        .t_closeness
        .iter()
        .find(|(c, _)| !seen.contains(c))
    {
        in_range(*c, "t-closeness")?;
        return Err(Error::invalid(
            Parameter::TCloseness,
            format!(
                "t-closeness is asked for '{}', which is neither semi-sensitive nor sensitive",
                name(*c)
            ),
        ));
    }
    if out.is_empty() {
        return Err(Error::unmet(
            "LGB needs a semi-sensitive or sensitive attribute",
            Setting::SemiSensitiveOrSensitive,
        ));
    }
    if out
        .iter()
        .any(|a| matches!(a.principle, Principle::LDiversity(0)))
    {
        return Err(Error::invalid(Parameter::L, "l must be at least 1"));
    }
    if out.iter().filter(|a| a.cells.is_some()).count() > 64 {
        return Err(Error::invalid(
            Parameter::Roles,
            "LGB takes at most 64 semi-sensitive attributes",
        ));
    }
    Ok(out)
}

/// Algorithm 1 with the chosen local generalization.
pub fn lgb(req: &Request<'_>, how: LocalGeneralization, progress: &Progress) -> Result<Release> {
    check_k(req)?;
    let attributes = sensitive_attributes(req)?;
    let ds = req.ds;
    let n = ds.n_rows();
    let k = req.k as usize;
    progress.set_total(2 * n as u64);

    // The QI partition (Definition 7): a row's key is the set of its
    // sensitive semi-sensitive cells, bit i for the i-th semi-sensitive
    // attribute. Subsets are kept in order of first appearance.
    let semi: Vec<&SensitiveAttribute> = attributes.iter().filter(|a| a.cells.is_some()).collect();
    let mut subset_of_key: FxHashMap<u64, usize> = FxHashMap::default();
    let mut subsets: Vec<(u64, Vec<u32>)> = Vec::new();
    for row in 0..n {
        let key = semi
            .iter()
            .enumerate()
            .filter(|(_, a)| a.is_sensitive(row))
            .fold(0u64, |key, (i, _)| key | 1 << i);
        let next = subsets.len();
        let s = *subset_of_key.entry(key).or_insert(next);
        if s == next {
            subsets.push((key, Vec::new()));
        }
        subsets[s].1.push(row as u32);
    }
    let mut suppressed: Vec<u32> = Vec::new();
    subsets.retain(|(_, rows)| {
        let keep = rows.len() >= k;
        if !keep {
            suppressed.extend(rows);
        }
        keep
    });
    suppressed.sort_unstable();
    progress.advance(suppressed.len() as u64);
    let mut published = FixedBitSet::with_capacity(n);
    published.insert_range(..);
    for &r in &suppressed {
        published.set(r as usize, false);
    }
    progress.check()?;

    // Local bucketization (Algorithm 1, lines 3–6), attribute by attribute.
    let mut local_buckets = Vec::new();
    for a in &attributes {
        let col = ds.col(a.column);
        let cells: Vec<(u32, u32)> = published
            .ones()
            .filter(|&r| a.is_sensitive(r))
            .map(|r| (col.code(r), r as u32))
            .collect();
        if cells.is_empty() {
            continue;
        }
        let buckets = match a.principle {
            Principle::LDiversity(l) => {
                check_eligible(&cells, l as usize, col)?;
                l_diverse_buckets(cells, l as usize)
            }
            Principle::TCloseness(t) => t_close_buckets(cells, t, col),
        };
        local_buckets.push(LocalBuckets {
            column: a.column,
            buckets,
        });
        progress.check()?;
    }
    progress.advance(n as u64);

    // Local generalization (Algorithm 1, line 7) inside each subset.
    let quasi: Vec<usize> = req
        .qi
        .iter()
        .copied()
        .chain(semi.iter().map(|a| a.column))
        .collect();
    let subset_qi: Vec<Vec<usize>> = subsets
        .iter()
        .map(|(key, _)| {
            let hidden: Vec<usize> = semi
                .iter()
                .enumerate()
                .filter(|(i, _)| key & (1 << i) != 0)
                .map(|(_, a)| a.column)
                .collect();
            quasi
                .iter()
                .copied()
                .filter(|c| !hidden.contains(c))
                .collect()
        })
        .collect();
    let per_subset: Vec<Result<Vec<EquivalenceGroup>>> = subsets
        .par_iter()
        .zip(&subset_qi)
        .enumerate()
        .map(|(s, ((_, rows), qi))| {
            let groups = match how {
                LocalGeneralization::MedianPartition => partition_rows(
                    ds,
                    qi,
                    rows,
                    None,
                    Allowable::k(k),
                    &req.options.hierarchies,
                    progress,
                    None,
                )?,
                LocalGeneralization::MinimalNcp => {
                    // One generator per subset, so the result does not
                    // depend on which thread runs which subset.
                    let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
                    rng.set_stream(s as u64);
                    let groups = ncp::ncp_partition(
                        ds,
                        qi,
                        rows.clone(),
                        k,
                        req.options.lgb_ncp,
                        &mut rng,
                        progress,
                    )?;
                    covering_groups(ds, qi, groups)
                }
            };
            Ok(groups.into_iter().map(|g| widen(g, qi, &quasi)).collect())
        })
        .collect();

    let mut release = Release::new(Lgb { how }.id(), ds, quasi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut release);
    release.semi_sensitive = semi.iter().map(|a| a.column).collect();
    for (groups, qi) in per_subset.into_iter().zip(subset_qi) {
        let groups = groups?;
        let first = release.groups.len() as u32;
        release.qi_partition.push(QiSubset {
            qi,
            groups: (first..first + groups.len() as u32).collect(),
        });
        release.groups.extend(groups);
    }
    release.local_buckets = local_buckets;
    release.suppressed_rows = suppressed;
    let ts: Vec<f64> = attributes
        .iter()
        .filter_map(|a| match a.principle {
            Principle::TCloseness(t) => Some(t),
            Principle::LDiversity(_) => None,
        })
        .collect();
    release.params = ReleaseParams {
        k: Some(req.k),
        l: attributes
            .iter()
            .any(|a| matches!(a.principle, Principle::LDiversity(_)))
            .then_some(req.l),
        t: ts.first().copied().filter(|t| ts.iter().all(|u| u == t)),
        seed: (how == LocalGeneralization::MinimalNcp).then_some(req.seed),
    };
    release.claims.push(Guarantee::KAnonymity { k: req.k });
    for a in &attributes {
        let attribute = ds.col(a.column).name().to_string();
        release.claims.push(match a.principle {
            Principle::LDiversity(l) => Guarantee::LocalLDiversity {
                k: req.k,
                attribute,
                l,
            },
            Principle::TCloseness(t) => Guarantee::LocalTCloseness { attribute, t },
        });
    }
    Ok(release)
}

/// Refuse sensitive cells that no l-unique bucketization exists for.
fn check_eligible(cells: &[(u32, u32)], l: usize, col: &crate::data::Column) -> Result<()> {
    let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
    for &(c, _) in cells {
        *counts.entry(c).or_default() += 1;
    }
    let n = cells.len();
    if counts.len() < l {
        return Err(Error::invalid(Parameter::L, format!(
            "the {n} sensitive cells of '{}' hold {} distinct values, fewer than l = {l}: lower l, mark more cells sensitive, or protect '{}' by t-closeness",
            col.name(),
            counts.len(),
            col.name()
        )));
    }
    let Some((&code, &most)) = counts
        .iter()
        .max_by_key(|(c, n)| (**n, std::cmp::Reverse(**c)))
    else {
        return Ok(());
    };
    if most * l > n {
        return Err(Error::invalid(Parameter::L, format!(
            "the sensitive cells of '{}' are not {l}-eligible: '{}' is on {most} of its {n} sensitive cells, more than 1/{l} of them (at most {} allowed); lower l or protect '{}' by t-closeness",
            col.name(),
            col.display(code),
            n / l,
            col.name()
        )));
    }
    Ok(())
}

/// A group with cells on a subset's `qi` given cells on every column of
/// `quasi`: `Suppressed` where the subset's cells are sensitive.
fn widen(group: EquivalenceGroup, qi: &[usize], quasi: &[usize]) -> EquivalenceGroup {
    let mut own = group.cells.into_iter();
    let cells = quasi
        .iter()
        .map(|c| {
            if qi.contains(c) {
                own.next().unwrap_or(Cell::Suppressed)
            } else {
                Cell::Suppressed
            }
        })
        .collect();
    EquivalenceGroup {
        rows: group.rows,
        cells,
    }
}
