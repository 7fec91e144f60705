//! Full-domain generalization (global recoding over hierarchies): the
//! classic approach of Incognito (LeFevre, DeWitt & Ramakrishnan, SIGMOD
//! 2005) and ARX's Flash (Kohlmayer et al., "Flash: efficient, stable and
//! optimal k-anonymity", PASSAT 2012), the full-domain baseline the
//! p-sensitive paper compares with (its Section 5 runs Incognito-style
//! full-domain generalization). Every value of a quasi-identifier is
//! replaced by its ancestor at one level of the attribute's hierarchy, the
//! same level for every row; a *node* is the vector of levels, and the nodes
//! form a lattice ordered by "generalizes".
//!
//! **Hierarchies** come from `Options::hierarchies`; a quasi-identifier
//! without one gets the flat hierarchy (its value, or `*`), so every QI is
//! either kept or fully generalized; the report names those attributes.
//!
//! **What is searched.** A node is *anonymous* when the classes of its
//! generalized table that violate the privacy model hold at most
//! ⌊suppression · n⌋ rows; those classes are then suppressed (ARX's record
//! suppression). The model ([`crate::privacy::Model`]) is k-anonymity plus
//! optionally one of distinct, entropy or recursive (c,l)-diversity,
//! t-closeness, p-sensitive k-anonymity, (α,k)-anonymity, δ-disclosure or
//! β-likeness, checked per class on every sensitive attribute of the
//! request. The table-relative ones (t, δ, β) compare each class with the
//! *published* table (the rows not suppressed), as the verifier does; ARX
//! compares with the input table instead.
//!
//! **Monotonicity and pruning.** For k-anonymity, distinct l-diversity and
//! p-sensitivity a class that fails is a union of finer classes that all
//! fail (a union of classes with k rows and l values has k rows and l
//! values), so the suppressed rows can only shrink when a node is
//! generalized and anonymity is monotone *with* suppression. Entropy and
//! recursive l-diversity and t-closeness are monotone only *without* it: a
//! union of passing classes passes (entropy is concave, EMD convex,
//! Machanavajjhala et al. Section 4.4 for recursive; for (α,k) a share of
//! the union is a weighted mean of the parts'), but a failing union can
//! contain passing parts, so with a suppression limit a generalization may
//! suppress more rows and lose anonymity. In the monotone cases the search
//! resolves the whole lattice Flash-style: from the lowest unresolved node it
//! follows a chain of direct generalizations, binary-searches the chain, and
//! tags every generalization of an anonymous node anonymous and every
//! specialization of a non-anonymous node non-anonymous (predictive tagging
//! up and down). In the non-monotone cases nothing is inferred: nodes are
//! checked one by one (in lower-bound order, see below).
//!
//! **Metrics** (smaller is better), selectable:
//!
//! - `loss` — Iyengar's loss metric (LM, "Transforming data to satisfy
//!   privacy constraints", KDD 2002), ARX's default "Loss": a cell
//!   generalized to a node with M_v hierarchy leaves below it, in a
//!   hierarchy of M leaves, loses (M_v − 1)/(M − 1); a suppressed row
//!   loses 1 in every attribute, and so does a missing cell (the `?` node
//!   binding adds). The table's loss is the mean over the n·|QI| cells, in
//!   [0, 1].
//!   Leaves are counted in the hierarchy file as Iyengar defines them
//!   (`Hierarchy::leaf_counts`), not among the values the data holds. ARX
//!   additionally offers weights and a generalization/suppression factor;
//!   here every attribute weighs the same.
//! - `dm` — discernibility C_DM = Σ |class|² + n · |suppressed rows|
//!   (Bayardo & Agrawal), as `metrics::utility` computes it.
//! - `height` — the sum of the levels.
//!
//! Ties go to the lower node, then to the smaller level vector in
//! lexicographic order, so the answer is deterministic. Loss values are
//! sums of fractions rounded differently per node, so two loss values
//! within a relative 1e-9 count as a tie (two nodes with the same loss
//! in exact arithmetic must not be told apart by rounding).
//!
//! **Finding the optimum.** The metric of a node is never below a bound that
//! needs no data pass: for `loss` the loss with nothing suppressed (a
//! suppressed cell loses 1, at least as much as any generalization), for
//! `height` the height itself, for `dm` only 0. Candidates (anonymous nodes,
//! or every node when anonymity is not monotone) are measured in increasing
//! bound order, in parallel batches, until the bound exceeds the best metric
//! found (branch and bound). Without suppression every metric grows with
//! generalization, so only the minimal anonymous nodes are candidates.
//! On request the minimal anonymous nodes (no anonymous node below them) are
//! listed with their figures; in the non-monotone case that checks every
//! node.
//!
//! **Publishing another node.** `FullDomainOptions::node` names a node
//! to publish instead of the optimum, as ARX lets one pick any
//! transformation of its lattice. The search runs as usual (its report and
//! [`LatticeMap`] are the same), then the chosen node's release is built
//! with every class that fails the model suppressed, past the suppression
//! limit if need be: the release then holds what it claims (k and the
//! model on the rows it publishes), and the report says whether those rows
//! fit within the limit (`ChosenNode::within_limit`). A node none of whose
//! classes passes publishes no row.
//!
//! **Cost.** Rows are grouped once by their original QI codes; a node's
//! classes are unions of these bottom classes, found by keying each bottom
//! class with the bound hierarchies' per-level code tables
//! (`BoundHierarchy::table`), so a check costs O(bottom classes · |QI|)
//! plus O(n) for models that read sensitive values.
//!
//! The released groups publish each QI as its hierarchy node: the value
//! itself at level 0, the node's label over the codes below it
//! (`Cell::Set`) in between, `*` (`Cell::Suppressed`) at the root.

mod eval;
mod lattice;
mod map;

pub use map::{LatticeMap, LatticeNode, NodeFigures, NodeStatus};

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Parameter, Result, Setting};
use crate::hierarchy::{BoundHierarchy, Hierarchy};
use crate::partition::Partition;
use crate::privacy::Model;
use crate::progress::Progress;
use crate::release::{Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

use super::{check_k, Algorithm, Needs, Request, Use};
use eval::{Evaluator, NodeResult, Setup};
use lattice::{Lattice, Status};

/// The information-loss measure the optimum minimizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Iyengar's loss metric (ARX's default "Loss").
    #[default]
    Loss,
    /// C_DM.
    #[serde(rename = "dm")]
    Discernibility,
    /// Sum of the levels.
    Height,
}

impl FromStr for Metric {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "loss" => Ok(Metric::Loss),
            "dm" => Ok(Metric::Discernibility),
            "height" => Ok(Metric::Height),
            _ => Err(Error::invalid(
                Parameter::Metric,
                format!("unknown metric '{s}' (available: loss, dm, height)"),
            )),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Metric::Loss => "loss",
            Metric::Discernibility => "dm",
            Metric::Height => "height",
        })
    }
}

/// Full-domain parameters in `algorithms::Options` (hierarchies are
/// `Options::hierarchies`).
#[derive(Debug, Clone, Default)]
pub struct FullDomainOptions {
    /// Largest share of rows that may be suppressed, in [0, 1].
    pub suppression: f64,
    pub metric: Metric,
    pub model: Model,
    /// Also list every minimal anonymous node.
    pub list_minimal: bool,
    /// Publish this node (a level per quasi-identifier, in request order)
    /// instead of the optimum; see [`search`].
    pub node: Option<Vec<usize>>,
}

/// One node with its figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeSummary {
    /// Level per quasi-identifier, in request order.
    pub levels: Vec<usize>,
    /// Published equivalence classes.
    pub classes: usize,
    pub suppressed_rows: u64,
    pub metric: f64,
}

/// What the search found, beyond the release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchReport {
    pub attributes: Vec<String>,
    /// Attributes that had no hierarchy and were given the flat one
    /// (value or `*`).
    pub flat: Vec<String>,
    /// Height of each attribute's hierarchy.
    pub heights: Vec<usize>,
    pub metric: Metric,
    pub model: Model,
    pub suppression_limit_rows: u64,
    pub lattice_size: usize,
    /// Nodes whose classes were computed.
    pub checked: usize,
    /// Whether anonymity was monotone, so tagging pruned the lattice.
    pub monotone: bool,
    pub optimum: NodeSummary,
    /// Minimal anonymous nodes, when asked for.
    pub minimal: Vec<NodeSummary>,
    /// The node published instead of the optimum (`FullDomainOptions::node`),
    /// with its figures.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub chosen: Option<ChosenNode>,
    /// Every node as the search left it, for a lattice view (not written
    /// into JSON: thousands of nodes on Adult).
    #[serde(skip)]
    pub lattice: LatticeMap,
}

/// A node published in place of the optimum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChosenNode {
    /// Its figures with every class that fails the model suppressed.
    #[serde(flatten)]
    pub node: NodeSummary,
    /// Whether those suppressed rows fit within the suppression limit
    /// (the node is anonymous in the search's sense).
    pub within_limit: bool,
}

impl SearchReport {
    /// The node whose release was built: the chosen one, else the optimum.
    pub fn published(&self) -> &NodeSummary {
        self.chosen.as_ref().map_or(&self.optimum, |c| &c.node)
    }
}

/// Nodes measured per parallel batch of the branch and bound.
const BATCH: usize = 16;

/// Search the lattice and build the optimal node's release.
pub fn search(req: &Request<'_>, progress: &Progress) -> Result<(Release, SearchReport)> {
    check_k(req)?;
    let opts = &req.options.full_domain;
    let model = opts.model;
    model.check()?;
    if !(0.0..=1.0).contains(&opts.suppression) {
        return Err(Error::invalid(
            Parameter::SuppressionLimit,
            format!(
                "the suppression limit must lie between 0 and 1 (a share of the rows; got {})",
                opts.suppression
            ),
        ));
    }
    if model != Model::K && req.sensitive.is_empty() {
        return Err(Error::unmet(
            "the privacy model reads a sensitive attribute",
            Setting::SensitiveAttribute,
        ));
    }
    let ds = req.ds;
    let mut set = req.options.hierarchies.clone();
    let mut flat = Vec::new();
    for &c in &req.qi {
        let col = ds.col(c);
        if set.get(col.name()).is_none() {
            set.insert(flat_hierarchy(col)?);
            flat.push(col.name().to_string());
        }
    }
    let bound = set.bind(ds, &req.qi)?;
    let leaf_counts = req
        .qi
        .iter()
        .map(|&c| {
            // `bind` succeeded, so the hierarchy exists.
            let h = set.get(ds.col(c).name()).ok_or_else(|| {
                Error::invalid(
                    Parameter::Hierarchy,
                    format!("no hierarchy for '{}'", ds.col(c).name()),
                )
            })?;
            Ok((
                (0..h.levels()).map(|l| h.leaf_counts(l)).collect(),
                h.leaves().len(),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    // Records (a grouped table's rows stand for several).
    let n = ds.records();
    let max_suppressed = (opts.suppression * n as f64).floor() as u64;
    let ev = Evaluator::new(Setup {
        ds,
        qi: &req.qi,
        hierarchies: &bound,
        leaf_counts,
        sensitive: req.sensitive.iter().map(|&s| ds.col(s)).collect(),
        model,
        k: req.k,
        max_suppressed,
        metric: opts.metric,
    });
    let lattice = Lattice::new(bound.iter().map(|h| h.levels()).collect()).ok_or_else(|| {
        Error::invalid(
            Parameter::Roles,
            "the lattice of level vectors is too large to index",
        )
    })?;
    let monotone = max_suppressed == 0 || model.monotone_with_suppression();
    let mut s = State {
        lattice: &lattice,
        ev: &ev,
        status: vec![Status::Unknown; lattice.size()],
        results: vec![None; lattice.size()],
        progress,
    };
    progress.set_total(lattice.size() as u64);
    if monotone {
        s.resolve_monotone()?;
    }
    let best = s.optimum(monotone, max_suppressed == 0)?;
    let Some(best) = best else {
        return Err(Error::unmet(
            format!(
                "no generalization satisfies the privacy model within the suppression limit ({max_suppressed} of {n} rows), not even the top node"
            ),
            Setting::SuppressionLimit,
        ));
    };
    let minimal = if opts.list_minimal {
        if !monotone {
            s.check_all()?;
        }
        let nodes = lattice.minimal(&s.status);
        s.measure(&nodes)?;
        nodes.iter().map(|&v| s.summary(v)).collect()
    } else {
        Vec::new()
    };
    let optimum = s.summary(best);
    let checked = s.results.iter().filter(|r| r.is_some()).count();
    let map = LatticeMap::new(&lattice, &s.status, &s.results, |v| ev.lower_bound(v));
    let (release, chosen) = match &opts.node {
        None => (
            build_release(req, &ev, &bound, &optimum.levels, max_suppressed)?,
            None,
        ),
        Some(levels) => {
            check_node(levels, &map, &bound)?;
            // Every class failing the model is suppressed, past the limit
            // if need be: the release then holds what it claims.
            let r = ev.evaluate_within(levels, u64::MAX);
            let node = NodeSummary {
                levels: levels.clone(),
                classes: r.classes,
                suppressed_rows: r.suppressed_rows,
                metric: r.metric,
            };
            let release = build_release(req, &ev, &bound, levels, u64::MAX)?;
            let within_limit = node.suppressed_rows <= max_suppressed;
            (release, Some(ChosenNode { node, within_limit }))
        }
    };
    let report = SearchReport {
        attributes: req
            .qi
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect(),
        flat,
        heights: bound.iter().map(|h| h.height()).collect(),
        metric: opts.metric,
        model,
        suppression_limit_rows: max_suppressed,
        lattice_size: lattice.size(),
        checked,
        monotone,
        optimum,
        minimal,
        chosen,
        lattice: map,
    };
    Ok((release, report))
}

/// A chosen node must be a node of this lattice.
fn check_node(levels: &[usize], map: &LatticeMap, bound: &[BoundHierarchy]) -> Result<()> {
    if map.index(levels).is_some() {
        return Ok(());
    }
    let heights: Vec<String> = bound.iter().map(|h| h.height().to_string()).collect();
    let given: Vec<String> = levels.iter().map(|l| l.to_string()).collect();
    Err(Error::invalid(Parameter::Node, format!(
        "the chosen node [{}] is not a node of the lattice: it needs one level per quasi-identifier ({}), each at most the height of its hierarchy [{}]",
        given.join(", "),
        heights.len(),
        heights.join(", ")
    )))
}

struct State<'a> {
    lattice: &'a Lattice,
    ev: &'a Evaluator<'a>,
    status: Vec<Status>,
    results: Vec<Option<NodeResult>>,
    progress: &'a Progress,
}

impl State<'_> {
    fn check(&mut self, node: usize) -> Result<NodeResult> {
        if let Some(r) = self.results[node] {
            return Ok(r);
        }
        self.progress.check()?;
        let r = self.ev.evaluate(&self.lattice.vector(node));
        self.progress.advance(1);
        self.results[node] = Some(r);
        Ok(r)
    }

    /// Check several nodes in parallel and record them.
    fn measure(&mut self, nodes: &[usize]) -> Result<()> {
        let todo: Vec<usize> = nodes
            .iter()
            .copied()
            .filter(|&v| self.results[v].is_none())
            .collect();
        self.progress.check()?;
        let (lattice, ev) = (self.lattice, self.ev);
        let out: Vec<NodeResult> = todo
            .par_iter()
            .map(|&v| ev.evaluate(&lattice.vector(v)))
            .collect();
        self.progress.advance(todo.len() as u64);
        for (v, r) in todo.into_iter().zip(out) {
            self.results[v] = Some(r);
            if self.status[v] == Status::Unknown {
                self.status[v] = if r.anonymous {
                    Status::Anonymous
                } else {
                    Status::NotAnonymous
                };
            }
        }
        Ok(())
    }

    /// Flash-style: from the lowest unresolved node, a chain of direct
    /// generalizations through unresolved nodes (cheapest generalization
    /// first), binary-searched; each answer is tagged up or down.
    fn resolve_monotone(&mut self) -> Result<()> {
        let mut order: Vec<usize> = (0..self.lattice.size()).collect();
        order.sort_by_key(|&v| (self.lattice.height(v), v));
        for start in order {
            if self.status[start] != Status::Unknown {
                continue;
            }
            let mut chain = vec![start];
            let mut cur = start;
            loop {
                let next = self
                    .lattice
                    .successors(cur)
                    .filter(|&s| self.status[s] == Status::Unknown)
                    .min_by(|&a, &b| {
                        let la = self.ev.generalization_loss(&self.lattice.vector(a));
                        let lb = self.ev.generalization_loss(&self.lattice.vector(b));
                        la.total_cmp(&lb).then(a.cmp(&b))
                    });
                match next {
                    Some(s) => {
                        chain.push(s);
                        cur = s;
                    }
                    None => break,
                }
            }
            let (mut lo, mut hi) = (0usize, chain.len());
            while lo < hi {
                let mid = (lo + hi) / 2;
                let v = chain[mid];
                match self.status[v] {
                    Status::Anonymous => hi = mid,
                    Status::NotAnonymous => lo = mid + 1,
                    Status::Unknown => {
                        if self.check(v)?.anonymous {
                            self.lattice
                                .tag(&mut self.status, v, true, Status::Anonymous);
                            hi = mid;
                        } else {
                            self.lattice
                                .tag(&mut self.status, v, false, Status::NotAnonymous);
                            lo = mid + 1;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Branch and bound over the candidates in increasing lower-bound order.
    fn optimum(&mut self, monotone: bool, no_suppression: bool) -> Result<Option<usize>> {
        let candidates: Vec<usize> = if monotone && no_suppression {
            self.lattice.minimal(&self.status)
        } else if monotone {
            (0..self.lattice.size())
                .filter(|&v| self.status[v] == Status::Anonymous)
                .collect()
        } else {
            (0..self.lattice.size()).collect()
        };
        let mut keyed: Vec<(f64, usize, usize)> = candidates
            .into_iter()
            .map(|v| {
                let lv = self.lattice.vector(v);
                (self.ev.lower_bound(&lv), lv.iter().sum(), v)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let exact = self.ev.bound_is_exact();
        let tol = |best: f64| self.ev.tie_tolerance(best);
        let mut best: Option<(f64, usize, usize)> = None;
        for batch in keyed.chunks(BATCH * rayon::current_num_threads().max(1)) {
            // With an exact bound a tie in the bound is a tie in the metric,
            // which the earlier node (lower, then smaller) wins already.
            let live: Vec<usize> = batch
                .iter()
                .filter(|(lb, _, _)| {
                    best.is_none_or(|b| {
                        let limit = b.0 + tol(b.0);
                        *lb < limit || (!exact && *lb <= limit)
                    })
                })
                .map(|&(_, _, v)| v)
                .collect();
            if live.is_empty() {
                break;
            }
            self.measure(&live)?;
            for v in live {
                let r = self.results[v].expect("measured");
                if !r.anonymous {
                    continue;
                }
                let key = (r.metric, self.lattice.height(v), v);
                // Node indices order level vectors lexicographically.
                let better = best.is_none_or(|b| {
                    if (key.0 - b.0).abs() <= tol(b.0) {
                        (key.1, key.2) < (b.1, b.2)
                    } else {
                        key.0 < b.0
                    }
                });
                if better {
                    best = Some(key);
                }
            }
        }
        Ok(best.map(|b| b.2))
    }

    fn check_all(&mut self) -> Result<()> {
        let all: Vec<usize> = (0..self.lattice.size()).collect();
        for chunk in all.chunks(256) {
            self.measure(chunk)?;
        }
        Ok(())
    }

    fn summary(&self, node: usize) -> NodeSummary {
        let r = self.results[node].expect("summarized nodes are measured");
        NodeSummary {
            levels: self.lattice.vector(node),
            classes: r.classes,
            suppressed_rows: r.suppressed_rows,
            metric: r.metric,
        }
    }
}

/// The release of one node: kept classes as groups of hierarchy-node cells,
/// the rest suppressed (up to `limit` rows); claims for what the model
/// guarantees and the verifier can check.
fn build_release(
    req: &Request<'_>,
    ev: &Evaluator<'_>,
    bound: &[BoundHierarchy],
    levels: &[usize],
    limit: u64,
) -> Result<Release> {
    let ds = req.ds;
    let classes = ev.classes(levels);
    let (fail, _) = ev.suppressed_within(&classes, limit).ok_or_else(|| {
        Error::Internal("internal: the optimal node is no longer anonymous".into())
    })?;
    let members = Partition::from_class_ids(ev.class_of_row(&classes)).members();
    let node_codes: Vec<Vec<Vec<u32>>> = bound
        .iter()
        .zip(levels)
        .map(|(h, &l)| {
            if l == 0 || l == h.height() {
                Vec::new()
            } else {
                h.members(l)
            }
        })
        .collect();
    let mut release = Release::new("full-domain", ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut release);
    // Groups in the order of their generalized values (the hierarchy
    // nodes' ids, first QI first), not of the rows' first appearance: the
    // release is then the same whatever the order of the file's rows, and
    // whether its rows come one by one or grouped by the query engine.
    let key = |c: usize| -> Vec<u32> {
        let b = classes.representative[c] as usize;
        levels
            .iter()
            .enumerate()
            .map(|(a, &l)| bound[a].node(l, ev.bottom_code(a, b)))
            .collect()
    };
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_cached_key(|&c| key(c));
    for c in order {
        let rows = members.class(c);
        if fail[c] {
            release.suppressed_rows.extend_from_slice(rows);
            continue;
        }
        let r = rows[0] as usize;
        let cells = req
            .qi
            .iter()
            .enumerate()
            .map(|(a, &col)| node_cell(&bound[a], levels[a], ds.col(col).code(r), &node_codes[a]))
            .collect();
        release.groups.push(EquivalenceGroup {
            rows: rows.to_vec(),
            cells,
        });
    }
    release.suppressed_rows.sort_unstable();
    let model = req.options.full_domain.model;
    let mut params = ReleaseParams {
        k: Some(req.k),
        ..Default::default()
    };
    release.claims.push(Guarantee::KAnonymity { k: req.k });
    // Each model claims itself and the distinct l it implies (entropy
    // and recursive l-diversity, p-sensitivity), the l that breach and
    // report figures read.
    let distinct = model.implied_distinct_l();
    for &s in &req.sensitive {
        let attribute = ds.col(s).name();
        if let Some(l) = distinct {
            release.claims.push(Guarantee::GroupLDiversity {
                attribute: attribute.to_string(),
                l,
            });
            params.l = Some(l);
        }
        if let Model::TCloseness { t } = model {
            params.t = Some(t);
        }
        release.claims.extend(model.attribute_claims(attribute));
    }
    if let Model::PSensitive { p } = model {
        release.claims.push(Guarantee::PSensitiveKAnonymity {
            k: req.k,
            p,
            attributes: req
                .sensitive
                .iter()
                .map(|&s| ds.col(s).name().to_string())
                .collect(),
        });
    }
    release.params = params;
    Ok(release)
}

/// The hierarchy of an attribute nobody gave one for: each value, or `*`
/// (keep the attribute or suppress it entirely).
fn flat_hierarchy(col: &crate::data::Column) -> Result<Hierarchy> {
    let rows: Vec<Vec<&str>> = col.dictionary().iter().map(|v| vec![&**v, "*"]).collect();
    if rows.is_empty() {
        // A column of missing cells only: one placeholder leaf.
        return Hierarchy::from_rows(col.name(), &[vec!["?", "*"]]);
    }
    Hierarchy::from_rows(col.name(), &rows)
}

/// The published cell of `code` generalized to `level`: the value itself at
/// level 0, `*` at the root, otherwise the node's label over the codes below
/// it. `members` is `h.members(level)` (unused at level 0 and the root).
pub(crate) fn node_cell(h: &BoundHierarchy, level: usize, code: u32, members: &[Vec<u32>]) -> Cell {
    if level == 0 {
        Cell::Value { code }
    } else if level == h.height() {
        Cell::Suppressed
    } else {
        let node = h.node(level, code);
        Cell::Set {
            codes: members[node as usize].clone(),
            label: Some(h.label(level, node).to_string()),
        }
    }
}

/// Full-domain generalization over the request's hierarchies
/// (`Options::hierarchies`, `Options::full_domain`).
#[derive(Debug, Clone, Copy)]
pub struct FullDomain;

impl Algorithm for FullDomain {
    fn id(&self) -> &'static str {
        "full-domain"
    }
    fn name(&self) -> &'static str {
        "Full-domain generalization (Incognito / Flash lattice search)"
    }
    /// l, t or p are its privacy model's (a setting of its own, read
    /// with the suppression limit and the metric), not parameters of the
    /// algorithm. Grouped tables: classes are unions of the bottom
    /// classes, whose sizes count the records a grouped table's rows stand
    /// for. Hierarchies are optional: a quasi-identifier without one is
    /// kept or suppressed whole (the flat hierarchy, see the module doc),
    /// and every surface says which.
    fn needs(&self) -> Needs {
        Needs {
            k: true,
            hierarchies: Use::Optional,
            settings: true,
            grouped: true,
            numeric: false,
            ..Needs::default()
        }
    }
    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        search(req, progress).map(|(release, _)| release)
    }
}
