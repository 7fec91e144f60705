//! Who a report is for (the SDC Practice Guide's step 11, the Handbook on
//! SDC §1.4): the **internal** report — every figure, the random seed and
//! the commands that make the release again byte for byte, for the office
//! that publishes it — and the **external** one for the release's users:
//! the methods and their parameters, the guarantees the verifier checked
//! and what the data lost, but no seed (with it, noise and random draws
//! could be undone) and no risk figure an intruder could aim with (the
//! attacker's model, the before/after re-identification and breach
//! figures, the sample-based measures, a local suppression's risk target
//! figures, the numeric interval risk, the risk charts).
//!
//! The external report is rendered from the same [`Report`] (so its
//! figures are the internal one's, one truth), with `audience` set: the
//! sections it leaves out are left out in `doc`, and its JSON is
//! [`ExternalReport`], which has no field for what it must not carry.

use serde::{Deserialize, Serialize};

use super::{ChartEntry, DatasetSummary, GuaranteeCheck, ReleaseSettings, Report, UtilityKept};
use crate::metrics::MomentChange;

/// Who a report is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Audience {
    /// Everything: the office that publishes the release.
    #[default]
    Internal,
    /// The release's users: methods, guarantees and loss; no seed, no risk.
    External,
}

impl Audience {
    pub fn is_internal(&self) -> bool {
        *self == Audience::Internal
    }
}

/// The charts an external report may show: none that plots risk.
pub const EXTERNAL_CHARTS: [&str; 3] = [
    "suppressed-cells.svg",
    "suppressed-by-household-size.svg",
    "il1s-per-record.svg",
];

/// The JSON of the external report.
#[derive(Debug, Clone, Serialize)]
pub struct ExternalReport {
    pub audience: Audience,
    pub anonlab_version: String,
    pub dataset: DatasetSummary,
    /// The settings without the seed, the query workload's seed or a risk
    /// target's risks.
    pub release: ExternalRelease,
    pub guarantees: Vec<GuaranteeCheck>,
    pub guarantees_hold: bool,
    /// A perturbation's information loss (its risk left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub information_loss: Option<InformationLoss>,
    /// Without the query workloads (each names its seed).
    pub utility: UtilityKept,
    pub charts: Vec<ChartEntry>,
}

/// The release's settings as users read them: no seed (nor that one was
/// read), no query workload.
#[derive(Debug, Clone, Serialize)]
pub struct ExternalRelease {
    pub algorithm: String,
    pub algorithm_name: String,
    /// The parameters the method reads, the seed left out.
    pub reads: Vec<String>,
    pub k: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_domain: Option<crate::data::FullDomainParams>,
    pub groups: usize,
    pub buckets: usize,
    pub suppressed_rows: usize,
    pub fingerprint: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_published: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recodings: Vec<crate::data::AppliedRecode>,
    /// A local suppression's cells (its risk target's figures left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_suppression: Option<crate::release::CellSuppression>,
}

impl ExternalRelease {
    fn of(s: &ReleaseSettings) -> Self {
        ExternalRelease {
            algorithm: s.algorithm.clone(),
            algorithm_name: s.algorithm_name.clone(),
            reads: s.reads.iter().filter(|r| *r != "seed").cloned().collect(),
            k: s.k,
            l: s.l,
            full_domain: s.full_domain.clone(),
            groups: s.groups,
            buckets: s.buckets,
            suppressed_rows: s.suppressed_rows,
            fingerprint: s.fingerprint.clone(),
            not_published: s.not_published.clone(),
            recodings: s.recodings.clone(),
            local_suppression: s.local_suppression.clone().map(|mut ls| {
                ls.risk = None;
                ls
            }),
        }
    }
}

/// What a perturbation cost the numeric attributes.
#[derive(Debug, Clone, Serialize)]
pub struct InformationLoss {
    pub methods: Vec<String>,
    pub attributes: Vec<String>,
    pub records: usize,
    pub il1s: Option<f64>,
    pub il1s_per_cell: Option<f64>,
    /// IL1s over the records (a loss, not a risk: the chart is shown too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub il1s_records: Option<crate::metrics::LossDistribution>,
    pub moments: Vec<MomentChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eigen: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moment_loss: Option<crate::metrics::MomentLossFigures>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categorical: Vec<crate::metrics::CategoricalChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contingency_distance: Option<f64>,
    /// PRAM's transition matrices, which users need to read the file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matrices: Vec<crate::metrics::MatrixShown>,
}

/// The report as its external readers get it: `audience` set, the seed,
/// the query seeds and a risk target's figures taken out, the risk charts
/// dropped (the renderers leave the risk sections out by `audience`).
pub fn external(r: &Report) -> Report {
    let mut e = r.clone();
    e.audience = Audience::External;
    e.release.seed = None;
    e.release.query_seed = 0;
    if let Some(ls) = &mut e.release.local_suppression {
        ls.risk = None;
    }
    e.utility.queries = None;
    e.utility.probabilistic_queries = None;
    e.charts
        .retain(|c| EXTERNAL_CHARTS.contains(&c.file.as_str()));
    e.summary = vec![
        "This is the external report of the release: the methods and their parameters, the guarantees an independent verifier checked on the published data, and what the data lost. The publisher keeps the internal report, which holds everything else.".to_string(),
    ];
    e
}

impl ExternalReport {
    /// The JSON of [`external`]`(r)`.
    pub fn of(e: &Report) -> Self {
        let release = ExternalRelease::of(&e.release);
        ExternalReport {
            audience: Audience::External,
            anonlab_version: e.anonlab_version.clone(),
            dataset: e.dataset.clone(),
            release,
            guarantees: e.guarantees.clone(),
            guarantees_hold: e.guarantees_hold,
            information_loss: e.release.perturbation.as_ref().map(|p| InformationLoss {
                methods: p.methods.clone(),
                attributes: p.attributes.clone(),
                records: p.records,
                il1s: p.il1s,
                il1s_per_cell: p.il1s_per_cell,
                il1s_records: p.il1s_records.clone(),
                moments: p.moments.clone(),
                eigen: p.eigen,
                moment_loss: p.moment_loss.clone(),
                categorical: p.categorical.clone(),
                contingency_distance: p.contingency_distance,
                matrices: p.matrices.clone(),
            }),
            utility: e.utility.clone(),
            charts: e.charts.clone(),
        }
    }
}
