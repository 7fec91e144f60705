//! Correlation-based construction of a generalization hierarchy: the
//! correlation-hierarchy paper's Algorithm 4 (Section 4.3, Figure 3, and the
//! worked example of Section 5.2).
//!
//! Given a focused numeric attribute `f` and a least number of records `N`
//! per cell, the construction
//!
//! 1. ranks the other attributes by their correlation with `f`
//!    (`correlation()`, lines 1–3: φ² by default, from [`crate::stats`],
//!    `f` and numeric attributes discretized as there);
//! 2. splits the records by the values of the most correlated attribute `g`
//!    and cuts `f`'s domain separately for each value (group) so that every
//!    cell (value of `g`, interval of `f`) holds at least `N` records
//!    (line 4);
//! 3. adjusts with the next correlated attributes (lines 5–7, Figure 3):
//!    each context is split again by the next attribute's values and each
//!    sub-context gets its own cut — coarser where it is thin (domains
//!    combined, the figure's solid lines), finer where it is dense (a domain
//!    decomposed, the dotted lines);
//! 4. returns the hierarchy of `f` and the conditions of generalization G
//!    (line 8) in the format Construction(D, G) reads
//!    ([`crate::data::Conditions`]).
//!
//! Choices where the paper leaves room (it describes the steps on one
//! medical dataset, not as an algorithm):
//!
//! - **One tree for every context, so no conflicting parents.** All cuts are
//!   nodes of a single tree of intervals over `f`'s sorted values (the
//!   paper: "when the domains 100-110 and 111-120 are created, the parent
//!   must be 100-120"). A context's cut is a frontier of that tree. A context
//!   may add nodes only in two ways that keep the family of intervals
//!   nested: split a node that has no children yet, or put a new node over a
//!   run of consecutive children of one node. So two contexts' intervals are
//!   always nested or disjoint, never overlapping.
//! - **How a context cuts** (greedy, left to right in value order): at a node
//!   without children, values are gathered into a piece until it holds `N`
//!   records of the context; a last piece short of `N` joins the one before.
//!   At a node with children, consecutive children are gathered the same way;
//!   a child that reaches `N` on its own is cut further the same way, a group
//!   of several children becomes one new node, and a child without records
//!   of the context stays alone. The nesting can cost a context finer cuts
//!   it would get alone: once a larger context has cut 150–165 | 166–190,
//!   a context dense around 160–170 can only merge those two or refine
//!   inside each (the paper's own cuts in Section 5.2, male −162 against
//!   female 161–164, overlap in just this way and would conflict). Every interval of a context
//!   therefore holds at least `N` of its records (unless the whole context
//!   has fewer, when it gets the root: `f` fully generalized).
//! - **Order**: contexts are cut largest first, so the first cuts follow the
//!   bulk of the data and smaller contexts refine or merge them. Whether a
//!   split by the next attribute is kept is decided on trial cuts; the final
//!   contexts are then all cut again, together and largest first, on a
//!   fresh tree.
//! - **Value groups of a conditioning attribute**: each value (each quantile
//!   bin of a numeric attribute) with at least `N` records in the context is
//!   its own group; rarer values and missing cells are pooled into one
//!   "other" group, which joins the smallest group when it is itself short of
//!   `N`. The other group's predicate is the negation of the rest (so it
//!   catches missing cells, which satisfy no atom of a rule).
//! - **When to adjust** (the paper's "combined when the total number of
//!   domains is less than 5, otherwise divided" is tied to its data): a
//!   context is split by the next attribute only if some sub-context gets a
//!   different cut from the context's own; otherwise the condition would
//!   add nothing. `depth` bounds how many attributes condition the cuts
//!   (default 2: `g` and one adjustment, as the paper's sex and medical
//!   history); the paper likewise stops early "by referring to the
//!   attribute which had the strongest correlation".
//! - **The hierarchy's levels**: the tree's intervals (single values
//!   excluded, they are the leaves) become ARX levels counted from the root:
//!   level `D − j` of a leaf is its ancestor at depth `j`, or its deepest
//!   interval when it has fewer, so level 1 generalizes every value and each
//!   level is a coarsening of the one below. Labels are `[lo-hi]` as the
//!   quantile builder writes them.
//! - **Per-context cuts** (`per_context`, `correlate --cuts per-context`):
//!   each final context is cut on a tree of its own, so its intervals may
//!   overlap another context's (the paper's male −162 beside female
//!   161–164; Table 2's finer cuts for ages 15 and 20 around 170 cm beside
//!   age 12's). Only G carries them (Construction applies G per record);
//!   the hierarchy file stays the nested tree's, as one ARX hierarchy maps
//!   each value to one interval per level. Each context reports both
//!   (`Context::cut` as used, `Context::alone` the own tree's count), so
//!   what the nesting costs is measured, not argued.
//! - **G**: one condition per (context, interval) with records, `when =
//!   context predicate and f>=lo and f<=hi`, generalizing `f` to the interval
//!   `[lo, hi]`; records with a missing `f` get no condition (Construction
//!   leaves missing cells as they are). The paper's last step, deleting
//!   records to reach a k, is `delete_below` (G's `delete_below`:
//!   Construction deletes the records of every published class smaller
//!   than k, so exactly the records that miss k, whatever the QIs).

use crate::data::{Column, Dataset};
use crate::data::{Condition, Conditions};
use crate::error::{Error, Parameter, Result};
use crate::stats::{categorize, correlation_matrix, Categories, Discretization, Measure};

use super::Hierarchy;

/// What to build.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelatedSpec {
    /// The focused attribute (a numeric column).
    pub focus: usize,
    /// Least records per cell (context × interval).
    pub min_records: u64,
    /// Attributes that may condition the cuts (default: all other columns).
    pub attributes: Vec<usize>,
    /// How many of the most correlated attributes condition the cuts.
    pub depth: usize,
    pub measure: Measure,
    pub discretization: Discretization,
    /// Cut each final context on a tree of its own (G carries overlapping
    /// cuts, as the paper's Section 5.2 makes them) instead of as a
    /// frontier of the one nested tree. The hierarchy file stays the
    /// nested one: an ARX hierarchy cannot hold overlapping intervals.
    pub per_context: bool,
    /// The paper's last step ("we delete some records to fulfill the
    /// required conditions, k = 5 for example"): G asks Construction to
    /// delete the records of every published class smaller than this k
    /// (`Conditions::delete_below`).
    pub delete_below: Option<u32>,
}

impl CorrelatedSpec {
    /// Defaults: every other column, depth 2, φ², 10 quantile bins.
    pub fn new(ds: &Dataset, focus: usize, min_records: u64) -> Self {
        Self {
            focus,
            min_records,
            attributes: (0..ds.n_cols()).filter(|&c| c != focus).collect(),
            depth: 2,
            measure: Measure::Phi2,
            discretization: Discretization::default(),
            per_context: false,
            delete_below: None,
        }
    }
}

/// One interval of a context's cut.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CutInterval {
    pub label: String,
    pub from: f64,
    pub to: f64,
    /// Records of the context in the interval.
    pub records: u64,
}

/// A set of records defined by values of the conditioning attributes, with
/// its own cut of the focused attribute.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Context {
    /// The predicate (rule syntax); `None` for all records.
    pub when: Option<String>,
    pub records: u64,
    pub cut: Vec<CutInterval>,
    /// Intervals the context would get on a tree of its own (the cut of
    /// `per_context`): what the nesting costs it, `cut.len()` against this.
    pub alone: usize,
}

/// The result: ranking, contexts, hierarchy and G.
#[derive(Debug, Clone)]
pub struct CorrelatedHierarchy {
    pub focus: String,
    /// The candidate attributes by decreasing correlation with the focus.
    pub ranking: Vec<(String, Option<f64>)>,
    /// The attributes that condition the cuts, strongest first.
    pub used: Vec<String>,
    pub contexts: Vec<Context>,
    pub hierarchy: Hierarchy,
    pub conditions: Conditions,
}

/// A node of the interval tree: dictionary codes `lo..=hi` of the focus.
#[derive(Debug, Clone)]
struct Node {
    lo: u32,
    hi: u32,
    children: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Tree {
    nodes: Vec<Node>,
}

/// Records of one context per code of the focus, as prefix sums.
struct Counts {
    prefix: Vec<u64>,
}

impl Counts {
    fn new(focus: &Column, rows: &[u32]) -> Self {
        let card = focus.cardinality();
        let mut hist = vec![0u64; card + 1];
        for &r in rows {
            let c = focus.code(r as usize) as usize;
            if c < card {
                hist[c + 1] += 1;
            }
        }
        for i in 1..hist.len() {
            hist[i] += hist[i - 1];
        }
        Self { prefix: hist }
    }
    fn between(&self, lo: u32, hi: u32) -> u64 {
        self.prefix[hi as usize + 1] - self.prefix[lo as usize]
    }
}

impl Tree {
    fn new(card: usize) -> Self {
        Self {
            nodes: vec![Node {
                lo: 0,
                hi: card.saturating_sub(1) as u32,
                children: Vec::new(),
            }],
        }
    }

    fn push(&mut self, lo: u32, hi: u32, children: Vec<usize>) -> usize {
        self.nodes.push(Node { lo, hi, children });
        self.nodes.len() - 1
    }

    /// The context's cut below `id` (see the module doc), appended to `out`.
    fn refine(&mut self, id: usize, counts: &Counts, n: u64, out: &mut Vec<usize>) {
        let (lo, hi) = (self.nodes[id].lo, self.nodes[id].hi);
        if self.nodes[id].children.is_empty() {
            let pieces = gather(lo..=hi, |c| counts.between(c, c), n, false);
            if pieces.len() < 2 {
                out.push(id);
                return;
            }
            for (a, b) in pieces {
                let child = self.push(lo + a as u32, lo + b as u32, Vec::new());
                self.nodes[id].children.push(child);
                out.push(child);
            }
            return;
        }
        let children = self.nodes[id].children.clone();
        let groups = gather(
            children.iter().copied(),
            |c| counts.between(self.nodes[c].lo, self.nodes[c].hi),
            n,
            true,
        );
        if groups.len() < 2 {
            out.push(id);
            return;
        }
        let mut new_children = Vec::with_capacity(groups.len());
        for (a, b) in groups {
            if a == b {
                let child = children[a];
                new_children.push(child);
                self.refine(child, counts, n, out);
            } else {
                let run = children[a..=b].to_vec();
                let (glo, ghi) = (self.nodes[run[0]].lo, self.nodes[run[run.len() - 1]].hi);
                let g = self.push(glo, ghi, run);
                new_children.push(g);
                out.push(g);
            }
        }
        self.nodes[id].children = new_children;
    }
}

/// Greedy runs of consecutive items, each closed once it reaches `n`
/// records; a last run short of `n` joins the ones before it. With
/// `zero_alone`, an item without records that would open a run is a run of
/// its own: a child node the context has no records in needs no merging
/// (merging it would only coarsen the context's cut for nothing). Returns
/// index ranges (inclusive) into the items.
fn gather<T>(
    items: impl Iterator<Item = T>,
    records: impl Fn(T) -> u64,
    n: u64,
    zero_alone: bool,
) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize, u64)> = Vec::new();
    let (mut start, mut acc, mut len) = (0usize, 0u64, 0usize);
    for (i, item) in items.enumerate() {
        let r = records(item);
        acc += r;
        len = i + 1;
        if acc >= n.max(1) || (zero_alone && start == i && r == 0) {
            runs.push((start, i, acc));
            start = i + 1;
            acc = 0;
        }
    }
    if start < len {
        // The short tail joins the runs before it until the union reaches
        // n (a run without records, kept alone above, does not count).
        let (mut from, mut total) = (start, acc);
        while total < n.max(1) {
            match runs.pop() {
                Some((a, _, r)) => {
                    from = a;
                    total += r;
                }
                None => break,
            }
        }
        runs.push((from, len - 1, total));
    }
    runs.into_iter().map(|(a, b, _)| (a, b)).collect()
}

/// A rule word: bare when the rule grammar reads it back unchanged,
/// quoted otherwise.
fn word(s: &str) -> Result<String> {
    let bare = !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || "(){}<>=!'\",".contains(c))
        && !["and", "or", "not", "in"]
            .iter()
            .any(|k| s.eq_ignore_ascii_case(k));
    if bare {
        Ok(s.to_string())
    } else if !s.contains('"') {
        Ok(format!("\"{s}\""))
    } else if !s.contains('\'') {
        Ok(format!("'{s}'"))
    } else {
        Err(Error::Limit(format!(
            "the value {s} holds both quote characters, so no condition can name it"
        )))
    }
}

/// The predicate of one category of a conditioning attribute.
fn category_rule(col: &Column, cats: &Categories, cat: u32) -> Result<String> {
    let name = word(col.name())?;
    let (lo, hi) = cats.categories[cat as usize]
        .codes
        .ok_or_else(|| Error::Internal("the missing category has no predicate".into()))?;
    if cats.binned {
        Ok(format!(
            "{name}>={} and {name}<={}",
            word(col.display(lo))?,
            word(col.display(hi))?
        ))
    } else {
        Ok(format!("{name}={}", word(col.display(lo))?))
    }
}

/// A context's predicate parts, one per conditioning attribute.
#[derive(Debug, Clone)]
struct Ctx {
    parts: Vec<String>,
    rows: Vec<u32>,
}

impl Ctx {
    fn when(&self) -> Option<String> {
        match self.parts.len() {
            0 => None,
            1 => Some(self.parts[0].clone()),
            _ => Some(
                self.parts
                    .iter()
                    .map(|p| format!("({p})"))
                    .collect::<Vec<_>>()
                    .join(" and "),
            ),
        }
    }
}

/// A context's sub-contexts and their cuts (frontiers of the tree).
type Split = (Vec<Ctx>, Vec<Vec<usize>>);

/// Split a context by the value groups of one attribute (module doc);
/// `None` when it makes fewer than two groups.
fn split(ctx: &Ctx, col: &Column, cats: &Categories, n: u64) -> Result<Option<Vec<Ctx>>> {
    let of_row = cats.of_rows();
    let mut count = vec![0u64; cats.len()];
    for &r in &ctx.rows {
        let c = of_row[r as usize];
        if c != Categories::NONE {
            count[c as usize] += 1;
        }
    }
    let mut explicit: Vec<u32> = (0..cats.len() as u32)
        .filter(|&c| cats.categories[c as usize].codes.is_some() && count[c as usize] >= n)
        .collect();
    let explicit_total: u64 = explicit.iter().map(|&c| count[c as usize]).sum();
    let rest = ctx.rows.len() as u64 - explicit_total;
    if rest > 0 && rest < n {
        // The pool is short of N: it joins the smallest group, which then
        // becomes the "other" group.
        if let Some(i) = (0..explicit.len()).min_by_key(|&i| (count[explicit[i] as usize], i)) {
            explicit.remove(i);
        }
    }
    let has_rest = rest > 0 || explicit.len() < (0..cats.len()).filter(|&c| count[c] > 0).count();
    let groups = explicit.len() + usize::from(has_rest);
    if groups < 2 {
        return Ok(None);
    }
    let mut slot = vec![explicit.len(); cats.len()];
    for (i, &c) in explicit.iter().enumerate() {
        slot[c as usize] = i;
    }
    let mut parts = explicit
        .iter()
        .map(|&c| category_rule(col, cats, c))
        .collect::<Result<Vec<_>>>()?;
    if has_rest {
        parts.push(format!(
            "not ({})",
            parts
                .iter()
                .map(|p| if cats.binned {
                    format!("({p})")
                } else {
                    p.clone()
                })
                .collect::<Vec<_>>()
                .join(" or ")
        ));
    }
    let mut out: Vec<Ctx> = parts
        .into_iter()
        .map(|p| Ctx {
            parts: ctx.parts.iter().cloned().chain([p]).collect(),
            rows: Vec::new(),
        })
        .collect();
    for &r in &ctx.rows {
        let c = of_row[r as usize];
        let g = if c == Categories::NONE {
            explicit.len()
        } else {
            slot[c as usize]
        };
        out[g].rows.push(r);
    }
    Ok(Some(out))
}

/// Run Algorithm 4 (see the module doc).
pub fn construct(ds: &Dataset, spec: &CorrelatedSpec) -> Result<CorrelatedHierarchy> {
    let focus = ds.col(spec.focus);
    if !focus.is_numeric() {
        return Err(Error::invalid(Parameter::FocusedAttribute, format!(
            "the focused attribute '{}' is not numeric: Algorithm 4 cuts an ordered domain into intervals",
            focus.name()
        )));
    }
    if focus.cardinality() == 0 {
        return Err(Error::invalid(
            Parameter::FocusedAttribute,
            format!("the focused attribute '{}' has no values", focus.name()),
        ));
    }
    if spec.min_records == 0 {
        return Err(Error::invalid(
            Parameter::MinRecords,
            "the least number of records per cell (context × interval) must be at least 1",
        ));
    }
    let attrs: Vec<usize> = spec
        .attributes
        .iter()
        .copied()
        .filter(|&c| c != spec.focus)
        .collect();
    let mut columns = vec![spec.focus];
    columns.extend(&attrs);
    let matrix = correlation_matrix(ds, &columns, spec.measure, &spec.discretization)?;
    let ranked = matrix.ranked(0);
    let ranking: Vec<(String, Option<f64>)> = ranked
        .iter()
        .map(|&(j, v)| (matrix.columns[j].clone(), v))
        .collect();

    let n = spec.min_records;
    let mut tree = Tree::new(focus.cardinality());
    let all_rows: Vec<u32> = (0..ds.n_rows() as u32).collect();
    let mut contexts = vec![Ctx {
        parts: Vec::new(),
        rows: all_rows,
    }];
    let mut used = Vec::new();
    let cut_all = |tree: &mut Tree, ctxs: &[Ctx]| -> Vec<Vec<usize>> {
        let mut order: Vec<usize> = (0..ctxs.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(ctxs[i].rows.len()), i));
        let mut cuts = vec![Vec::new(); ctxs.len()];
        for i in order {
            let counts = Counts::new(focus, &ctxs[i].rows);
            tree.refine(0, &counts, n, &mut cuts[i]);
        }
        cuts
    };
    let mut cuts = cut_all(&mut tree, &contexts);
    for &(j, _) in ranked.iter().filter(|(_, v)| v.is_some_and(|x| x > 0.0)) {
        if used.len() >= spec.depth {
            break;
        }
        let col = ds.col(columns[j]);
        let cats = categorize(col, &spec.discretization)?;
        let mut next_ctx = Vec::new();
        let mut next_cut = Vec::new();
        let mut changed = false;
        // Largest context first, as in the first cut.
        let mut order: Vec<usize> = (0..contexts.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(contexts[i].rows.len()), i));
        let mut placed: Vec<Option<Split>> = vec![None; contexts.len()];
        for i in order {
            let ctx = &contexts[i];
            let Some(subs) = split(ctx, col, &cats, n)? else {
                continue;
            };
            let mut trial = tree.clone();
            let sub_cuts = cut_all(&mut trial, &subs);
            if sub_cuts.iter().any(|c| *c != cuts[i]) {
                tree = trial;
                placed[i] = Some((subs, sub_cuts));
                changed = true;
            }
        }
        for (i, p) in placed.into_iter().enumerate() {
            match p {
                Some((subs, sub_cuts)) => {
                    next_ctx.extend(subs);
                    next_cut.extend(sub_cuts);
                }
                None => {
                    next_ctx.push(contexts[i].clone());
                    next_cut.push(cuts[i].clone());
                }
            }
        }
        if changed {
            used.push(col.name().to_string());
            contexts = next_ctx;
            cuts = next_cut;
        }
    }

    // The final contexts are cut again on a fresh tree, all together and
    // largest first: the trial cuts above only decide which splits to keep,
    // and cutting afresh keeps coarser contexts that were split away (and a
    // small context cut early in the order of its parent) from shaping the
    // tree the final ones must nest in.
    let mut tree = Tree::new(focus.cardinality());
    let cuts = cut_all(&mut tree, &contexts);
    let hierarchy = build_hierarchy(focus, &tree, &cuts)?;
    // Each context's cut on a tree of its own: reported beside the nested
    // cut, and what G carries with `per_context`.
    let own: Vec<(Tree, Vec<usize>)> = contexts
        .iter()
        .map(|ctx| {
            let mut t = Tree::new(focus.cardinality());
            let mut cut = Vec::new();
            t.refine(0, &Counts::new(focus, &ctx.rows), n, &mut cut);
            (t, cut)
        })
        .collect();
    let fname = word(focus.name())?;
    let mut conditions = Conditions {
        delete_below: spec.delete_below,
        ..Conditions::default()
    };
    let mut out_contexts = Vec::with_capacity(contexts.len());
    for ((ctx, nested), (own_tree, own_cut)) in contexts.iter().zip(&cuts).zip(&own) {
        let (tree, cut) = if spec.per_context {
            (own_tree, own_cut)
        } else {
            (&tree, nested)
        };
        let counts = Counts::new(focus, &ctx.rows);
        let when = ctx.when();
        let mut intervals = Vec::with_capacity(cut.len());
        let mut sorted = cut.clone();
        sorted.sort_by_key(|&id| tree.nodes[id].lo);
        for id in sorted {
            let node = &tree.nodes[id];
            let records = counts.between(node.lo, node.hi);
            let (from, to) = (
                focus.number(node.lo).unwrap_or(f64::NAN),
                focus.number(node.hi).unwrap_or(f64::NAN),
            );
            if records > 0 {
                let range = format!(
                    "{fname}>={} and {fname}<={}",
                    word(focus.display(node.lo))?,
                    word(focus.display(node.hi))?
                );
                let rule = match &when {
                    Some(w) => format!("{w} and {range}"),
                    None => range,
                };
                conditions.conditions.push(Condition::generalize_interval(
                    Some(&rule),
                    focus.name(),
                    from,
                    to,
                ));
            }
            intervals.push(CutInterval {
                label: interval_label(focus, node),
                from,
                to,
                records,
            });
        }
        out_contexts.push(Context {
            when,
            records: ctx.rows.len() as u64,
            cut: intervals,
            alone: own_cut.len(),
        });
    }
    Ok(CorrelatedHierarchy {
        focus: focus.name().to_string(),
        ranking,
        used,
        contexts: out_contexts,
        hierarchy,
        conditions,
    })
}

fn interval_label(col: &Column, node: &Node) -> String {
    if node.lo == node.hi {
        col.display(node.lo).to_string()
    } else {
        format!("[{}-{}]", col.display(node.lo), col.display(node.hi))
    }
}

/// The nested family of the cuts' intervals as ARX levels (module doc).
fn build_hierarchy(focus: &Column, tree: &Tree, cuts: &[Vec<usize>]) -> Result<Hierarchy> {
    let mut used: Vec<usize> = cuts
        .iter()
        .flatten()
        .copied()
        .filter(|&id| id != 0)
        .collect();
    used.sort_unstable();
    used.dedup();
    // Widest first, so each value's chain lists its intervals root-side first.
    used.sort_by_key(|&id| {
        let n = &tree.nodes[id];
        (std::cmp::Reverse(n.hi - n.lo), n.lo)
    });
    let card = focus.cardinality();
    let mut chains: Vec<Vec<usize>> = vec![Vec::new(); card];
    for &id in &used {
        let node = &tree.nodes[id];
        for chain in &mut chains[node.lo as usize..=node.hi as usize] {
            chain.push(id);
        }
    }
    // Generalization steps: the longest chain, then the root.
    let steps = chains.iter().map(Vec::len).max().unwrap_or(0) + 1;
    let rows: Vec<Vec<String>> = chains
        .iter()
        .enumerate()
        .map(|(c, chain)| {
            let mut row = Vec::with_capacity(steps + 1);
            row.push(focus.display(c as u32).to_string());
            for level in 1..steps {
                // The node at depth `steps - level` from the root, or the
                // deepest one when the chain is shorter. `chain` is never
                // empty here: with any interval below the root, every
                // context's cut covers every value with one.
                let at = (steps - level).min(chain.len()).saturating_sub(1);
                row.push(chain.get(at).map_or_else(
                    || "*".to_string(),
                    |&id| interval_label(focus, &tree.nodes[id]),
                ));
            }
            row.push("*".to_string());
            row
        })
        .collect();
    Hierarchy::from_rows(focus.name(), &rows)
}

#[cfg(test)]
mod tests;
