//! Construction(D, G): the risk tool's Algorithm 1 (correlation-hierarchy
//! paper, Section 4.2.1) — build the dataset to publish from the data D and
//! conditions of generalization G. Each condition has a predicate over the
//! attributes (the `Rule` language of `data::rule`, e.g. `age>90 and
//! sex=Female`) and an action on the rows it selects:
//!
//! - **generalize** one quasi-identifier: to a label (`"to": "<150"`, one
//!   node standing for the values of the rows it is given to), to a numeric
//!   interval (`"interval": [30, 39]`), or to a level of the attribute's
//!   hierarchy (`"level": 2`, from `Options::hierarchies`);
//! - **delete the record** (`"delete": "record"`): the row is not published;
//! - **delete cells** (`"delete": "cells", "columns": [...]`): those QI cells
//!   publish `*`;
//! - and, for the whole file, `"delete_below": k`: after the conditions,
//!   the records of every published class smaller than k are deleted (the
//!   paper's last step, "we delete some records to fulfill the required
//!   conditions, k = 5 for example").
//!
//! The conditions file (G.json), as H5's correlation-based construction
//! writes it:
//!
//! ```json
//! { "conditions": [
//!     { "when": "height<150", "generalize": "height", "to": "<150" },
//!     { "when": "age>=30 and age<40", "generalize": "age", "interval": [30, 39] },
//!     { "generalize": "age", "level": 2 },
//!     { "when": "age>90 and zip=13053", "delete": "record" },
//!     { "when": "sex=Female", "delete": "cells", "columns": ["zip"] }
//! ] }
//! ```
//!
//! `when` may be left out: the condition then applies to every row.
//!
//! Choices where the paper is silent:
//!
//! - **Predicates read the original data D**, never the result of an earlier
//!   condition, so the rows a condition selects do not depend on the order
//!   of the file.
//! - **Overlapping conditions**: deleting a record wins over everything;
//!   deleting a cell wins over generalizing it; among generalizations of the
//!   same cell the *first* matching condition in file order applies (as in
//!   a firewall rule list: put specific conditions first).
//! - **Missing cells** are left as they are by generalizations (an unknown
//!   value is not narrowed by a label); deleting a cell still applies.
//! - A label names one node per column: every condition giving the same
//!   label to the same column publishes one cell covering the values of all
//!   the rows it was given to.
//! - An interval must contain every value it is given (checked, naming the
//!   condition, row and value), so generalizations stay truthful.
//! - Only quasi-identifiers are published cell by cell in a Release, so a
//!   condition that generalizes or deletes a cell of another column is an
//!   error naming it.
//!
//! The published rows are grouped by their published QI values into
//! equivalence groups; the release claims the k it reaches (its smallest
//! group), which the verifier re-checks, and the attack simulator, breach
//! probability and metrics measure it like any algorithm's release.

use fixedbitset::FixedBitSet;
use rustc_hash::FxHashMap;

use crate::algorithms::full_domain::node_cell;
use crate::algorithms::{Algorithm, Needs, Request, Use};
use crate::data::number::{Decimal, NumericLabel};
use crate::data::{Condition, Conditions, Dataset, Rule};
use crate::error::{Error, Parameter, Result, Setting};
use crate::progress::Progress;
use crate::release::{Cell, EquivalenceGroup, Guarantee, Release, ReleaseParams};

/// What a condition does, once checked against the dataset.
#[derive(Debug, Clone)]
enum Action {
    /// Generalize QI position `qi` to a target.
    Generalize {
        qi: usize,
        target: Target,
    },
    DeleteRecord,
    DeleteCells {
        qi: Vec<usize>,
    },
}

#[derive(Debug, Clone)]
enum Target {
    Label(String),
    Interval(f64, f64),
    Level(usize),
}

/// Apply G to the request's data. `Options::conditions` holds G.
pub fn construct(req: &Request<'_>, conditions: &Conditions) -> Result<Release> {
    let ds = req.ds;
    let n = ds.n_rows();
    let d = req.qi.len();
    if req.qi.is_empty() {
        return Err(Error::unmet(
            "no quasi-identifiers",
            Setting::QuasiIdentifiers,
        ));
    }
    let mut actions = Vec::with_capacity(conditions.conditions.len());
    let mut selected = Vec::with_capacity(conditions.conditions.len());
    for (i, c) in conditions.conditions.iter().enumerate() {
        actions.push(action(req, i, c)?);
        selected.push(match &c.when {
            Some(text) => Rule::parse(text)
                .and_then(|r| r.evaluate(ds))
                .map_err(|e| {
                    Error::invalid(Parameter::Conditions, format!("condition {}: {e}", i + 1))
                })?,
            None => {
                let mut all = FixedBitSet::with_capacity(n);
                all.insert_range(..);
                all
            }
        });
    }

    // Which condition decides each (row, QI) cell; record deletions.
    const NONE: u32 = u32::MAX;
    const DELETED: u32 = u32::MAX - 1;
    let mut decided = vec![NONE; n * d];
    let mut deleted = FixedBitSet::with_capacity(n);
    for (i, (a, rows)) in actions.iter().zip(&selected).enumerate() {
        match a {
            Action::DeleteRecord => deleted.union_with(rows),
            Action::DeleteCells { qi } => {
                for r in rows.ones() {
                    for &q in qi {
                        decided[r * d + q] = DELETED;
                    }
                }
            }
            Action::Generalize { qi, .. } => {
                let col = ds.col(req.qi[*qi]);
                for r in rows.ones() {
                    let slot = &mut decided[r * d + qi];
                    if *slot == NONE && !col.is_missing(col.code(r)) {
                        *slot = i as u32;
                    }
                }
            }
        }
    }

    // Labels cover the values of every row they are given to: collect first.
    // A label must not misstate them (checked once per condition and value).
    let claims: Vec<LabelClaim> = actions.iter().map(|a| LabelClaim::of(a, req)).collect();
    let mut checked: rustc_hash::FxHashSet<(u32, u32)> = Default::default();
    let mut label_codes: FxHashMap<(usize, &str), Vec<u32>> = FxHashMap::default();
    for r in 0..n {
        for q in 0..d {
            let i = decided[r * d + q];
            if i == NONE || i == DELETED || deleted.contains(r) {
                continue;
            }
            if let Action::Generalize {
                target: Target::Label(l),
                ..
            } = &actions[i as usize]
            {
                let col = ds.col(req.qi[q]);
                let code = col.code(r);
                if checked.insert((i, code)) {
                    claims[i as usize].check(col, code, l, i, r)?;
                }
                label_codes.entry((q, l.as_str())).or_default().push(code);
            }
        }
    }
    for codes in label_codes.values_mut() {
        codes.sort_unstable();
        codes.dedup();
    }
    let bound = bound_levels(req, &actions)?;
    // A published cell depends only on its QI position, the condition
    // deciding it and the original code: build (and check) it once per
    // distinct (position, condition, code), not once per row. Different
    // keys may still publish the same cell (two conditions giving one
    // label, codes inside one interval or hierarchy node), so the cells
    // themselves are interned too, for the grouping below.
    let mut cells: Vec<Cell> = Vec::new();
    let mut cell_ids: FxHashMap<(usize, Vec<u32>, Option<String>), u32> = FxHashMap::default();
    let mut by_key: FxHashMap<(u32, u32, u32), u32> = FxHashMap::default();
    let mut published = vec![0u32; n * d];
    for r in 0..n {
        if deleted.contains(r) {
            continue;
        }
        for q in 0..d {
            let col = ds.col(req.qi[q]);
            let code = col.code(r);
            let i = decided[r * d + q];
            let key = (q as u32, i, if i == DELETED { 0 } else { code });
            let id = match by_key.get(&key) {
                Some(&id) => id,
                None => {
                    // Rows are visited in order, so an interval that misses
                    // a value fails at the first row holding it, as before.
                    let cell = match i {
                        NONE => Cell::Value { code },
                        DELETED => Cell::Suppressed,
                        _ => match &actions[i as usize] {
                            Action::Generalize { target, .. } => match target {
                                Target::Label(l) => Cell::Set {
                                    codes: label_codes[&(q, l.as_str())].clone(),
                                    label: Some(l.clone()),
                                },
                                Target::Interval(lo, hi) => {
                                    interval_cell(ds, req.qi[q], r, i, *lo, *hi)?
                                }
                                Target::Level(level) => {
                                    let (h, members) = bound[q]
                                        .as_ref()
                                        .expect("hierarchy bound for every level condition");
                                    node_cell(h, *level, code, members)
                                }
                            },
                            _ => unreachable!("only generalizations decide a cell by index"),
                        },
                    };
                    let id = cell_id(&mut cells, &mut cell_ids, q, cell);
                    by_key.insert(key, id);
                    id
                }
            };
            published[r * d + q] = id;
        }
    }

    // Group the published rows by their published cells.
    let mut groups: FxHashMap<&[u32], usize> = FxHashMap::default();
    let mut release = Release::new("construction", ds, req.qi.clone(), req.sensitive.clone());
    req.drop_identifiers(&mut release);
    for r in 0..n {
        if deleted.contains(r) {
            release.suppressed_rows.push(r as u32);
            continue;
        }
        let key = &published[r * d..(r + 1) * d];
        let next = release.groups.len();
        let g = *groups.entry(key).or_insert(next);
        if g == next {
            release.groups.push(EquivalenceGroup {
                rows: Vec::new(),
                cells: key.iter().map(|&c| cells[c as usize].clone()).collect(),
            });
        }
        release.groups[g].rows.push(r as u32);
    }
    if let Some(below) = conditions.delete_below {
        // The paper's last step: the records of classes short of k go.
        let (keep, short): (Vec<_>, Vec<_>) = std::mem::take(&mut release.groups)
            .into_iter()
            .partition(|grp| grp.rows.len() >= below as usize);
        release.groups = keep;
        release
            .suppressed_rows
            .extend(short.into_iter().flat_map(|grp| grp.rows));
        release.suppressed_rows.sort_unstable();
    }
    let k = release.group_sizes().into_iter().min().unwrap_or(0);
    if k > 0 {
        release.claims.push(Guarantee::KAnonymity { k });
    }
    release.params = ReleaseParams {
        k: Some(k),
        ..Default::default()
    };
    Ok(release)
}

/// What a condition's label (`"to"`) says about the values it replaces:
/// on a numeric column a label that reads as numbers (`39`, `[30-39]`,
/// `<150`, `data::number::NumericLabel`) must contain each of them; on a
/// categorical column a label that is one of the column's values must be
/// that value. Other labels (`elderly`, `<unknown>`) name a node and claim
/// no value. `{"when": "age>=60", "to": "39"}` published people aged 70
/// as 39 before this check.
enum LabelClaim {
    None,
    Numeric(NumericLabel),
    Value(u32),
}

impl LabelClaim {
    fn of(action: &Action, req: &Request<'_>) -> Self {
        let Action::Generalize {
            qi,
            target: Target::Label(l),
        } = action
        else {
            return LabelClaim::None;
        };
        let col = req.ds.col(req.qi[*qi]);
        if col.is_numeric() {
            NumericLabel::parse(l).map_or(LabelClaim::None, LabelClaim::Numeric)
        } else {
            col.code_of(l).map_or(LabelClaim::None, LabelClaim::Value)
        }
    }

    fn check(
        &self,
        col: &crate::data::Column,
        code: u32,
        label: &str,
        cond: u32,
        row: usize,
    ) -> Result<()> {
        let holds = match self {
            LabelClaim::None => true,
            LabelClaim::Numeric(claim) => col.decimal(code).is_some_and(|x| claim.covers(&x)),
            LabelClaim::Value(named) => *named == code,
        };
        if holds {
            return Ok(());
        }
        Err(Error::invalid(Parameter::Conditions, format!(
            "condition {}: the label '{label}' is not a generalization of the value '{}' of column '{}' in row {} that it replaces (it reads as {}); give a label that contains every value it replaces, such as an interval, or one that names no value",
            cond + 1,
            col.display(code),
            col.name(),
            row + 2,
            if matches!(self, LabelClaim::Numeric(_)) { "numbers" } else { "another value of the column" }
        )))
    }
}

/// Intern a cell per QI position.
fn cell_id(
    cells: &mut Vec<Cell>,
    ids: &mut FxHashMap<(usize, Vec<u32>, Option<String>), u32>,
    q: usize,
    cell: Cell,
) -> u32 {
    // Cells are small; a key of their kind and codes identifies them.
    let key = match &cell {
        Cell::Value { code } => (q, vec![0, *code], None),
        Cell::Interval { lo, hi } => (q, vec![1, *lo, *hi], None),
        Cell::Set { codes, label } => {
            let mut k = vec![2];
            k.extend(codes);
            (q, k, label.clone())
        }
        Cell::Suppressed => (q, vec![3], None),
        Cell::Original => (q, vec![4], None),
    };
    let next = cells.len() as u32;
    *ids.entry(key).or_insert_with(|| {
        cells.push(cell);
        next
    })
}

/// The interval cell of row `r`, or an error if its value lies outside.
/// Compared exactly (`data::number`): the ends as JSON gave them, the
/// values as the file wrote them.
fn interval_cell(ds: &Dataset, c: usize, r: usize, cond: u32, lo: f64, hi: f64) -> Result<Cell> {
    let col = ds.col(c);
    let code = col.code(r);
    let exact = |x: f64| Decimal::parse(&format!("{x}"));
    let (Some(lo_d), Some(hi_d)) = (exact(lo), exact(hi)) else {
        return Err(Error::invalid(Parameter::Conditions, format!(
            "condition {}: the interval [{lo}, {hi}] has an end beyond the numbers anonlab reads (magnitude below 1e150)",
            cond + 1
        )));
    };
    let inside = col.decimal(code).is_some_and(|v| lo_d <= v && v <= hi_d);
    if !inside {
        return Err(Error::invalid(Parameter::Conditions, format!(
            "condition {}: the value '{}' of column '{}' in row {} lies outside the interval [{lo}, {hi}] it is generalized to",
            cond + 1,
            col.display(code),
            col.name(),
            r + 2
        )));
    }
    // Codes of a numeric column are in exact value order: the interval's
    // ends are the first and last codes inside it.
    let first = col.partition_point(|x| x < &lo_d) as u32;
    let last = col.partition_point(|x| x <= &hi_d) as u32 - 1;
    Ok(Cell::Interval {
        lo: first,
        hi: last,
    })
}

type BoundLevel = Option<(crate::hierarchy::BoundHierarchy, Vec<Vec<u32>>)>;

/// For each QI position used by a `level` condition: its bound hierarchy
/// and the codes under each node of that level. One level per column.
fn bound_levels(req: &Request<'_>, actions: &[Action]) -> Result<Vec<BoundLevel>> {
    let mut out: Vec<BoundLevel> = vec![None; req.qi.len()];
    let mut level_of: Vec<Option<usize>> = vec![None; req.qi.len()];
    for (i, a) in actions.iter().enumerate() {
        let Action::Generalize {
            qi,
            target: Target::Level(level),
        } = a
        else {
            continue;
        };
        let col = req.ds.col(req.qi[*qi]);
        if let Some(prev) = level_of[*qi] {
            if prev != *level {
                return Err(Error::invalid(Parameter::Conditions, format!(
                    "condition {}: column '{}' is generalized to level {level} here and to level {prev} by an earlier condition; use one level per column (or labels)",
                    i + 1,
                    col.name()
                )));
            }
            continue;
        }
        let h = req.options.hierarchies.get(col.name()).ok_or_else(|| {
            Error::unmet(
                format!(
                    "condition {}: generalizing '{}' to a level needs its hierarchy",
                    i + 1,
                    col.name()
                ),
                Setting::Hierarchy,
            )
        })?;
        let b = h.bind(col)?;
        if *level > b.height() {
            return Err(Error::invalid(
                Parameter::Conditions,
                format!(
                    "condition {}: the hierarchy of '{}' has levels 0 to {}, not {level}",
                    i + 1,
                    col.name(),
                    b.height()
                ),
            ));
        }
        let members = b.members(*level);
        level_of[*qi] = Some(*level);
        out[*qi] = Some((b, members));
    }
    Ok(out)
}

/// Check one condition of the file and resolve its columns.
fn action(req: &Request<'_>, i: usize, c: &Condition) -> Result<Action> {
    let ds = req.ds;
    let at =
        |msg: String| Error::invalid(Parameter::Conditions, format!("condition {}: {msg}", i + 1));
    let qi_pos = |name: &str| -> Result<usize> {
        let col = ds.column_index(name).map_err(|e| at(e.to_string()))?;
        req.qi.iter().position(|&q| q == col).ok_or_else(|| {
            let qis: Vec<&str> = req.qi.iter().map(|&q| ds.col(q).name()).collect();
            at(format!(
                "'{name}' is not a quasi-identifier (they are: {}); a release publishes generalized or deleted cells only for those",
                qis.join(", ")
            ))
        })
    };
    match (&c.generalize, &c.delete) {
        (Some(_), Some(_)) => Err(at(
            "has both 'generalize' and 'delete'; give one action per condition".into(),
        )),
        (None, None) => Err(at(
            "has no action: give 'generalize' (with 'to', 'interval' or 'level') or 'delete' ('record' or 'cells')".into(),
        )),
        (Some(column), None) => {
            let qi = qi_pos(column)?;
            let targets = [c.to.is_some(), c.interval.is_some(), c.level.is_some()];
            if targets.iter().filter(|&&t| t).count() != 1 || c.columns.is_some() {
                return Err(at(format!(
                    "generalizing '{column}' needs exactly one of 'to' (a label), 'interval' ([lo, hi]) or 'level' (a hierarchy level)"
                )));
            }
            let target = if let Some(l) = &c.to {
                if l.is_empty() {
                    return Err(at(format!("the label for '{column}' is empty")));
                }
                Target::Label(l.clone())
            } else if let Some([lo, hi]) = c.interval {
                if !ds.col(req.qi[qi]).is_numeric() {
                    return Err(at(format!(
                        "'{column}' is not numeric, so it cannot be generalized to an interval; use a label ('to')"
                    )));
                }
                if lo.is_nan() || hi.is_nan() || lo > hi {
                    return Err(at(format!(
                        "the interval [{lo}, {hi}] for '{column}' is empty"
                    )));
                }
                Target::Interval(lo, hi)
            } else {
                Target::Level(c.level.unwrap_or(0))
            };
            Ok(Action::Generalize { qi, target })
        }
        (None, Some(what)) => {
            if c.to.is_some() || c.interval.is_some() || c.level.is_some() {
                return Err(at(
                    "'to', 'interval' and 'level' go with 'generalize', not 'delete'".into(),
                ));
            }
            match what.as_str() {
                "record" if c.columns.is_none() => Ok(Action::DeleteRecord),
                "record" => Err(at(
                    "'delete: record' removes whole rows and takes no 'columns'".into(),
                )),
                "cells" => {
                    let cols = c.columns.as_deref().unwrap_or(&[]);
                    if cols.is_empty() {
                        return Err(at("'delete: cells' needs 'columns': [...]".into()));
                    }
                    let qi = cols
                        .iter()
                        .map(|n| qi_pos(n))
                        .collect::<Result<Vec<_>>>()?;
                    Ok(Action::DeleteCells { qi })
                }
                other => Err(at(format!(
                    "unknown deletion '{other}' (expected 'record' or 'cells')"
                ))),
            }
        }
    }
}

/// Construction(D, G) as an algorithm: `--algorithm construction
/// --conditions G.json`.
#[derive(Debug, Clone, Copy)]
pub struct Construction;

impl Algorithm for Construction {
    fn id(&self) -> &'static str {
        "construction"
    }
    fn name(&self) -> &'static str {
        "Construction(D, G): generalize / delete under conditions (risk tool, Alg. 1)"
    }
    /// Hierarchies are read where a condition generalizes along one.
    fn needs(&self) -> Needs {
        Needs {
            hierarchies: Use::Optional,
            conditions: Use::Required,
            settings: true,
            ..Needs::default()
        }
    }
    fn run(&self, req: &Request<'_>, progress: &Progress) -> Result<Release> {
        // Without conditions there is nothing to construct, and a run would
        // publish D as it is under a label naming k and "construction"
        // (a chart's series read "construction k=5"): refused on every
        // path, as the CLI always did. `construct` with empty conditions
        // still gives Construction(D, ∅) to a caller that asks for it.
        let Some(conditions) = req.options.conditions.as_ref() else {
            return Err(Error::unmet(
                "construction needs conditions of generalization",
                Setting::Conditions,
            ));
        };
        progress.check()?;
        construct(req, conditions)
    }
}

#[cfg(test)]
mod tests;
