//! `MicroaggregationK` by its definition, from the release's published
//! values and the dataset, apart from the algorithm's code:
//!
//! 1. every published tuple of the aggregated attributes (together, within
//!    the stratum column's value) is shared by at least k published
//!    records — counted on the values as they would be read back from the
//!    table (bit patterns of the doubles, `-0` taken as `0`);
//! 2. the recorded groups stay inside their stratum, and each published
//!    value is its group's mean (summed here in row order: the algorithm
//!    sums in sdcMicro's order, so the two may differ by rounding; a
//!    relative 1e-9 is allowed) or median of the original values.
//!
//! What is not checked, because a release cannot show it: that the groups
//! are the ones MDAV (or the optimal method) would form. Another grouping
//! of at least k records satisfies the claim as well.

use rustc_hash::FxHashMap;

use crate::data::Dataset;
use crate::release::{AggregationName, PerturbationMethod, PublishedValues, Release};

/// Relative tolerance between a published aggregate and the verifier's.
const AGGREGATE_TOLERANCE: f64 = 1e-9;

pub(super) fn microaggregation_k(
    release: &Release,
    ds: &Dataset,
    k: u32,
    attributes: &[String],
    aggregation: AggregationName,
    strata: Option<&str>,
) -> Result<String, String> {
    let p = release
        .perturbation
        .as_ref()
        .ok_or("the release carries no perturbed values")?;
    let columns: Vec<usize> = attributes
        .iter()
        .map(|a| ds.column_index(a).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let values: Vec<&[f64]> = columns
        .iter()
        .zip(attributes)
        .map(|(&c, name)| match p.values_of(c) {
            Some(PublishedValues::Numbers { values }) if values.len() == ds.n_rows() => {
                Ok(values.as_slice())
            }
            _ => Err(format!("'{name}' has no published value per record")),
        })
        .collect::<Result<_, _>>()?;
    let stratum = match strata {
        Some(name) => Some(ds.column_index(name).map_err(|e| e.to_string())?),
        None => None,
    };
    let stratum_of = |r: usize| stratum.map_or(0, |s| ds.col(s).code(r));

    // 1. Published tuples, counted.
    let mut counts: FxHashMap<(u32, Vec<u64>), u64> = FxHashMap::default();
    for g in &release.groups {
        for &r in &g.rows {
            let r = r as usize;
            let key: Vec<u64> = values.iter().map(|v| (v[r] + 0.0).to_bits()).collect();
            *counts.entry((stratum_of(r), key)).or_default() += 1;
        }
    }
    let smallest = counts.values().copied().min().unwrap_or(0);
    if smallest < u64::from(k) && !counts.is_empty() {
        let ((_, key), n) = counts
            .iter()
            .filter(|(_, &n)| n < u64::from(k))
            .min_by_key(|((s, key), _)| (*s, key.clone()))
            .expect("a tuple below k");
        let shown: Vec<String> = key.iter().map(|b| f64::from_bits(*b).to_string()).collect();
        return Err(format!(
            "the published tuple ({}) of {} is shared by {n} record(s), fewer than k = {k}",
            shown.join(", "),
            attributes.join(", ")
        ));
    }

    // 2. The recorded groups and their aggregates.
    let groups = p
        .methods
        .iter()
        .find_map(|m| match m {
            PerturbationMethod::Microaggregation {
                columns: c, groups, ..
            } if *c == columns => Some(groups),
            _ => None,
        })
        .ok_or("the release records no microaggregation groups of these attributes")?;
    if groups.len() != ds.n_rows() {
        return Err("the recorded groups do not cover the dataset's records".into());
    }
    let mut members: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (r, &g) in groups.iter().enumerate() {
        members.entry(g).or_default().push(r);
    }
    let mut ids: Vec<u32> = members.keys().copied().collect();
    ids.sort_unstable();
    for g in ids {
        let rows = &members[&g];
        let s = stratum_of(rows[0]);
        if rows.iter().any(|&r| stratum_of(r) != s) {
            return Err(format!("group {} crosses strata", g + 1));
        }
        for ((&c, v), name) in columns.iter().zip(&values).zip(attributes) {
            let col = ds.col(c);
            let mut originals = Vec::with_capacity(rows.len());
            for &r in rows {
                originals.push(
                    col.number(col.code(r))
                        .ok_or_else(|| format!("'{name}' is missing at record {}", r + 1))?,
                );
            }
            let expected = aggregate(&mut originals, aggregation);
            for &r in rows {
                let got = v[r];
                if (got - expected).abs() > AGGREGATE_TOLERANCE * expected.abs().max(1.0) {
                    return Err(format!(
                        "record {} publishes {got} for '{name}', its group's {} is {expected}",
                        r + 1,
                        aggregation.as_str()
                    ));
                }
            }
        }
    }
    Ok(format!(
        "every published tuple of {} shared by at least {smallest} ≥ {k} records{}; every value its group's {}",
        attributes.join(", "),
        strata.map_or(String::new(), |s| format!(" of its '{s}'")),
        aggregation.as_str()
    ))
}

fn aggregate(values: &mut [f64], how: AggregationName) -> f64 {
    match how {
        AggregationName::Mean => values.iter().sum::<f64>() / values.len() as f64,
        AggregationName::Median => {
            values.sort_by(f64::total_cmp);
            let half = values.len() / 2;
            if values.len() % 2 == 1 {
                values[half]
            } else {
                (values[half - 1] + values[half]) / 2.0
            }
        }
    }
}
