//! Anonymize and measure: run one algorithm, verify its Release, and
//! measure risk and utility the same way for every algorithm.
//!
//! The CLI's `anonymize` and `compare`, and the TUI's Anonymize screen, all
//! go through [`run`] and [`evaluate`], so a figure means the same wherever
//! it is shown. The algorithm's time is measured alone (the measurements
//! afterwards are not the algorithm's cost).

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::algorithms::{self, Algorithm, Request};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::metrics::{self, QueryReport, Utility};
use crate::privacy::verify::{verify, verify_with, Shared, Verification};
use crate::progress::Progress;
use crate::release::Release;
use crate::risk::{self, Breach, Matching};

// The one distribution type of every per-record probability (issue 31),
// defined with its binning rule in `risk`; named here too, where the
// Evaluation's figures are.
pub use crate::risk::{Distribution, CDF_POINTS};

/// Everything measured on one release.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Evaluation {
    pub algorithm: String,
    pub k: u32,
    pub l: Option<u32>,
    /// The seed the algorithm drew with (`release.params.seed`); `None`
    /// for an algorithm that reads no seed (`Needs::seed`), so no surface
    /// prints a seed that played no part.
    pub seed: Option<u64>,
    /// The probability above which a record counts as at risk in every
    /// figure below (`Distribution`'s `records_above_threshold`): the
    /// session's threshold (`Measure::threshold`).
    pub threshold: f64,
    /// Milliseconds the algorithm took (measurements excluded).
    pub time_ms: f64,
    pub verification: Verification,
    pub groups: usize,
    pub buckets: usize,
    pub suppressed: usize,
    /// Breach probability of the (first) sensitive attribute.
    pub breach: Option<Distribution>,
    /// Linkage attack: Pr(re-id) = 1 / published records matching the target.
    pub reidentification: Distribution,
    pub utility: Utility,
    /// Relative error of the seeded query workload (needs a sensitive attribute).
    pub queries: Option<QueryReport>,
    /// The same workload answered by the LGB paper's probabilistic counting
    /// (Section 4.2, `metrics::prob_queries`), for every release so that
    /// LGB compares with the others on one measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probabilistic_queries: Option<QueryReport>,
    /// Releases with local buckets (LGB): Lemma 2 breach probability of the
    /// sensitive cells of each bucketized attribute.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_breach: Vec<AttributeBreach>,
    /// Bucketized releases and NG's: GLP and reconstruction error
    /// (refining-partition paper, Definition 3 and Property 8,
    /// `metrics::glp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<metrics::CorrespondenceLoss>,
    /// p-sensitive measures (IL, Div, Hom of the p-sensitive paper,
    /// `metrics::pk_measures`), filled by [`measure_pk`] when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pk: Option<metrics::pk_measures::PkMeasures>,
    /// Releases of perturbed values (microaggregation): the numerical key
    /// variables' interval risk and information loss against their
    /// originals (`metrics::perturbation`). The class-based figures above
    /// keep measuring the quasi-identifiers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturbation: Option<metrics::PerturbationFigures>,
}

/// Breach probability of one attribute's sensitive cells (LGB).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AttributeBreach {
    pub attribute: String,
    /// Sensitive cells published in the attribute's local buckets.
    pub cells: usize,
    pub distribution: Distribution,
}

/// Options for the measurements.
#[derive(Debug, Clone)]
pub struct Measure {
    /// Queries in the workload (0 skips it).
    pub queries: usize,
    /// Seed of the query workload.
    pub query_seed: u64,
    /// The probability above which a record counts as at risk, in every
    /// figure of the evaluation (the session's `attacker.threshold`).
    pub threshold: f64,
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            queries: metrics::DEFAULT_QUERIES,
            query_seed: 1,
            threshold: crate::data::DEFAULT_THRESHOLD,
        }
    }
}

/// Run an algorithm of the standard registry by id; returns the release
/// and the milliseconds taken.
pub fn run(algorithm: &str, req: &Request<'_>, progress: &Progress) -> Result<(Release, f64)> {
    run_algorithm(&*algorithms::by_id(algorithm)?, req, progress)
}

/// Run `algo` (of whichever registry): first its own check of what it
/// needs ([`Algorithm::check`], an [`Error::Unmet`] naming the setting),
/// so every front end refuses a request by the algorithm's rules.
pub fn run_algorithm(
    algo: &dyn Algorithm,
    req: &Request<'_>,
    progress: &Progress,
) -> Result<(Release, f64)> {
    algo.check(req)?;
    let start = Instant::now();
    let release = algo.run(req, progress)?;
    Ok((release, start.elapsed().as_secs_f64() * 1000.0))
}

/// Verify and measure a release.
///
/// The matching index and the breach probability of the first sensitive
/// attribute are built once and shared by the verifier (Corollary 2 and
/// Definition 10 need both) and the risk figures. Parts that do not depend
/// on each other run side by side (`rayon::join`): utility and GLP beside
/// the matching, the verifier beside the linkage attack, the query
/// workload beside all of them. Every figure is
/// computed as when they ran one after the other.
pub fn evaluate(
    release: &Release,
    ds: &Dataset,
    time_ms: f64,
    measure: &Measure,
    progress: &Progress,
) -> Result<Evaluation> {
    let sensitive = release.sensitive.first().copied();
    // Both query figures answer the same seeded workload, one by the
    // uniform reading, one by the probabilistic one; drawn and answered on
    // the data once. The workload reads neither the matching nor the
    // verification: it runs beside them.
    // The workload draws and answers queries over records one by one: a
    // grouped table (the query engine's) has none in memory.
    let workload = || match sensitive {
        Some(s) if measure.queries > 0 && !ds.is_grouped() => metrics::query_errors(
            release,
            ds,
            s,
            measure.queries,
            measure.query_seed,
            progress,
        )
        .map(|(det, prob)| (Some(det), Some(prob))),
        _ => Ok((None, None)),
    };
    // Utility and GLP do not look at the matching: they run beside it.
    let (((verification, risk), (utility, correspondence)), queries) = rayon::join(
        || {
            rayon::join(
                || verify_and_measure_risk(release, ds, sensitive, progress),
                || (metrics::utility(release, ds), glp(release, ds)),
            )
        },
        workload,
    );
    let (mut reidentification, mut breach, mut local_breach) = risk?;
    // The risk functions count above the release's own promise (1/k,
    // 1/l); every figure here counts above the one threshold the session
    // states, as the assessment and the after figures do.
    reidentification.set_threshold(measure.threshold);
    for d in breach
        .iter_mut()
        .chain(local_breach.iter_mut().map(|b| &mut b.distribution))
    {
        d.set_threshold(measure.threshold);
    }
    progress.check()?;
    let utility = utility?;
    let correspondence = correspondence?;
    let (queries, probabilistic_queries) = queries?;
    let perturbation = metrics::perturbation_figures(release, ds)?;
    Ok(Evaluation {
        algorithm: release.algorithm.clone(),
        k: release.params.k.unwrap_or(1),
        l: release.params.l,
        seed: release.params.seed,
        threshold: measure.threshold,
        time_ms,
        verification,
        groups: release.groups.len(),
        buckets: release.buckets.len(),
        // Records, not rows: a grouped table's suppressed row stands for
        // all the records of its combination.
        suppressed: ds.records_of(&release.suppressed_rows),
        breach,
        reidentification,
        utility,
        queries,
        probabilistic_queries,
        local_breach,
        correspondence,
        pk: None,
        perturbation,
    })
}

/// The verification and the risk figures of [`evaluate`]: one matching
/// index and one breach computation serve both; the verifier then runs
/// beside the linkage attack.
fn verify_and_measure_risk(
    release: &Release,
    ds: &Dataset,
    sensitive: Option<usize>,
    progress: &Progress,
) -> (Verification, Result<RiskFigures>) {
    if !release.local_buckets.is_empty() {
        return rayon::join(
            || verify(release, ds),
            || local_measures(release, ds, sensitive, progress),
        );
    }
    match matching_and_breach(release, ds, sensitive, progress) {
        Ok((matching, breach)) => {
            let shared = Shared {
                matching: Some(&matching),
                breach: sensitive.zip(breach.as_ref()),
            };
            rayon::join(
                || verify_with(release, ds, shared),
                || Ok(shared_risk(&matching, release, ds, breach.as_ref())),
            )
        }
        // The release does not fit the dataset, or the run was cancelled:
        // the error ends the evaluation, no verification is shown.
        Err(e) => (Verification { checks: Vec::new() }, Err(e)),
    }
}

/// GLP and reconstruction error of a bucketization (every bucket the rows
/// of one group: Anatomy, ARP, AIP, AT) or of NG's release (its
/// assignment); `None` for the others. Cross-bucket generalization also
/// has buckets, but each holds one value and an attacker spreads a
/// record's value over its matching buckets, not over its own bucket:
/// Definition 3 read per bucket would give it GLP 0, a figure that says
/// nothing, so it has none.
fn glp(release: &Release, ds: &Dataset) -> Result<Option<metrics::CorrespondenceLoss>> {
    let bucketization = release.is_bucketized()
        && release.buckets.len() == release.groups.len()
        && release
            .buckets
            .iter()
            .zip(&release.groups)
            .all(|(b, g)| b.rows == g.rows);
    if (bucketization || release.has_assignment()) && release.local_buckets.is_empty() {
        metrics::correspondence_loss(release, ds)
    } else {
        Ok(None)
    }
}

/// Re-identification, breach of the first sensitive attribute, and (LGB) the
/// breach of every bucketized attribute.
pub type RiskFigures = (Distribution, Option<Distribution>, Vec<AttributeBreach>);

/// The risk part of [`evaluate`]: the linkage attack's Pr(re-id), the
/// breach probability of the first sensitive attribute and, for releases
/// with local buckets, of every bucketized attribute. Public so that a
/// release projected on what one attacker knows (the TUI's Risk screen) is
/// measured by exactly the code that measured the release.
pub fn measure_risk(release: &Release, ds: &Dataset, progress: &Progress) -> Result<RiskFigures> {
    let sensitive = release.sensitive.first().copied();
    if !release.local_buckets.is_empty() {
        return local_measures(release, ds, sensitive, progress);
    }
    let (matching, breach) = matching_and_breach(release, ds, sensitive, progress)?;
    Ok(shared_risk(&matching, release, ds, breach.as_ref()))
}

/// The matching index of `release` and the breach probabilities of
/// `sensitive` on it: what the risk figures and the verifier share.
fn matching_and_breach(
    release: &Release,
    ds: &Dataset,
    sensitive: Option<usize>,
    progress: &Progress,
) -> Result<(Matching, Option<Breach>)> {
    let matching = Matching::new(release, ds, progress)?;
    progress.check()?;
    let breach = sensitive
        .map(|s| risk::breach_from(&matching, release, ds, s, progress))
        .transpose()?;
    Ok((matching, breach))
}

/// The figures of [`measure_risk`] from the matching index and the breach
/// probabilities of the first sensitive attribute built on it.
fn shared_risk(
    matching: &Matching,
    release: &Release,
    ds: &Dataset,
    breach: Option<&Breach>,
) -> RiskFigures {
    let link = risk::linkage_from(matching, release, ds);
    let breach =
        breach.map(|b| Distribution::new(b.summary.clone(), b.histogram.clone(), b.cdf.clone()));
    let reid = Distribution::new(link.summary, link.histogram, link.cdf);
    (reid, breach, Vec::new())
}

/// Add the p-sensitive paper's measures to an evaluation: IL with the
/// request's QI hierarchies, Div and Hom for `req.options.pk`'s p over the
/// request's sensitive attributes (protected subtrees where it gives a
/// sensitive attribute a hierarchy). Any release can be measured so, so
/// that pk-enhanced, pk-greedy and full-domain compare on one figure.
pub fn measure_pk(eval: &mut Evaluation, release: &Release, req: &Request<'_>) -> Result<()> {
    let views = algorithms::pk::views(req.ds, &release.sensitive, &req.options.pk)?;
    let ids: Vec<Vec<u32>> = views.into_iter().map(|v| v.ids).collect();
    eval.pk = Some(metrics::pk_measures::pk_measures(
        release,
        req.ds,
        &req.options.hierarchies,
        &ids,
        req.options.pk.p,
    )?);
    Ok(())
}

/// Risk of a release with local buckets, by the LGB paper's attacker (who
/// knows which of a person's attributes carry QI values, `risk::local_risk`):
/// re-identification, the breach of the first sensitive attribute's cells
/// (shown where other releases show their breach) and of every bucketized
/// attribute's.
fn local_measures(
    release: &Release,
    ds: &Dataset,
    sensitive: Option<usize>,
    progress: &Progress,
) -> Result<RiskFigures> {
    let risk = risk::local_risk(release, ds, progress)?;
    let reid = Distribution::new(
        risk.reidentification_summary.clone(),
        risk.reidentification_histogram.clone(),
        risk.reidentification_cdf.clone(),
    );
    let local: Vec<AttributeBreach> = risk
        .breaches
        .iter()
        .map(|b| AttributeBreach {
            attribute: b.attribute.clone(),
            cells: b.rows.len(),
            distribution: Distribution::new(b.summary.clone(), b.histogram.clone(), b.cdf.clone()),
        })
        .collect();
    let breach = sensitive
        .and_then(|s| risk.breach_of(s))
        .and_then(|b| local.iter().find(|a| a.attribute == b.attribute))
        .map(|a| a.distribution.clone());
    Ok((reid, breach, local))
}

/// Run, then refuse a release that fails its own verification: nothing
/// unverified leaves anonlab.
pub fn run_verified(
    algorithm: &str,
    req: &Request<'_>,
    measure: &Measure,
    progress: &Progress,
) -> Result<(Release, Evaluation)> {
    run_verified_with(algorithm, req, measure, progress, |_| ()).map(|(r, e, ())| (r, e))
}

/// [`run_verified`], with `beside(&release)` run alongside the evaluation
/// (the CLI renders and stages the published files there, so the writing
/// overlaps the verification); its result is returned only when every
/// claim holds, and dropped otherwise — a staged file then leaves nothing.
pub fn run_verified_with<T: Send>(
    algorithm: &str,
    req: &Request<'_>,
    measure: &Measure,
    progress: &Progress,
    beside: impl FnOnce(&Release) -> T + Send,
) -> Result<(Release, Evaluation, T)> {
    let (release, ms) = run(algorithm, req, progress)?;
    let (eval, extra) = rayon::join(
        || evaluate(&release, req.ds, ms, measure, progress),
        || beside(&release),
    );
    let eval = eval?;
    if !eval.verification.all_hold() {
        let failed: Vec<String> = eval
            .verification
            .failures()
            .map(|c| format!("{}: {}", c.claim, c.detail))
            .collect();
        return Err(Error::Internal(format!(
            "the {} release failed independent verification, nothing was written: {}",
            algorithm,
            failed.join("; ")
        )));
    }
    Ok((release, eval, extra))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    #[test]
    fn every_algorithm_on_the_demo_verifies_and_measures() {
        let s = Session::demo().unwrap();
        let ds = &s.dataset;
        let qi: Vec<usize> = ["sex", "age", "zip"]
            .iter()
            .map(|n| ds.column_index(n).unwrap())
            .collect();
        let req = Request {
            ds,
            qi,
            sensitive: vec![ds.column_index("disease").unwrap()],
            identifiers: vec![ds.column_index("name").unwrap()],
            k: 3,
            l: 3,
            seed: 7,
            options: Default::default(),
        };
        for algo in algorithms::registry() {
            let mut req = req.clone();
            if algo.id() == "construction" {
                // Construction(D, ∅): D published as it is.
                req.options.conditions = Some(Default::default());
            }
            if algo.needs().numeric {
                // A perturbation of age, no longer a quasi-identifier.
                let age = ds.column_index("age").unwrap();
                req.qi.retain(|&c| c != age);
                req.options.numeric.columns = vec![age];
            }
            let (release, eval) =
                run_verified(algo.id(), &req, &Measure::default(), &Progress::new()).unwrap();
            assert!(eval.verification.all_hold());
            assert_eq!(release.algorithm, eval.algorithm);
            let b = eval.breach.as_ref().unwrap();
            assert!(b.summary.max <= 1.0 + 1e-12);
            // Bucketization bounds p(t,s) by 1/l; distinct l-diversity of
            // groups (mondrian-l) does not: {Flu, Flu, Flu, HIV, Cold} is
            // 3-diverse with p(Flu) = 3/5.
            if matches!(algo.id(), "anatomy" | "cbg") {
                assert!(
                    b.summary.max <= 1.0 / 3.0 + 1e-9,
                    "{}: {}",
                    algo.id(),
                    b.summary.max
                );
            }
            assert!(eval.queries.is_some());
            assert_eq!(b.cdf_at.len(), CDF_POINTS.len());
        }
    }

    #[test]
    fn roles_are_checked_on_every_path() {
        let ds = crate::session::Session::demo().unwrap().dataset;
        let sex = ds.column_index("sex").unwrap();
        let age = ds.column_index("age").unwrap();
        let disease = ds.column_index("disease").unwrap();
        let req = |qi: Vec<usize>, sensitive: Vec<usize>| Request {
            ds: &ds,
            qi,
            sensitive,
            identifiers: vec![],
            k: 3,
            l: 2,
            seed: 7,
            options: Default::default(),
        };
        let p = Progress::new();
        let e = run("mondrian", &req(vec![sex, sex, age], vec![]), &p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'sex' is named twice as a quasi-identifier"),
            "{e}"
        );
        let e = run("anatomy", &req(vec![sex, disease], vec![disease]), &p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'disease' is both a quasi-identifier and a sensitive attribute"),
            "{e}"
        );
        let e = run("construction", &req(vec![sex, age], vec![]), &p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("its conditions hold, and none were given"),
            "{e}"
        );
    }
}
