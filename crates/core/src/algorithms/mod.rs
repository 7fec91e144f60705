//! Anonymization algorithms: one family per file, one trait, one registry.
//!
//! Every algorithm takes the same [`Request`] and returns a [`Release`]; the
//! CLI, the TUI and `compare` look algorithms up by id in [`registry`], so a
//! new one appears everywhere once registered here. Algorithms are blocking
//! and take a [`Progress`] (cancel flag + counter); they refuse impossible
//! parameters up front with a message that says what to change.

mod anatomy;
pub mod arp;
pub mod cbg;
pub mod construction;
pub mod full_domain;
pub mod lgb;
pub mod local_suppression;
pub mod microaggregation;
mod mondrian;
pub mod ng;
pub mod noise;
pub mod numeric_perturbation;
mod perturbed;
pub mod pk;
pub mod pram;
pub mod swapping;

use std::sync::Arc;

use fixedbitset::FixedBitSet;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result, Setting};
use crate::progress::Progress;
use crate::release::Release;

/// What to anonymize and with which parameters.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub ds: &'a Dataset,
    /// Quasi-identifier columns.
    pub qi: Vec<usize>,
    /// Sensitive columns (algorithms of the cross-bucket family use the first).
    pub sensitive: Vec<usize>,
    /// Identifier columns, dropped from the published table.
    pub identifiers: Vec<usize>,
    pub k: u32,
    pub l: u32,
    pub seed: u64,
    /// What only some algorithms read; `Options::default()` for the rest.
    pub options: Options,
}

/// Parameters beyond k, l and the seed. Each field says which algorithms
/// read it; the others ignore it, so adding a field never changes them.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Identifier columns of the file that are not columns of the dataset
    /// (every algorithm): the query engine's frequency table leaves them
    /// out, since a column unique per record would make it as large as
    /// the file, and its publishing pass drops them. Carried to the
    /// release ([`Release::identifiers_outside`](crate::release::Release))
    /// so that its verification counts every identifier dropped.
    pub identifiers_outside: Vec<String>,
    /// Semi-sensitive columns with their sensitive rows (LGB): a set bit
    /// marks a cell whose value is a sensitive value; the other cells of the
    /// column act as quasi-identifier values.
    pub semi_sensitive: Vec<(usize, FixedBitSet)>,
    /// Attributes protected by t-closeness instead of l-diversity (LGB),
    /// with their t.
    pub t_closeness: Vec<(usize, f64)>,
    /// Generalization hierarchies by attribute (full-domain).
    pub hierarchies: crate::hierarchy::HierarchySet,
    /// Suppression limit, metric, privacy model (full-domain).
    pub full_domain: full_domain::FullDomainOptions,
    /// Conditions of generalization G (construction).
    pub conditions: Option<crate::data::Conditions>,
    /// p, sensitive-attribute hierarchies and protected values
    /// (pk-enhanced, pk-greedy).
    pub pk: pk::PkOptions,
    /// How LGB_NCP measures a categorical cell: the paper's size(v*)/|A|
    /// (the default) or the normalized (|v*| − 1)/(|A| − 1) (lgb-ncp).
    pub lgb_ncp: lgb::NcpMeasure,
    /// A kd-tree cache the caller keeps between runs (cbg): `None` builds
    /// the tree every run. Never changes a release (`cbg::TreeCache`).
    pub cbg_tree: Option<std::sync::Arc<cbg::TreeCache>>,
    /// Importance, all-m subsets, what `*` matches and strata
    /// (local-suppression).
    pub local_suppression: local_suppression::LocalSuppressionOptions,
    /// The attributes to perturb, a stratum column and the aggregation
    /// (mdav, optimal-univariate; pram reads the attributes and strata).
    pub numeric: microaggregation::NumericOptions,
    /// PRAM's pd, alpha and given matrices (pram).
    pub pram: pram::PramOptions,
    /// Noise's percentage or δ and rank swapping's p (noise-additive,
    /// noise-correlated2, rank-swap).
    pub noise: numeric_perturbation::NoiseOptions,
}

/// Whether an algorithm reads a setting, and whether it runs without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Use {
    /// Ignored: front ends disable it, a request may carry anything.
    #[default]
    No,
    /// Read when given (pk: sensitive hierarchies for extended
    /// p-sensitivity); the algorithm runs without it.
    Optional,
    /// Read, and the algorithm refuses to run without it.
    Required,
}

impl Use {
    /// Whether the setting is read at all.
    pub fn read(self) -> bool {
        self != Use::No
    }
}

/// What an algorithm reads beyond the quasi-identifiers: the one place its
/// rules are said. The TUI enables a parameter or marks a setting needed,
/// the CLI refuses a missing flag, and the report words the parameters,
/// all by asking this; [`Algorithm::check`] refuses a request that lacks
/// what is [`Use::Required`] or read without a sensitive attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs {
    /// k: the size every class (bucket, cluster) reaches.
    pub k: bool,
    /// l: the sensitive values' diversity.
    pub l: bool,
    /// p: distinct sensitive values per cluster (p-sensitivity).
    pub p: bool,
    /// t-closeness per attribute (`Options::t_closeness`).
    pub t: bool,
    /// The seed: the release depends on it.
    pub seed: bool,
    /// A sensitive attribute (with `semi_sensitive`, a semi-sensitive one
    /// will do).
    pub sensitive: bool,
    /// The semi-sensitive cells (`Options::semi_sensitive`). Front ends
    /// give the other algorithms the semi-sensitive columns as
    /// quasi-identifiers (CLI, `Session::request`) or leave them out (TUI).
    pub semi_sensitive: bool,
    /// The quasi-identifiers' hierarchies (`Options::hierarchies`; pk:
    /// also the sensitive attributes' in `PkOptions`).
    pub hierarchies: Use,
    /// The conditions of generalization (`Options::conditions`).
    pub conditions: Use,
    /// Settings of its own beyond these (full-domain's suppression limit,
    /// metric and privacy model; LGB's per-attribute choices).
    pub settings: bool,
    /// Runs on a grouped table (`Dataset::is_grouped`: the query engine's
    /// frequency table, each row standing for its records), counting
    /// records by multiplicity. Algorithms that read records one by one
    /// (buckets of rows, clustering, seeded draws) do not.
    pub grouped: bool,
    /// The attributes to perturb (`Options::numeric`), required:
    /// microaggregation (numeric ones), PRAM.
    pub numeric: bool,
}

pub trait Algorithm: Send + Sync {
    /// Short id used on the command line (`mondrian`, `cbg`, ...).
    fn id(&self) -> &'static str;
    /// Name shown to people.
    fn name(&self) -> &'static str;
    /// What it reads (see [`Needs`]): help texts, the TUI's parameters,
    /// the CLI's flag checks and the report ask this.
    fn needs(&self) -> Needs;
    /// Whether `req` gives what [`Algorithm::needs`] says is required,
    /// before any work: the roles hold together, a quasi-identifier, a
    /// sensitive attribute where one is read, the hierarchies and
    /// conditions it requires, records where it cannot read a grouped
    /// table. Refusals are [`Error::Unmet`] naming the [`Setting`], so each
    /// front end says its own remedy. `run` checks again (and more: k
    /// within the data, l within the values).
    fn check(&self, req: &Request<'_>) -> Result<()> {
        check_needs(self.name(), self.id(), self.needs(), req)
    }
    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release>;
}

impl Needs {
    /// The parameters it reads, by their flags' names, in the order the
    /// help lists them: k, l, p, t, seed.
    pub fn parameters(&self) -> Vec<&'static str> {
        [
            (self.k, "k"),
            (self.l, "l"),
            (self.p, "p"),
            (self.t, "t"),
            (self.seed, "seed"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }

    /// What it reads, in one line for help texts and reports:
    /// `k, l, seed; a sensitive attribute`.
    pub fn describe(&self) -> String {
        let mut inputs: Vec<&str> = Vec::new();
        if self.numeric {
            inputs.push("attributes to perturb");
        }
        if self.sensitive {
            inputs.push(if self.semi_sensitive {
                "a sensitive or semi-sensitive attribute"
            } else {
                "a sensitive attribute"
            });
        }
        match self.hierarchies {
            Use::Required => inputs.push("hierarchies"),
            Use::Optional => inputs.push("hierarchies if given"),
            Use::No => {}
        }
        match self.conditions {
            Use::Required => inputs.push("conditions"),
            Use::Optional => inputs.push("conditions if given"),
            Use::No => {}
        }
        if self.settings {
            inputs.push("settings of its own");
        }
        if self.grouped {
            inputs.push("runs on a frequency table");
        }
        let params = self.parameters();
        let mut out = if params.is_empty() {
            "no k or l".to_string()
        } else {
            params.join(", ")
        };
        if !inputs.is_empty() {
            out.push_str("; ");
            out.push_str(&inputs.join(", "));
        }
        out
    }
}

/// Every algorithm of the standard registry, one per line, as
/// [`Registry::listing`] writes it.
pub fn listing() -> String {
    Registry::standard().listing()
}

/// What the bucketizations read (Anatomy, the refining partition's family,
/// NG): l and the sensitive attribute, and a seed for their draws; no k
/// (a bucket's size is l's business).
pub const BUCKETIZATION: Needs = Needs {
    k: false,
    l: true,
    p: false,
    t: false,
    seed: true,
    sensitive: true,
    semi_sensitive: false,
    hierarchies: Use::No,
    conditions: Use::No,
    settings: false,
    grouped: false,
    numeric: false,
};

/// [`Algorithm::check`]'s rules, for an algorithm called `name` (id
/// `id`) that reads `needs`.
pub fn check_needs(name: &str, id: &str, needs: Needs, req: &Request<'_>) -> Result<()> {
    req.check_roles()?;
    if !needs.grouped {
        // With the id, as the CLI's users type it (`-a ID`).
        req.ds.require_records(&format!("{name} ({id})"))?;
    }
    // LGB's semi-sensitive cells act as quasi-identifier values.
    let cells_as_qi = needs.semi_sensitive && !req.options.semi_sensitive.is_empty();
    if req.qi.is_empty() && !cells_as_qi {
        return Err(Error::unmet(
            format!("{name} needs at least one quasi-identifier"),
            Setting::QuasiIdentifiers,
        ));
    }
    if needs.sensitive && req.sensitive.is_empty() {
        if !needs.semi_sensitive {
            return Err(Error::unmet(
                format!("{name} needs a sensitive attribute"),
                Setting::SensitiveAttribute,
            ));
        }
        if req.options.semi_sensitive.is_empty() {
            return Err(Error::unmet(
                format!("{name} needs a sensitive or a semi-sensitive attribute"),
                Setting::SemiSensitiveOrSensitive,
            ));
        }
    }
    if needs.numeric && req.options.numeric.columns.is_empty() {
        return Err(Error::unmet(
            format!("{name} perturbs attributes, and none were named"),
            Setting::NumericAttributes,
        ));
    }
    if needs.conditions == Use::Required && req.options.conditions.is_none() {
        return Err(Error::unmet(
            format!("{name} generalizes or deletes where its conditions hold, and none were given"),
            Setting::Conditions,
        ));
    }
    if needs.hierarchies == Use::Required {
        if let Some(&c) = req
            .qi
            .iter()
            .find(|&&c| req.options.hierarchies.get(req.ds.col(c).name()).is_none())
        {
            return Err(Error::unmet(
                format!(
                    "{name} generalizes along hierarchies, and quasi-identifier '{}' has none",
                    req.ds.col(c).name()
                ),
                Setting::Hierarchy,
            ));
        }
    }
    Ok(())
}

/// The algorithms a session offers, in the order menus list them. Every
/// surface reads what it lists and what each algorithm needs from here
/// (the TUI's algorithm list and its enabled parameters, the CLI's help,
/// the report's wording), so an algorithm added with [`Registry::with`]
/// (or to [`Registry::standard`]) appears everywhere with no other change.
/// A value, not a global: a session holds its own (`Session::registry`).
#[derive(Clone)]
pub struct Registry {
    algorithms: Vec<Arc<dyn Algorithm>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

impl Default for Registry {
    fn default() -> Self {
        Self::standard()
    }
}

impl Registry {
    /// Every algorithm anonlab has.
    pub fn standard() -> Self {
        let all: Vec<Arc<dyn Algorithm>> = vec![
            Arc::new(mondrian::Mondrian::k_anonymous()),
            Arc::new(mondrian::Mondrian::l_diverse()),
            Arc::new(mondrian::Mondrian::distinct_l_diverse()),
            Arc::new(anatomy::Anatomy),
            Arc::new(cbg::CrossBucketGeneralization),
            Arc::new(lgb::Lgb::mdp()),
            Arc::new(lgb::Lgb::ncp()),
            Arc::new(full_domain::FullDomain),
            Arc::new(construction::Construction),
            Arc::new(arp::Arp::anatomy()),
            Arc::new(arp::Arp::generalization()),
            Arc::new(arp::Aip),
            Arc::new(arp::At),
            Arc::new(ng::Ng),
            Arc::new(pk::EnhancedPk),
            Arc::new(pk::GreedyPk),
            Arc::new(local_suppression::LocalSuppression),
            Arc::new(microaggregation::Microaggregation(
                microaggregation::Method::Mdav,
            )),
            Arc::new(microaggregation::Microaggregation(
                microaggregation::Method::OptimalUnivariate,
            )),
            Arc::new(pram::PramAlgorithm),
            Arc::new(numeric_perturbation::NumericPerturbation(
                numeric_perturbation::Kind::Additive,
            )),
            Arc::new(numeric_perturbation::NumericPerturbation(
                numeric_perturbation::Kind::Correlated2,
            )),
            Arc::new(numeric_perturbation::NumericPerturbation(
                numeric_perturbation::Kind::RankSwap,
            )),
        ];
        Registry { algorithms: all }
    }

    /// This registry with `algorithm` added last; one with the same id is
    /// replaced in place.
    pub fn with(mut self, algorithm: impl Algorithm + 'static) -> Self {
        let algorithm: Arc<dyn Algorithm> = Arc::new(algorithm);
        match self
            .algorithms
            .iter()
            .position(|a| a.id() == algorithm.id())
        {
            Some(i) => self.algorithms[i] = algorithm,
            None => self.algorithms.push(algorithm),
        }
        self
    }

    /// The algorithms, in menu order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Algorithm>> {
        self.algorithms.iter()
    }

    pub fn ids(&self) -> Vec<&'static str> {
        self.algorithms.iter().map(|a| a.id()).collect()
    }

    /// The algorithm `id`, or an error listing the ids there are.
    pub fn get(&self, id: &str) -> Result<Arc<dyn Algorithm>> {
        self.algorithms
            .iter()
            .find(|a| a.id() == id)
            .cloned()
            .ok_or_else(|| {
                Error::invalid(
                    Parameter::Algorithm,
                    format!(
                        "unknown algorithm '{}' (available: {})",
                        crate::error::shown(id, 80),
                        self.ids().join(", ")
                    ),
                )
            })
    }

    /// Every algorithm's id, name and what it reads, one per line
    /// (`  ID  NAME: NEEDS`): the CLI's help lists the algorithms from this.
    pub fn listing(&self) -> String {
        let width = self.iter().map(|a| a.id().len()).max().unwrap_or(0);
        self.iter()
            .map(|a| {
                format!(
                    "  {:width$}  {}: {}",
                    a.id(),
                    a.name(),
                    a.needs().describe()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Every algorithm of the standard registry, in the order menus list them.
pub fn registry() -> Vec<Arc<dyn Algorithm>> {
    Registry::standard().algorithms
}

/// Look an algorithm of the standard registry up by id, or say which ids
/// exist.
pub fn by_id(id: &str) -> Result<Arc<dyn Algorithm>> {
    Registry::standard().get(id)
}

impl Request<'_> {
    /// The roles hold together, whoever built the request (CLI flags, a
    /// project file, the TUI): every column exists, no column is named
    /// twice in a role, and none has two roles. A column given twice as a
    /// quasi-identifier would be published twice under one name, a table
    /// that cannot be read back.
    pub fn check_roles(&self) -> Result<()> {
        let n = self.ds.n_cols();
        let roles: [(&str, &[usize]); 3] = [
            ("quasi-identifier", &self.qi),
            ("sensitive attribute", &self.sensitive),
            ("identifier", &self.identifiers),
        ];
        let mut seen: Vec<(usize, &str)> = Vec::new();
        for (role, columns) in roles {
            for &c in columns {
                if c >= n {
                    return Err(Error::Internal(format!(
                        "column index {c} is out of range ({n} columns)"
                    )));
                }
                if let Some((_, first)) = seen.iter().find(|(s, _)| *s == c) {
                    let name = self.ds.col(c).name();
                    return Err(Error::invalid(
                        Parameter::Roles,
                        if *first == role {
                            format!("column '{name}' is named twice as a {role}")
                        } else {
                            format!("column '{name}' is both a {first} and a {role}")
                        },
                    ));
                }
                seen.push((c, role));
            }
        }
        Ok(())
    }
}

impl Request<'_> {
    /// Name in `release` the identifiers it must not publish: the
    /// dataset's identifier columns and those of the file the dataset
    /// leaves out ([`Options::identifiers_outside`]).
    pub fn drop_identifiers(&self, release: &mut crate::release::Release) {
        release.identifiers = self.identifiers.clone();
        release.identifiers_outside = self.options.identifiers_outside.clone();
    }
}

/// Checks shared by every algorithm: the roles ([`Request::check_roles`]),
/// at least one QI, k within the data.
pub fn check_k(req: &Request<'_>) -> Result<()> {
    req.check_roles()?;
    // Records, not rows: a grouped table's row stands for several.
    let n = req.ds.records();
    if req.qi.is_empty() {
        return Err(Error::unmet(
            "no quasi-identifiers",
            Setting::QuasiIdentifiers,
        ));
    }
    if req.k == 0 {
        return Err(Error::invalid(Parameter::K, "k must be at least 1"));
    }
    if u64::from(req.k) > n {
        return Err(Error::invalid(
            Parameter::K,
            format!(
            "k = {} is larger than the data ({n} records): no group of {} records can be formed",
            req.k, req.k
        ),
        ));
    }
    Ok(())
}

/// Checks for l-diversity algorithms on the first sensitive attribute:
/// l ≤ distinct values, and the l-eligibility condition (no value on more
/// than n/l rows), naming the value that is too frequent.
pub fn check_l(req: &Request<'_>) -> Result<usize> {
    let Some(&s) = req.sensitive.first() else {
        return Err(Error::unmet(
            "no sensitive attribute",
            Setting::SensitiveAttribute,
        ));
    };
    let col = req.ds.col(s);
    let freq = req.ds.record_frequencies(s);
    let distinct = freq.iter().filter(|&&f| f > 0).count();
    let l = req.l as usize;
    if l == 0 {
        return Err(Error::invalid(Parameter::L, "l must be at least 1"));
    }
    if l > distinct {
        return Err(Error::invalid(
            Parameter::L,
            format!(
                "l = {l} is larger than the {distinct} distinct values of '{}'",
                col.name()
            ),
        ));
    }
    let n = req.ds.records();
    if let Some((code, &f)) = freq.iter().enumerate().max_by_key(|(_, &f)| f) {
        if f * l as u64 > n {
            return Err(Error::invalid(Parameter::L, format!(
                "'{}' is not {l}-eligible: the value '{}' is on {f} of {n} records, more than 1/{l} of them (at most {} allowed); lower l",
                col.name(),
                col.display(code as u32),
                n / l as u64
            )));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_problem() {
        let ds = Dataset::from_rows(
            &["age", "d"],
            &[
                vec!["1", "a"],
                vec!["2", "a"],
                vec!["3", "a"],
                vec!["4", "b"],
            ],
        )
        .unwrap();
        let mut req = Request {
            ds: &ds,
            qi: vec![0],
            sensitive: vec![1],
            identifiers: vec![],
            k: 5,
            l: 2,
            seed: 1,
            options: Default::default(),
        };
        assert!(check_k(&req)
            .unwrap_err()
            .to_string()
            .contains("larger than the data"));
        req.k = 2;
        check_k(&req).unwrap();
        let e = check_l(&req).unwrap_err().to_string();
        assert!(e.contains("'a'") && e.contains("3 of 4"), "{e}");
        req.l = 3;
        assert!(check_l(&req)
            .unwrap_err()
            .to_string()
            .contains("2 distinct values"));
    }

    #[test]
    fn only_lgb_reads_semi_sensitive_cells() {
        // The lists the CLI and the TUI kept before the trait method.
        let ids: Vec<&str> = registry()
            .iter()
            .filter(|a| a.needs().semi_sensitive)
            .map(|a| a.id())
            .collect();
        assert_eq!(ids, ["lgb-mdp", "lgb-ncp"]);
    }
}
