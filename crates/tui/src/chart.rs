//! The figures of a screen's chart, as the screen gives them
//! ([`Component::chart`](crate::screens::Component::chart)) and the export
//! job draws them: below the screens, so each screen can say what its chart
//! is without reading the export module above it.

use std::sync::Arc;

use super::session::{Before, SessionState};
use anonlab::risk::Distribution;
use anonlab::stats::CorrelationMatrix;

/// Why a chart drawing the baseline cannot be made yet.
pub const NOT_YET: &str =
    "the baseline (the original table for the session's attacker) is being computed";

/// The baseline's attacker, named in every chart's title.
pub fn attacker(session: &SessionState) -> Option<String> {
    session.baseline().map(|b| b.attacker().to_string())
}

/// One distribution of probabilities in a chart: the core's one
/// distribution type (`risk::Distribution`, the figure the screen shows,
/// not a copy of its curve) under the legend's name, so an exported chart
/// draws the CDF and histogram the figures were read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Dist {
    /// The legend's name for it.
    pub label: String,
    pub distribution: Distribution,
}

impl Dist {
    pub fn new(label: impl Into<String>, distribution: &Distribution) -> Self {
        Dist {
            label: label.into(),
            distribution: distribution.clone(),
        }
    }

    /// The CDF as a step line (see [`crate::shared::step_series`]).
    pub fn series(&self) -> Vec<(f64, f64)> {
        let cdf = &self.distribution.cdf;
        crate::shared::step_series(cdf.iter().map(|p| (p.probability, p.share)))
    }
}

/// The figures of the chart in view, copied from the app.
#[derive(Debug, Clone)]
pub enum ChartData {
    /// Records by how many records share their known values for the
    /// baseline's attacker.
    ClassSizes(Arc<Before>),
    /// Pr(re-id) distributions: their CDF and their histogram.
    Reidentification(Vec<Dist>),
    /// Breach-probability distributions: their CDF.
    Breach(Vec<Dist>),
    Correlation(CorrelationMatrix),
    /// The k/l sweep grid: `cells[i][j]` at `l = ls[i]`, `k = ks[j]`.
    Sweep {
        measure: String,
        ks: Vec<u32>,
        ls: Vec<u32>,
        cells: Vec<Vec<Option<f64>>>,
        /// Names the algorithm and seed the grid was run with.
        title: String,
    },
}

/// A chart export: what the screen shows and under which name.
#[derive(Debug, Clone)]
pub struct ChartExport {
    /// The screen's name in file names (`risk`, `anonymize`, ...).
    pub screen: &'static str,
    pub data: ChartData,
    /// Whose figures the chart draws, added to its title
    /// ("attacker knows 7 of 8 QIs; 2,082 cells hidden").
    pub attacker: Option<String>,
}
