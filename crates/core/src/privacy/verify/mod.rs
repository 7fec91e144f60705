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
//!   is at most t (ordered distance for numeric attributes, equal distance
//!   otherwise), with a relative slack of 1e-12 for rounding. The EMD is
//!   the verifier's own (`closeness`), written from the t-closeness paper's
//!   definition apart from the `privacy::emd` the algorithms use;
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
//! - `RegularAssignment` (NG): the release's assignment is l-regular
//!   (every tuple — a group of one row — assigned to l distinct published
//!   records, its own among them, and every published record to l tuples),
//!   each assigned record's QI values lie in the tuple's cells, and the l
//!   tuples of a record carry l distinct values of the attribute
//!   (`assignment`, which says why that is NG's guarantee);
//! - `LocalTCloseness` (LGB): every local bucket of the attribute within EMD
//!   t of the distribution of all its bucketed cells, as `TCloseness`;
//! - `SuppressionKAnonymity` (local suppression): every published record
//!   is matched by k published records of its stratum on the keys and on
//!   every subset of each listed size, `*` matching any value or only `*`
//!   as the claim states (`suppression`, counted apart from the
//!   algorithm's index);
//! - `SuppressionRiskThreshold` (local suppression to a risk target):
//!   every published record's individual risk, f and F̂ counted over the
//!   published records as for k, or every household's 1 − ∏(1 − rᵢ), at
//!   most the threshold (`suppression`);
//! - `MicroaggregationK` (mdav, optimal-univariate): every published tuple
//!   of the aggregated attributes shared by k records of its stratum, and
//!   every published value its group's mean or median of the originals
//!   (`perturbation`, which says what a release cannot show);
//! - `Pram`: every recorded matrix a matrix of probabilities, invariant
//!   for its stratum's frequencies where it was built so, giving nothing
//!   to a category its stratum lacks; every published code from the
//!   column's dictionary, never outside its stratum's categories, and the
//!   groups' cells the published codes (`perturbation`, which says what a
//!   release cannot show: that the draws followed the matrices);
//! - `RankSwap`: every attribute's published values a permutation of its
//!   originals within each stratum, each record's published value the
//!   original of a record fewer than p·N/100 ranks away (ties: the
//!   nearest rank of that value) (`perturbation`);
//! - `AlphaK`, `DeltaDisclosure`, `BetaLikeness`: every group's share of
//!   each value at most α, its log ratio to the published table at most δ,
//!   its relative gain over the table at most β (`likeness`, from the
//!   definitions apart from `privacy::models`).
//!
//! The claims that are a privacy model's ([`crate::privacy::Model`]) are
//! named by the model's own wording ([`crate::privacy::Model::of_claim`]),
//! so the verifier, the report and the screens say a model alike.
//!
//! The checks live by seam: `structure` (the release's shape and truthful
//! cells), `assignment` (NG's regular assignment), `diversity` (k, l, p and LGB's Corollary 3 on groups and
//! buckets), `cross_bucket` (Corollary 2 and Definition 10 over matching
//! tuples), `closeness` (t-closeness and its EMD), `likeness` ((α,k), δ and β).
//!
//! A claim cannot be checked on a release that does not fit the dataset or
//! lacks cells; it is then reported as not holding, saying why.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::release::{Guarantee, Release};
use crate::risk::{Breach, Matching};

mod assignment;
mod closeness;
mod cross_bucket;
mod diversity;
mod likeness;
mod perturbation;
mod structure;
mod suppression;
#[cfg(test)]
mod tests;

use assignment::regular_assignment;
use closeness::{local_t_closeness, t_closeness};
use cross_bucket::{breach_bound, cross_bucket_l_diversity};
use diversity::{
    bucket_l_diversity, corollary_3, entropy_l_diversity, extended_p_sensitivity,
    group_l_diversity, k_anonymity, p_sensitive_k_anonymity, recursive_cl_diversity,
};
use structure::{
    buckets_well_formed, fits, identifiers, lgb_structure, one_cell_per_qi, rows_once, truthful,
};

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

/// A recoding the dataset says was applied (`data::recode`) holds of its
/// values, by its definition: after a top code no value lies above the
/// threshold but the replacement (a bottom code: below), after a rounding
/// every value is a multiple of the base. The values checked are the
/// published ones: the dataset's, or for an attribute a perturbation
/// published anew (noise, microaggregation, swapping) its published
/// numbers, read as the decimals the published file writes.
fn recoding_holds(
    applied: &crate::data::AppliedRecode,
    ds: &Dataset,
    release: &Release,
) -> Result<String, String> {
    use crate::data::number::Decimal;
    use crate::data::recode::{round_to, Method};
    let index = ds
        .column_index(&applied.column)
        .map_err(|e| format!("the recoded column is not in the data: {e}"))?;
    let col = ds.col(index);
    let number = |t: &Option<String>| t.as_deref().and_then(Decimal::parse);
    let published = release
        .perturbation
        .as_ref()
        .and_then(|p| p.values_of(index))
        .and_then(|v| match v {
            crate::release::PublishedValues::Numbers { values } => Some(values),
            _ => None,
        });
    let mut values: Box<dyn Iterator<Item = Decimal>> = match published {
        Some(v) => Box::new(
            v.iter()
                .filter(|x| x.is_finite())
                .filter_map(|x| Decimal::parse(&x.to_string())),
        ),
        None => Box::new((0..col.cardinality() as u32).filter_map(|c| col.decimal(c))),
    };
    let bad = match applied.method {
        Method::TopCode | Method::BottomCode => {
            let (Some(t), Some(r)) = (number(&applied.threshold), number(&applied.replacement))
            else {
                return Err("the recoding names no threshold or replacement".into());
            };
            let top = applied.method == Method::TopCode;
            values
                .filter(|v| if top { *v > t } else { *v < t })
                .find(|v| *v != r)
        }
        Method::Round => {
            let base = Decimal::parse(&applied.given)
                .filter(|b| *b > Decimal::zero())
                .ok_or_else(|| format!("the base '{}' is not above 0", applied.given))?;
            values.find(|v| round_to(v, &base).as_ref() != Some(v))
        }
    };
    let name = &applied.column;
    let holds = match applied.method {
        Method::TopCode | Method::BottomCode => {
            let side = if applied.method == Method::TopCode {
                "above"
            } else {
                "below"
            };
            let t = applied.threshold.as_deref().unwrap_or("?");
            match applied.replacement.as_deref() {
                Some(r) if r != t => {
                    format!("no value of '{name}' {side} {t} but the replacement {r}")
                }
                _ => format!("no value of '{name}' {side} {t}"),
            }
        }
        Method::Round => format!("every value of '{name}' a multiple of {}", applied.given),
    };
    match bad {
        None => Ok(holds),
        Some(v) => Err(format!(
            "'{name}' holds {v}, which the recoding does not leave"
        )),
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
    for applied in ds.recodings() {
        checks.push(check(
            format!(
                "{} {}={} holds",
                applied.method, applied.column, applied.given
            ),
            recoding_holds(applied, ds, release),
        ));
    }
    if fits_ok {
        checks.push(check(
            "every row published once or suppressed",
            rows_once(release, ds),
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
    if let Some((model, attribute)) = crate::privacy::Model::of_claim(claim) {
        return format!("{model} of '{attribute}' in every group");
    }
    match claim {
        Guarantee::KAnonymity { k } => format!("{k}-anonymity"),
        Guarantee::RegularAssignment { attribute, l } => {
            format!("{l}-regular assignment with distinct values of '{attribute}' (NG)")
        }
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
        Guarantee::SuppressionKAnonymity {
            k,
            convention,
            combinations,
            strata,
        } => {
            let mut s = format!(
                "{k}-anonymity with suppressed cells, {}",
                convention.describe()
            );
            if !combinations.is_empty() {
                let sizes: Vec<String> = combinations.iter().map(|c| c.to_string()).collect();
                s.push_str(&format!(
                    ", on every subset of {} keys too",
                    sizes.join(" or ")
                ));
            }
            if let Some(col) = strata {
                s.push_str(&format!(", within each value of '{col}'"));
            }
            s
        }
        Guarantee::SuppressionRiskThreshold {
            threshold,
            weights,
            household,
        } => {
            let risk = match weights {
                Some(w) => format!("individual risk with sampling weights '{w}'"),
                None => "individual risk 1/f".to_string(),
            };
            match household {
                Some(h) => format!(
                    "every household's risk (households of '{h}', {risk} of each member) at most {threshold}, * matching any value"
                ),
                None => format!("every record's {risk} at most {threshold}, * matching any value"),
            }
        }
        Guarantee::MicroaggregationK {
            k,
            attributes,
            aggregation,
            strata,
            weights,
        } => {
            let mut s = format!(
                "{k} or more records share every published tuple of {} (microaggregation by group {}{})",
                quoted(attributes),
                aggregation.as_str(),
                weights
                    .as_ref()
                    .map_or(String::new(), |w| format!(" weighted by '{w}'"))
            );
            if let Some(col) = strata {
                s.push_str(&format!(", within each value of '{col}'"));
            }
            s
        }
        Guarantee::RankSwap {
            attributes,
            p,
            strata,
        } => {
            let mut s = format!(
                "rank swapping of {}: values only exchanged between records fewer than {p}% of the ranks apart",
                quoted(attributes)
            );
            if let Some(col) = strata {
                s.push_str(&format!(", within each value of '{col}'"));
            }
            s
        }
        Guarantee::Pram { attributes, strata } => {
            let mut s = format!(
                "PRAM of {}: published by the recorded transition matrices",
                quoted(attributes)
            );
            if let Some(col) = strata {
                s.push_str(&format!(", no value leaving its value of '{col}'"));
            }
            s
        }
        // Named by their model above.
        Guarantee::AlphaK { .. }
        | Guarantee::DeltaDisclosure { .. }
        | Guarantee::BetaLikeness { .. } => unreachable!("a model's claim"),
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
        Guarantee::RegularAssignment { attribute, l } => {
            regular_assignment(release, ds, column(attribute)?, *l)
        }
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
        Guarantee::AlphaK { attribute, alpha } => {
            likeness::alpha_k(release, ds, column(attribute)?, *alpha)
        }
        Guarantee::DeltaDisclosure { attribute, delta } => {
            likeness::delta_disclosure(release, ds, column(attribute)?, *delta)
        }
        Guarantee::BetaLikeness { attribute, beta } => {
            likeness::beta_likeness(release, ds, column(attribute)?, *beta)
        }
        Guarantee::SuppressionKAnonymity {
            k,
            convention,
            combinations,
            strata,
        } => suppression::suppression_k_anonymity(
            release,
            ds,
            *k,
            *convention,
            combinations,
            strata.as_deref(),
        ),
        Guarantee::SuppressionRiskThreshold {
            threshold,
            weights,
            household,
        } => suppression::suppression_risk_threshold(
            release,
            ds,
            *threshold,
            weights.as_deref(),
            household.as_deref(),
        ),
        Guarantee::MicroaggregationK {
            k,
            attributes,
            aggregation,
            strata,
            weights,
        } => perturbation::microaggregation_k(
            release,
            ds,
            *k,
            attributes,
            (*aggregation, weights.as_deref()),
            strata.as_deref(),
        ),
        Guarantee::Pram { attributes, strata } => {
            perturbation::pram(release, ds, attributes, strata.as_deref())
        }
        Guarantee::RankSwap {
            attributes,
            p,
            strata,
        } => perturbation::rank_swap(release, ds, attributes, *p, strata.as_deref()),
    }
}
