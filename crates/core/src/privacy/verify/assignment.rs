//! The verifier's check of non-homogeneous generalization's guarantee
//! (`Guarantee::RegularAssignment`): the release's assignment graph is
//! re-checked edge by edge against the cells and the data, never taken
//! from the ring NG built it on (`algorithms::ng`).
//!
//! What holds when every check passes: the assignment is an l-regular
//! bipartite graph between the published records and the published tuples
//! whose edges are real (the attacker, who knows every QI value, sees each
//! of them: the record's values lie in the tuple's cells), and each record's
//! l tuples carry l distinct sensitive values. König's theorem splits an
//! l-regular bipartite graph into l perfect matchings, so every one of a
//! record's l tuples is its own in some matching consistent with what is
//! published (Wong, Mamoulis and Cheung, SIGMOD 2010, the NG paper's
//! argument).

use crate::data::Dataset;
use crate::release::Release;

pub(super) fn regular_assignment(
    release: &Release,
    ds: &Dataset,
    column: usize,
    l: u32,
) -> Result<String, String> {
    let l = l as usize;
    let name = ds.col(column).name();
    if l == 0 {
        return Err("l must be at least 1".to_string());
    }
    if release.assignment.len() != release.groups.len() {
        return Err(format!(
            "the release lists an assignment for {} tuples and publishes {} groups",
            release.assignment.len(),
            release.groups.len()
        ));
    }
    let n = release.source_rows;
    let published = release.group_of_row();
    let sa = ds.col(column).codes();
    // Per record, the values of the tuples assigned to it (at most l each:
    // a record assigned more often fails below before overflowing).
    let mut values: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (g, (group, assigned)) in release.groups.iter().zip(&release.assignment).enumerate() {
        let &[own] = group.rows.as_slice() else {
            return Err(format!(
                "group {g} publishes {} rows; a regular assignment is between records and one tuple each",
                group.rows.len()
            ));
        };
        if assigned.len() != l {
            return Err(format!(
                "tuple {g} (row {own}) is assigned to {} records, not {l}",
                assigned.len()
            ));
        }
        let mut sorted = assigned.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("tuple {g} is assigned to row {} twice", w[0]));
        }
        if sorted.binary_search(&own).is_err() {
            return Err(format!(
                "tuple {g} is not assigned to its own record (row {own})"
            ));
        }
        for &r in assigned {
            if published.get(r as usize).is_none_or(|p| p.is_none()) {
                return Err(format!(
                    "tuple {g} is assigned to row {r}, which is not published"
                ));
            }
            let r = r as usize;
            for (&c, cell) in release.quasi_identifiers.iter().zip(&group.cells) {
                let col = ds.col(c);
                if !cell.contains(col.code(own as usize), col.code(r)) {
                    return Err(format!(
                        "tuple {g} is assigned to row {r}, whose '{}' ({}) is outside its cell {}",
                        col.name(),
                        col.display(col.code(r)),
                        cell.render(col, col.code(own as usize))
                    ));
                }
            }
            if values[r].len() == l {
                return Err(format!("row {r} is assigned to more than {l} tuples"));
            }
            values[r].push(sa[own as usize]);
        }
    }
    for (r, vals) in values.iter_mut().enumerate() {
        if published[r].is_none() {
            continue;
        }
        if vals.len() != l {
            return Err(format!(
                "row {r} is assigned to {} tuples, not {l}",
                vals.len()
            ));
        }
        vals.sort_unstable();
        if let Some(w) = vals.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "row {r}'s {l} tuples carry '{}' twice: fewer than {l} distinct values of '{name}'",
                ds.col(column).display(w[0])
            ));
        }
    }
    Ok(format!(
        "{} tuples, each assigned to {l} records and each record to {l} tuples with {l} distinct values of '{name}', every record inside its tuples' cells",
        release.groups.len()
    ))
}
