//! The verifier's structural checks: the release fits the dataset, rows
//! and buckets are well formed, cells are truthful, and LGB's local groups
//! and buckets are consistent (the module doc of `verify` lists them).

use rayon::prelude::*;

use crate::data::number::{Decimal, NumericLabel};
use crate::data::{Column, Dataset};
use crate::release::{Cell, Release};

pub(super) fn fits(release: &Release, ds: &Dataset) -> Result<String, String> {
    let n = ds.n_rows();
    if release.source_rows != n {
        return Err(format!(
            "the release was made from {} rows, the dataset has {n}",
            release.source_rows
        ));
    }
    let columns = release
        .quasi_identifiers
        .iter()
        .chain(&release.sensitive)
        .chain(&release.identifiers)
        .chain(release.local_buckets.iter().map(|l| &l.column));
    if let Some(&c) = columns.into_iter().find(|&&c| c >= ds.n_cols()) {
        return Err(format!(
            "column {c} does not exist ({} columns)",
            ds.n_cols()
        ));
    }
    // The name of the holder is formatted only on failure: a release of
    // single-row groups has tens of thousands of them.
    let out_of_range = |what: &dyn Fn() -> String, rows: &[u32]| -> Result<(), String> {
        match rows.iter().find(|&&r| r as usize >= n) {
            Some(r) => Err(format!(
                "{} holds row {r}, the dataset has {n} rows",
                what()
            )),
            None => Ok(()),
        }
    };
    for (g, group) in release.groups.iter().enumerate() {
        out_of_range(&|| format!("group {g}"), &group.rows)?;
    }
    for (b, bucket) in release.buckets.iter().enumerate() {
        out_of_range(&|| format!("bucket {b}"), &bucket.rows)?;
    }
    for local in &release.local_buckets {
        for (b, bucket) in local.buckets.iter().enumerate() {
            out_of_range(
                &|| format!("local bucket {b} of column {}", local.column),
                &bucket.rows,
            )?;
        }
    }
    out_of_range(
        &|| "the suppressed list".to_string(),
        &release.suppressed_rows,
    )?;
    // Records: a grouped table's rows stand for several.
    Ok(format!(
        "{} rows, {} groups, {} buckets",
        ds.records(),
        release.groups.len(),
        release.buckets.len()
    ))
}

pub(super) fn one_cell_per_qi(release: &Release) -> Result<String, String> {
    let d = release.quasi_identifiers.len();
    match release.groups.iter().position(|g| g.cells.len() != d) {
        Some(g) => Err(format!(
            "group {g} has {} cells for {d} quasi-identifiers",
            release.groups[g].cells.len()
        )),
        None => Ok(format!("{d} cells in each group")),
    }
}

pub(super) fn identifiers(release: &Release, ds: &Dataset) -> Result<String, String> {
    let published = release.quasi_identifiers.iter().chain(&release.sensitive);
    for c in published {
        if release.identifiers.contains(c) {
            let name = ds.columns().get(*c).map_or("?", |col| col.name());
            return Err(format!("identifier '{name}' is published"));
        }
    }
    // The file's identifiers the dataset leaves out (the query engine's
    // table) are dropped too: its publishing pass never writes them.
    Ok(format!(
        "{} identifiers dropped",
        release.identifiers.len() + release.identifiers_outside.len()
    ))
}

pub(super) fn rows_once(release: &Release, ds: &Dataset) -> Result<String, String> {
    let n = release.source_rows;
    // 0: unseen; g + 1: in group g; u32::MAX: suppressed.
    let mut seen = vec![0u32; n];
    for (g, group) in release.groups.iter().enumerate() {
        if group.rows.is_empty() {
            return Err(format!("group {g} is empty"));
        }
        for &r in &group.rows {
            match seen[r as usize] {
                0 => seen[r as usize] = g as u32 + 1,
                prev => return Err(format!("row {r} is in group {} and in group {g}", prev - 1)),
            }
        }
    }
    for &r in &release.suppressed_rows {
        match seen[r as usize] {
            0 => seen[r as usize] = u32::MAX,
            u32::MAX => return Err(format!("row {r} is suppressed twice")),
            g => return Err(format!("row {r} is both suppressed and in group {}", g - 1)),
        }
    }
    if let Some(r) = seen.iter().position(|&s| s == 0) {
        return Err(format!("row {r} is neither published nor suppressed"));
    }
    Ok(format!(
        "{} published, {} suppressed",
        release
            .groups
            .iter()
            .map(|g| ds.records_of(&g.rows))
            .sum::<usize>(),
        ds.records_of(&release.suppressed_rows)
    ))
}

pub(super) fn buckets_well_formed(release: &Release) -> Result<String, String> {
    let mut published = vec![false; release.source_rows];
    for g in &release.groups {
        for &r in &g.rows {
            published[r as usize] = true;
        }
    }
    let sets = std::iter::once(("bucket", &release.buckets)).chain(
        release
            .local_buckets
            .iter()
            .map(|l| ("local bucket", &l.buckets)),
    );
    let mut total = 0;
    for (what, buckets) in sets {
        let mut owner = vec![u32::MAX; release.source_rows];
        for (b, bucket) in buckets.iter().enumerate() {
            if bucket.rows.is_empty() {
                return Err(format!("{what} {b} is empty"));
            }
            for &r in &bucket.rows {
                if !published[r as usize] {
                    return Err(format!("{what} {b} holds row {r}, which is not published"));
                }
                match owner[r as usize] {
                    u32::MAX => owner[r as usize] = b as u32,
                    prev => return Err(format!("row {r} is in {what} {prev} and in {what} {b}")),
                }
            }
        }
        total += buckets.len();
    }
    Ok(format!("{total} buckets"))
}

pub(super) fn truthful(release: &Release, ds: &Dataset) -> Result<String, String> {
    let qi = &release.quasi_identifiers;
    for &c in qi {
        exact_order(ds.col(c))?;
    }
    labels_truthful(release, ds)?;
    // A PRAM'd column publishes drawn categories, not its values: it is
    // checked by the PRAM claim (`perturbation`), not here.
    let perturbed: Vec<usize> = release
        .perturbation
        .as_ref()
        .map(|p| p.columns.iter().map(|c| c.column).collect())
        .unwrap_or_default();
    let bad = release
        .groups
        .par_iter()
        .enumerate()
        .find_map_first(|(g, group)| {
            group.rows.iter().find_map(|&r| {
                qi.iter().zip(&group.cells).find_map(|(&c, cell)| {
                    if perturbed.contains(&c) {
                        return None;
                    }
                    let col = ds.col(c);
                    let own = col.code(r as usize);
                    (!cell.contains(own, own)).then(|| {
                        format!(
                            "group {g} publishes {} = {} but row {r} holds {}",
                            col.name(),
                            cell.render(col, own),
                            col.display(own)
                        )
                    })
                })
            })
        });
    match bad {
        Some(msg) => Err(msg),
        None if qi.iter().any(|c| perturbed.contains(c)) => Ok(format!(
            "every cell contains its members' values, PRAM'd {} aside (its claim checks them)",
            qi.iter()
                .filter(|c| perturbed.contains(c))
                .map(|&c| format!("'{}'", ds.col(c).name()))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => Ok("every cell contains its members' values".to_string()),
    }
}

/// A numeric column's values, read exactly from their text, must rise
/// strictly with the code: interval cells are code ranges.
fn exact_order(col: &Column) -> Result<(), String> {
    if !col.is_numeric() {
        return Ok(());
    }
    let mut last: Option<(Decimal, &str)> = None;
    for v in col.dictionary() {
        let Some(x) = Decimal::parse(v) else {
            return Err(format!(
                "column {} holds '{v}', which does not read as a number",
                col.name()
            ));
        };
        if let Some((prev, prev_text)) = &last {
            if *prev >= x {
                return Err(format!(
                    "column {}: '{prev_text}' comes before '{v}' but is not smaller; intervals would misstate the values",
                    col.name()
                ));
            }
        }
        last = Some((x, v));
    }
    Ok(())
}

/// Every labelled cell says nothing false about the values it covers:
/// a label reading as numbers covers each of them exactly; a label that
/// is one of the column's values stands for that value alone.
fn labels_truthful(release: &Release, ds: &Dataset) -> Result<(), String> {
    let mut seen: rustc_hash::FxHashSet<(usize, &str, &[u32])> = Default::default();
    for (g, group) in release.groups.iter().enumerate() {
        for (q, cell) in group.cells.iter().enumerate() {
            let Cell::Set {
                codes,
                label: Some(label),
            } = cell
            else {
                continue;
            };
            let Some(&c) = release.quasi_identifiers.get(q) else {
                continue;
            };
            if !seen.insert((q, label.as_str(), codes.as_slice())) {
                continue;
            }
            let col = ds.col(c);
            let present = codes.iter().copied().filter(|&v| !col.is_missing(v));
            let wrong = if col.is_numeric() {
                match NumericLabel::parse(label) {
                    Some(claim) => present
                        .clone()
                        .find(|&v| col.decimal(v).is_none_or(|x| !claim.covers(&x))),
                    None => None,
                }
            } else {
                match col.code_of(label) {
                    Some(named) => present.clone().find(|&v| v != named),
                    None => None,
                }
            };
            if let Some(v) = wrong {
                return Err(format!(
                    "group {g} publishes {} = {label} but holds {}",
                    col.name(),
                    col.display(v)
                ));
            }
        }
    }
    Ok(())
}

/// LGB's structure (the LGB paper's Definitions 7–10): every group in one
/// subset of the QI partition; plain QI columns carry QI values in every
/// subset; on a column outside its subset's QI columns a group publishes
/// nothing (`Suppressed`) and each of its rows is in a local bucket of that
/// column, which is semi-sensitive; on a column inside them no row is; every
/// published row is in a local bucket of each sensitive column; local
/// buckets belong to semi-sensitive or sensitive columns.
pub(super) fn lgb_structure(release: &Release, ds: &Dataset) -> Result<String, String> {
    let name = |c: usize| ds.col(c).name().to_string();
    let quasi = &release.quasi_identifiers;
    if let Some(&c) = release.semi_sensitive.iter().find(|c| !quasi.contains(c)) {
        return Err(format!(
            "semi-sensitive '{}' is not among the quasi-identifiers",
            name(c)
        ));
    }
    if let Some(lb) = release.local_buckets.iter().find(|lb| {
        !release.semi_sensitive.contains(&lb.column) && !release.sensitive.contains(&lb.column)
    }) {
        return Err(format!(
            "'{}' has local buckets but is neither semi-sensitive nor sensitive",
            name(lb.column)
        ));
    }
    let n = release.source_rows;
    let bucket_of: Vec<(usize, Vec<Option<u32>>)> = release
        .local_buckets
        .iter()
        .map(|lb| (lb.column, lb.bucket_of_row(n)))
        .collect();
    let in_bucket = |c: usize, r: u32| {
        bucket_of
            .iter()
            .find(|(col, _)| *col == c)
            .is_some_and(|(_, of)| of[r as usize].is_some())
    };
    let subset_of = release.subset_of_group();
    for (s, subset) in release.qi_partition.iter().enumerate() {
        if let Some(&c) = subset.qi.iter().find(|c| !quasi.contains(c)) {
            return Err(format!(
                "QI subset {s} lists '{}', which is not a quasi-identifier",
                name(c)
            ));
        }
        if let Some(&g) = subset
            .groups
            .iter()
            .find(|&&g| g as usize >= release.groups.len())
        {
            return Err(format!(
                "QI subset {s} lists group {g}, which does not exist"
            ));
        }
    }
    let mut listed = vec![0u32; release.groups.len()];
    for subset in &release.qi_partition {
        for &g in &subset.groups {
            listed[g as usize] += 1;
        }
    }
    for (g, group) in release.groups.iter().enumerate() {
        let Some(s) = subset_of[g] else {
            return Err(format!("group {g} is in no subset of the QI partition"));
        };
        let subset = &release.qi_partition[s as usize];
        if listed[g] > 1 {
            return Err(format!("group {g} is listed twice in the QI partition"));
        }
        for (&c, cell) in quasi.iter().zip(&group.cells) {
            let carries = subset.qi.contains(&c);
            if !carries && !release.semi_sensitive.contains(&c) {
                return Err(format!(
                    "group {g} hides '{}', which is a plain quasi-identifier",
                    name(c)
                ));
            }
            for &r in &group.rows {
                match (carries, in_bucket(c, r)) {
                    (true, true) => {
                        return Err(format!(
                            "row {r} carries a QI value on '{}' in group {g} but is in one of its local buckets",
                            name(c)
                        ))
                    }
                    (false, false) => {
                        return Err(format!(
                            "row {r}'s sensitive cell on '{}' (group {g}) is in no local bucket",
                            name(c)
                        ))
                    }
                    _ => {}
                }
            }
            if !carries && *cell != Cell::Suppressed {
                return Err(format!(
                    "group {g} publishes {} on '{}', where its cells are sensitive",
                    cell.render(ds.col(c), 0),
                    name(c)
                ));
            }
        }
        for &c in &release.sensitive {
            if let Some(&r) = group.rows.iter().find(|&&r| !in_bucket(c, r)) {
                return Err(format!(
                    "row {r}'s value of sensitive '{}' is in no local bucket",
                    name(c)
                ));
            }
        }
    }
    Ok(format!(
        "{} QI subsets, {} local groups, local buckets on {} attributes",
        release.qi_partition.len(),
        release.groups.len(),
        release.local_buckets.len()
    ))
}
