//! The privacy models as one type: what each one is, what it is called,
//! what it reads and whether it is monotone, so that full-domain search, the
//! verifier, the CLI and the TUI ask the model instead of repeating its
//! rules by name (ARX gives each criterion a class that declares the same).
//!
//! Every model is k-anonymity (k comes from the request) plus, optionally,
//! one condition on each class's sensitive values, checked by the
//! per-class functions of [`super::models`] (their module doc names the
//! papers). The conditions fall in two kinds:
//!
//! - **class-local** (distinct, entropy and recursive l-diversity,
//!   p-sensitivity, (α,k)-anonymity): a class passes or fails on its own
//!   values ([`Model::class_ok`]);
//! - **table-relative** (t-closeness, δ-disclosure, β-likeness): a class is
//!   compared with the distribution of the whole *published* table
//!   ([`Model::close_to_table`]), which moves when a class is suppressed.
//!
//! Choices where the papers leave room:
//! - δ-disclosure (Brickell & Shmatikov, KDD 2008) is defined with a strict
//!   `< δ`; here a class passes at `≤ δ`, so that the δ a partition is
//!   reported to reach ([`super::ModelReport`]) is one it satisfies. A class
//!   that lacks a value of the table has an infinite ratio and fails.
//! - β-likeness is the basic one of Cao & Karras (PVLDB 2012): every
//!   over-represented value has (q − p)/p ≤ β.
//! - (α,k)-anonymity (Wong et al., KDD 2006) bounds the relative frequency
//!   of every sensitive value in a class by α (their "all sensitive values"
//!   form; the paper's variant for one designated value is not offered).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::models::{
    alpha, beta_basic, delta_disclosure, distinct_l, emd, satisfies_distinct_l,
    satisfies_entropy_l, satisfies_recursive_cl,
};
use crate::error::{Error, Parameter, Result};
use crate::partition::{TableDistribution, ValueCount};
use crate::release::Guarantee;

/// A privacy model on top of k-anonymity, with its parameters.
///
/// The serde form (`{"model": "distinct-l", "l": 3}`) is the one search
/// reports have always written; [`Model::name`] is the name projects, the
/// CLI's `--model` and the TUI use.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum Model {
    /// k-anonymity alone.
    #[default]
    K,
    /// Distinct l-diversity: at least l values in every class.
    DistinctL { l: u32 },
    /// Entropy l-diversity: the class's entropy is at least ln l.
    EntropyL { l: f64 },
    /// Recursive (c,l)-diversity: r_1 < c·(r_l + … + r_m).
    RecursiveCL { c: f64, l: u32 },
    /// t-closeness: EMD to the published table at most t.
    TCloseness { t: f64 },
    /// p-sensitive k-anonymity (Truta & Vinay, Definition 3): at least p
    /// distinct values of every sensitive attribute in every class.
    PSensitive { p: u32 },
    /// (α,k)-anonymity: no value above a share α of its class.
    AlphaK { alpha: f64 },
    /// δ-disclosure privacy: |ln(q(s)/p(s))| ≤ δ for every value s.
    DeltaDisclosure { delta: f64 },
    /// Basic β-likeness: (q(s) − p(s))/p(s) ≤ β where q(s) > p(s).
    BetaLikeness { beta: f64 },
}

/// The parameters a model may read, as a session or the CLI holds them;
/// [`Model::parse`] takes the ones its model needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelParams {
    pub l: u32,
    pub c: f64,
    pub t: f64,
    pub p: u32,
    pub alpha: f64,
    pub delta: f64,
    pub beta: f64,
}

impl ModelParams {
    /// A project's parameters (l, c, t, p beside k; α, δ, β with
    /// full-domain's settings).
    pub fn of(p: &crate::data::Params) -> Self {
        ModelParams {
            l: p.l,
            c: p.c,
            t: p.t,
            p: p.p,
            alpha: p.full_domain.alpha,
            delta: p.full_domain.delta,
            beta: p.full_domain.beta,
        }
    }
}

impl Default for ModelParams {
    /// A new project's parameters (`data::Params::default`), so a model
    /// built without a session reads what a session would.
    fn default() -> Self {
        Self::of(&crate::data::Params::default())
    }
}

/// What a model reads besides k and the quasi-identifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModelNeeds {
    pub l: bool,
    pub c: bool,
    pub t: bool,
    pub p: bool,
    pub alpha: bool,
    pub delta: bool,
    pub beta: bool,
    /// A sensitive attribute (every model but k alone).
    pub sensitive: bool,
}

impl ModelNeeds {
    /// The parameter names it reads, in the order [`ModelParams`] lists
    /// them (for help texts and messages).
    pub fn parameters(&self) -> Vec<&'static str> {
        let flags = [
            (self.l, "l"),
            (self.c, "c"),
            (self.t, "t"),
            (self.p, "p"),
            (self.alpha, "alpha"),
            (self.delta, "delta"),
            (self.beta, "beta"),
        ];
        flags.iter().filter(|f| f.0).map(|f| f.1).collect()
    }
}

impl Model {
    /// Every model's name, in the order the TUI cycles them.
    pub const NAMES: [&'static str; 9] = [
        "k",
        "l-distinct",
        "l-entropy",
        "l-recursive",
        "t-closeness",
        "p-sensitive",
        "alpha-k",
        "delta-disclosure",
        "beta-likeness",
    ];

    /// The model named `name` with the parameters it reads from `params`.
    /// Its parameters are not checked here ([`Model::check`]).
    pub fn parse(name: &str, params: &ModelParams) -> Result<Model> {
        let ModelParams {
            l,
            c,
            t,
            p,
            alpha,
            delta,
            beta,
        } = *params;
        Ok(match name {
            "k" => Model::K,
            "l-distinct" => Model::DistinctL { l },
            "l-entropy" => Model::EntropyL { l: f64::from(l) },
            "l-recursive" => Model::RecursiveCL { c, l },
            "t-closeness" => Model::TCloseness { t },
            "p-sensitive" => Model::PSensitive { p },
            "alpha-k" => Model::AlphaK { alpha },
            "delta-disclosure" => Model::DeltaDisclosure { delta },
            "beta-likeness" => Model::BetaLikeness { beta },
            _ => {
                return Err(Error::invalid(
                    Parameter::Model,
                    format!(
                        "unknown privacy model '{}' (available: {})",
                        crate::error::shown(name, 80),
                        Model::NAMES.join(", ")
                    ),
                ))
            }
        })
    }

    /// Full-domain's model as a project states it (its name and the
    /// project's parameters).
    pub fn of_project(p: &crate::data::Params) -> Result<Model> {
        Model::parse(&p.full_domain.model, &ModelParams::of(p))
    }

    /// What the model named `name` reads, or `None` for an unknown name
    /// (the TUI and the CLI hold the name before they build the model).
    pub fn needs_of(name: &str) -> Option<ModelNeeds> {
        Model::parse(name, &ModelParams::default())
            .ok()
            .map(|m| m.needs())
    }

    /// The name projects, `--model` and the TUI use.
    pub fn name(&self) -> &'static str {
        match self {
            Model::K => "k",
            Model::DistinctL { .. } => "l-distinct",
            Model::EntropyL { .. } => "l-entropy",
            Model::RecursiveCL { .. } => "l-recursive",
            Model::TCloseness { .. } => "t-closeness",
            Model::PSensitive { .. } => "p-sensitive",
            Model::AlphaK { .. } => "alpha-k",
            Model::DeltaDisclosure { .. } => "delta-disclosure",
            Model::BetaLikeness { .. } => "beta-likeness",
        }
    }

    /// What the model reads besides k.
    pub fn needs(&self) -> ModelNeeds {
        let mut n = ModelNeeds {
            sensitive: !matches!(self, Model::K),
            ..Default::default()
        };
        match self {
            Model::K => {}
            Model::DistinctL { .. } | Model::EntropyL { .. } => n.l = true,
            Model::RecursiveCL { .. } => {
                n.l = true;
                n.c = true;
            }
            Model::TCloseness { .. } => n.t = true,
            Model::PSensitive { .. } => n.p = true,
            Model::AlphaK { .. } => n.alpha = true,
            Model::DeltaDisclosure { .. } => n.delta = true,
            Model::BetaLikeness { .. } => n.beta = true,
        }
        n
    }

    /// Whether anonymity stays monotone when failing classes are
    /// suppressed: a class that fails is a union of finer classes that all
    /// fail. True for k, distinct l and p (a union with fewer than k rows or
    /// l values has parts with fewer). (α,k) is monotone only without
    /// suppression (a failing union can hold a passing part), like entropy
    /// and recursive l-diversity; the table-relative models compare with
    /// a table that suppression moves.
    pub fn monotone_with_suppression(&self) -> bool {
        matches!(
            self,
            Model::K | Model::DistinctL { .. } | Model::PSensitive { .. }
        )
    }

    /// Whether a class is compared with the published table's distribution
    /// ([`Model::close_to_table`]) rather than on its own.
    pub fn is_table_relative(&self) -> bool {
        matches!(
            self,
            Model::TCloseness { .. } | Model::DeltaDisclosure { .. } | Model::BetaLikeness { .. }
        )
    }

    /// The parameters are in range.
    pub fn check(&self) -> Result<()> {
        let bad = |parameter, m: String| Err(Error::invalid(parameter, m));
        match *self {
            Model::DistinctL { l } | Model::RecursiveCL { l, .. } if l == 0 => {
                bad(Parameter::L, "l must be at least 1".into())
            }
            Model::EntropyL { l } if l.is_nan() || l < 1.0 => bad(
                Parameter::L,
                format!("entropy l must be at least 1 (got {l})"),
            ),
            Model::RecursiveCL { c, .. } if c.is_nan() || c <= 0.0 => bad(
                Parameter::C,
                format!("recursive (c,l)-diversity needs c > 0 (got {c})"),
            ),
            Model::TCloseness { t } if !(0.0..=1.0).contains(&t) => {
                bad(Parameter::T, format!("t must lie in [0, 1] (got {t})"))
            }
            Model::PSensitive { p: 0 } => bad(Parameter::P, "p must be at least 1".into()),
            Model::AlphaK { alpha } if !(alpha > 0.0 && alpha <= 1.0) => bad(
                Parameter::Alpha,
                format!("alpha of (alpha,k)-anonymity must lie in (0, 1] (got {alpha})"),
            ),
            Model::DeltaDisclosure { delta } if !(delta > 0.0 && delta.is_finite()) => bad(
                Parameter::Delta,
                format!("delta of delta-disclosure must be a positive number (got {delta})"),
            ),
            Model::BetaLikeness { beta } if !(beta > 0.0 && beta.is_finite()) => bad(
                Parameter::Beta,
                format!("beta of beta-likeness must be a positive number (got {beta})"),
            ),
            _ => Ok(()),
        }
    }

    /// The class-local part of the model on one class's sensitive values;
    /// true for k and for the table-relative models (checked by
    /// [`Model::close_to_table`]).
    pub fn class_ok(&self, class: &[ValueCount]) -> bool {
        match *self {
            Model::K
            | Model::TCloseness { .. }
            | Model::DeltaDisclosure { .. }
            | Model::BetaLikeness { .. } => true,
            Model::DistinctL { l } => satisfies_distinct_l(class, l),
            Model::PSensitive { p } => distinct_l(class) >= p,
            Model::EntropyL { l } => satisfies_entropy_l(class, l),
            Model::RecursiveCL { c, l } => satisfies_recursive_cl(class, c, l),
            Model::AlphaK { alpha: a } => alpha(class) <= a,
        }
    }

    /// The table-relative part on one class against the published table;
    /// true for the class-local models.
    pub fn close_to_table(&self, class: &[ValueCount], table: &TableDistribution) -> bool {
        match *self {
            Model::TCloseness { t } => emd(class, table) <= t,
            Model::DeltaDisclosure { delta } => {
                delta_disclosure(class, table).is_some_and(|d| d <= delta)
            }
            Model::BetaLikeness { beta } => beta_basic(class, table) <= beta,
            _ => true,
        }
    }

    /// The distinct l a release under this model also guarantees (entropy
    /// l needs ⌈l⌉ values, recursive (c,l) needs l values, p-sensitivity p),
    /// the l that breach and report figures read.
    pub fn implied_distinct_l(&self) -> Option<u32> {
        match *self {
            Model::DistinctL { l } | Model::RecursiveCL { l, .. } => Some(l),
            Model::PSensitive { p } => Some(p),
            Model::EntropyL { l } => Some(l.ceil() as u32),
            _ => None,
        }
    }

    /// The guarantees a release under this model claims for one sensitive
    /// attribute, besides k-anonymity, distinct l ([`Self::implied_distinct_l`])
    /// and p-sensitivity (claimed once over all the attributes).
    pub fn attribute_claims(&self, attribute: &str) -> Vec<Guarantee> {
        let attribute = attribute.to_string();
        match *self {
            Model::EntropyL { l } => vec![Guarantee::EntropyLDiversity { attribute, l }],
            Model::RecursiveCL { c, l } => {
                vec![Guarantee::RecursiveCLDiversity { attribute, c, l }]
            }
            Model::TCloseness { t } => vec![Guarantee::TCloseness { attribute, t }],
            Model::AlphaK { alpha } => vec![Guarantee::AlphaK { attribute, alpha }],
            Model::DeltaDisclosure { delta } => {
                vec![Guarantee::DeltaDisclosure { attribute, delta }]
            }
            Model::BetaLikeness { beta } => vec![Guarantee::BetaLikeness { attribute, beta }],
            Model::K | Model::DistinctL { .. } | Model::PSensitive { .. } => Vec::new(),
        }
    }
}

impl Model {
    /// The model a release's claim states for one attribute, with that
    /// attribute; `None` for claims that are an algorithm's structure
    /// rather than a model on groups (buckets, k alone, NG's assignment,
    /// LGB's local buckets, extended p-sensitivity).
    pub fn of_claim(claim: &Guarantee) -> Option<(Model, &str)> {
        Some(match claim {
            Guarantee::GroupLDiversity { attribute, l } => (Model::DistinctL { l: *l }, attribute),
            Guarantee::EntropyLDiversity { attribute, l } => (Model::EntropyL { l: *l }, attribute),
            Guarantee::RecursiveCLDiversity { attribute, c, l } => {
                (Model::RecursiveCL { c: *c, l: *l }, attribute)
            }
            Guarantee::TCloseness { attribute, t } => (Model::TCloseness { t: *t }, attribute),
            Guarantee::AlphaK { attribute, alpha } => (Model::AlphaK { alpha: *alpha }, attribute),
            Guarantee::DeltaDisclosure { attribute, delta } => {
                (Model::DeltaDisclosure { delta: *delta }, attribute)
            }
            Guarantee::BetaLikeness { attribute, beta } => {
                (Model::BetaLikeness { beta: *beta }, attribute)
            }
            _ => return None,
        })
    }
}

impl fmt::Display for Model {
    /// The model in words with its parameters ("entropy 3-diversity"), as
    /// the report and the screens say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Model::K => f.write_str("k-anonymity"),
            Model::DistinctL { l } => write!(f, "distinct {l}-diversity"),
            Model::EntropyL { l } => write!(f, "entropy {l}-diversity"),
            Model::RecursiveCL { c, l } => write!(f, "recursive ({c},{l})-diversity"),
            Model::TCloseness { t } => write!(f, "{t}-closeness"),
            Model::PSensitive { p } => write!(f, "{p}-sensitive k-anonymity"),
            Model::AlphaK { alpha } => write!(f, "({alpha},k)-anonymity"),
            Model::DeltaDisclosure { delta } => write!(f, "{delta}-disclosure privacy"),
            Model::BetaLikeness { beta } => write!(f, "{beta}-likeness"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(pairs: &[(u32, u32)]) -> Vec<ValueCount> {
        pairs
            .iter()
            .map(|&(code, count)| ValueCount { code, count })
            .collect()
    }

    #[test]
    fn every_name_parses_back_to_itself() {
        let params = ModelParams::default();
        for name in Model::NAMES {
            let m = Model::parse(name, &params).unwrap();
            assert_eq!(m.name(), name);
            assert!(m.check().is_ok(), "{name}: defaults in range");
            // What it needs is what `needs_of` says by name.
            assert_eq!(Model::needs_of(name), Some(m.needs()));
            assert_eq!(m.needs().sensitive, name != "k");
        }
        assert!(Model::parse("l-diverse", &params).is_err());
        assert_eq!(Model::needs_of("nope"), None);
    }

    #[test]
    fn the_serde_form_is_unchanged() {
        // Search reports have written this form since full-domain landed.
        let j = serde_json::to_string(&Model::RecursiveCL { c: 2.5, l: 2 }).unwrap();
        assert_eq!(j, r#"{"model":"recursive-c-l","c":2.5,"l":2}"#);
        let j = serde_json::to_string(&Model::DistinctL { l: 3 }).unwrap();
        assert_eq!(j, r#"{"model":"distinct-l","l":3}"#);
        let back: Model = serde_json::from_str(r#"{"model":"alpha-k","alpha":0.5}"#).unwrap();
        assert_eq!(back, Model::AlphaK { alpha: 0.5 });
    }

    #[test]
    fn out_of_range_parameters_are_refused() {
        for m in [
            Model::DistinctL { l: 0 },
            Model::EntropyL { l: 0.5 },
            Model::RecursiveCL { c: 0.0, l: 2 },
            Model::TCloseness { t: 1.5 },
            Model::PSensitive { p: 0 },
            Model::AlphaK { alpha: 0.0 },
            Model::AlphaK { alpha: f64::NAN },
            Model::DeltaDisclosure { delta: -1.0 },
            Model::BetaLikeness {
                beta: f64::INFINITY,
            },
        ] {
            assert!(m.check().is_err(), "{m:?}");
        }
    }

    #[test]
    fn the_class_checks_follow_the_definitions() {
        // Table flu 5, cancer 3, hiv 2; class flu 2, hiv 1 (no cancer).
        let table = TableDistribution::from_counts(vec![5, 3, 2], false);
        let class = vc(&[(0, 2), (2, 1)]);
        // α: flu is 2/3 of the class.
        assert!(Model::AlphaK { alpha: 0.7 }.class_ok(&class));
        assert!(!Model::AlphaK { alpha: 0.6 }.class_ok(&class));
        // δ: the class lacks cancer, so no δ holds.
        assert!(!Model::DeltaDisclosure { delta: 100.0 }.close_to_table(&class, &table));
        // β: the largest gain is hiv's 2/3.
        assert!(Model::BetaLikeness { beta: 0.67 }.close_to_table(&class, &table));
        assert!(!Model::BetaLikeness { beta: 0.66 }.close_to_table(&class, &table));
        // A class with the table's own distribution is 0-close and 0-δ.
        let same = vc(&[(0, 5), (1, 3), (2, 2)]);
        assert!(Model::DeltaDisclosure { delta: 1e-9 }.close_to_table(&same, &table));
        assert!(Model::TCloseness { t: 0.0 }.close_to_table(&same, &table));
        // Class-local models ignore the table and vice versa.
        assert!(Model::DistinctL { l: 3 }.close_to_table(&class, &table));
        assert!(Model::TCloseness { t: 0.0 }.class_ok(&class));
    }

    #[test]
    fn a_model_claims_what_it_is_read_back_as() {
        let params = ModelParams::default();
        for name in Model::NAMES {
            let m = Model::parse(name, &params).unwrap();
            for claim in m.attribute_claims("s") {
                assert_eq!(Model::of_claim(&claim), Some((m, "s")), "{name}");
            }
        }
    }

    #[test]
    fn monotone_models_are_the_ones_suppression_cannot_break() {
        let monotone: Vec<&str> = Model::NAMES
            .iter()
            .filter(|n| {
                Model::parse(n, &ModelParams::default())
                    .unwrap()
                    .monotone_with_suppression()
            })
            .copied()
            .collect();
        assert_eq!(monotone, ["k", "l-distinct", "p-sensitive"]);
    }
}
