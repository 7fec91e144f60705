//! Local suppression to k-anonymity, as sdcMicro's `localSuppression` /
//! `kAnon` define it (Templ, *Statistical Disclosure Control for
//! Microdata*, Springer 2017, Section 3.5; the SDC Practice Guide's
//! "Local suppression"; sdcMicro's R/localSuppression.R is the reference
//! implementation, read, not copied): suppress as few key-variable cells as
//! possible so that every record is in a class of at least k.
//!
//! Choices where the sources are loose, each a documented option:
//!
//! - **What a `*` matches** ([`Convention`]): by default a suppressed cell
//!   matches any value on either side — a record's frequency is the number
//!   of records whose key tuple is compatible with its own (for every key,
//!   equal or either cell `*`), sdcMicro's freqCalc with alpha = 1 and the
//!   rule of `risk::original_matches` for hidden cells. `OwnValue` makes
//!   `*` a value of its own (alpha = 0), stricter. Cells missing in the
//!   input count as `*` under both (sdcMicro does the same: a suppressed
//!   cell *is* `NA` there) and are published as `*`, but are not counted
//!   as suppressions made.
//! - **Importance** ([`LocalSuppressionOptions::importance`]): sdcMicro's
//!   numbers, 1 = most important = suppressed last; by default the keys
//!   ranked by their number of categories, fewest first = most important,
//!   ties in key order (sdcMicro's `sort`, which is stable).
//! - **Strata**: k within each value of a column (not a key), each stratum
//!   solved on its own; a stratum of fewer than k records is refused.
//! - **combs** (the all-m variant): for each m, largest first, k-anonymity
//!   on every subset of m keys (in increasing order of their bit masks
//!   over the keys), then on the full set. On the full set k-anonymity
//!   implies it on every subset (dropping a key only adds compatible
//!   records, under either convention), so the subset passes change which
//!   cells are suppressed, not what is guaranteed; the claim lists them
//!   and the verifier checks them anyway.
//!
//! **The search** ([`search`]) replaces sdcMicro's greedy (one cell per
//! violating record per sweep, the least important key where it differs
//! from its nearest records) by an exact choice per record: the smallest
//! set of keys whose suppression brings that record's frequency to k,
//! trying every set of one key, then two, … (at most 2^m − 1 sets, m ≤
//! [`MAX_KEYS`]), importance breaking ties. Distinct tuples are taken
//! once with their counts, highest risk first; suppressions only ever add
//! compatible records under alpha = 1, so one pass suffices.
//!
//! **Never worse than the greedy.** No per-record argument makes one
//! heuristic dominate another on every table (an early choice changes
//! what later records need), so the guarantee is made by construction:
//! each pass also runs sdcMicro's greedy ([`greedy`], faithful to its
//! reduction of large classes and its sweeps) on the same input, and
//! keeps the greedy's cells when they are fewer. The greedy is stopped as
//! soon as its cells exceed the search's (it can then no longer be kept;
//! its count is reported as a lower bound). Under alpha = 1, then, every
//! pass suppresses at most what sdcMicro would on the same records and
//! keys; the release says which was kept (`CellSuppression::method`) and
//! the greedy's count. What the search alone guarantees, and the tests
//! check against a brute force: it never touches a record that was safe
//! in the input, and when the records below k share one tuple it
//! suppresses exactly the fewest cells of any solution touching only them,
//! on the least important keys. On Adult it suppresses 2.3–5.4 times fewer
//! cells than the greedy (BENCHMARKS.md, "Issue 33"). The greedy baseline
//! exists for alpha = 1 only (sdcMicro's default), so under `OwnValue` the
//! search runs alone.

mod greedy;
mod index;
pub mod risk_target;
mod search;

use crate::data::Dataset;
use crate::error::{Error, Parameter, Result};
use crate::progress::Progress;
use crate::release::{
    AttributeCells, Cell, CellSuppression, Convention, EquivalenceGroup, Guarantee, HouseholdCells,
    HouseholdSizeCells, Release, ReleaseParams,
};

use super::{check_k, Algorithm, Needs, Request, Use};

use index::{subsets, Layout, State};

/// The most key variables a pass takes (sets of keys are `u32` bit masks,
/// and the search tries up to 2^m − 1 sets per record).
pub const MAX_KEYS: usize = 16;

/// The algorithm's id in the registry.
pub const ID: &str = "local-suppression";

/// What local suppression reads in `Options::local_suppression`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalSuppressionOptions {
    /// sdcMicro's importance per quasi-identifier (parallel to the
    /// request's `qi`): 1 = most important = suppressed last, at most the
    /// number of keys; ties allowed. Empty: ranked by number of categories.
    pub importance: Vec<u32>,
    /// The all-m variant: sizes of key subsets made k-anonymous first.
    pub combs: Vec<u32>,
    pub convention: Convention,
    /// A stratum column: k within each of its values.
    pub strata: Option<usize>,
    /// A household identifier column: the release's suppressions are
    /// reported by household size, and a risk target is met by every
    /// household's risk ([`risk_target`]).
    pub household: Option<usize>,
    /// A target on individual risk instead of k ([`risk_target`]).
    pub risk: Option<RiskTarget>,
}

/// Suppress until every record's individual risk (or, with a household
/// column, every household's risk) is at most `threshold` ([`risk_target`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RiskTarget {
    pub threshold: f64,
    /// The sampling-weight column; without one a record's risk is 1/f.
    pub weights: Option<usize>,
}

/// Per row of the dataset, what local suppression decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Keys the algorithm suppressed, bit a for `qi[a]` (cells missing in
    /// the input excluded).
    pub suppressed: Vec<u32>,
    /// Keys missing in the input.
    pub missing: Vec<u32>,
    /// The greedy's cells, summed over the passes (alpha = 1 only); in a
    /// pass where they exceeded the search's the greedy was stopped there,
    /// and its count is a lower bound ([`Outcome::greedy_stopped`]).
    pub greedy_total: Option<u64>,
    /// Whether the greedy was stopped in some pass.
    pub greedy_stopped: bool,
    /// Whether a pass kept the greedy's cells.
    pub greedy_won: bool,
    /// Under a risk target: the risks before and after.
    pub risk: Option<crate::release::RiskFigures>,
}

impl Outcome {
    /// Cells suppressed in all.
    pub fn total(&self) -> u64 {
        self.suppressed
            .iter()
            .map(|m| u64::from(m.count_ones()))
            .sum()
    }

    /// Cells suppressed per key.
    pub fn per_key(&self, keys: usize) -> Vec<u64> {
        (0..keys)
            .map(|a| {
                self.suppressed
                    .iter()
                    .filter(|&&m| m & (1 << a) != 0)
                    .count() as u64
            })
            .collect()
    }
}

/// The default importance: keys ranked by number of categories, fewest
/// first (importance 1), ties in key order.
pub fn default_importance(ds: &Dataset, qi: &[usize]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..qi.len()).collect();
    order.sort_by_key(|&a| (ds.col(qi[a]).cardinality(), a));
    let mut imp = vec![0u32; qi.len()];
    for (rank, &a) in order.iter().enumerate() {
        imp[a] = rank as u32 + 1;
    }
    imp
}

/// sdcMicro's importance numbers (one per key of `qi`, 1 = most
/// important) from the keys named from the most important to the least,
/// as a project saves them (`data::LocalSuppressionParams::importance`);
/// empty names: empty numbers (the default ranking). Every key must be
/// named once.
pub fn importance_of_names(ds: &Dataset, qi: &[usize], names: &[String]) -> Result<Vec<u32>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut numbers = vec![0u32; qi.len()];
    for (rank, name) in names.iter().enumerate() {
        let c = ds.column_index(name).map_err(|_| {
            Error::invalid(
                Parameter::Importance,
                format!(
                    "no column '{name}': name the key variables from the most important to the least"
                ),
            )
        })?;
        let Some(a) = qi.iter().position(|&q| q == c) else {
            return Err(Error::invalid(
                Parameter::Importance,
                format!("'{name}' is not a key variable (quasi-identifier)"),
            ));
        };
        if numbers[a] != 0 {
            return Err(Error::invalid(
                Parameter::Importance,
                format!("'{name}' is named twice"),
            ));
        }
        numbers[a] = rank as u32 + 1;
    }
    if let Some(a) = numbers.iter().position(|&n| n == 0) {
        return Err(Error::invalid(
            Parameter::Importance,
            format!(
                "it names {} of the {} key variables: '{}' is missing (name them all, most important first)",
                names.len(),
                qi.len(),
                ds.col(qi[a]).name()
            ),
        ));
    }
    Ok(numbers)
}

/// Whether [`suppress`] takes these options for the keys `qi` of `ds` at
/// k, with the message it would refuse them with: a front end checks a
/// setting when it is given, not only when a run starts.
pub fn check(ds: &Dataset, qi: &[usize], k: u32, options: &LocalSuppressionOptions) -> Result<()> {
    check_options(ds, qi, k, options)
}

/// Local suppression of the keys `qi` of `ds` to k (module doc).
pub fn suppress(
    ds: &Dataset,
    qi: &[usize],
    k: u32,
    options: &LocalSuppressionOptions,
    progress: &Progress,
) -> Result<Outcome> {
    check_options(ds, qi, k, options)?;
    let m = qi.len();
    let n = ds.n_rows();
    let importance = if options.importance.is_empty() {
        default_importance(ds, qi)
    } else {
        options.importance.clone()
    };
    // Level: higher = more important = suppressed later.
    let levels: Vec<u32> = importance.iter().map(|&i| m as u32 - i).collect();
    let cols: Vec<&[u32]> = qi.iter().map(|&c| ds.col(c).codes()).collect();
    let missing: Vec<u32> = (0..n)
        .map(|r| {
            (0..m).fold(0u32, |acc, a| {
                acc | (u32::from(ds.col(qi[a]).is_missing(cols[a][r])) << a)
            })
        })
        .collect();
    if let Some(target) = &options.risk {
        return risk_target::suppress(
            ds,
            qi,
            target,
            options.household,
            &levels,
            missing,
            progress,
        );
    }
    let mut masks = missing.clone();
    let strata: Vec<Vec<u32>> = match options.strata {
        None => vec![(0..n as u32).collect()],
        Some(s) => {
            let col = ds.col(s);
            let mut by: Vec<Vec<u32>> = vec![Vec::new(); col.code_space()];
            for r in 0..n {
                by[col.code(r) as usize].push(r as u32);
            }
            by.retain(|rows| !rows.is_empty());
            by
        }
    };
    let mut sizes: Vec<u32> = options.combs.clone();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    let mut passes: Vec<u32> = Vec::new();
    for &size in &sizes {
        if size as usize >= m {
            continue;
        }
        passes.extend(subsets((1u32 << m) - 1, size));
    }
    passes.push((1u32 << m) - 1);
    let total_passes = (strata.len() * passes.len()) as u32;
    let mut greedy_total = (options.convention == Convention::AnyValue).then_some(0u64);
    let mut greedy_won = false;
    let mut greedy_stopped = false;
    let mut done = 0u32;
    for rows in &strata {
        for &keys in &passes {
            progress.set_phase("local suppression", done, total_passes);
            done += 1;
            let pass = Pass {
                ds,
                qi,
                cols: &cols,
                rows,
                keys,
                levels: &levels,
                k: u64::from(k),
                convention: options.convention,
            };
            let (added, greedy) = pass.run(&masks, progress)?;
            if let (Some(g), Some(total)) = (greedy, greedy_total.as_mut()) {
                *total += g.cells;
                greedy_won |= g.kept;
                greedy_stopped |= g.stopped;
            }
            for (&r, add) in rows.iter().zip(added) {
                masks[r as usize] |= add;
            }
        }
    }
    let suppressed = masks
        .iter()
        .zip(&missing)
        .map(|(&m, &miss)| m & !miss)
        .collect();
    Ok(Outcome {
        suppressed,
        missing,
        greedy_total,
        greedy_stopped,
        greedy_won,
        risk: None,
    })
}

/// sdcMicro's greedy alone ([`greedy`]) on the keys `qi` of `ds`, without
/// strata or combs: per row the keys it suppresses (missing cells
/// excluded) and their number. The baseline the tests and benches
/// compare [`suppress`] with.
pub fn sdcmicro_greedy(
    ds: &Dataset,
    qi: &[usize],
    k: u32,
    importance: &[u32],
    progress: &Progress,
) -> Result<(Vec<u32>, u64)> {
    let options = LocalSuppressionOptions {
        importance: importance.to_vec(),
        ..LocalSuppressionOptions::default()
    };
    check_options(ds, qi, k, &options)?;
    let m = qi.len();
    let importance = if importance.is_empty() {
        default_importance(ds, qi)
    } else {
        importance.to_vec()
    };
    let levels: Vec<u32> = importance.iter().map(|&i| m as u32 - i).collect();
    let bits: Vec<u32> = qi.iter().map(|&c| ds.col(c).code_bits()).collect();
    let layout = Layout::new(&bits).ok_or_else(|| Error::Internal("keys too wide".into()))?;
    let n = ds.n_rows();
    let codes: Vec<u32> = (0..n)
        .flat_map(|r| qi.iter().map(move |&c| ds.col(c).code(r)))
        .collect();
    let missing: Vec<u32> = (0..n)
        .map(|r| {
            (0..m).fold(0u32, |acc, a| {
                let col = ds.col(qi[a]);
                acc | (u32::from(col.is_missing(col.code(r))) << a)
            })
        })
        .collect();
    let (masks, cells) = greedy::greedy(
        &layout,
        &codes,
        &missing,
        &levels,
        u64::from(k),
        None,
        progress,
    )?;
    let masks = masks.ok_or_else(|| Error::Internal("the greedy stopped".into()))?;
    let added = masks.iter().zip(&missing).map(|(&m, &x)| m & !x).collect();
    Ok((added, cells))
}

fn check_options(
    ds: &Dataset,
    qi: &[usize],
    k: u32,
    options: &LocalSuppressionOptions,
) -> Result<()> {
    let m = qi.len();
    if let Some(target) = &options.risk {
        risk_target::check(ds, target, options)?;
    } else if k == 0 {
        return Err(Error::invalid(Parameter::K, "k must be at least 1"));
    }
    if m == 0 {
        return Err(Error::invalid(
            Parameter::Roles,
            "local suppression needs at least one key variable (quasi-identifier)",
        ));
    }
    if m > MAX_KEYS {
        return Err(Error::invalid(
            Parameter::Roles,
            format!("local suppression takes at most {MAX_KEYS} key variables, not {m}"),
        ));
    }
    let n = ds.n_rows() as u64;
    if let Some(h) = options.household {
        if qi.contains(&h) {
            return Err(Error::invalid(
                Parameter::Household,
                format!(
                    "'{}' is a key variable and cannot be the household identifier too",
                    ds.col(h).name()
                ),
            ));
        }
        // A missing identifier is refused with its row.
        crate::risk::household::households_of(ds, ds.name(), ds.col(h).name())?;
    }
    if options.risk.is_none() && u64::from(k) > n {
        return Err(Error::invalid(
            Parameter::K,
            format!(
                "k = {k} is larger than the data ({n} records): no record can be in a class of {k}"
            ),
        ));
    }
    if !options.importance.is_empty() {
        if options.importance.len() != m {
            return Err(Error::invalid(
                Parameter::Importance,
                format!(
                    "the importance gives {} values for {m} key variables: give one per key, 1 = most important",
                    options.importance.len()
                ),
            ));
        }
        if let Some(bad) = options
            .importance
            .iter()
            .find(|&&i| i == 0 || i as usize > m)
        {
            return Err(Error::invalid(
                Parameter::Importance,
                format!("importance {bad} is not between 1 and {m}, the number of key variables"),
            ));
        }
    }
    if let Some(&bad) = options.combs.iter().find(|&&c| c == 0 || c as usize > m) {
        return Err(Error::invalid(
            Parameter::Combs,
            format!("combs {bad}: subsets of key variables have between 1 and {m} of them"),
        ));
    }
    if let Some(s) = options.strata {
        let col = ds.col(s);
        if qi.contains(&s) {
            return Err(Error::invalid(
                Parameter::Strata,
                format!(
                    "'{}' is a key variable and cannot be the stratum too",
                    col.name()
                ),
            ));
        }
        let freq = col.frequencies();
        if let Some((code, &f)) = freq
            .iter()
            .enumerate()
            .filter(|(_, &f)| f > 0)
            .min_by_key(|(_, &f)| f)
        {
            if f < u64::from(k) {
                return Err(Error::invalid(
                    Parameter::K,
                    format!(
                        "k = {k} is larger than the stratum '{}' = '{}' ({f} records): no record there can be in a class of {k}",
                        col.name(),
                        col.display(code as u32)
                    ),
                ));
            }
        }
    }
    let bits: Vec<u32> = qi.iter().map(|&c| ds.col(c).code_bits()).collect();
    if Layout::new(&bits).is_none() {
        return Err(Error::invalid(
            Parameter::Roles,
            format!(
                "the key variables have too many categories together ({} bits, at most 128): recode some (global recoding) before suppressing",
                bits.iter().sum::<u32>()
            ),
        ));
    }
    Ok(())
}

/// What the greedy did in a pass.
#[derive(Debug, Clone, Copy)]
struct GreedyRun {
    cells: u64,
    /// Its cells were kept (fewer than the search's).
    kept: bool,
    /// Stopped once above the search's cells (`cells` is then a bound).
    stopped: bool,
}

/// One pass: the rows of a stratum on a set of keys.
struct Pass<'a> {
    ds: &'a Dataset,
    qi: &'a [usize],
    cols: &'a [&'a [u32]],
    rows: &'a [u32],
    /// Bits over `qi`.
    keys: u32,
    levels: &'a [u32],
    k: u64,
    convention: Convention,
}

impl Pass<'_> {
    /// The cells to add per row of the pass (bits over `qi`), and the
    /// greedy's total with whether it was kept.
    fn run(&self, masks: &[u32], progress: &Progress) -> Result<(Vec<u32>, Option<GreedyRun>)> {
        let on: Vec<usize> = (0..self.qi.len())
            .filter(|&a| self.keys & (1 << a) != 0)
            .collect();
        let bits: Vec<u32> = on
            .iter()
            .map(|&a| self.ds.col(self.qi[a]).code_bits())
            .collect();
        let layout = Layout::new(&bits).ok_or_else(|| Error::Internal("keys too wide".into()))?;
        let levels: Vec<u32> = on.iter().map(|&a| self.levels[a]).collect();
        // Codes and masks of the pass's rows on its keys.
        let local = |r: u32| -> u32 {
            on.iter().enumerate().fold(0u32, |acc, (j, &a)| {
                acc | (u32::from(masks[r as usize] & (1 << a) != 0) << j)
            })
        };
        let codes: Vec<u32> = self
            .rows
            .iter()
            .flat_map(|&r| on.iter().map(move |&a| self.cols[a][r as usize]))
            .collect();
        let local_masks: Vec<u32> = self.rows.iter().map(|&r| local(r)).collect();
        let (new_masks, greedy) = match self.convention {
            Convention::AnyValue => {
                let (mine, cells) =
                    self.any_value(&layout, &codes, &local_masks, &levels, progress)?;
                let (theirs, g) = greedy::greedy(
                    &layout,
                    &codes,
                    &local_masks,
                    &levels,
                    self.k,
                    Some(cells),
                    progress,
                )?;
                match theirs {
                    Some(theirs) if g < cells => (
                        theirs,
                        Some(GreedyRun {
                            cells: g,
                            kept: true,
                            stopped: false,
                        }),
                    ),
                    _ => (
                        mine,
                        Some(GreedyRun {
                            cells: g,
                            kept: false,
                            stopped: g > cells,
                        }),
                    ),
                }
            }
            Convention::OwnValue => {
                let mut state =
                    State::new(layout, codes, local_masks.clone(), vec![1; self.rows.len()]);
                search::own_value(&mut state, self.k, &levels, progress)?;
                (state.masks.clone(), None)
            }
        };
        // Back to bits over `qi`.
        let added = new_masks
            .iter()
            .zip(&local_masks)
            .map(|(&new, &old)| {
                let mut out = 0u32;
                let mut extra = new & !old;
                while extra != 0 {
                    let j = extra.trailing_zeros() as usize;
                    out |= 1 << on[j];
                    extra &= extra - 1;
                }
                out
            })
            .collect();
        Ok((added, greedy))
    }

    /// The search on distinct tuples; the new mask of every row.
    fn any_value(
        &self,
        layout: &Layout,
        codes: &[u32],
        masks: &[u32],
        levels: &[u32],
        progress: &Progress,
    ) -> Result<(Vec<u32>, u64)> {
        let m = layout.m;
        let n = masks.len();
        // Distinct published tuples: pattern and codes outside it.
        let mut ids: rustc_hash::FxHashMap<(u32, Vec<u32>), u32> = Default::default();
        let mut unit_of = Vec::with_capacity(n);
        let mut unit_codes: Vec<u32> = Vec::new();
        let mut unit_masks: Vec<u32> = Vec::new();
        let mut weights: Vec<u32> = Vec::new();
        for r in 0..n {
            let row = &codes[r * m..(r + 1) * m];
            let key: Vec<u32> = (0..m)
                .map(|a| if masks[r] & (1 << a) != 0 { 0 } else { row[a] })
                .collect();
            let next = unit_masks.len() as u32;
            let id = *ids.entry((masks[r], key)).or_insert_with(|| {
                unit_codes.extend_from_slice(row);
                unit_masks.push(masks[r]);
                weights.push(0);
                next
            });
            weights[id as usize] += 1;
            unit_of.push(id);
        }
        let mut state = State::new(layout.clone(), unit_codes, unit_masks.clone(), weights);
        let freq = search::frequencies(&mut state);
        let order = search::risk_order(&freq, &state.weights, self.k);
        let cells = search::any_value(&mut state, self.k, levels, &order, progress)?;
        let out = unit_of.iter().map(|&u| state.masks[u as usize]).collect();
        Ok((out, cells))
    }
}

/// `local-suppression`: the [`Algorithm`] over [`suppress`].
pub struct LocalSuppression;

impl Algorithm for LocalSuppression {
    fn id(&self) -> &'static str {
        "local-suppression"
    }

    fn name(&self) -> &'static str {
        "Local suppression (k-anonymity)"
    }

    fn needs(&self) -> Needs {
        Needs {
            k: true,
            l: false,
            p: false,
            t: false,
            seed: false,
            sensitive: false,
            semi_sensitive: false,
            hierarchies: Use::No,
            conditions: Use::No,
            settings: true,
            grouped: false,
            numeric: false,
        }
    }

    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        let options = &req.options.local_suppression;
        // A risk target reads no k (`risk_target`).
        if options.risk.is_none() {
            check_k(req)?;
        }
        let outcome = suppress(req.ds, &req.qi, req.k, options, progress)?;
        Ok(release(req, options, &outcome))
    }
}

/// The release of an outcome: one group per distinct published tuple.
pub fn release(req: &Request<'_>, options: &LocalSuppressionOptions, outcome: &Outcome) -> Release {
    let ds = req.ds;
    let qi = &req.qi;
    let mut r = Release::new("local-suppression", ds, qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut r);
    r.params = ReleaseParams {
        k: options.risk.is_none().then_some(req.k),
        ..ReleaseParams::default()
    };
    let mut groups: rustc_hash::FxHashMap<Vec<u32>, usize> = Default::default();
    for row in 0..ds.n_rows() {
        let mask = outcome.suppressed[row] | outcome.missing[row];
        let key: Vec<u32> = (0..qi.len())
            .map(|a| {
                if mask & (1 << a) != 0 {
                    u32::MAX
                } else {
                    ds.col(qi[a]).code(row)
                }
            })
            .collect();
        let next = r.groups.len();
        let g = *groups.entry(key.clone()).or_insert(next);
        if g == next {
            r.groups.push(EquivalenceGroup {
                rows: Vec::new(),
                cells: key
                    .iter()
                    .map(|&c| {
                        if c == u32::MAX {
                            Cell::Suppressed
                        } else {
                            Cell::Value { code: c }
                        }
                    })
                    .collect(),
            });
        }
        r.groups[g].rows.push(row as u32);
    }
    let name = |c: usize| ds.col(c).name().to_string();
    if let Some(target) = &options.risk {
        r.claims.push(Guarantee::SuppressionRiskThreshold {
            threshold: target.threshold,
            weights: target.weights.map(name),
            household: options.household.map(name),
        });
    } else {
        push_k_claims(&mut r, req, options);
    }
    let per_key = outcome.per_key(qi.len());
    let missing: Vec<u64> = (0..qi.len())
        .map(|a| {
            outcome
                .missing
                .iter()
                .filter(|&&m| m & (1 << a) != 0)
                .count() as u64
        })
        .collect();
    let cells = |counts: &[u64]| -> Vec<AttributeCells> {
        qi.iter()
            .zip(counts)
            .map(|(&c, &n)| AttributeCells {
                attribute: name(c),
                cells: n,
            })
            .collect()
    };
    r.suppression = Some(CellSuppression {
        convention: options.convention,
        suppressed_cells: cells(&per_key),
        total: outcome.total(),
        missing_before: cells(&missing),
        method: if outcome.greedy_won {
            "sdcmicro-greedy".into()
        } else {
            "search".into()
        },
        greedy_total: outcome.greedy_total,
        greedy_stopped: outcome.greedy_stopped,
        risk: outcome.risk.clone(),
        households: options
            .household
            .map(|h| by_household_size(ds, qi, h, &outcome.suppressed)),
    });
    r
}

/// The k-anonymity claims of a release to k.
fn push_k_claims(r: &mut Release, req: &Request<'_>, options: &LocalSuppressionOptions) {
    let qi = &req.qi;
    r.claims.push(Guarantee::SuppressionKAnonymity {
        k: req.k,
        convention: options.convention,
        combinations: {
            let mut c = options.combs.clone();
            c.sort_unstable_by(|a, b| b.cmp(a));
            c.dedup();
            c.retain(|&m| (m as usize) < qi.len());
            c
        },
        strata: options.strata.map(|c| req.ds.col(c).name().to_string()),
    });
    if options.convention == Convention::OwnValue {
        // Every group of identical tuples has k records (module doc).
        r.claims.push(Guarantee::KAnonymity { k: req.k });
    }
}

/// The suppressions by household size (members in the file). The
/// household column was checked by [`suppress`] (no missing identifier).
fn by_household_size(
    ds: &Dataset,
    qi: &[usize],
    household: usize,
    suppressed: &[u32],
) -> HouseholdCells {
    let col = ds.col(household);
    let mut size = vec![0u32; col.code_space()];
    let mut touched = vec![false; col.code_space()];
    for (r, &mask) in suppressed.iter().enumerate() {
        let h = col.code(r) as usize;
        size[h] += 1;
        touched[h] |= mask != 0;
    }
    let m = qi.len();
    let mut rows: std::collections::BTreeMap<u32, HouseholdSizeCells> = Default::default();
    let blank = |s: u32| HouseholdSizeCells {
        size: s,
        households: 0,
        households_touched: 0,
        records: 0,
        records_touched: 0,
        cells: qi
            .iter()
            .map(|&c| AttributeCells {
                attribute: ds.col(c).name().to_string(),
                cells: 0,
            })
            .collect(),
        total: 0,
    };
    for (h, &s) in size.iter().enumerate() {
        if s > 0 {
            let row = rows.entry(s).or_insert_with(|| blank(s));
            row.households += 1;
            row.households_touched += u64::from(touched[h]);
        }
    }
    for (r, &mask) in suppressed.iter().enumerate() {
        let row = rows
            .get_mut(&size[col.code(r) as usize])
            .expect("every household's size has a row");
        row.records += 1;
        row.records_touched += u64::from(mask != 0);
        row.total += u64::from(mask.count_ones());
        for (a, cells) in row.cells.iter_mut().enumerate().take(m) {
            cells.cells += u64::from(mask & (1 << a) != 0);
        }
    }
    HouseholdCells {
        column: col.name().to_string(),
        by_size: rows.into_values().collect(),
    }
}

#[cfg(test)]
mod tests;
