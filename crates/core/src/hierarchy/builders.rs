//! Building hierarchies from the data (the simple
//! constructions the correlation paper's Section 4.3 compares against).
//!
//! Every builder takes the column's distinct values as leaves, produces one
//! row per leaf and goes through [`Hierarchy::from_rows`] and
//! [`Hierarchy::bind`], so what it returns is a validated hierarchy that
//! covers the column. Each level is made by merging whole nodes of the level
//! below, which is what makes the result nested (a coarsening per level);
//! the proptests in `tests/hierarchy_builders.rs` check it.
//!
//! Choices where the issue leaves room:
//! - **Fixed-width intervals**: level 1 cuts the number line into
//!   `[anchor + i·w, anchor + (i+1)·w)`; level `l` has width `w·fanoutˡ⁻¹`
//!   with the same anchor, so each interval is the union of `fanout`
//!   intervals below. Levels stop once one interval holds every value; then
//!   the root `*`. Integer data with an integer width is labelled with
//!   inclusive ends, `[20-29]`; otherwise half-open, `[20.5-30.5)`.
//! - **Quantile intervals**: level 1 splits the sorted distinct values into at
//!   most `n` runs of about equal record counts, each with at least
//!   `min_records` records (a value is never split). Each further level aims
//!   at half as many runs, merging whole runs of the level below by the same
//!   rule. Labels are the smallest and largest value of the run, `[17-21]`.
//! - **Masking**: level `l` replaces the last `l` characters by `*`
//!   (`47677` → `4767*` → `476**` …) until one character is left; the root
//!   `*` follows. A value shorter than `l` is all stars, of its own length.
//! - **Grouping by frequency** (rare values merged first): at level `l` the
//!   threshold is `n·2ˡ⁻¹` records. A node of the level below with at least
//!   the threshold stays alone; rarer ones are gathered, in ascending order of
//!   records (ties by label), into groups that close on reaching the
//!   threshold; a last group still short of it joins the group formed just
//!   before, or, when there is none, the least frequent node that was left
//!   alone. Levels that would change nothing are
//!   skipped; the root `*` ends it. A group is labelled by its values,
//!   most frequent first, `{a,b,c}` or `{a,b,c,+4}`.
//! - **Grouping by a user mapping**: rows `value;group[;coarser group...]`
//!   (a file in ARX layout without the root, or inline
//!   `Group=a,b;Other=c`); `*` is appended when the last column is not
//!   already one value. Every value of the column must be mapped.
//!
//! In the generated builders a level that groups the values exactly as the
//! level before it is dropped: it would only add a node to the lattice.

use std::path::Path;

use num_bigint::BigInt;
use num_integer::Integer;

use crate::data::number::{scaled_text, Decimal};
use crate::data::{Column, Dataset};
use crate::error::{Error, Parameter, Result};

use super::{Hierarchy, MAX_LEVELS};

/// What to build; the CLI and the TUI's builder dialog fill one of these.
/// (The correlation-based construction of Algorithm 4 adds its variant here.)
#[derive(Debug, Clone, PartialEq)]
pub enum BuildSpec {
    /// Fixed-width intervals: `width` at level 1, anchored at `anchor`,
    /// `fanout` intervals merged per level.
    Intervals {
        width: Decimal,
        anchor: Decimal,
        fanout: usize,
    },
    /// Equal-frequency intervals: at most `n` at level 1, each with at least
    /// `min_records` records.
    Quantiles { n: usize, min_records: u64 },
    /// Mask characters right to left.
    Mask,
    /// Merge values rarer than `min_records` first, doubling per level.
    Frequency { min_records: u64 },
    /// A user mapping: rows `value, group, [coarser group, ...]`.
    Mapping(Vec<Vec<String>>),
}

/// Build the hierarchy `spec` describes for column `column` of `ds`.
pub fn build(ds: &Dataset, column: usize, spec: &BuildSpec) -> Result<Hierarchy> {
    let col = ds.col(column);
    match spec {
        BuildSpec::Intervals {
            width,
            anchor,
            fanout,
        } => intervals(col, width, anchor, *fanout),
        BuildSpec::Quantiles { n, min_records } => quantiles(col, *n, *min_records),
        BuildSpec::Mask => mask(col),
        BuildSpec::Frequency { min_records } => by_frequency(col, *min_records),
        BuildSpec::Mapping(rows) => by_mapping(col, rows),
    }
}

/// Turn per-level labels of each leaf into a validated hierarchy over `col`:
/// `levels[l][leaf]` is leaf `leaf`'s label at level `l + 1`; the root `*`
/// is appended.
fn finish(col: &Column, mut levels: Vec<Vec<String>>) -> Result<Hierarchy> {
    // A level that repeats the one below adds nothing but a step.
    levels.dedup_by(|a, b| same_partition(a, b));
    let leaves = col.dictionary();
    let rows: Vec<Vec<&str>> = (0..leaves.len())
        .map(|i| {
            let mut r = Vec::with_capacity(levels.len() + 2);
            r.push(&*leaves[i]);
            r.extend(levels.iter().map(|l| l[i].as_str()));
            r.push("*");
            r
        })
        .collect();
    let h = Hierarchy::from_rows(col.name(), &rows)?;
    h.validate(col)?;
    Ok(h)
}

/// Whether two labelings group the leaves the same way (labels may differ).
fn same_partition(a: &[String], b: &[String]) -> bool {
    let mut ab = std::collections::HashMap::new();
    let mut ba = std::collections::HashMap::new();
    a.iter()
        .zip(b)
        .all(|(x, y)| *ab.entry(x).or_insert(y) == y && *ba.entry(y).or_insert(x) == x)
}

/// The column's values as exact numbers, in code order.
fn numbers(col: &Column, what: &str) -> Result<Vec<Decimal>> {
    if !col.is_numeric() {
        return Err(Error::invalid(Parameter::Column, format!(
            "{what} need a numeric column; '{}' is categorical (a masking or grouping hierarchy fits it)",
            col.name()
        )));
    }
    if col.cardinality() == 0 {
        return Err(Error::invalid(
            Parameter::Column,
            format!("column '{}' has no values", col.name()),
        ));
    }
    Ok((0..col.cardinality() as u32)
        .map(|c| col.decimal(c).unwrap_or_else(Decimal::zero))
        .collect())
}

/// Fixed-width intervals, nested by `fanout`; see the module doc. The
/// ends are computed exactly (`data::number`): values, `width` and
/// `anchor` are scaled to integers by the same power of ten, so labels
/// are right beyond 2^53 and beyond i64, and decimals read as written.
pub fn intervals(
    col: &Column,
    width: &Decimal,
    anchor: &Decimal,
    fanout: usize,
) -> Result<Hierarchy> {
    let xs = numbers(col, "intervals")?;
    if width <= &Decimal::zero() {
        return Err(Error::invalid(
            Parameter::IntervalWidth,
            format!("interval width must be a positive number, not {width}"),
        ));
    }
    if fanout < 2 {
        return Err(Error::invalid(
            Parameter::Fanout,
            format!("fanout must be at least 2 (intervals merged per level), not {fanout}"),
        ));
    }
    let integral = xs.iter().all(Decimal::is_integer) && width.is_integer() && anchor.is_integer();
    let scale = xs
        .iter()
        .chain([width, anchor])
        .map(Decimal::fraction_digits)
        .max()
        .unwrap_or(0);
    let (w, a) = (width.scaled(scale), anchor.scaled(scale));
    // Level-1 interval of each value; coarser levels divide these integers
    // by fanoutˡ⁻¹ exactly, so nesting never hangs on rounding.
    let first: Vec<BigInt> = xs
        .iter()
        .map(|x| (x.scaled(scale) - &a).div_floor(&w))
        .collect();
    let fanout = BigInt::from(fanout);
    // Count the levels before making any label: a tiny width over a wide
    // range would need thousands.
    // Intervals nest on the anchor, so values on both sides of it are
    // never merged by a coarser level: the hierarchy ends once a level
    // has one interval, or the two that meet at the anchor ("*" above
    // joins them).
    let (lowest, highest) = (
        first.iter().min().expect("a column with values"),
        first.iter().max().expect("a column with values"),
    );
    let minus_one = BigInt::from(-1);
    let settled = |step: &BigInt| {
        let (lo, hi) = (lowest.div_floor(step), highest.div_floor(step));
        lo == hi || (lo == minus_one && hi == BigInt::from(0))
    };
    let mut needed = 1;
    let mut step = BigInt::from(1);
    while !settled(&step) {
        step *= &fanout;
        needed += 1;
        if needed > MAX_LEVELS {
            return Err(Error::invalid(Parameter::IntervalWidth, format!(
                "intervals of width {width} merged {fanout} per level would need more than {MAX_LEVELS} levels to reach one interval; use a wider width or a larger fanout"
            )));
        }
    }
    let unit = BigInt::from(1);
    let mut levels = Vec::new();
    let mut step = BigInt::from(1);
    loop {
        let span = &w * &step;
        let index = |i: &BigInt| i.div_floor(&step);
        let labels: Vec<String> = first
            .iter()
            .map(|i| {
                let lo = &a + index(i) * &span;
                if integral {
                    let hi = &lo + &span - &unit;
                    format!("[{}-{}]", scaled_text(&lo, scale), scaled_text(&hi, scale))
                } else {
                    let hi = &lo + &span;
                    format!("[{}-{})", scaled_text(&lo, scale), scaled_text(&hi, scale))
                }
            })
            .collect();
        if index(lowest) == index(highest) && !levels.is_empty() {
            break;
        }
        levels.push(labels);
        if settled(&step) {
            break;
        }
        step *= &fanout;
    }
    finish(col, levels)
}

/// Split `counts` (records per atom, in order) into at most `k` runs of
/// consecutive atoms with about equal records, each with at least `min`
/// records when the total allows. Returns the run index of each atom.
///
/// A run closes once it holds its share of what is left (records not yet in
/// a closed run / runs still available), or just before the atom that would
/// overshoot the share by more than stopping now falls short of it — and
/// only if both it and the records after it reach `min`.
fn equal_runs(counts: &[u64], k: usize, min: u64) -> Vec<usize> {
    let total: u64 = counts.iter().sum();
    let mut run = vec![0usize; counts.len()];
    let (mut current, mut sum, mut closed) = (0usize, 0u64, 0u64);
    for (i, &c) in counts.iter().enumerate() {
        run[i] = current;
        sum += c;
        let Some(&next) = counts.get(i + 1) else {
            break;
        };
        let left = total - closed - sum;
        let runs_here = k.saturating_sub(current);
        let share = (total - closed) as f64 / runs_here.max(1) as f64;
        let s = sum as f64;
        let close_enough = s >= share || share - s < s + next as f64 - share;
        if runs_here > 1 && sum >= min && left >= min && close_enough {
            current += 1;
            closed += sum;
            sum = 0;
        }
    }
    run
}

/// Equal-frequency intervals; see the module doc.
pub fn quantiles(col: &Column, n: usize, min_records: u64) -> Result<Hierarchy> {
    let xs = numbers(col, "quantile intervals")?;
    if n < 2 {
        return Err(Error::invalid(
            Parameter::Quantiles,
            format!("quantiles: need at least 2 intervals, not {n}"),
        ));
    }
    let freq = &col.frequencies()[..xs.len()];
    // Runs of the level below: (first value index, last value index, records).
    let mut atoms: Vec<(usize, usize, u64)> = (0..xs.len()).map(|i| (i, i, freq[i])).collect();
    let mut levels = Vec::new();
    let mut k = n;
    while atoms.len() > 1 {
        let counts: Vec<u64> = atoms.iter().map(|a| a.2).collect();
        let run = equal_runs(&counts, k, min_records);
        let mut merged: Vec<(usize, usize, u64)> = Vec::new();
        for (a, &r) in atoms.iter().zip(&run) {
            match merged.get_mut(r) {
                Some(m) => {
                    m.1 = a.1;
                    m.2 += a.2;
                }
                None => merged.push(*a),
            }
        }
        if merged.len() == 1 {
            break;
        }
        k = merged.len().div_ceil(2);
        if merged.len() == atoms.len() {
            // Every value is its own run: no level, aim coarser.
            continue;
        }
        let mut labels = vec![String::new(); xs.len()];
        for &(lo, hi, _) in &merged {
            let label = format!("[{}-{}]", col.display(lo as u32), col.display(hi as u32));
            for l in &mut labels[lo..=hi] {
                l.clone_from(&label);
            }
        }
        levels.push(labels);
        atoms = merged;
    }
    finish(col, levels)
}

/// Mask characters right to left; see the module doc.
pub fn mask(col: &Column) -> Result<Hierarchy> {
    let leaves = col.dictionary();
    let longest = leaves.iter().map(|v| v.chars().count()).max().unwrap_or(0);
    if longest > MAX_LEVELS {
        let v = leaves
            .iter()
            .find(|v| v.chars().count() == longest)
            .map_or(String::new(), |v| v.chars().take(20).collect());
        return Err(Error::invalid(Parameter::Column, format!(
            "masking needs values of at most {MAX_LEVELS} characters (a level per character); '{v}…' of column '{}' has {longest}",
            col.name()
        )));
    }
    let levels = (1..longest)
        .map(|l| {
            leaves
                .iter()
                .map(|v| {
                    let n = v.chars().count();
                    let keep = n.saturating_sub(l);
                    let mut s: String = v.chars().take(keep).collect();
                    s.extend(std::iter::repeat_n('*', n - keep));
                    s
                })
                .collect()
        })
        .collect();
    finish(col, levels)
}

/// Group rare values first; see the module doc.
pub fn by_frequency(col: &Column, min_records: u64) -> Result<Hierarchy> {
    if min_records < 1 {
        return Err(Error::invalid(
            Parameter::GroupSize,
            "grouping by frequency needs at least 1 record per group",
        ));
    }
    let leaves = col.dictionary();
    let freq = &col.frequencies()[..leaves.len()];
    // Nodes of the current level: member leaves (most frequent first) and records.
    let mut nodes: Vec<(Vec<usize>, u64)> = (0..leaves.len()).map(|i| (vec![i], freq[i])).collect();
    let label = |members: &[usize]| -> String {
        match members {
            [one] => leaves[*one].to_string(),
            _ => {
                let shown: Vec<&str> = members.iter().take(3).map(|&i| &*leaves[i]).collect();
                let more = members.len().saturating_sub(3);
                if more > 0 {
                    format!("{{{},+{more}}}", shown.join(","))
                } else {
                    format!("{{{}}}", shown.join(","))
                }
            }
        }
    };
    let mut levels = Vec::new();
    let mut threshold = min_records;
    while nodes.len() > 1 {
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by(|&a, &b| {
            nodes[a]
                .1
                .cmp(&nodes[b].1)
                .then_with(|| leaves[nodes[a].0[0]].cmp(&leaves[nodes[b].0[0]]))
        });
        let rare = order.partition_point(|&i| nodes[i].1 < threshold);
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut open: (Vec<usize>, u64) = (Vec::new(), 0);
        for &i in &order[..rare] {
            open.0.push(i);
            open.1 += nodes[i].1;
            if open.1 >= threshold {
                groups.push(std::mem::take(&mut open.0));
                open.1 = 0;
            }
        }
        let mut frequent = order[rare..].iter().map(|&i| vec![i]);
        if !open.0.is_empty() {
            match groups.last_mut() {
                Some(g) => g.extend(open.0),
                None => match frequent.next() {
                    Some(f) => groups.push(open.0.into_iter().chain(f).collect()),
                    None => groups.push(open.0),
                },
            }
        }
        groups.extend(frequent);
        threshold = threshold.saturating_mul(2);
        if groups.len() == nodes.len() {
            continue;
        }
        let merged: Vec<(Vec<usize>, u64)> = groups
            .iter()
            .map(|g| {
                let mut members: Vec<usize> = g.iter().flat_map(|&i| nodes[i].0.clone()).collect();
                members.sort_by(|&a, &b| {
                    freq[b]
                        .cmp(&freq[a])
                        .then_with(|| leaves[a].cmp(&leaves[b]))
                });
                let records = g.iter().map(|&i| nodes[i].1).sum();
                (members, records)
            })
            .collect();
        if merged.len() == 1 {
            break;
        }
        let mut labels = vec![String::new(); leaves.len()];
        for (members, _) in &merged {
            let l = label(members);
            for &m in members {
                labels[m].clone_from(&l);
            }
        }
        levels.push(labels);
        nodes = merged;
    }
    finish(col, levels)
}

/// Group by a user mapping (rows `value, group, ...`); see the module doc.
pub fn by_mapping<S: AsRef<str>>(col: &Column, rows: &[Vec<S>]) -> Result<Hierarchy> {
    let depth = rows.first().map_or(0, Vec::len);
    if depth < 2 {
        return Err(Error::invalid(
            Parameter::Mapping,
            "mapping: each row needs a value and at least one group",
        ));
    }
    let needs_root = {
        let mut tops = rows.iter().filter_map(|r| r.last()).map(AsRef::as_ref);
        let first = tops.next();
        tops.any(|t| Some(t) != first)
    };
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| {
            let mut v: Vec<&str> = r.iter().map(AsRef::as_ref).collect();
            if needs_root {
                v.push("*");
            }
            v
        })
        .collect();
    let h = Hierarchy::from_rows(col.name(), &rows)?;
    h.validate(col)?;
    Ok(h)
}

/// Rows of a mapping given inline as `Group=a,b;Other=c` (one level).
pub fn parse_inline_mapping(text: &str) -> Result<Vec<Vec<String>>> {
    let mut rows = Vec::new();
    for part in text.split(';').filter(|p| !p.trim().is_empty()) {
        let Some((group, values)) = part.split_once('=') else {
            return Err(Error::invalid(
                Parameter::Mapping,
                format!("mapping: '{part}' is not 'Group=value,value,...'"),
            ));
        };
        for v in values.split(',').map(str::trim).filter(|v| !v.is_empty()) {
            rows.push(vec![v.to_string(), group.trim().to_string()]);
        }
    }
    if rows.is_empty() {
        return Err(Error::invalid(
            Parameter::Mapping,
            format!("mapping: nothing mapped in '{text}'"),
        ));
    }
    Ok(rows)
}

/// Rows of a mapping file: ARX layout (`value;group;...`) with or without
/// the root. Read through the ARX reader, so errors name file and line.
pub fn read_mapping(file: &Path) -> Result<Vec<Vec<String>>> {
    let bytes = crate::data::input::read_text_file(file, "mapping file")?;
    super::arx::parse_rows(&bytes, file).map(|(rows, _)| rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(values: &[&str]) -> Dataset {
        let rows: Vec<Vec<&str>> = values.iter().map(|v| vec![*v]).collect();
        Dataset::from_rows(&["x"], &rows).unwrap()
    }

    fn path(h: &Hierarchy, leaf: &str) -> Vec<String> {
        (0..h.levels())
            .map(|l| h.ancestor(leaf, l).unwrap().to_string())
            .collect()
    }

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn fixed_intervals_merge_by_fanout_up_to_one_interval() {
        let ds = col(&["17", "23", "29", "30", "45", "90"]);
        let h = intervals(ds.col(0), &d("10"), &d("0"), 2).unwrap();
        assert_eq!(
            path(&h, "23"),
            ["23", "[20-29]", "[20-39]", "[0-39]", "[0-79]", "*"]
        );
        assert_eq!(
            path(&h, "90"),
            ["90", "[90-99]", "[80-99]", "[80-119]", "[80-159]", "*"]
        );
        let h = intervals(ds.col(0), &d("10"), &d("5"), 3).unwrap();
        assert_eq!(path(&h, "17"), ["17", "[15-24]", "[5-34]", "*"]);
    }

    #[test]
    fn fractional_data_gets_half_open_labels() {
        let ds = col(&["1.5", "2.5", "7"]);
        let h = intervals(ds.col(0), &d("2.5"), &d("0"), 2).unwrap();
        assert_eq!(h.ancestor("2.5", 1), Some("[2.5-5)"));
    }

    #[test]
    fn interval_ends_are_exact_beyond_f64_and_i64() {
        // Ages 1 and 2 anchored at 1e20: f64 arithmetic labelled both
        // [7766279631452242000-7766279631452242000].
        let ds = col(&["1", "2"]);
        let h = intervals(ds.col(0), &d("1"), &d("1e20"), 2).unwrap();
        assert_eq!(
            h.ancestor("1", 1),
            Some("[1-1]"),
            "{:?}",
            h.rows().collect::<Vec<_>>()
        );
        assert_eq!(h.ancestor("2", 1), Some("[2-2]"));
        // [0-1] and [2-3] group as the level below does: dropped.
        assert_eq!(h.ancestor("2", 2), Some("*"));
        let ds = col(&["100000000000000000000", "100000000000000000003"]);
        let h = intervals(ds.col(0), &d("2"), &d("0"), 2).unwrap();
        assert_eq!(
            h.ancestor("100000000000000000003", 1),
            Some("[100000000000000000002-100000000000000000003]")
        );
        let ds = col(&["0.1", "0.3"]);
        let h = intervals(ds.col(0), &d("0.1"), &d("0"), 2).unwrap();
        assert_eq!(h.ancestor("0.3", 1), Some("[0.3-0.4)"));
    }

    #[test]
    fn a_huge_fanout_ends_and_too_many_levels_are_refused() {
        let ds = col(&["1", "2", "50"]);
        let h = intervals(ds.col(0), &d("5"), &d("0"), usize::MAX).unwrap();
        assert_eq!(h.levels(), 3);
        let ds = col(&["1e-100", "1e100"]);
        let e = intervals(ds.col(0), &d("1e-100"), &d("0"), 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 64 levels"), "{e}");
        let long = "9".repeat(100);
        let ds = Dataset::from_rows(&["x"], &[vec![long.as_str()], vec!["a"]]).unwrap();
        assert!(mask(ds.col(0))
            .unwrap_err()
            .to_string()
            .contains("at most 64 characters"));
    }

    #[test]
    fn quantiles_balance_records_and_respect_the_minimum() {
        // 1 x4, 2 x1, 3 x1, 4 x1, 5 x4: 11 records.
        let values = ["1", "1", "1", "1", "2", "3", "4", "5", "5", "5", "5"];
        let ds = col(&values);
        let h = quantiles(ds.col(0), 3, 3).unwrap();
        // Level 2 aims at 2 runs of the 4 + 3 + 4 records: the first closes
        // on reaching its share 5.5.
        assert_eq!(path(&h, "1"), ["1", "[1-1]", "[1-4]", "*"]);
        assert_eq!(path(&h, "3"), ["3", "[2-4]", "[1-4]", "*"]);
        assert_eq!(path(&h, "5"), ["5", "[5-5]", "[5-5]", "*"]);
        let h = quantiles(ds.col(0), 2, 5).unwrap();
        assert_eq!(h.levels(), 3);
        let b = h.bind(ds.col(0)).unwrap();
        assert!(b.level_stats(&ds.col(0).frequencies())[1].min >= 5);
    }

    #[test]
    fn masking_goes_right_to_left() {
        let ds = col(&["47677", "47602", "47905", "48111", "123"]);
        let h = mask(ds.col(0)).unwrap();
        assert_eq!(
            path(&h, "47677"),
            ["47677", "4767*", "476**", "47***", "4****", "*"]
        );
        assert_eq!(path(&h, "123"), ["123", "12*", "1**", "***", "***", "*"]);
        // Without 48111, `4****` would group the values as `47***` does.
        let ds = col(&["47677", "47602", "47905", "123"]);
        assert_eq!(
            path(&mask(ds.col(0)).unwrap(), "47677"),
            ["47677", "4767*", "476**", "47***", "*"]
        );
    }

    #[test]
    fn frequency_grouping_merges_rare_values_first() {
        // a:6 b:3 c:1 d:1 e:1
        let mut v = vec!["a"; 6];
        v.extend(["b", "b", "b", "c", "d", "e"]);
        let ds = col(&v);
        let h = by_frequency(ds.col(0), 2).unwrap();
        // Threshold 2: c+d reach 2, e joins them; b, a stay alone. Threshold
        // 4: b (3, before {c,d,e} on the tie by label) and {c,d,e} merge.
        assert_eq!(path(&h, "e"), ["e", "{c,d,e}", "{b,c,d,+1}", "*"]);
        assert_eq!(path(&h, "a"), ["a", "a", "a", "*"]);
    }

    #[test]
    fn mapping_names_unmapped_values() {
        let ds = col(&["Private", "State-gov", "Never-worked"]);
        let rows = parse_inline_mapping("Private=Private; Gov=State-gov,Federal-gov").unwrap();
        let m = by_mapping(ds.col(0), &rows).unwrap_err().to_string();
        assert!(m.contains("'Never-worked' (1 rows)"), "{m}");
        let rows =
            parse_inline_mapping("Private=Private;Gov=State-gov,Federal-gov;None=Never-worked")
                .unwrap();
        let h = by_mapping(ds.col(0), &rows).unwrap();
        assert_eq!(path(&h, "State-gov"), ["State-gov", "Gov", "*"]);
        assert!(parse_inline_mapping("Gov").is_err());
    }

    #[test]
    fn numeric_builders_refuse_categories_and_bad_parameters() {
        let ds = col(&["a", "b"]);
        assert!(intervals(ds.col(0), &d("10"), &d("0"), 2)
            .unwrap_err()
            .to_string()
            .contains("categorical"));
        let ds = col(&["1", "2"]);
        assert!(intervals(ds.col(0), &d("0"), &d("0"), 2).is_err());
        assert!(intervals(ds.col(0), &d("-1"), &d("0"), 2).is_err());
        assert!(intervals(ds.col(0), &d("1"), &d("0"), 1).is_err());
        assert!(quantiles(ds.col(0), 1, 1).is_err());
    }
}
