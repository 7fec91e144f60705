//! p-sensitive k-anonymity by clustering (Truta, Campan & Meyer, "Generating
//! microdata with p-sensitive k-anonymity property", Sections 2–3):
//! EnhancedPKClustering (`pk-enhanced`, Section 3.2, [`enhanced`]) and the
//! GreedyPKClustering baseline (`pk-greedy`, [`greedy`]). The Incognito
//! baseline is `full-domain` with `PrivacyModel::PSensitive`, whose per-class
//! check (at least p distinct values of every sensitive attribute) is
//! Definition 3.
//!
//! Both algorithms partition the table into clusters that are p-sensitive
//! (Definition 3) on every sensitive attribute of the request and have k
//! rows, then publish each cluster generalized to its generalization
//! information gen(cl) (Definition 8): the smallest covering interval for a
//! numeric QI; for a categorical QI the lowest common ancestor in its
//! hierarchy (`Options::hierarchies`, ARX files) — the value itself, the
//! node's label over the codes below it, or `*` at the root — and, without
//! a hierarchy, the set of the cluster's values (`*` when it is all of them;
//! information loss counts it as the flat hierarchy value → `*`, see
//! `metrics::pk_measures`). Sensitive values stay on their rows.
//!
//! Before running, the two necessary conditions are checked
//! ([`necessary`]); a request they rule out is refused with maxClusters and
//! the attribute to blame. [`max_clusters`] gives the bound alone (the TUI
//! shows it next to the p control). The extended model (a sensitive
//! attribute's hierarchy in `PkOptions::sa_hierarchies` with protected
//! values) runs the same algorithms on protected-subtree ids
//! ([`SensitiveView`]) and claims `ExtendedPSensitivity` per such attribute.

mod enhanced;
mod greedy;
pub mod necessary;
mod pool;

use std::cmp::Ordering;

use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::data::{ColumnBuilder, Dataset};
use crate::error::{Error, Parameter, Result};
use crate::hierarchy::HierarchySet;
use crate::metrics::pk_measures::{div_units, hom_units, GenState, IlModel, QiScale};
use crate::progress::Progress;
use crate::release::{Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

use super::{check_k, Algorithm, Needs, Request, Use};

pub use necessary::{bound_of, check, max_clusters, views, PkBound, SensitiveView};

/// What the p-sensitive algorithms read in `Options::pk`.
#[derive(Debug, Clone)]
pub struct PkOptions {
    /// p of p-sensitive k-anonymity.
    pub p: u32,
    /// Hierarchies of sensitive attributes for the extended model.
    pub sa_hierarchies: HierarchySet,
    /// Protected values (node labels of those hierarchies; their subtrees
    /// are protected).
    pub protected: Vec<String>,
}

impl Default for PkOptions {
    fn default() -> Self {
        PkOptions {
            p: 2,
            sa_hierarchies: HierarchySet::new(),
            protected: Vec::new(),
        }
    }
}

/// A validated request: the sensitive views, the bound, the IL model and the
/// QI codes per row.
pub(crate) struct Problem<'a> {
    pub ds: &'a Dataset,
    pub k: usize,
    pub p: u32,
    pub views: Vec<SensitiveView>,
    pub bound: PkBound,
    pub model: IlModel,
    pub codes: Vec<&'a [u32]>,
    /// Codes of each QI range over `0..code_space[a]`.
    pub code_space: Vec<usize>,
    /// Per row, its QI codes then its sensitive ids (`stride` each): a
    /// BestMatch scan reads one row's values from one place instead of
    /// one column each, which on Adult halves its time.
    packed: Vec<u32>,
    stride: usize,
}

impl<'a> Problem<'a> {
    pub fn new(req: &Request<'a>) -> Result<Self> {
        check_k(req)?;
        let opts = &req.options.pk;
        for &s in &req.sensitive {
            if req.qi.contains(&s) {
                return Err(Error::invalid(
                    Parameter::Roles,
                    format!(
                        "'{}' is both a quasi-identifier and sensitive",
                        req.ds.col(s).name()
                    ),
                ));
            }
        }
        let views = views(req.ds, &req.sensitive, opts)?;
        let bound = bound_of(&views, req.ds.n_rows(), opts.p);
        check(&bound, req.k)?;
        let model = IlModel::new(req.ds, &req.qi, &req.options.hierarchies)?;
        let codes: Vec<&[u32]> = req.qi.iter().map(|&c| req.ds.col(c).codes()).collect();
        let code_space = req.qi.iter().map(|&c| req.ds.col(c).code_space()).collect();
        let stride = codes.len() + views.len();
        let mut packed = Vec::with_capacity(req.ds.n_rows() * stride);
        for r in 0..req.ds.n_rows() {
            packed.extend(codes.iter().map(|c| c[r]));
            packed.extend(views.iter().map(|v| v.ids[r]));
        }
        Ok(Problem {
            ds: req.ds,
            k: req.k as usize,
            p: opts.p,
            views,
            bound,
            model,
            codes,
            code_space,
            packed,
            stride,
        })
    }

    pub fn n(&self) -> usize {
        self.ds.n_rows()
    }

    /// The QI codes of `row`.
    fn qi_codes(&self, row: u32) -> &[u32] {
        let at = row as usize * self.stride;
        &self.packed[at..at + self.codes.len()]
    }

    /// The sensitive ids of `row`, one per view.
    fn sensitive_ids(&self, row: u32) -> &[u32] {
        let at = row as usize * self.stride;
        &self.packed[at + self.codes.len()..at + self.stride]
    }
}

/// A cluster under construction: its rows, gen(cl) per QI, and the counts
/// of each sensitive id.
#[derive(Debug, Clone)]
pub(crate) struct Cluster {
    pub rows: Vec<u32>,
    gen: Vec<GenState>,
    /// Σ of the IL terms of gen(cl): IL(cl) = |cl| · cost.
    cost: f64,
    counts: Vec<Vec<u32>>,
    distinct: Vec<u32>,
}

impl Cluster {
    pub fn new(pr: &Problem<'_>) -> Self {
        Cluster {
            rows: Vec::new(),
            gen: pr.model.empty(),
            cost: 0.0,
            counts: pr.views.iter().map(|v| vec![0; v.n_ids]).collect(),
            distinct: vec![0; pr.views.len()],
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn add(&mut self, pr: &Problem<'_>, row: u32) {
        for (a, g) in self.gen.iter_mut().enumerate() {
            *g = pr.model.extend(a, *g, pr.codes[a][row as usize]);
        }
        self.cost = pr.model.cost(&self.gen);
        for (j, v) in pr.views.iter().enumerate() {
            let c = &mut self.counts[j][v.ids[row as usize] as usize];
            if *c == 0 {
                self.distinct[j] += 1;
            }
            *c += 1;
        }
        self.rows.push(row);
    }

    pub fn il(&self) -> f64 {
        self.rows.len() as f64 * self.cost
    }

    /// The best score any row can reach for this cluster: every deficient
    /// sensitive attribute gains a value (Div = r · Hom), and gen(cl) does
    /// not grow, so IL grows by IL(cl)/|cl| only (ΔIL ≥ that, since S' ≥ S).
    /// `diverse`: whether the score counts Div.
    pub fn floor(&self, p: u32, diverse: bool) -> Score {
        Score {
            div: if diverse { self.hom(p) } else { 0 },
            dil: self.cost,
        }
    }

    /// Per QI, the IL term of gen(cl) extended by each code of the QI: a
    /// BestMatch scan then adds table entries instead of extending gen(cl)
    /// through the hierarchy for every candidate ([`Self::delta_with`]).
    /// Built once per scan; O(codes of the QIs).
    pub fn terms(&self, pr: &Problem<'_>) -> Terms {
        Terms(
            self.gen
                .iter()
                .enumerate()
                .map(|(a, &g)| {
                    (0..pr.code_space[a] as u32)
                        .map(|c| pr.model.term(a, pr.model.extend(a, g, c)))
                        .collect()
                })
                .collect(),
        )
    }

    /// [`Self::delta_il`] from the cluster's [`Terms`]: the same terms
    /// summed in the same order, so the same number.
    pub fn delta_with(&self, pr: &Problem<'_>, terms: &Terms, row: u32) -> f64 {
        self.delta_codes(terms, pr.qi_codes(row))
    }

    /// [`Self::delta_with`] for a tuple with QI codes `codes`.
    pub fn delta_codes(&self, terms: &Terms, codes: &[u32]) -> f64 {
        let cost: f64 = terms.0.iter().zip(codes).map(|(t, &c)| t[c as usize]).sum();
        (self.rows.len() + 1) as f64 * cost - self.il()
    }

    /// IL(cl ∪ {row}) − IL(cl).
    pub fn delta_il(&self, pr: &Problem<'_>, row: u32) -> f64 {
        let cost: f64 = self
            .gen
            .iter()
            .enumerate()
            .map(|(a, &g)| {
                pr.model
                    .term(a, pr.model.extend(a, g, pr.codes[a][row as usize]))
            })
            .sum();
        (self.rows.len() + 1) as f64 * cost - self.il()
    }

    /// r · Div(row, cl).
    pub fn div(&self, pr: &Problem<'_>, row: u32) -> u32 {
        let new = pr
            .sensitive_ids(row)
            .iter()
            .zip(&self.counts)
            .map(|(&id, counts)| counts[id as usize] == 0);
        div_units(new, &self.distinct, pr.p)
    }

    /// r · Hom(cl).
    pub fn hom(&self, p: u32) -> u32 {
        hom_units(&self.distinct, p)
    }
}

/// Per QI and code: the IL term of a cluster's gen extended by that code.
pub(crate) struct Terms(Vec<Vec<f64>>);

/// A candidate's score: more diversity first, then less added IL.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Score {
    pub div: u32,
    pub dil: f64,
}

/// Whether `a` beats `b` (ties: neither).
pub(crate) fn better(a: Score, b: Score) -> Ordering {
    b.div.cmp(&a.div).then(a.dil.total_cmp(&b.dil))
}

/// Index in `pool` of the best row for `score` (BestMatch over one
/// cluster), ties to the lowest index. With a `floor` — a score no row can
/// beat (`Cluster::floor`) — the scan is in order and stops at the first
/// row that reaches it, which is then the lowest-index best; otherwise
/// large pools are scanned in parallel.
pub(crate) fn best_in(
    pool: &[u32],
    floor: Option<Score>,
    score: impl Fn(u32) -> Score + Sync,
) -> Option<usize> {
    const PAR: usize = 2048;
    let pick = |a: (usize, Score), b: (usize, Score)| match better(b.1, a.1) {
        Ordering::Less => b,
        Ordering::Equal if b.0 < a.0 => b,
        _ => a,
    };
    if let Some(f) = floor {
        // ΔIL is computed as (|cl|+1)·S' − |cl|·S: allow its rounding.
        let reached = |s: Score| s.div >= f.div && s.dil <= f.dil + 1e-9 * (1.0 + f.dil.abs());
        let mut best: Option<(usize, Score)> = None;
        for (i, &r) in pool.iter().enumerate() {
            let s = score(r);
            if reached(s) {
                return Some(i);
            }
            best = Some(match best {
                None => (i, s),
                Some(b) => pick(b, (i, s)),
            });
        }
        return best.map(|x| x.0);
    }
    if pool.len() >= PAR {
        pool.par_iter()
            .enumerate()
            .map(|(i, &r)| (i, score(r)))
            .reduce_with(pick)
            .map(|x| x.0)
    } else {
        pool.iter()
            .enumerate()
            .map(|(i, &r)| (i, score(r)))
            .reduce(pick)
            .map(|x| x.0)
    }
}

/// Add each leftover row to the cluster whose IL grows least (the last
/// loop of EnhancedPKClustering; GreedyPKClustering spreads its remainder
/// the same way).
pub(crate) fn spread(pr: &Problem<'_>, clusters: &mut [Cluster], rows: &[u32]) {
    for &t in rows {
        let best = clusters
            .iter()
            .enumerate()
            .map(|(i, c)| (i, c.delta_il(pr, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            .map(|x| x.0);
        if let Some(i) = best {
            clusters[i].add(pr, t);
        }
    }
}

/// The release of a clustering: gen(cl) per cluster, the k-anonymity and
/// p-sensitivity claims (extended per attribute where asked).
pub(crate) fn release_of(
    id: &str,
    req: &Request<'_>,
    pr: &Problem<'_>,
    clusters: Vec<Cluster>,
    seed: Option<u64>,
) -> Release {
    let ds = req.ds;
    let members: Vec<Vec<Vec<Vec<u32>>>> = pr
        .model
        .scales
        .iter()
        .map(|s| match s {
            QiScale::Hierarchy(h) => (0..h.levels()).map(|l| h.members(l)).collect(),
            _ => Vec::new(),
        })
        .collect();
    let mut release = Release::new(id, ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut release);
    for cl in clusters {
        let mut rows = cl.rows;
        rows.sort_unstable();
        let cells = req
            .qi
            .iter()
            .enumerate()
            .map(|(a, &c)| match (&pr.model.scales[a], cl.gen[a]) {
                (QiScale::Hierarchy(h), GenState::Node { anchor, level }) => {
                    super::full_domain::node_cell(
                        h,
                        level as usize,
                        anchor,
                        &members[a][level as usize],
                    )
                }
                _ => {
                    let col = ds.col(c);
                    Cell::covering(col, rows.iter().map(|&r| col.code(r as usize)))
                }
            })
            .collect();
        release.groups.push(EquivalenceGroup { rows, cells });
    }
    release.params = ReleaseParams {
        k: Some(req.k),
        seed,
        ..Default::default()
    };
    release.claims.push(Guarantee::KAnonymity { k: req.k });
    release.claims.push(Guarantee::PSensitiveKAnonymity {
        k: req.k,
        p: pr.p,
        attributes: pr.views.iter().map(|v| v.name.clone()).collect(),
    });
    for v in &pr.views {
        if let Some(subtrees) = &v.subtrees {
            release.claims.push(Guarantee::ExtendedPSensitivity {
                attribute: v.name.clone(),
                p: pr.p,
                subtrees: subtrees.clone(),
            });
        }
    }
    release
}

/// EnhancedPKClustering (Section 3.2).
#[derive(Debug, Clone, Copy)]
pub struct EnhancedPk;

impl Algorithm for EnhancedPk {
    fn id(&self) -> &'static str {
        "pk-enhanced"
    }
    fn name(&self) -> &'static str {
        "EnhancedPKClustering (p-sensitive k-anonymity)"
    }
    fn needs(&self) -> Needs {
        pk_needs(false)
    }
    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let pr = Problem::new(req)?;
        let clusters = enhanced::cluster(&pr, progress)?;
        Ok(release_of(self.id(), req, &pr, clusters, None))
    }
}

/// GreedyPKClustering, the baseline ([`greedy`]).
#[derive(Debug, Clone, Copy)]
pub struct GreedyPk;

impl Algorithm for GreedyPk {
    fn id(&self) -> &'static str {
        "pk-greedy"
    }
    fn name(&self) -> &'static str {
        "GreedyPKClustering (p-sensitive k-anonymity baseline)"
    }
    fn needs(&self) -> Needs {
        pk_needs(true)
    }
    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let pr = Problem::new(req)?;
        let clusters = greedy::cluster(&pr, req.seed, progress)?;
        Ok(release_of(self.id(), req, &pr, clusters, Some(req.seed)))
    }
}

/// A seeded random sample of `n` rows (in table order), as the paper's
/// experiments draw 10,000 Adult records: the `--sample N` of `anonymize`
/// and `compare`. Columns keep their kinds.
pub fn seeded_sample(ds: &Dataset, n: usize, seed: u64) -> Result<Dataset> {
    if n == 0 || n > ds.n_rows() {
        return Err(Error::invalid(
            Parameter::Sample,
            format!(
                "a sample of {n} rows cannot be drawn from {} rows",
                ds.n_rows()
            ),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = sample(&mut rng, ds.n_rows(), n).into_vec();
    rows.sort_unstable();
    let columns = ds
        .columns()
        .iter()
        .map(|col| {
            let mut b = ColumnBuilder::with_capacity(col.name().to_string(), n);
            for &r in &rows {
                match col.value(col.code(r)) {
                    Some(v) => b.push(v),
                    None => b.push_missing(),
                }
            }
            b.finish(Some(col.kind()))
                .map_err(|e| Error::Internal(format!("sampling column '{}': {e}", col.name())))
        })
        .collect::<Result<Vec<_>>>()?;
    Dataset::new(
        format!("{} (sample of {n}, seed {seed})", ds.name()),
        columns,
    )
}

/// Cancel and progress between steps of the clustering loops.
pub(crate) fn tick(progress: &Progress, rows: u64) -> Result<()> {
    progress.advance(rows);
    progress.check()
}

/// What both p-sensitive clusterings read: k and p, the sensitive
/// attributes (their hierarchies too, for extended p-sensitivity and
/// protected values, when given), and the seed for the greedy one.
fn pk_needs(seed: bool) -> Needs {
    Needs {
        k: true,
        p: true,
        seed,
        sensitive: true,
        hierarchies: Use::Optional,
        ..Needs::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::verify::verify;

    fn req<'a>(
        ds: &'a Dataset,
        qi: Vec<usize>,
        sensitive: Vec<usize>,
        k: u32,
        p: u32,
    ) -> Request<'a> {
        let mut options = crate::algorithms::Options::default();
        options.pk.p = p;
        Request {
            ds,
            qi,
            sensitive,
            identifiers: vec![],
            k,
            l: 1,
            seed: 7,
            options,
        }
    }

    /// The paper's Fig. 1 with a QI column: maxClusters = 2, yet only one
    /// 2-sensitive group exists — both algorithms find that one.
    #[test]
    fn fig1_gives_one_cluster_although_max_clusters_is_two() {
        let ds = Dataset::from_rows(
            &["q", "A", "B", "C"],
            &[
                vec!["1", "1", "a", "α"],
                vec!["2", "1", "b", "β"],
                vec!["3", "2", "a", "β"],
                vec!["4", "2", "b", "α"],
            ],
        )
        .unwrap();
        let r = req(&ds, vec![0], vec![1, 2, 3], 1, 2);
        for algo in [&EnhancedPk as &dyn Algorithm, &GreedyPk] {
            let rel = algo.run(&r, &Progress::new()).unwrap();
            assert_eq!(rel.groups.len(), 1, "{}", algo.id());
            let v = verify(&rel, &ds);
            assert!(v.all_hold(), "{}: {v}", algo.id());
        }
    }

    #[test]
    fn clusters_are_p_sensitive_k_anonymous_and_generalized_to_their_cover() {
        // 12 rows; s has 4 values (x×5, y×3, z×2, w×2), t has 3.
        let rows: Vec<Vec<String>> = (0..12)
            .map(|i| {
                vec![
                    (20 + 3 * i).to_string(),
                    ["F", "M"][i % 2].to_string(),
                    ["x", "x", "x", "x", "x", "y", "y", "y", "z", "z", "w", "w"][i].to_string(),
                    ["a", "b", "c"][i % 3].to_string(),
                ]
            })
            .collect();
        let rows: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let ds = Dataset::from_rows(&["age", "sex", "s", "t"], &rows).unwrap();
        for p in 1..=3 {
            for k in [2, 3, 4] {
                let r = req(&ds, vec![0, 1], vec![2, 3], k, p);
                for algo in [&EnhancedPk as &dyn Algorithm, &GreedyPk] {
                    let rel = algo.run(&r, &Progress::new()).unwrap();
                    let v = verify(&rel, &ds);
                    assert!(v.all_hold(), "{} k={k} p={p}: {v}", algo.id());
                    assert_eq!(rel.published_rows(), 12);
                    for g in &rel.groups {
                        if let Cell::Interval { lo, hi } = g.cells[0] {
                            let codes: Vec<u32> =
                                g.rows.iter().map(|&x| ds.col(0).code(x as usize)).collect();
                            assert_eq!(lo, *codes.iter().min().unwrap());
                            assert_eq!(hi, *codes.iter().max().unwrap());
                        }
                    }
                }
            }
        }
        let e = EnhancedPk
            .run(&req(&ds, vec![0, 1], vec![2, 3], 2, 4), &Progress::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("'t' has only 3 distinct values"), "{e}");
    }

    #[test]
    fn seeded_sample_keeps_kinds_and_is_reproducible() {
        let ds = Dataset::from_rows(
            &["age", "s"],
            &[
                vec!["1", "a"],
                vec!["2", "b"],
                vec!["3", "c"],
                vec!["4", "d"],
            ],
        )
        .unwrap();
        let a = seeded_sample(&ds, 2, 5).unwrap();
        let b = seeded_sample(&ds, 2, 5).unwrap();
        assert_eq!(a.n_rows(), 2);
        assert!(a.col(0).is_numeric());
        assert_eq!(a.col(1).codes(), b.col(1).codes());
        assert!(seeded_sample(&ds, 5, 1).is_err());
    }
}
