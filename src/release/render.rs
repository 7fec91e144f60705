//! The published table, as a person or another program would receive it.
//!
//! Rows are written group by group (never in the source order, which could
//! itself link a row back to its owner); identifiers are dropped; each row
//! carries its group id (GID) and, in bucketized releases, its bucket id
//! (BID). In a bucketized release the sensitive values are not on the rows
//! at all: they go to a second table of (BID, attribute, value, count), as
//! in Anatomy's QIT/ST pair. Files are written to a temporary file and
//! renamed.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Guarantee, Release, ReleaseParams};
use crate::data::{write_atomic_with, Dataset, Role};
use crate::error::Result;

/// Columns published as they are: neither identifier, QI, nor sensitive.
fn passthrough(release: &Release, ds: &Dataset, roles: Option<&[Role]>) -> Vec<usize> {
    (0..ds.n_cols())
        .filter(|c| {
            !release.quasi_identifiers.contains(c)
                && !release.sensitive.contains(c)
                && !release.identifiers.contains(c)
                && roles.is_none_or(|r| r[*c] == Role::Insensitive)
        })
        .collect()
}

/// Header of the published table.
pub fn published_headers(release: &Release, ds: &Dataset, roles: Option<&[Role]>) -> Vec<String> {
    let mut h: Vec<String> = release
        .quasi_identifiers
        .iter()
        .map(|&c| ds.col(c).name().to_string())
        .collect();
    h.extend(
        passthrough(release, ds, roles)
            .into_iter()
            .map(|c| ds.col(c).name().to_string()),
    );
    if !release.is_bucketized() {
        h.extend(
            release
                .sensitive
                .iter()
                .map(|&c| ds.col(c).name().to_string()),
        );
    }
    h.push("GID".into());
    if release.is_bucketized() {
        h.push("BID".into());
    }
    h
}

/// One published row: the `i`-th member of group `g`. `bucket_of_row`
/// comes from `Release::bucket_of_row` (computed once by the caller).
pub fn published_row(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    g: usize,
    i: usize,
    bucket_of_row: &[Option<u32>],
) -> Vec<String> {
    let group = &release.groups[g];
    let r = group.rows[i] as usize;
    let mut out: Vec<String> = release
        .quasi_identifiers
        .iter()
        .zip(&group.cells)
        .map(|(&c, cell)| {
            let col = ds.col(c);
            cell.render(col, col.code(r))
        })
        .collect();
    for c in passthrough(release, ds, roles) {
        let col = ds.col(c);
        out.push(col.display(col.code(r)).to_string());
    }
    if !release.is_bucketized() {
        for &c in &release.sensitive {
            let col = ds.col(c);
            out.push(col.display(col.code(r)).to_string());
        }
    }
    out.push((g + 1).to_string());
    if release.is_bucketized() {
        out.push(
            bucket_of_row
                .get(r)
                .copied()
                .flatten()
                .map_or(String::new(), |b| (b + 1).to_string()),
        );
    }
    out
}

/// Sensitive-value counts per bucket: (BID, attribute, value, count).
fn bucket_table(release: &Release, ds: &Dataset) -> Vec<(usize, String, String, u32)> {
    let mut out = Vec::new();
    for (b, bucket) in release.buckets.iter().enumerate() {
        for &c in &release.sensitive {
            let col = ds.col(c);
            let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
            for &r in &bucket.rows {
                *counts.entry(col.code(r as usize)).or_default() += 1;
            }
            for (code, n) in counts {
                out.push((
                    b + 1,
                    col.name().to_string(),
                    col.display(code).to_string(),
                    n,
                ));
            }
        }
    }
    out
}

/// The second file of a bucketized release: `out.csv` → `out.buckets.csv`.
pub fn buckets_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "release".into());
    path.with_file_name(format!("{stem}.buckets.csv"))
}

/// Write the published table as CSV (and, when bucketized, the bucket
/// table beside it). Returns the files written.
pub fn write_csv(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    path: &Path,
) -> Result<Vec<PathBuf>> {
    let bucket_of_row = release.bucket_of_row();
    let passthrough = passthrough(release, ds, roles);
    let bucketized = release.is_bucketized();
    write_atomic_with(path, |w| {
        let mut out = csv::Writer::from_writer(w);
        out.write_record(published_headers(release, ds, roles))?;
        // A group's generalized cells are the same on all its rows: render
        // them once per group, not once per row (a 1M-row release spends
        // most of its export time here otherwise). Per-row fields borrow
        // the dictionaries' strings.
        let mut group_cells: Vec<Option<String>> = Vec::new();
        let mut ids = (String::new(), String::new());
        for (g, group) in release.groups.iter().enumerate() {
            group_cells.clear();
            group_cells.extend(release.quasi_identifiers.iter().zip(&group.cells).map(
                |(&c, cell)| match cell {
                    super::Cell::Original => None,
                    _ => Some(cell.render(ds.col(c), 0)),
                },
            ));
            ids.0 = (g + 1).to_string();
            for &r in &group.rows {
                let r = r as usize;
                for (&c, cell) in release.quasi_identifiers.iter().zip(&group_cells) {
                    match cell {
                        Some(text) => out.write_field(text)?,
                        None => out.write_field(ds.col(c).display(ds.col(c).code(r)))?,
                    }
                }
                for &c in &passthrough {
                    out.write_field(ds.col(c).display(ds.col(c).code(r)))?;
                }
                if !bucketized {
                    for &c in &release.sensitive {
                        out.write_field(ds.col(c).display(ds.col(c).code(r)))?;
                    }
                }
                out.write_field(&ids.0)?;
                if bucketized {
                    ids.1.clear();
                    if let Some(b) = bucket_of_row.get(r).copied().flatten() {
                        ids.1 = (b + 1).to_string();
                    }
                    out.write_field(&ids.1)?;
                }
                out.write_record(None::<&[u8]>)?;
            }
        }
        out.flush()
    })?;
    let mut written = vec![path.to_path_buf()];
    if release.is_bucketized() {
        let bpath = buckets_path(path);
        let table = bucket_table(release, ds);
        write_atomic_with(&bpath, |w| {
            let mut out = csv::Writer::from_writer(w);
            out.write_record(["BID", "attribute", "value", "count"])?;
            for (b, a, v, n) in &table {
                out.write_record([b.to_string(), a.clone(), v.clone(), n.to_string()])?;
            }
            out.flush()
        })?;
        written.push(bpath);
    }
    Ok(written)
}

#[derive(Debug, Serialize)]
pub struct GroupJson {
    pub gid: usize,
    pub size: usize,
    /// Published cells by QI name; `Original` cells are listed per row in
    /// the CSV and shown here as `(original)`.
    pub cells: BTreeMap<String, String>,
}

#[derive(Debug, Serialize)]
pub struct BucketJson {
    pub bid: usize,
    pub size: usize,
    pub sensitive: BTreeMap<String, BTreeMap<String, u32>>,
}

/// The JSON form of a release: what is published, and what is claimed.
#[derive(Debug, Serialize)]
pub struct ReleaseJson {
    pub algorithm: String,
    pub params: ReleaseParams,
    pub claims: Vec<Guarantee>,
    pub source_rows: usize,
    pub published_rows: usize,
    pub suppressed_rows: usize,
    pub quasi_identifiers: Vec<String>,
    pub sensitive: Vec<String>,
    pub groups: Vec<GroupJson>,
    pub buckets: Vec<BucketJson>,
}

impl ReleaseJson {
    pub fn new(release: &Release, ds: &Dataset) -> Self {
        let qi_names: Vec<String> = release
            .quasi_identifiers
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect();
        let groups = release
            .groups
            .iter()
            .enumerate()
            .map(|(g, group)| GroupJson {
                gid: g + 1,
                size: group.rows.len(),
                cells: qi_names
                    .iter()
                    .zip(release.quasi_identifiers.iter().zip(&group.cells))
                    .map(|(name, (&c, cell))| {
                        let text = match cell {
                            super::Cell::Original => "(original)".to_string(),
                            _ => cell.render(ds.col(c), 0),
                        };
                        (name.clone(), text)
                    })
                    .collect(),
            })
            .collect();
        let mut buckets: Vec<BucketJson> = release
            .buckets
            .iter()
            .enumerate()
            .map(|(b, bucket)| BucketJson {
                bid: b + 1,
                size: bucket.rows.len(),
                sensitive: BTreeMap::new(),
            })
            .collect();
        for (b, attr, value, n) in bucket_table(release, ds) {
            buckets[b - 1]
                .sensitive
                .entry(attr)
                .or_default()
                .insert(value, n);
        }
        ReleaseJson {
            algorithm: release.algorithm.clone(),
            params: release.params.clone(),
            claims: release.claims.clone(),
            source_rows: release.source_rows,
            published_rows: release.published_rows(),
            suppressed_rows: release.suppressed_rows.len(),
            quasi_identifiers: qi_names,
            sensitive: release
                .sensitive
                .iter()
                .map(|&c| ds.col(c).name().to_string())
                .collect(),
            groups,
            buckets,
        }
    }
}

/// Write the JSON form atomically.
pub fn write_json(release: &Release, ds: &Dataset, path: &Path) -> Result<()> {
    let json = ReleaseJson::new(release, ds);
    write_atomic_with(path, |w: &mut dyn Write| {
        serde_json::to_writer_pretty(&mut *w, &json).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Bucket;

    #[test]
    fn bucketized_release_keeps_sensitive_values_apart() {
        let ds = Dataset::from_rows(
            &["name", "age", "disease"],
            &[
                vec!["Ann", "16", "Flu"],
                vec!["Bob", "24", "HIV"],
                vec!["Cat", "20", "Flu"],
                vec!["Dan", "31", "Cold"],
            ],
        )
        .unwrap();
        let mut r = Release::new("test", &ds, vec![1], vec![2]);
        r.identifiers = vec![0];
        r.push_covering_group(&ds, vec![0, 1]);
        r.push_covering_group(&ds, vec![2, 3]);
        r.buckets = vec![Bucket { rows: vec![0, 3] }, Bucket { rows: vec![1, 2] }];
        assert_eq!(published_headers(&r, &ds, None), vec!["age", "GID", "BID"]);
        let b = r.bucket_of_row();
        assert_eq!(
            published_row(&r, &ds, None, 1, 1, &b),
            vec!["[20-31]", "2", "1"]
        );
        let dir = tempfile::tempdir().unwrap();
        let files = write_csv(&r, &ds, None, &dir.path().join("out.csv")).unwrap();
        assert_eq!(files.len(), 2);
        let main = std::fs::read_to_string(&files[0]).unwrap();
        assert!(!main.contains("Flu") && !main.contains("Ann"), "{main}");
        // The fast writer gives exactly the rows `published_row` renders.
        let expected: Vec<String> = std::iter::once(published_headers(&r, &ds, None).join(","))
            .chain((0..2).flat_map(|g| {
                let b = &b;
                let r = &r;
                let ds = &ds;
                (0..2).map(move |i| published_row(r, ds, None, g, i, b).join(","))
            }))
            .collect();
        assert_eq!(main.lines().collect::<Vec<_>>(), expected);
        let buckets = std::fs::read_to_string(&files[1]).unwrap();
        assert!(buckets.contains("1,disease,Cold,1"), "{buckets}");
        write_json(&r, &ds, &dir.path().join("out.json")).unwrap();
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap())
                .unwrap();
        assert_eq!(j["groups"][0]["cells"]["age"], "[16-24]");
        assert_eq!(j["buckets"][1]["sensitive"]["disease"]["Flu"], 1);
        // Only the two outputs and their bucket table: no temporary files left.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
