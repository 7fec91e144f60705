//! The independent verifier: re-checks a Release by the definitions, never
//! trusting the algorithm that made it (DESIGN.md, "An independent verifier
//! re-checks every claimed guarantee").
//!
//! It reads only the Release and the dataset. First the structure:
//!
//! - the release fits the dataset (row count, column and row indices);
//! - each group has one cell per quasi-identifier;
//! - identifiers are not published (not among the QIs or sensitive columns);
//! - every source row is in exactly one group or suppressed, and no group is
//!   empty;
//! - bucket rows (release and local buckets) are published rows, each in at
//!   most one bucket, and no bucket is empty;
//! - generalizations are truthful: each group cell contains every member's
//!   own value (`Cell::contains(own, own)`), and what the cell *says* is
//!   true on the original values' exact reading (`data::number`): a numeric
//!   quasi-identifier's values read as exact numbers in strictly increasing
//!   code order (so an interval of codes is the interval of numbers its
//!   text shows), a label that reads as numbers (`39`, `[20-29]`, `<150`)
//!   contains every value it stands for, and a label that is a value of the
//!   column stands for that value alone — so a lossy interval or a
//!   mislabelled node cannot pass;
//! - for LGB releases (a QI partition or semi-sensitive columns), the LGB
//!   paper's Definitions 7–10: every group in exactly one QI subset; plain
//!   QI columns carry QI values in every subset; on a column outside its
//!   subset's QI columns a group publishes nothing (`Suppressed`) and each
//!   of its rows is in one of that (semi-sensitive) column's local buckets;
//!   on a column inside them none is; every published row is in a local
//!   bucket of each sensitive column.
//!
//! Then each claim, by its definition:
//!
//! - `KAnonymity`: every group has at least k rows (Corollary 1 of the
//!   cross-bucket paper). A group with `Original` cells publishes its rows'
//!   own values there, so its rows are told apart by them: each set of its
//!   rows agreeing on those values must have k rows (Definition 4 on the
//!   published values);
//! - `GroupLDiversity`: every group holds at least l distinct values;
//! - `BucketLDiversity`: every bucket of the attribute has at least l rows
//!   and no value twice; with release-wide buckets every published row must
//!   be in one (a row outside would publish its value). Local buckets (LGB)
//!   bucket only the sensitive cells, so rows outside them are allowed. A
//!   bucket claim on a release that publishes nothing holds vacuously;
//! - `CrossBucketLDiversity`: Corollary 2, for every published tuple t, over
//!   its matching buckets (buckets holding a published tuple whose cells
//!   contain t's QI values, see `risk::Matching`): (1) each sensitive value
//!   appears at most once in all of them together, and (2) p(t, MB)/|MB| ≤
//!   1/l with p(t, MB) = Num(t, MB)/Num_tuples(t) (Section 4.1). The
//!   corollary asks (2) of the bucket holding t's value; we ask it of every
//!   matching bucket, as the `Guarantee` documents, because the attacker does
//!   not know which bucket that is and the paper's Proposition 2 proves it
//!   for all of them. A published row outside every bucket counts as a
//!   bucket of one (its value is on the row). Compared on integers:
//!   Num(t, MB)·l ≤ Num_tuples(t)·|MB|;
//! - `EntropyLDiversity`: every group's entropy of the attribute is at
//!   least ln l (natural log), computed here as ln n − (1/n)·Σ r_s ln r_s
//!   over the group's value counts r_s — a different arrangement from the
//!   algorithms' −Σ p ln p, so a shared slip would not pass unseen — with
//!   an absolute slack of 1e-12·max(1, ln l), because a group of l equally
//!   frequent values has entropy ln l exactly and rounding must not fail it;
//! - `RecursiveCLDiversity`: in every group, with its value counts sorted
//!   descending, r_1 < c·(r_l + … + r_m); a group of fewer than l values
//!   fails (its tail is empty);
//! - `TCloseness`: every group's EMD to the published table's distribution
//!   is at most t (`privacy::emd`: ordered distance for numeric attributes,
//!   equal distance otherwise), with a relative slack of 1e-12 for rounding;
//! - `PSensitiveKAnonymity`: every group has k rows and at least p distinct
//!   values of each listed attribute, on a release that keeps sensitive
//!   values on their rows (Definition 3 of the p-sensitive paper);
//! - `ExtendedPSensitivity`: every group's values of the attribute fall in at
//!   least p protected subtrees, as the claim lists them (Definition 6);
//! - `LocalLDiversity` (LGB, Corollary 3): (1) every local equivalence
//!   group has at least k rows, (2) no value twice in a local bucket of the
//!   attribute, (3) each such bucket has at least l cells. An attribute
//!   without sensitive cells holds vacuously (a sensitive one without local
//!   buckets does not);
//! - `LocalTCloseness` (LGB): every local bucket of the attribute within EMD
//!   t of the distribution of all its bucketed cells, as `TCloseness`.
//!
//! A claim cannot be checked on a release that does not fit the dataset or
//! lacks cells; it is then reported as not holding, saying why.

use std::fmt;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::data::number::{Decimal, NumericLabel};
use crate::data::{Column, Dataset};
use crate::progress::Progress;
use crate::release::{Bucket, Cell, Guarantee, Release};
use crate::risk::{detaching_buckets, Breach, Matching, ValueBuckets};

use super::counts::{counts_of_rows, TableDistribution};
use super::models::emd;

/// One re-checked property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub claim: String,
    pub holds: bool,
    /// The figures, and the first violating group, bucket or tuple.
    pub detail: String,
}

/// Every check made on a Release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub checks: Vec<Check>,
}

impl Verification {
    pub fn all_hold(&self) -> bool {
        self.checks.iter().all(|c| c.holds)
    }
    pub fn failures(&self) -> impl Iterator<Item = &Check> + '_ {
        self.checks.iter().filter(|c| !c.holds)
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.checks {
            let mark = if c.holds { "ok  " } else { "FAIL" };
            writeln!(f, "{mark} {}: {}", c.claim, c.detail)?;
        }
        Ok(())
    }
}

fn check(claim: impl Into<String>, result: Result<String, String>) -> Check {
    let (holds, detail) = match result {
        Ok(d) => (true, d),
        Err(d) => (false, d),
    };
    Check {
        claim: claim.into(),
        holds,
        detail,
    }
}

/// What the verifier may take from the risk measurements of the same
/// release instead of computing it again: the matching index and the
/// breach probabilities of one attribute. Both come from the `risk`
/// module, which the verifier calls for them anyway (Corollary 2 and
/// Definition 10 are stated over matching tuples); handing them over only
/// spares building them twice, every claim is still checked on all of them.
/// They must have been computed on this release and dataset.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shared<'a> {
    pub matching: Option<&'a Matching>,
    /// (column, `risk::breach_from` of that column on `matching`).
    pub breach: Option<(usize, &'a Breach)>,
}

/// Re-check the structure of `release` and every guarantee it claims.
pub fn verify(release: &Release, ds: &Dataset) -> Verification {
    verify_with(release, ds, Shared::default())
}

/// [`verify`], reusing what the risk measurements already computed.
pub fn verify_with(release: &Release, ds: &Dataset, shared: Shared<'_>) -> Verification {
    let mut checks = Vec::new();
    let fits = fits(release, ds);
    let fits_ok = fits.is_ok();
    checks.push(check("release fits the dataset", fits));
    let cells = one_cell_per_qi(release);
    let sound = fits_ok && cells.is_ok();
    checks.push(check("one cell per quasi-identifier", cells));
    checks.push(check(
        "identifiers are not published",
        identifiers(release, ds),
    ));
    if fits_ok {
        checks.push(check(
            "every row published once or suppressed",
            rows_once(release),
        ));
        checks.push(check(
            "buckets hold published rows, each at most once",
            buckets_well_formed(release),
        ));
    }
    if sound {
        checks.push(check("generalizations are truthful", truthful(release, ds)));
    }
    if sound && (release.is_local() || !release.semi_sensitive.is_empty()) {
        checks.push(check(
            "local groups and local buckets are consistent (LGB)",
            lgb_structure(release, ds),
        ));
    }
    for claim in &release.claims {
        let name = claim_name(claim);
        let result = if sound {
            verify_claim(claim, release, ds, shared)
        } else {
            Err("not checked: the release does not fit the dataset".to_string())
        };
        checks.push(check(name, result));
    }
    Verification { checks }
}

fn claim_name(claim: &Guarantee) -> String {
    match claim {
        Guarantee::KAnonymity { k } => format!("{k}-anonymity"),
        Guarantee::GroupLDiversity { attribute, l } => {
            format!("distinct {l}-diversity of '{attribute}' in every group")
        }
        Guarantee::BucketLDiversity { attribute, l } => {
            format!("{l}-diverse buckets of '{attribute}'")
        }
        Guarantee::CrossBucketLDiversity { attribute, l } => {
            format!("cross-bucket {l}-diversity of '{attribute}' (Corollary 2)")
        }
        Guarantee::BreachProbability { attribute, l } => {
            format!(
                "breach probability of '{attribute}' at most 1/{l} for every tuple (Definition 10)"
            )
        }
        Guarantee::EntropyLDiversity { attribute, l } => {
            format!("entropy {l}-diversity of '{attribute}' in every group")
        }
        Guarantee::RecursiveCLDiversity { attribute, c, l } => {
            format!("recursive ({c},{l})-diversity of '{attribute}' in every group")
        }
        Guarantee::TCloseness { attribute, t } => format!("{t}-closeness of '{attribute}'"),
        Guarantee::LocalLDiversity { k, attribute, l } => {
            format!(
                "({k}, {l}) local generalization and bucketization of '{attribute}' (Corollary 3)"
            )
        }
        Guarantee::LocalTCloseness { attribute, t } => {
            format!("{t}-closeness of the local buckets of '{attribute}'")
        }
        Guarantee::PSensitiveKAnonymity { k, p, attributes } => {
            format!(
                "{p}-sensitive {k}-anonymity of {} (Definition 3)",
                quoted(attributes)
            )
        }
        Guarantee::ExtendedPSensitivity { attribute, p, .. } => {
            format!("extended {p}-sensitivity of '{attribute}' over its protected subtrees (Definition 6)")
        }
    }
}

fn quoted(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    q.join(", ")
}

fn verify_claim(
    claim: &Guarantee,
    release: &Release,
    ds: &Dataset,
    shared: Shared<'_>,
) -> Result<String, String> {
    let column = |name: &str| ds.column_index(name).map_err(|e| e.to_string());
    match claim {
        Guarantee::KAnonymity { k } => k_anonymity(release, ds, *k),
        Guarantee::GroupLDiversity { attribute, l } => {
            group_l_diversity(release, ds, column(attribute)?, *l)
        }
        Guarantee::BucketLDiversity { attribute, l } => {
            bucket_l_diversity(release, ds, column(attribute)?, *l)
        }
        Guarantee::CrossBucketLDiversity { attribute, l } => {
            cross_bucket_l_diversity(release, ds, column(attribute)?, *l, shared.matching)
        }
        Guarantee::BreachProbability { attribute, l } => {
            breach_bound(release, ds, column(attribute)?, *l, shared)
        }
        Guarantee::EntropyLDiversity { attribute, l } => {
            entropy_l_diversity(release, ds, column(attribute)?, *l)
        }
        Guarantee::RecursiveCLDiversity { attribute, c, l } => {
            recursive_cl_diversity(release, ds, column(attribute)?, *c, *l)
        }
        Guarantee::TCloseness { attribute, t } => t_closeness(release, ds, column(attribute)?, *t),
        Guarantee::LocalLDiversity { k, attribute, l } => {
            corollary_3(release, ds, column(attribute)?, *k, *l)
        }
        Guarantee::LocalTCloseness { attribute, t } => {
            local_t_closeness(release, ds, column(attribute)?, *t)
        }
        Guarantee::PSensitiveKAnonymity { k, p, attributes } => {
            p_sensitive_k_anonymity(release, ds, *k, *p, attributes)
        }
        Guarantee::ExtendedPSensitivity {
            attribute,
            p,
            subtrees,
        } => extended_p_sensitivity(release, ds, column(attribute)?, *p, subtrees),
    }
}

/// Definition 3 of the p-sensitive paper: every group has k rows and p
/// distinct values of each attribute, on the rows themselves (a release
/// that detaches sensitive values into buckets is not what it speaks of).
fn p_sensitive_k_anonymity(
    release: &Release,
    ds: &Dataset,
    k: u32,
    p: u32,
    attributes: &[String],
) -> Result<String, String> {
    if release.is_bucketized() || !release.local_buckets.is_empty() {
        return Err("the release detaches sensitive values into buckets; p-sensitivity is a property of groups that keep them".into());
    }
    if let Some((g, size)) = group_below_k(release, k) {
        return Err(format!("group {g} has {size} rows, fewer than k = {k}"));
    }
    let mut fewest = Vec::new();
    for name in attributes {
        let column = ds.column_index(name).map_err(|e| e.to_string())?;
        if !release.sensitive.contains(&column) {
            return Err(format!(
                "'{name}' is not a sensitive attribute of the release"
            ));
        }
        fewest.push(format!(
            "'{name}' {}",
            group_l_diversity(release, ds, column, p)?
        ));
    }
    Ok(fewest.join("; "))
}

/// Definition 6: map each value to its protected subtree (its own when no
/// listed subtree holds it) and count distinct subtrees per group.
fn extended_p_sensitivity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    p: u32,
    subtrees: &[crate::release::ProtectedSubtree],
) -> Result<String, String> {
    let col = ds.col(column);
    let own = subtrees.len() as u32;
    let mut subtree_of = vec![u32::MAX; col.code_space()];
    for (i, s) in subtrees.iter().enumerate() {
        for v in &s.values {
            let Some(code) = col.code_of(v) else { continue };
            if subtree_of[code as usize] != u32::MAX {
                return Err(format!(
                    "the value '{v}' is in two protected subtrees ('{}' and '{}')",
                    subtrees[subtree_of[code as usize] as usize].root, s.root
                ));
            }
            subtree_of[code as usize] = i as u32;
        }
    }
    let mut fewest: Option<(usize, usize)> = None;
    for (g, group) in release.groups.iter().enumerate() {
        let mut seen: Vec<u64> = group
            .rows
            .iter()
            .map(|&r| {
                let code = col.code(r as usize);
                match subtree_of[code as usize] {
                    u32::MAX => ((own as u64) << 32) | code as u64,
                    s => s as u64,
                }
            })
            .collect();
        seen.sort_unstable();
        seen.dedup();
        if fewest.is_none_or(|(_, d)| seen.len() < d) {
            fewest = Some((g, seen.len()));
        }
    }
    match fewest {
        None => Ok("nothing published".into()),
        Some((g, d)) if d < p as usize => Err(format!(
            "group {g} holds values of '{}' from {d} protected subtrees, fewer than p = {p}",
            col.name()
        )),
        Some((_, d)) => Ok(format!("fewest protected subtrees in a group: {d}")),
    }
}

/// The local buckets of an attribute LGB protects, or why there are none
/// to check: `Ok(None)` when the attribute has no sensitive cells (a
/// semi-sensitive attribute all of whose cells are QI values).
fn lgb_buckets<'r>(
    release: &'r Release,
    col: &Column,
    column: usize,
) -> Result<Option<&'r [Bucket]>, String> {
    if !release.semi_sensitive.contains(&column) && !release.sensitive.contains(&column) {
        return Err(format!(
            "'{}' is neither semi-sensitive nor sensitive in this release",
            col.name()
        ));
    }
    match release.local_buckets_of(column) {
        Some(lb) => Ok(Some(&lb.buckets)),
        None if release.sensitive.contains(&column) && release.published_rows() > 0 => Err(
            format!("'{}' is sensitive but has no local buckets", col.name()),
        ),
        None => Ok(None),
    }
}

/// The first group with fewer than `k` rows, as (index, size): the
/// group-size condition that p-sensitive k-anonymity and Corollary 3 share.
fn group_below_k(release: &Release, k: u32) -> Option<(usize, usize)> {
    release
        .groups
        .iter()
        .enumerate()
        .find(|(_, g)| g.rows.len() < k as usize)
        .map(|(g, group)| (g, group.rows.len()))
}

/// Corollary 3 of the LGB paper: (1) every local equivalence group has at
/// least k rows; (2) no value twice in a local bucket of the attribute;
/// (3) every such bucket has at least l cells.
fn corollary_3(
    release: &Release,
    ds: &Dataset,
    column: usize,
    k: u32,
    l: u32,
) -> Result<String, String> {
    let col = ds.col(column);
    if let Some((g, size)) = group_below_k(release, k) {
        return Err(format!(
            "(1) local group {g} has {size} rows, fewer than k = {k}"
        ));
    }
    let Some(buckets) = lgb_buckets(release, col, column)? else {
        return Ok(format!("0 sensitive cells of '{}'", col.name()));
    };
    if let Some(msg) = buckets
        .par_iter()
        .enumerate()
        .find_map_first(|(b, bucket)| bucket_violation(b, bucket, col, l))
    {
        let condition = if msg.contains("fewer than") {
            "(3)"
        } else {
            "(2)"
        };
        return Err(format!("{condition} local {msg}"));
    }
    Ok(format!(
        "smallest group {} rows; {} local buckets of {} sensitive cells, smallest {}",
        release
            .groups
            .iter()
            .map(|g| g.rows.len())
            .min()
            .unwrap_or(0),
        buckets.len(),
        buckets.iter().map(|b| b.rows.len()).sum::<usize>(),
        buckets.iter().map(|b| b.rows.len()).min().unwrap_or(0)
    ))
}

/// Every local bucket of the attribute within EMD t of the distribution of
/// all its bucketed (sensitive) cells.
fn local_t_closeness(
    release: &Release,
    ds: &Dataset,
    column: usize,
    t: f64,
) -> Result<String, String> {
    let col = ds.col(column);
    let Some(buckets) = lgb_buckets(release, col, column)? else {
        return Ok(format!("0 sensitive cells of '{}'", col.name()));
    };
    let mut counts = vec![0u64; col.code_space()];
    for b in buckets {
        for &r in &b.rows {
            counts[col.code(r as usize) as usize] += 1;
        }
    }
    let reference = TableDistribution::from_counts(counts, col.is_numeric());
    let distances: Vec<f64> = buckets
        .par_iter()
        .map(|b| emd(&counts_of_rows(&b.rows, col), &reference))
        .collect();
    match distances
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
    {
        None => Ok("no sensitive cells".to_string()),
        Some((b, &d)) if d > t + 1e-12 * t.abs().max(1.0) => Err(format!(
            "local bucket {b} of '{}' is at EMD {d:.6} from the distribution of its sensitive cells, more than t = {t}",
            col.name()
        )),
        Some((_, &d)) => Ok(format!(
            "{} local buckets, largest EMD {d:.6}",
            buckets.len()
        )),
    }
}

/// LGB's structure (the LGB paper's Definitions 7–10): every group in one
/// subset of the QI partition; plain QI columns carry QI values in every
/// subset; on a column outside its subset's QI columns a group publishes
/// nothing (`Suppressed`) and each of its rows is in a local bucket of that
/// column, which is semi-sensitive; on a column inside them no row is; every
/// published row is in a local bucket of each sensitive column; local
/// buckets belong to semi-sensitive or sensitive columns.
fn lgb_structure(release: &Release, ds: &Dataset) -> Result<String, String> {
    let name = |c: usize| ds.col(c).name().to_string();
    let quasi = &release.quasi_identifiers;
    if let Some(&c) = release.semi_sensitive.iter().find(|c| !quasi.contains(c)) {
        return Err(format!(
            "semi-sensitive '{}' is not among the quasi-identifiers",
            name(c)
        ));
    }
    if let Some(lb) = release.local_buckets.iter().find(|lb| {
        !release.semi_sensitive.contains(&lb.column) && !release.sensitive.contains(&lb.column)
    }) {
        return Err(format!(
            "'{}' has local buckets but is neither semi-sensitive nor sensitive",
            name(lb.column)
        ));
    }
    let n = release.source_rows;
    let bucket_of: Vec<(usize, Vec<Option<u32>>)> = release
        .local_buckets
        .iter()
        .map(|lb| (lb.column, lb.bucket_of_row(n)))
        .collect();
    let in_bucket = |c: usize, r: u32| {
        bucket_of
            .iter()
            .find(|(col, _)| *col == c)
            .is_some_and(|(_, of)| of[r as usize].is_some())
    };
    let subset_of = release.subset_of_group();
    for (s, subset) in release.qi_partition.iter().enumerate() {
        if let Some(&c) = subset.qi.iter().find(|c| !quasi.contains(c)) {
            return Err(format!(
                "QI subset {s} lists '{}', which is not a quasi-identifier",
                name(c)
            ));
        }
        if let Some(&g) = subset
            .groups
            .iter()
            .find(|&&g| g as usize >= release.groups.len())
        {
            return Err(format!(
                "QI subset {s} lists group {g}, which does not exist"
            ));
        }
    }
    let mut listed = vec![0u32; release.groups.len()];
    for subset in &release.qi_partition {
        for &g in &subset.groups {
            listed[g as usize] += 1;
        }
    }
    for (g, group) in release.groups.iter().enumerate() {
        let Some(s) = subset_of[g] else {
            return Err(format!("group {g} is in no subset of the QI partition"));
        };
        let subset = &release.qi_partition[s as usize];
        if listed[g] > 1 {
            return Err(format!("group {g} is listed twice in the QI partition"));
        }
        for (&c, cell) in quasi.iter().zip(&group.cells) {
            let carries = subset.qi.contains(&c);
            if !carries && !release.semi_sensitive.contains(&c) {
                return Err(format!(
                    "group {g} hides '{}', which is a plain quasi-identifier",
                    name(c)
                ));
            }
            for &r in &group.rows {
                match (carries, in_bucket(c, r)) {
                    (true, true) => {
                        return Err(format!(
                            "row {r} carries a QI value on '{}' in group {g} but is in one of its local buckets",
                            name(c)
                        ))
                    }
                    (false, false) => {
                        return Err(format!(
                            "row {r}'s sensitive cell on '{}' (group {g}) is in no local bucket",
                            name(c)
                        ))
                    }
                    _ => {}
                }
            }
            if !carries && *cell != Cell::Suppressed {
                return Err(format!(
                    "group {g} publishes {} on '{}', where its cells are sensitive",
                    cell.render(ds.col(c), 0),
                    name(c)
                ));
            }
        }
        for &c in &release.sensitive {
            if let Some(&r) = group.rows.iter().find(|&&r| !in_bucket(c, r)) {
                return Err(format!(
                    "row {r}'s value of sensitive '{}' is in no local bucket",
                    name(c)
                ));
            }
        }
    }
    Ok(format!(
        "{} QI subsets, {} local groups, local buckets on {} attributes",
        release.qi_partition.len(),
        release.groups.len(),
        release.local_buckets.len()
    ))
}

/// Definition 10 by the Section 4.1 formula, through the risk module's
/// matching (which evaluates p(t, s) from the published groups and buckets
/// only, never from the algorithm's bookkeeping).
fn breach_bound(
    release: &Release,
    ds: &Dataset,
    attribute: usize,
    l: u32,
    shared: Shared<'_>,
) -> Result<String, String> {
    if l == 0 {
        return Err("l must be at least 1".into());
    }
    let computed;
    let b = match shared {
        Shared {
            breach: Some((column, b)),
            ..
        } if column == attribute => b,
        Shared { matching, .. } => {
            let progress = Progress::new();
            computed = match matching {
                Some(m) => crate::risk::breach_from(m, release, ds, attribute, &progress),
                None => crate::risk::breach_probability(release, ds, attribute, &progress),
            }
            .map_err(|e| e.to_string())?;
            &computed
        }
    };
    let bound = 1.0 / f64::from(l);
    match b
        .probabilities
        .iter()
        .enumerate()
        .find(|(_, &p)| p > bound + 1e-9)
    {
        Some((row, &p)) => Err(format!(
            "row {row} has breach probability {p:.4} > 1/{l} = {bound:.4}"
        )),
        None => Ok(format!(
            "largest breach probability {:.4} ≤ 1/{l} = {bound:.4} over {} rows",
            b.summary.max, b.summary.records
        )),
    }
}

fn fits(release: &Release, ds: &Dataset) -> Result<String, String> {
    let n = ds.n_rows();
    if release.source_rows != n {
        return Err(format!(
            "the release was made from {} rows, the dataset has {n}",
            release.source_rows
        ));
    }
    let columns = release
        .quasi_identifiers
        .iter()
        .chain(&release.sensitive)
        .chain(&release.identifiers)
        .chain(release.local_buckets.iter().map(|l| &l.column));
    if let Some(&c) = columns.into_iter().find(|&&c| c >= ds.n_cols()) {
        return Err(format!(
            "column {c} does not exist ({} columns)",
            ds.n_cols()
        ));
    }
    // The name of the holder is formatted only on failure: a release of
    // single-row groups has tens of thousands of them.
    let out_of_range = |what: &dyn Fn() -> String, rows: &[u32]| -> Result<(), String> {
        match rows.iter().find(|&&r| r as usize >= n) {
            Some(r) => Err(format!(
                "{} holds row {r}, the dataset has {n} rows",
                what()
            )),
            None => Ok(()),
        }
    };
    for (g, group) in release.groups.iter().enumerate() {
        out_of_range(&|| format!("group {g}"), &group.rows)?;
    }
    for (b, bucket) in release.buckets.iter().enumerate() {
        out_of_range(&|| format!("bucket {b}"), &bucket.rows)?;
    }
    for local in &release.local_buckets {
        for (b, bucket) in local.buckets.iter().enumerate() {
            out_of_range(
                &|| format!("local bucket {b} of column {}", local.column),
                &bucket.rows,
            )?;
        }
    }
    out_of_range(
        &|| "the suppressed list".to_string(),
        &release.suppressed_rows,
    )?;
    Ok(format!(
        "{n} rows, {} groups, {} buckets",
        release.groups.len(),
        release.buckets.len()
    ))
}

fn one_cell_per_qi(release: &Release) -> Result<String, String> {
    let d = release.quasi_identifiers.len();
    match release.groups.iter().position(|g| g.cells.len() != d) {
        Some(g) => Err(format!(
            "group {g} has {} cells for {d} quasi-identifiers",
            release.groups[g].cells.len()
        )),
        None => Ok(format!("{d} cells in each group")),
    }
}

fn identifiers(release: &Release, ds: &Dataset) -> Result<String, String> {
    let published = release.quasi_identifiers.iter().chain(&release.sensitive);
    for c in published {
        if release.identifiers.contains(c) {
            let name = ds.columns().get(*c).map_or("?", |col| col.name());
            return Err(format!("identifier '{name}' is published"));
        }
    }
    Ok(format!("{} identifiers dropped", release.identifiers.len()))
}

fn rows_once(release: &Release) -> Result<String, String> {
    let n = release.source_rows;
    // 0: unseen; g + 1: in group g; u32::MAX: suppressed.
    let mut seen = vec![0u32; n];
    for (g, group) in release.groups.iter().enumerate() {
        if group.rows.is_empty() {
            return Err(format!("group {g} is empty"));
        }
        for &r in &group.rows {
            match seen[r as usize] {
                0 => seen[r as usize] = g as u32 + 1,
                prev => return Err(format!("row {r} is in group {} and in group {g}", prev - 1)),
            }
        }
    }
    for &r in &release.suppressed_rows {
        match seen[r as usize] {
            0 => seen[r as usize] = u32::MAX,
            u32::MAX => return Err(format!("row {r} is suppressed twice")),
            g => return Err(format!("row {r} is both suppressed and in group {}", g - 1)),
        }
    }
    if let Some(r) = seen.iter().position(|&s| s == 0) {
        return Err(format!("row {r} is neither published nor suppressed"));
    }
    Ok(format!(
        "{} published, {} suppressed",
        release.published_rows(),
        release.suppressed_rows.len()
    ))
}

fn buckets_well_formed(release: &Release) -> Result<String, String> {
    let mut published = vec![false; release.source_rows];
    for g in &release.groups {
        for &r in &g.rows {
            published[r as usize] = true;
        }
    }
    let sets = std::iter::once(("bucket", &release.buckets)).chain(
        release
            .local_buckets
            .iter()
            .map(|l| ("local bucket", &l.buckets)),
    );
    let mut total = 0;
    for (what, buckets) in sets {
        let mut owner = vec![u32::MAX; release.source_rows];
        for (b, bucket) in buckets.iter().enumerate() {
            if bucket.rows.is_empty() {
                return Err(format!("{what} {b} is empty"));
            }
            for &r in &bucket.rows {
                if !published[r as usize] {
                    return Err(format!("{what} {b} holds row {r}, which is not published"));
                }
                match owner[r as usize] {
                    u32::MAX => owner[r as usize] = b as u32,
                    prev => return Err(format!("row {r} is in {what} {prev} and in {what} {b}")),
                }
            }
        }
        total += buckets.len();
    }
    Ok(format!("{total} buckets"))
}

fn truthful(release: &Release, ds: &Dataset) -> Result<String, String> {
    let qi = &release.quasi_identifiers;
    for &c in qi {
        exact_order(ds.col(c))?;
    }
    labels_truthful(release, ds)?;
    let bad = release
        .groups
        .par_iter()
        .enumerate()
        .find_map_first(|(g, group)| {
            group.rows.iter().find_map(|&r| {
                qi.iter().zip(&group.cells).find_map(|(&c, cell)| {
                    let col = ds.col(c);
                    let own = col.code(r as usize);
                    (!cell.contains(own, own)).then(|| {
                        format!(
                            "group {g} publishes {} = {} but row {r} holds {}",
                            col.name(),
                            cell.render(col, own),
                            col.display(own)
                        )
                    })
                })
            })
        });
    match bad {
        Some(msg) => Err(msg),
        None => Ok("every cell contains its members' values".to_string()),
    }
}

/// A numeric column's values, read exactly from their text, must rise
/// strictly with the code: interval cells are code ranges.
fn exact_order(col: &Column) -> Result<(), String> {
    if !col.is_numeric() {
        return Ok(());
    }
    let mut last: Option<(Decimal, &str)> = None;
    for v in col.dictionary() {
        let Some(x) = Decimal::parse(v) else {
            return Err(format!(
                "column {} holds '{v}', which does not read as a number",
                col.name()
            ));
        };
        if let Some((prev, prev_text)) = &last {
            if *prev >= x {
                return Err(format!(
                    "column {}: '{prev_text}' comes before '{v}' but is not smaller; intervals would misstate the values",
                    col.name()
                ));
            }
        }
        last = Some((x, v));
    }
    Ok(())
}

/// Every labelled cell says nothing false about the values it covers:
/// a label reading as numbers covers each of them exactly; a label that
/// is one of the column's values stands for that value alone.
fn labels_truthful(release: &Release, ds: &Dataset) -> Result<(), String> {
    let mut seen: rustc_hash::FxHashSet<(usize, &str, &[u32])> = Default::default();
    for (g, group) in release.groups.iter().enumerate() {
        for (q, cell) in group.cells.iter().enumerate() {
            let Cell::Set {
                codes,
                label: Some(label),
            } = cell
            else {
                continue;
            };
            let Some(&c) = release.quasi_identifiers.get(q) else {
                continue;
            };
            if !seen.insert((q, label.as_str(), codes.as_slice())) {
                continue;
            }
            let col = ds.col(c);
            let present = codes.iter().copied().filter(|&v| !col.is_missing(v));
            let wrong = if col.is_numeric() {
                match NumericLabel::parse(label) {
                    Some(claim) => present
                        .clone()
                        .find(|&v| col.decimal(v).is_none_or(|x| !claim.covers(&x))),
                    None => None,
                }
            } else {
                match col.code_of(label) {
                    Some(named) => present.clone().find(|&v| v != named),
                    None => None,
                }
            };
            if let Some(v) = wrong {
                return Err(format!(
                    "group {g} publishes {} = {label} but holds {}",
                    col.name(),
                    col.display(v)
                ));
            }
        }
    }
    Ok(())
}

fn k_anonymity(release: &Release, ds: &Dataset, k: u32) -> Result<String, String> {
    let qi = &release.quasi_identifiers;
    // Per group: its smallest class, the rows agreeing on its `Original`
    // cells (all its rows when it has none).
    let smallest: Vec<(usize, bool)> = release
        .groups
        .par_iter()
        .map(|g| {
            let original: Vec<usize> = qi
                .iter()
                .zip(&g.cells)
                .filter(|(_, c)| matches!(c, Cell::Original))
                .map(|(&col, _)| col)
                .collect();
            if original.is_empty() {
                return (g.rows.len(), false);
            }
            let mut classes: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
            for &r in &g.rows {
                let key = original
                    .iter()
                    .map(|&c| ds.col(c).code(r as usize))
                    .collect();
                *classes.entry(key).or_default() += 1;
            }
            (classes.into_values().min().unwrap_or(0), true)
        })
        .collect();
    match smallest.iter().enumerate().min_by_key(|(_, s)| s.0) {
        None => Ok("nothing published".to_string()),
        Some((g, &(size, true))) if size < k as usize => Err(format!(
            "group {g} publishes original values, and only {size} of its rows share theirs: fewer than k = {k}"
        )),
        Some((g, &(size, false))) if size < k as usize => Err(format!(
            "group {g} has {size} rows, fewer than k = {k}"
        )),
        Some((_, &(size, _))) => Ok(format!("smallest class has {size} rows")),
    }
}

fn group_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
) -> Result<String, String> {
    let col = ds.col(column);
    let distinct: Vec<usize> = release
        .groups
        .par_iter()
        .map(|g| counts_of_rows(&g.rows, col).len())
        .collect();
    match distinct.iter().enumerate().min_by_key(|(_, &d)| d) {
        None => Ok("nothing published".to_string()),
        Some((g, &d)) if d < l as usize => Err(format!(
            "group {g} holds {d} distinct values of '{}', fewer than l = {l}",
            col.name()
        )),
        Some((_, &d)) => Ok(format!("fewest distinct values in a group: {d}")),
    }
}

/// Entropy l-diversity of every group: H = ln n − (1/n)·Σ r ln r ≥ ln l.
fn entropy_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: f64,
) -> Result<String, String> {
    if l.is_nan() || l < 1.0 {
        return Err(format!("l must be at least 1, not {l}"));
    }
    let col = ds.col(column);
    let entropies: Vec<f64> = release
        .groups
        .par_iter()
        .map(|g| {
            if g.rows.is_empty() {
                // Already reported by the structure checks; 0 keeps the
                // minimum a number instead of ln 0 − 0/0.
                return 0.0;
            }
            let n = g.rows.len() as f64;
            let weighted: f64 = counts_of_rows(&g.rows, col)
                .iter()
                .map(|v| {
                    let r = f64::from(v.count);
                    r * r.ln()
                })
                .sum();
            n.ln() - weighted / n
        })
        .collect();
    let bound = l.ln();
    match entropies
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
    {
        None => Ok("nothing published".to_string()),
        Some((g, &h)) if h < bound - 1e-12 * bound.abs().max(1.0) => Err(format!(
            "group {g} has entropy {h:.6} of '{}', less than ln {l} = {bound:.6}",
            col.name()
        )),
        Some((_, &h)) => Ok(format!(
            "smallest entropy in a group {h:.6} ≥ ln {l} = {bound:.6}"
        )),
    }
}

/// Recursive (c,l)-diversity of every group: r_1 < c·(r_l + … + r_m) with
/// the group's value counts sorted descending.
fn recursive_cl_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    c: f64,
    l: u32,
) -> Result<String, String> {
    if l == 0 {
        return Err("l must be at least 1".into());
    }
    if c.is_nan() || c <= 0.0 {
        return Err(format!("c must be positive, not {c}"));
    }
    let col = ds.col(column);
    // Per group: (r_1, r_l + … + r_m, distinct values).
    let heads_and_tails: Vec<(u64, u64, usize)> = release
        .groups
        .par_iter()
        .map(|g| {
            let mut r: Vec<u64> = counts_of_rows(&g.rows, col)
                .iter()
                .map(|v| u64::from(v.count))
                .collect();
            r.sort_unstable_by(|a, b| b.cmp(a));
            let tail = r[(l as usize - 1).min(r.len())..].iter().sum();
            (r.first().copied().unwrap_or(0), tail, r.len())
        })
        .collect();
    if let Some((g, &(head, tail, d))) = heads_and_tails
        .iter()
        .enumerate()
        .find(|(_, &(head, tail, _))| head as f64 >= c * tail as f64)
    {
        return Err(if d < l as usize {
            format!(
                "group {g} holds {d} distinct values of '{}', fewer than l = {l}",
                col.name()
            )
        } else {
            format!(
                "group {g} of '{}' has r_1 = {head} ≥ c·(r_{l} + … + r_m) = {c}·{tail}",
                col.name()
            )
        });
    }
    let largest = heads_and_tails
        .iter()
        .map(|&(head, tail, _)| head as f64 / tail as f64)
        .max_by(f64::total_cmp);
    match largest {
        None => Ok("nothing published".to_string()),
        Some(ratio) => Ok(format!(
            "largest r_1/(r_{l} + … + r_m) in a group {ratio:.4} < c = {c}"
        )),
    }
}

fn bucket_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
) -> Result<String, String> {
    let col = ds.col(column);
    let Some(buckets) = detaching_buckets(release, column) else {
        return no_buckets(release, col);
    };
    let is_local = release.local_buckets.iter().any(|lb| lb.column == column);
    if !is_local {
        let mut bucketed = vec![false; release.source_rows];
        for b in buckets {
            for &r in &b.rows {
                bucketed[r as usize] = true;
            }
        }
        let loose = release
            .groups
            .iter()
            .flat_map(|g| &g.rows)
            .find(|&&r| !bucketed[r as usize]);
        if let Some(r) = loose {
            return Err(format!(
                "row {r} is published outside every bucket, with its value '{}'",
                col.display(col.code(*r as usize))
            ));
        }
    }
    let bad = buckets
        .par_iter()
        .enumerate()
        .find_map_first(|(b, bucket)| bucket_violation(b, bucket, col, l));
    match bad {
        Some(msg) => Err(msg),
        None => Ok(format!(
            "{} buckets, smallest has {} rows",
            buckets.len(),
            buckets.iter().map(|b| b.rows.len()).min().unwrap_or(0)
        )),
    }
}

/// A bucket claim on a release without buckets holds only vacuously.
fn no_buckets(release: &Release, col: &Column) -> Result<String, String> {
    if release.published_rows() == 0 {
        Ok("nothing published".to_string())
    } else {
        Err(format!(
            "no buckets detach '{}': its values stay on their rows",
            col.name()
        ))
    }
}

fn bucket_violation(b: usize, bucket: &Bucket, col: &Column, l: u32) -> Option<String> {
    if bucket.rows.len() < l as usize {
        return Some(format!(
            "bucket {b} has {} rows, fewer than l = {l}",
            bucket.rows.len()
        ));
    }
    counts_of_rows(&bucket.rows, col)
        .iter()
        .find(|v| v.count > 1)
        .map(|v| {
            format!(
                "bucket {b} holds '{}' {} times",
                col.display(v.code),
                v.count
            )
        })
}

fn cross_bucket_l_diversity(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
    shared: Option<&Matching>,
) -> Result<String, String> {
    let col = ds.col(column);
    if detaching_buckets(release, column).is_none() {
        return no_buckets(release, col);
    }
    let built;
    let matching = match shared {
        Some(m) => m,
        None => {
            built = Matching::new(release, ds, &Progress::new()).map_err(|e| e.to_string())?;
            &built
        }
    };
    let buckets = ValueBuckets::new(release, ds, column);
    let unit_buckets = unit_bucket_counts(matching, &buckets);
    let l = u64::from(l);

    // Per target: the first violation, or the largest p(t, MB)/|MB| as a
    // fraction (num, den).
    let results: Vec<Result<(u64, u64), String>> = (0..matching.n_targets())
        .into_par_iter()
        .map_init(
            || {
                (
                    vec![0u32; buckets.len()],
                    vec![u32::MAX; col.code_space()],
                    Vec::<u32>::new(),
                )
            },
            |(num_in, seen_in, touched), t| {
                let total = matching.matched_tuples(t);
                for &u in matching.matched_units(t) {
                    for &(b, c) in unit_buckets.unit(u as usize) {
                        if num_in[b as usize] == 0 {
                            touched.push(b);
                        }
                        num_in[b as usize] += c;
                    }
                }
                let row = matching.target_rows(t)[0];
                let outcome = corollary_2(row, total, l, touched, num_in, seen_in, &buckets, col);
                for &b in touched.iter() {
                    num_in[b as usize] = 0;
                    for v in buckets.values(b as usize) {
                        seen_in[v.code as usize] = u32::MAX;
                    }
                }
                touched.clear();
                outcome
            },
        )
        .collect();
    let mut worst = (0u64, 1u64);
    for r in results {
        let (num, den) = r?;
        if num * worst.1 > worst.0 * den {
            worst = (num, den);
        }
    }
    Ok(format!(
        "{} published tuples checked; largest p(t,MB)/|MB| = {:.4} ≤ 1/{l}",
        release.published_rows(),
        worst.0 as f64 / worst.1 as f64
    ))
}

/// Corollary 2 for one target; `touched` lists its matching buckets and
/// `num_in[b]` holds Num(t, b). Returns the largest p(t, MB)/|MB| as
/// (Num(t, MB), Num_tuples(t)·|MB|).
#[allow(clippy::too_many_arguments)]
fn corollary_2(
    row: u32,
    total: u64,
    l: u64,
    touched: &mut [u32],
    num_in: &[u32],
    seen_in: &mut [u32],
    buckets: &ValueBuckets,
    col: &Column,
) -> Result<(u64, u64), String> {
    touched.sort_unstable();
    let mut worst = (0u64, 1u64);
    for &b in touched.iter() {
        let size = buckets.size(b as usize) as u64;
        let num = u64::from(num_in[b as usize]);
        if num * l > total * size {
            return Err(format!(
                "tuple {row}: matching bucket {b} has p(t,MB)/|MB| = ({num}/{total})/{size} > 1/{l}"
            ));
        }
        if num * worst.1 > worst.0 * total * size {
            worst = (num, total * size);
        }
        for v in buckets.values(b as usize) {
            let first = seen_in[v.code as usize];
            if v.count > 1 || first != u32::MAX {
                let place = if v.count > 1 {
                    format!("{} times in bucket {b}", v.count)
                } else {
                    format!("in buckets {first} and {b}")
                };
                return Err(format!(
                    "tuple {row}: '{}' appears {place} among its matching buckets",
                    col.display(v.code)
                ));
            }
            seen_in[v.code as usize] = b;
        }
    }
    Ok(worst)
}

/// Per unit of the matching, its rows counted by bucket, (bucket, count)
/// sorted by bucket.
struct UnitBuckets {
    offsets: Vec<usize>,
    pairs: Vec<(u32, u32)>,
}

impl UnitBuckets {
    fn unit(&self, u: usize) -> &[(u32, u32)] {
        &self.pairs[self.offsets[u]..self.offsets[u + 1]]
    }
}

fn unit_bucket_counts(matching: &Matching, buckets: &ValueBuckets) -> UnitBuckets {
    let mut offsets = vec![0usize];
    let mut pairs = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    for u in 0..matching.n_units() {
        ids.clear();
        ids.extend(
            matching
                .unit_rows(u)
                .iter()
                .filter_map(|&r| buckets.bucket_of_row(r as usize))
                .map(|b| b as u32),
        );
        ids.sort_unstable();
        pairs.extend(
            ids.chunk_by(|a, b| a == b)
                .map(|run| (run[0], run.len() as u32)),
        );
        offsets.push(pairs.len());
    }
    UnitBuckets { offsets, pairs }
}

fn t_closeness(release: &Release, ds: &Dataset, column: usize, t: f64) -> Result<String, String> {
    let col = ds.col(column);
    let mut counts = vec![0u64; col.code_space()];
    for g in &release.groups {
        for &r in &g.rows {
            counts[col.code(r as usize) as usize] += 1;
        }
    }
    let table = TableDistribution::from_counts(counts, col.is_numeric());
    let distances: Vec<f64> = release
        .groups
        .par_iter()
        .map(|g| emd(&counts_of_rows(&g.rows, col), &table))
        .collect();
    let worst = distances
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1));
    match worst {
        None => Ok("nothing published".to_string()),
        Some((g, &d)) if d > t + 1e-12 * t.abs().max(1.0) => Err(format!(
            "group {g} is at EMD {d:.6} from the table's '{}', more than t = {t}",
            col.name()
        )),
        Some((_, &d)) => Ok(format!("largest EMD {d:.6}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::examples::cross_bucket_fig1b as fig1b;
    use crate::release::examples::{interval, value};
    use crate::release::{Cell, EquivalenceGroup, LocalBuckets};

    fn disease() -> String {
        "Disease".to_string()
    }

    /// The paper's Fig. 4 with the claims it makes: (2, 4)-anonymous
    /// cross-bucket generalization.
    fn fig4(ds: &Dataset) -> Release {
        let mut r = crate::release::examples::cross_bucket_fig4(ds);
        r.claims = vec![
            Guarantee::KAnonymity { k: 2 },
            Guarantee::CrossBucketLDiversity {
                attribute: disease(),
                l: 4,
            },
        ];
        r
    }

    /// The paper's Fig. 2b: Anatomy-like 4-diverse buckets.
    fn fig2b(ds: &Dataset) -> Release {
        let mut r = crate::release::examples::cross_bucket_fig2b(ds);
        r.claims = vec![Guarantee::BucketLDiversity {
            attribute: disease(),
            l: 4,
        }];
        r
    }

    fn failed(v: &Verification) -> Vec<String> {
        v.failures()
            .map(|c| format!("{}: {}", c.claim, c.detail))
            .collect()
    }

    #[test]
    fn the_papers_tables_pass() {
        let ds = fig1b();
        for r in [fig4(&ds), fig2b(&ds)] {
            let v = verify(&r, &ds);
            assert!(v.all_hold(), "{v}");
            assert_eq!(v.checks.len(), 6 + r.claims.len());
        }
        // Fig. 4's groups of two hold two distinct diseases each.
        let mut r = fig4(&ds);
        r.claims.push(Guarantee::GroupLDiversity {
            attribute: disease(),
            l: 2,
        });
        assert!(verify(&r, &ds).all_hold());
    }

    #[test]
    fn breach_probability_claims_are_checked_by_section_4_1() {
        let ds = fig1b();
        // Fig. 4 and Fig. 2b give every tuple p(t, s) = 1/4 (the paper).
        for mut r in [fig4(&ds), fig2b(&ds)] {
            r.claims = vec![Guarantee::BreachProbability {
                attribute: disease(),
                l: 4,
            }];
            assert!(verify(&r, &ds).all_hold(), "{}", verify(&r, &ds));
            r.claims = vec![Guarantee::BreachProbability {
                attribute: disease(),
                l: 5,
            }];
            let v = verify(&r, &ds);
            assert!(!v.all_hold());
            assert!(failed(&v)[0].contains("> 1/5"), "{v}");
        }
    }

    #[test]
    fn shared_matching_and_breach_give_the_same_checks() {
        let ds = fig1b();
        let d = ds.column_index(&disease()).unwrap();
        for mut r in [fig4(&ds), fig2b(&ds)] {
            for l in [4, 5] {
                r.claims = vec![
                    Guarantee::BreachProbability {
                        attribute: disease(),
                        l,
                    },
                    Guarantee::CrossBucketLDiversity {
                        attribute: disease(),
                        l: 2,
                    },
                ];
                let m = Matching::new(&r, &ds, &Progress::new()).unwrap();
                let b = crate::risk::breach_from(&m, &r, &ds, d, &Progress::new()).unwrap();
                let alone = verify(&r, &ds);
                for shared in [
                    Shared {
                        matching: Some(&m),
                        breach: Some((d, &b)),
                    },
                    Shared {
                        matching: Some(&m),
                        breach: None,
                    },
                ] {
                    assert_eq!(verify_with(&r, &ds, shared), alone);
                }
                // A breach of another attribute is not taken for this one's.
                let other = Shared {
                    matching: None,
                    breach: Some((0, &b)),
                };
                assert_eq!(verify_with(&r, &ds, other), alone);
            }
        }
    }

    #[test]
    fn wrong_k_is_rejected() {
        let ds = fig1b();
        let mut r = fig4(&ds);
        r.claims[0] = Guarantee::KAnonymity { k: 3 };
        let v = verify(&r, &ds);
        assert_eq!(
            failed(&v),
            vec!["3-anonymity: group 0 has 2 rows, fewer than k = 3"]
        );
    }

    #[test]
    fn original_cells_tell_a_groups_rows_apart() {
        let ds = fig1b();
        // Fig. 2b claims nothing about identity, and rightly: its one group
        // of eight publishes every QI value, which are all distinct.
        let mut r = fig2b(&ds);
        r.claims = vec![Guarantee::KAnonymity { k: 2 }];
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["2-anonymity: group 0 publishes original values, and only 1 of its rows share theirs: fewer than k = 2"]
        );
        // Keeping only sex exact and suppressing the rest: F and M classes of 4.
        r.groups[0].cells = vec![Cell::Suppressed, Cell::Original, Cell::Suppressed];
        r.claims = vec![Guarantee::KAnonymity { k: 4 }];
        assert!(verify(&r, &ds).all_hold());
    }

    #[test]
    fn an_untruthful_cell_is_rejected() {
        let ds = fig1b();
        let mut r = fig4(&ds);
        // 103 is 24, outside [16-22].
        r.groups[0].cells[0] = interval(&ds, 1, "16", "22");
        let v = verify(&r, &ds);
        let f = failed(&v);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].contains("group 0 publishes Age = [16-22] but row 2 holds 24"),
            "{f:?}"
        );
    }

    #[test]
    fn a_label_that_misstates_its_values_is_rejected() {
        // Construction's `"to": "39"` given to people aged 70, a hierarchy
        // node 'Female' over men, and an f64-rounded interval label: each
        // group's codes hold its rows, so only the text lies.
        let ds = Dataset::from_rows(
            &["age", "sex"],
            &[vec!["70", "Male"], vec!["1", "Male"], vec!["2", "Female"]],
        )
        .unwrap();
        let age = ds.col(0);
        let sex = ds.col(1);
        let labelled = |codes: Vec<u32>, label: &str| Cell::Set {
            codes,
            label: Some(label.into()),
        };
        let code = |col: &Column, v: &str| col.code_of(v).unwrap();
        let release = |age_cell: Cell, sex_cell: Cell, rows: Vec<u32>| {
            let mut r = Release::new("test", &ds, vec![0, 1], vec![]);
            r.suppressed_rows = (0..3).filter(|x| !rows.contains(x)).collect();
            r.groups.push(crate::release::EquivalenceGroup {
                rows,
                cells: vec![age_cell, sex_cell],
            });
            r
        };
        let cases = [
            (
                release(
                    labelled(vec![code(age, "70")], "39"),
                    Cell::Suppressed,
                    vec![0],
                ),
                "publishes age = 39 but holds 70",
            ),
            (
                release(
                    Cell::Suppressed,
                    labelled(vec![code(sex, "Male")], "Female"),
                    vec![0],
                ),
                "publishes sex = Female but holds Male",
            ),
            (
                release(
                    labelled(
                        vec![code(age, "1"), code(age, "2")],
                        "[7766279631452242000-7766279631452242000]",
                    ),
                    Cell::Suppressed,
                    vec![1, 2],
                ),
                "but holds 1",
            ),
        ];
        for (r, expected) in cases {
            let f = failed(&verify(&r, &ds));
            assert!(f.len() == 1 && f[0].contains(expected), "{expected}: {f:?}");
        }
        // The same cells with true labels pass.
        let ok = release(
            labelled(vec![code(age, "1"), code(age, "2")], "[0-4]"),
            labelled(vec![code(sex, "Female"), code(sex, "Male")], "person"),
            vec![1, 2],
        );
        assert!(verify(&ok, &ds).all_hold(), "{}", verify(&ok, &ds));
    }

    #[test]
    fn a_duplicated_value_in_a_bucket_is_rejected() {
        let ds = fig1b();
        let mut r = fig2b(&ds);
        // Swap 104 (Bronchitis) and 108 (Dyspepsia): bucket 0 then holds
        // Dyspepsia twice (102 and 108), bucket 1 Bronchitis twice; the
        // first is named.
        r.buckets[0].rows = vec![0, 1, 2, 7];
        r.buckets[1].rows = vec![4, 5, 6, 3];
        let f = failed(&verify(&r, &ds));
        assert_eq!(
            f,
            vec!["4-diverse buckets of 'Disease': bucket 0 holds 'Dyspepsia' 2 times"]
        );
    }

    #[test]
    fn a_value_repeated_across_matching_buckets_violates_corollary_2() {
        let ds = fig1b();
        let mut r = fig4(&ds);
        // Widen group {105, 108} to [16-35] × Male × [43302-43309]: 102
        // (22, M, 43302) now matches 105 and 108 as well as its own group,
        // and their buckets 2 {Bronchitis, Pneumonia} and 3 {Gastritis,
        // Dyspepsia} repeat values of buckets 0 {Flu, Dyspepsia} and
        // 1 {Hepatitis, Bronchitis}.
        r.groups[2].cells = vec![
            interval(&ds, 1, "16", "35"),
            value(&ds, 2, "Male"),
            interval(&ds, 3, "43302", "43309"),
        ];
        let v = verify(&r, &ds);
        let f = failed(&v);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].starts_with("cross-bucket 4-diversity of 'Disease' (Corollary 2): tuple 1:"),
            "{f:?}"
        );
        assert!(
            f[0].contains("'Bronchitis' appears in buckets 1 and 2"),
            "{f:?}"
        );
    }

    #[test]
    fn a_bucket_too_likely_violates_corollary_2() {
        let ds = fig1b();
        let mut r = fig4(&ds);
        // Buckets {101, 103} and {102, 104}: each group's two tuples share
        // one bucket, so p(t,MB)/|MB| = (2/2)/2 = ½ > ¼.
        r.buckets[0].rows = vec![0, 2];
        r.buckets[1].rows = vec![1, 3];
        let f = failed(&verify(&r, &ds));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].contains("tuple 0: matching bucket 0 has p(t,MB)/|MB| = (2/2)/2 > 1/4"),
            "{f:?}"
        );
    }

    #[test]
    fn structure_errors_are_named() {
        let ds = fig1b();
        let mut r = fig4(&ds);
        r.groups[3].rows = vec![5];
        let f = failed(&verify(&r, &ds));
        assert!(
            f.iter()
                .any(|m| m.contains("row 6 is neither published nor suppressed")),
            "{f:?}"
        );

        let mut r = fig4(&ds);
        r.buckets[3].rows = vec![6, 7, 0];
        let f = failed(&verify(&r, &ds));
        assert!(
            f.iter()
                .any(|m| m.contains("row 0 is in bucket 0 and in bucket 3")),
            "{f:?}"
        );

        let mut r = fig4(&ds);
        r.groups[0].cells.pop();
        let v = verify(&r, &ds);
        let f = failed(&v);
        assert!(f[0].contains("group 0 has 2 cells for 3 quasi-identifiers"));
        assert!(f.iter().any(|m| m.contains("not checked")));

        let mut r = fig4(&ds);
        r.groups[0].rows.push(42);
        let f = failed(&verify(&r, &ds));
        assert!(f[0].contains("group 0 holds row 42"), "{f:?}");

        let mut r = fig4(&ds);
        r.quasi_identifiers[0] = 0;
        r.groups
            .iter_mut()
            .for_each(|g| g.cells[0] = Cell::Original);
        let f = failed(&verify(&r, &ds));
        assert!(f.iter().any(|m| m.contains("identifier 'ID' is published")));
    }

    #[test]
    fn unbucketed_rows_break_bucket_l_diversity() {
        let ds = fig1b();
        let mut r = fig2b(&ds);
        r.buckets.pop();
        let f = failed(&verify(&r, &ds));
        assert_eq!(f.len(), 1);
        assert!(
            f[0].contains("row 4 is published outside every bucket"),
            "{f:?}"
        );
        // Local buckets only cover the sensitive cells: rows outside are fine.
        let mut r = fig2b(&ds);
        r.local_buckets = vec![LocalBuckets {
            column: 4,
            buckets: vec![r.buckets[0].clone()],
        }];
        r.buckets.clear();
        r.sensitive.clear();
        assert!(verify(&r, &ds).all_hold());
    }

    /// The LGB patients' release (hand-built) with Corollary 3 claimed for
    /// its three attributes, k = 2, l = 2.
    fn lgb() -> (Dataset, Release) {
        let ds = crate::data::examples::lgb_patients();
        let mut r = crate::release::examples::lgb_patients_fig2(&ds);
        r.claims = ["Age", "Zip", "Disease"]
            .iter()
            .map(|a| Guarantee::LocalLDiversity {
                k: 2,
                attribute: a.to_string(),
                l: 2,
            })
            .collect();
        (ds, r)
    }

    #[test]
    fn lgb_release_passes_corollary_3() {
        let (ds, r) = lgb();
        let v = verify(&r, &ds);
        assert!(v.all_hold(), "{v}");
        assert!(v
            .checks
            .iter()
            .any(|c| c.claim == "local groups and local buckets are consistent (LGB)"));
        let disease = v.checks.last().unwrap();
        assert_eq!(
            disease.detail,
            "smallest group 2 rows; 4 local buckets of 8 sensitive cells, smallest 2"
        );
    }

    #[test]
    fn lgb_corollary_3_violations_are_rejected() {
        // (1) a local group of one row: 1008 moved out of G2 into a group of
        // its own (same cells, same subset).
        let (ds, mut r) = lgb();
        r.groups[1].rows = vec![4];
        r.groups.push(EquivalenceGroup {
            rows: vec![7],
            cells: r.groups[1].cells.clone(),
        });
        r.qi_partition[0].groups.push(4);
        let f = failed(&verify(&r, &ds));
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(
            f[0].ends_with("(Corollary 3): (1) local group 1 has 1 rows, fewer than k = 2"),
            "{f:?}"
        );
        // (2) a value twice in a local bucket: Disease buckets {Flu 1001,
        // Flu 1007} and {Dyspepsia 1002, Dyspepsia 1008}.
        let (ds, mut r) = lgb();
        r.local_buckets[2].buckets[0].rows = vec![0, 6];
        r.local_buckets[2].buckets[2].rows = vec![1, 7];
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["(2, 2) local generalization and bucketization of 'Disease' (Corollary 3): (2) local bucket 0 holds 'Flu' 2 times"]
        );
        // (3) a local bucket smaller than l: {Pneumonia 1003, Bronchitis
        // 1005} split in two.
        let (ds, mut r) = lgb();
        r.local_buckets[2].buckets[1].rows = vec![2];
        r.local_buckets[2].buckets.push(Bucket { rows: vec![4] });
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["(2, 2) local generalization and bucketization of 'Disease' (Corollary 3): (3) local bucket 1 has 1 rows, fewer than l = 2"]
        );
    }

    #[test]
    fn lgb_structure_violations_are_rejected() {
        let structure = |r: &Release, ds: &Dataset| -> String {
            let v = verify(r, ds);
            let c = v
                .checks
                .iter()
                .find(|c| c.claim.starts_with("local groups and local buckets"))
                .unwrap();
            assert!(!c.holds, "{v}");
            c.detail.clone()
        };
        // A sensitive Zip cell published: G3 shows [43306-43312].
        let (ds, mut r) = lgb();
        r.groups[2].cells[2] = interval(&ds, 4, "43306", "43312");
        assert_eq!(
            structure(&r, &ds),
            "group 2 publishes [43306-43312] on 'Zip', where its cells are sensitive"
        );
        // Age's local bucket lost: 1003's hidden age is nowhere.
        let (ds, mut r) = lgb();
        r.local_buckets.remove(0);
        assert_eq!(
            structure(&r, &ds),
            "row 2's sensitive cell on 'Age' (group 3) is in no local bucket"
        );
        // 1001's age, a QI value, bucketed with the hidden ones.
        let (ds, mut r) = lgb();
        r.local_buckets[0].buckets[0].rows = vec![0, 2, 6];
        assert_eq!(
            structure(&r, &ds),
            "row 0 carries a QI value on 'Age' in group 0 but is in one of its local buckets"
        );
        // A sensitive Disease value outside every local bucket.
        let (ds, mut r) = lgb();
        r.local_buckets[2].buckets[3].rows = vec![3];
        assert_eq!(
            structure(&r, &ds),
            "row 5's value of sensitive 'Disease' is in no local bucket"
        );
        // A group outside the QI partition; a plain QI hidden.
        let (ds, mut r) = lgb();
        r.qi_partition[0].groups = vec![0];
        assert_eq!(
            structure(&r, &ds),
            "group 1 is in no subset of the QI partition"
        );
        let (ds, mut r) = lgb();
        r.qi_partition[0].qi = vec![2, 4];
        r.groups[0].cells[0] = Cell::Suppressed;
        assert_eq!(
            structure(&r, &ds),
            "group 0 hides 'Gender', which is a plain quasi-identifier"
        );
    }

    #[test]
    fn lgb_t_closeness_of_local_buckets() {
        let (ds, mut r) = lgb();
        // Disease's 8 cells: Dyspepsia, Flu, Pneumonia 2/8 each,
        // Bronchitis, Gastritis 1/8. Bucket {Dyspepsia, Flu} is at equal
        // distance ½(2·|½ − ¼| + ¼ + ⅛ + ⅛) = ½, buckets {Pneumonia,
        // Bronchitis} and {Gastritis, Pneumonia} at ½(|½ − ¼| + |½ − ⅛| + ¼
        // + ¼ + ⅛) = 5/8, the largest (the last of them is named).
        r.claims = vec![Guarantee::LocalTCloseness {
            attribute: disease(),
            t: 0.625,
        }];
        let v = verify(&r, &ds);
        assert!(v.all_hold(), "{v}");
        r.claims = vec![Guarantee::LocalTCloseness {
            attribute: disease(),
            t: 0.6,
        }];
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["0.6-closeness of the local buckets of 'Disease': local bucket 3 of 'Disease' is at EMD 0.625000 from the distribution of its sensitive cells, more than t = 0.6"]
        );
        // Not an attribute LGB protects.
        r.claims = vec![Guarantee::LocalTCloseness {
            attribute: "Gender".into(),
            t: 0.6,
        }];
        assert!(failed(&verify(&r, &ds))[0]
            .ends_with("'Gender' is neither semi-sensitive nor sensitive in this release"));
    }

    #[test]
    fn group_diversity_and_closeness() {
        let ds = fig1b();
        let mut r = Release::new("hand", &ds, vec![1], vec![4]);
        r.push_covering_group(&ds, vec![0, 1, 2]);
        r.push_covering_group(&ds, vec![3, 4]);
        r.push_covering_group(&ds, vec![5, 6, 7]);
        r.claims = vec![
            Guarantee::GroupLDiversity {
                attribute: disease(),
                l: 2,
            },
            // Group {104, 105} is all Bronchitis: EMD (equal distance) is
            // ½(|1 − 2/8| + Σ others) = ½(6/8 + 6/8) = 3/4.
            Guarantee::TCloseness {
                attribute: disease(),
                t: 0.75,
            },
        ];
        let v = verify(&r, &ds);
        let f = failed(&v);
        assert_eq!(
            f,
            vec!["distinct 2-diversity of 'Disease' in every group: group 1 holds 1 distinct values of 'Disease', fewer than l = 2"]
        );
        r.claims[1] = Guarantee::TCloseness {
            attribute: disease(),
            t: 0.7,
        };
        assert_eq!(failed(&verify(&r, &ds)).len(), 2);
        r.claims = vec![Guarantee::GroupLDiversity {
            attribute: "nope".into(),
            l: 2,
        }];
        assert!(failed(&verify(&r, &ds))[0].contains("unknown column 'nope'"));
    }

    /// Fig. 1b with Age as the only QI and `groups` published as covering
    /// groups, claiming `claims`.
    fn grouped(ds: &Dataset, groups: &[&[u32]], claims: Vec<Guarantee>) -> Release {
        let mut r = Release::new("hand", ds, vec![1], vec![4]);
        for g in groups {
            r.push_covering_group(ds, g.to_vec());
        }
        r.claims = claims;
        r
    }

    fn entropy_l(l: f64) -> Guarantee {
        Guarantee::EntropyLDiversity {
            attribute: disease(),
            l,
        }
    }

    fn recursive(c: f64, l: u32) -> Guarantee {
        Guarantee::RecursiveCLDiversity {
            attribute: disease(),
            c,
            l,
        }
    }

    #[test]
    fn entropy_l_diversity_by_its_definition() {
        let ds = fig1b();
        // {101, 102, 103}: Flu, Dyspepsia, Hepatitis, H = ln 3 exactly (the
        // boundary, which must pass); {104..108}: Bronchitis ×2, Pneumonia,
        // Gastritis, Dyspepsia, H = ln 5 − (2 ln 2)/5 ≈ 1.3322 ≈ ln 3.79.
        let r = grouped(&ds, &[&[0, 1, 2], &[3, 4, 5, 6, 7]], vec![entropy_l(3.0)]);
        let v = verify(&r, &ds);
        assert!(v.all_hold(), "{v}");
        assert_eq!(
            v.checks.last().unwrap().detail,
            "smallest entropy in a group 1.098612 ≥ ln 3 = 1.098612"
        );
        // A fractional l between the two groups' entropies.
        let r = grouped(&ds, &[&[0, 1, 2], &[3, 4, 5, 6, 7]], vec![entropy_l(3.5)]);
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["entropy 3.5-diversity of 'Disease' in every group: group 0 has entropy 1.098612 of 'Disease', less than ln 3.5 = 1.252763"]
        );
        // Hand-broken: {104, 105} is all Bronchitis, H = 0. It still holds
        // two rows, so it is 2-anonymous; only the entropy claim fails.
        let r = grouped(
            &ds,
            &[&[0, 1, 2], &[3, 4], &[5, 6, 7]],
            vec![Guarantee::KAnonymity { k: 2 }, entropy_l(1.5)],
        );
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["entropy 1.5-diversity of 'Disease' in every group: group 1 has entropy 0.000000 of 'Disease', less than ln 1.5 = 0.405465"]
        );
        // Meaningless parameters are refused, not passed vacuously.
        for l in [0.5, f64::NAN] {
            let r = grouped(&ds, &[&[0, 1, 2, 3, 4, 5, 6, 7]], vec![entropy_l(l)]);
            assert!(failed(&verify(&r, &ds))[0].contains("l must be at least 1"));
        }
    }

    #[test]
    fn recursive_cl_diversity_by_its_definition() {
        let ds = fig1b();
        // Counts sorted: {101..103} 1, 1, 1; {104..108} 2, 1, 1, 1. With
        // l = 3 the tails are 1 and 2, so r_1/tail = 1 in both groups.
        let halves: &[&[u32]] = &[&[0, 1, 2], &[3, 4, 5, 6, 7]];
        let r = grouped(&ds, halves, vec![recursive(1.5, 3)]);
        let v = verify(&r, &ds);
        assert!(v.all_hold(), "{v}");
        assert_eq!(
            v.checks.last().unwrap().detail,
            "largest r_1/(r_3 + … + r_m) in a group 1.0000 < c = 1.5"
        );
        // The inequality is strict: r_1 = c·tail fails.
        let r = grouped(&ds, halves, vec![recursive(1.0, 3)]);
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["recursive (1,3)-diversity of 'Disease' in every group: group 0 of 'Disease' has r_1 = 1 ≥ c·(r_3 + … + r_m) = 1·1"]
        );
        // Fewer than l values: no c can help.
        let r = grouped(&ds, halves, vec![recursive(100.0, 4)]);
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["recursive (100,4)-diversity of 'Disease' in every group: group 0 holds 3 distinct values of 'Disease', fewer than l = 4"]
        );
        // Hand-broken: {102, 104, 105, 108} is Dyspepsia ×2, Bronchitis ×2,
        // two distinct values (distinct 2-diverse) but r_1 = 2 is not below
        // 1·r_2 = 2.
        let r = grouped(
            &ds,
            &[&[0, 2, 5, 6], &[1, 3, 4, 7]],
            vec![
                Guarantee::GroupLDiversity {
                    attribute: disease(),
                    l: 2,
                },
                recursive(1.0, 2),
            ],
        );
        assert_eq!(
            failed(&verify(&r, &ds)),
            vec!["recursive (1,2)-diversity of 'Disease' in every group: group 1 of 'Disease' has r_1 = 2 ≥ c·(r_2 + … + r_m) = 1·2"]
        );
        let r = grouped(&ds, halves, vec![recursive(0.0, 2), recursive(2.0, 0)]);
        let f = failed(&verify(&r, &ds));
        assert!(f[0].ends_with("c must be positive, not 0"), "{f:?}");
        assert!(f[1].ends_with("l must be at least 1"), "{f:?}");
    }

    #[test]
    fn entropy_and_recursive_claims_keep_their_json_names() {
        for (g, name) in [
            (entropy_l(2.5), "entropy-l-diversity"),
            (recursive(3.0, 2), "recursive-c-l-diversity"),
        ] {
            let json = serde_json::to_string(&g).unwrap();
            assert!(json.contains(&format!("\"model\":\"{name}\"")), "{json}");
            assert_eq!(serde_json::from_str::<Guarantee>(&json).unwrap(), g);
        }
    }

    proptest::proptest! {
        /// The verifier's own entropy and recursive checks agree with the
        /// per-class models the algorithms use, group by group.
        #[test]
        fn entropy_and_recursive_agree_with_the_models(
            rows in proptest::collection::vec((0u32..4, 0u32..5), 1..40),
            l_entropy in proptest::sample::select(vec![1.0, 1.5, 2.0, 2.5, 3.0, 4.0]),
            c in proptest::sample::select(vec![0.5, 1.0, 1.5, 2.0, 3.0]),
            l in 1u32..5,
        ) {
            use crate::privacy::models::{satisfies_entropy_l, satisfies_recursive_cl};
            let text: Vec<Vec<String>> = rows
                .iter()
                .map(|&(g, v)| vec![format!("g{g}"), format!("s{v}")])
                .collect();
            let refs: Vec<Vec<&str>> = text
                .iter()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            let ds = Dataset::from_rows(&["G", "S"], &refs).unwrap();
            let mut r = Release::new("hand", &ds, vec![0], vec![1]);
            for g in 0..4 {
                let members: Vec<u32> = (0..rows.len() as u32)
                    .filter(|&i| rows[i as usize].0 == g)
                    .collect();
                if !members.is_empty() {
                    r.push_covering_group(&ds, members);
                }
            }
            let claims = [
                Guarantee::EntropyLDiversity { attribute: "S".into(), l: l_entropy },
                Guarantee::RecursiveCLDiversity { attribute: "S".into(), c, l },
            ];
            let col = ds.col(1);
            let models = [
                r.groups.iter().all(|g| satisfies_entropy_l(&counts_of_rows(&g.rows, col), l_entropy)),
                r.groups.iter().all(|g| satisfies_recursive_cl(&counts_of_rows(&g.rows, col), c, l)),
            ];
            for (claim, expected) in claims.into_iter().zip(models) {
                r.claims = vec![claim];
                let v = verify(&r, &ds);
                proptest::prop_assert_eq!(v.all_hold(), expected, "{}", v);
            }
        }
    }
}
