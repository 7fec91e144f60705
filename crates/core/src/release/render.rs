//! The published table, as a person or another program would receive it.
//!
//! Rows are written group by group (never in the source order, which could
//! itself link a row back to its owner); identifiers are dropped; each row
//! carries its group id (GID) and, in bucketized releases, its bucket id
//! (BID). In a bucketized release the sensitive values are not on the rows
//! at all: they go to a second table of (BID, attribute, value, count), as
//! in Anatomy's QIT/ST pair.
//!
//! An LGB release (local equivalence groups and local buckets) is published
//! as the LGB paper's Figure 2: quasi-identifier and semi-sensitive columns
//! with the group's generalized cell where the row carries a QI value, and
//! the reference `B<n>` of its local bucket (numbered per attribute) where
//! the cell is a sensitive value; sensitive columns likewise by bucket
//! reference; a GID column. Each attribute's local buckets go to a file of
//! their own, `out.<attribute>.buckets.csv`, with (BID, value, count), the
//! paper's Figure 4 SAT tables. Every file goes through `data::output`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::csv_fields::write_table;
use super::{Guarantee, Release, ReleaseParams};
use crate::data::{stage_file, write_file, Dataset, Inputs, Role, Staged};
use crate::error::Result;
use crate::partition::counts_of_rows;

/// Columns published as they are: neither identifier, QI, nor sensitive.
pub(super) fn passthrough(release: &Release, ds: &Dataset, roles: Option<&[Role]>) -> Vec<usize> {
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

/// Per source row, its bucket and, per column with local buckets, its
/// local bucket: what rendering rows needs, computed once per release.
#[derive(Debug, Clone, Default)]
pub struct BucketIndex {
    release: Vec<Option<u32>>,
    local: Vec<(usize, Vec<Option<u32>>)>,
}

impl BucketIndex {
    pub fn new(release: &Release) -> Self {
        BucketIndex {
            release: release.bucket_of_row(),
            local: local_index(release),
        }
    }

    /// The release-wide bucket of a row.
    pub fn bucket(&self, row: usize) -> Option<u32> {
        self.release.get(row).copied().flatten()
    }

    /// The local bucket of a row's cell on `column` (`None`: not a
    /// sensitive cell, or the column has no local buckets).
    pub fn local(&self, column: usize, row: usize) -> Option<u32> {
        LocalRef(&self.local).local(column, row)
    }
}

/// Local bucket per row, per column with local buckets.
pub(super) struct LocalRef<'a>(pub(super) &'a [(usize, Vec<Option<u32>>)]);

impl LocalRef<'_> {
    pub(super) fn local(&self, column: usize, row: usize) -> Option<u32> {
        self.0
            .iter()
            .find(|(c, _)| *c == column)
            .and_then(|(_, of)| of.get(row).copied().flatten())
    }

    pub(super) fn has_local(&self, column: usize) -> bool {
        self.0.iter().any(|(c, _)| *c == column)
    }
}

/// How a local bucket is referred to in the published table.
pub fn bucket_reference(bucket: u32) -> String {
    format!("B{}", bucket + 1)
}

/// One published row: the `i`-th member of group `g`. `bucket_of_row`
/// comes from `Release::bucket_of_row` (computed once by the caller). For
/// LGB releases [`published_row_indexed`] avoids indexing the local buckets
/// on every call.
pub fn published_row(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    g: usize,
    i: usize,
    bucket_of_row: &[Option<u32>],
) -> Vec<String> {
    let local = local_index(release);
    row_fields(release, ds, roles, g, i, bucket_of_row, &local)
}

pub(super) fn local_index(release: &Release) -> Vec<(usize, Vec<Option<u32>>)> {
    release
        .local_buckets
        .iter()
        .map(|lb| (lb.column, lb.bucket_of_row(release.source_rows)))
        .collect()
}

/// [`published_row`] with the buckets indexed once ([`BucketIndex::new`]).
pub fn published_row_indexed(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    g: usize,
    i: usize,
    index: &BucketIndex,
) -> Vec<String> {
    row_fields(release, ds, roles, g, i, &index.release, &index.local)
}

fn row_fields(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    g: usize,
    i: usize,
    bucket_of_row: &[Option<u32>],
    local: &[(usize, Vec<Option<u32>>)],
) -> Vec<String> {
    let index = LocalRef(local);
    let group = &release.groups[g];
    let r = group.rows[i] as usize;
    let mut out: Vec<String> = release
        .quasi_identifiers
        .iter()
        .zip(&group.cells)
        .map(|(&c, cell)| match index.local(c, r) {
            Some(b) => bucket_reference(b),
            None => {
                let col = ds.col(c);
                cell.render(col, col.code(r))
            }
        })
        .collect();
    // A perturbed column publishes its perturbed value, never the original.
    let own = |c: usize| {
        let col = ds.col(c);
        match release.perturbed(c) {
            Some(values) => values.render(col, r),
            None => col.display(col.code(r)).to_string(),
        }
    };
    for c in passthrough(release, ds, roles) {
        out.push(own(c));
    }
    if !release.is_bucketized() {
        for &c in &release.sensitive {
            out.push(match index.local(c, r) {
                Some(b) => bucket_reference(b),
                None if index.has_local(c) => String::new(),
                None => own(c),
            });
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

/// Every file [`write_csv`] writes for `release` at `path`: the table,
/// then the bucket table of a bucketized release, then one local-bucket
/// table per LGB attribute.
pub fn csv_files(release: &Release, ds: &Dataset, path: &Path) -> Vec<PathBuf> {
    let mut files = vec![path.to_path_buf()];
    if release.is_bucketized() {
        files.push(buckets_path(path));
    }
    for lb in &release.local_buckets {
        files.push(local_buckets_path(path, ds.col(lb.column).name()));
    }
    files
}

/// A published file's writer.
type Filler<'a> = Box<dyn Fn(&mut dyn Write) -> std::io::Result<()> + 'a>;

/// The files [`write_csv`] publishes at `path` (as [`csv_files`]), each
/// with its role in the fingerprint (`table`, `buckets`, `buckets
/// <attribute>`) and its writer, in the fingerprint's order.
fn files<'a>(
    release: &'a Release,
    ds: &'a Dataset,
    roles: Option<&'a [Role]>,
    path: &Path,
) -> Vec<(String, PathBuf, Filler<'a>)> {
    let mut out: Vec<(String, PathBuf, Filler<'a>)> = vec![(
        "table".into(),
        path.to_path_buf(),
        Box::new(move |w| write_table(release, ds, roles, w)),
    )];
    if release.is_bucketized() {
        out.push((
            "buckets".into(),
            buckets_path(path),
            Box::new(move |w| write_bucket_table(release, ds, w)),
        ));
    }
    for lb in &release.local_buckets {
        let name = ds.col(lb.column).name();
        out.push((
            format!("buckets {name}"),
            local_buckets_path(path, name),
            Box::new(move |w| write_local_buckets(lb, ds, w)),
        ));
    }
    out
}

/// Write the published table as CSV (and, when bucketized, the bucket
/// table beside it) through `data::output`. Every file is checked against
/// `inputs` (and against each other) before the first is written. Returns
/// the files written.
pub fn write_csv(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    path: &Path,
    inputs: &Inputs,
) -> Result<Vec<PathBuf>> {
    Ok(write_csv_fingerprinted(release, ds, roles, path, inputs)?.0)
}

/// [`write_csv`] and the release's [`fingerprint`], hashed from the bytes
/// as they are written: the table is rendered once for both.
pub fn write_csv_fingerprinted(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    path: &Path,
    inputs: &Inputs,
) -> Result<(Vec<PathBuf>, String)> {
    let (staged, fingerprint) = stage_csv_fingerprinted(release, ds, roles, path, inputs)?;
    Ok((staged.commit()?, fingerprint))
}

/// The files of a release written but not yet in place
/// ([`stage_csv_fingerprinted`]).
pub struct StagedRelease {
    files: Vec<Staged>,
}

impl StagedRelease {
    /// These files and `other` (the release's JSON, say), put in place
    /// together by [`commit`](Self::commit).
    pub fn with(mut self, other: Option<Staged>) -> Self {
        self.files.extend(other);
        self
    }

    /// Put every file in place; returns them in [`csv_files`]' order,
    /// then any added with [`with`](Self::with). Files bound for a device
    /// or FIFO are written first: that write can fail (`/dev/full`), while
    /// putting a synced temporary file in place is a rename, so a failure
    /// leaves none of the regular files in place.
    pub fn commit(self) -> Result<Vec<PathBuf>> {
        crate::data::commit_all(self.files)
    }
}

/// The release as JSON ([`write_json`]), staged beside its target and put
/// in place only when committed (with the table: [`StagedRelease::with`]).
pub fn stage_json(release: &Release, ds: &Dataset, path: &Path, inputs: &Inputs) -> Result<Staged> {
    let json = ReleaseJson::new(release, ds);
    stage_file(path, inputs, |w: &mut dyn Write| {
        serde_json::to_writer_pretty(&mut *w, &json).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
}

/// [`write_csv_fingerprinted`] up to the last step: every file checked,
/// rendered, hashed and synced to a temporary file beside its target
/// (`data::output::stage_file`), so that the rendering can run beside the
/// release's verification and nothing is published unless the caller
/// commits. Dropped uncommitted, it leaves no file behind.
pub fn stage_csv_fingerprinted(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    path: &Path,
    inputs: &Inputs,
) -> Result<(StagedRelease, String)> {
    // A grouped table holds only the columns its frequency table grouped:
    // its release is published by the engine's pass over the file.
    ds.require_records("writing the published table from memory")?;
    let files = files(release, ds, roles, path);
    inputs.check_all(&files.iter().map(|f| f.1.as_path()).collect::<Vec<_>>())?;
    let mut staged = Vec::new();
    let mut parts = Vec::new();
    for (name, file, fill) in files {
        let mut hash = Sha256::new();
        staged.push(stage_file(&file, inputs, |w| {
            fill(&mut Tee {
                inner: w,
                hash: &mut hash,
            })
        })?);
        parts.push((name, hash.finalize()));
    }
    Ok((StagedRelease { files: staged }, combine(parts)))
}

/// The release's fingerprint: SHA-256 over exactly the bytes
/// [`write_csv`] publishes — the published table, then the bucket table
/// and each attribute's local buckets when there are any, each file's
/// digest hashed with its role (`table`, `buckets`, `buckets <attribute>`)
/// — as `sha256:` and 64 hex digits. Two runs publish the same files if
/// and only if (up to a SHA-256 collision) their fingerprints are equal,
/// so a reader can check that a report, a CSV file and a screen describe
/// one release. `roles` as for [`write_csv`] (the columns passed through).
pub fn fingerprint(release: &Release, ds: &Dataset, roles: Option<&[Role]>) -> String {
    let parts = files(release, ds, roles, Path::new("release.csv"))
        .into_iter()
        .map(|(name, _, fill)| {
            let mut hash = Sha256::new();
            // Writing into a hasher cannot fail.
            let _ = fill(&mut Tee {
                inner: &mut std::io::sink(),
                hash: &mut hash,
            });
            (name, hash.finalize())
        })
        .collect();
    combine(parts)
}

/// The fingerprint of the files' digests, each hashed with its role.
pub fn combine<D: AsRef<[u8]>>(parts: Vec<(String, D)>) -> String {
    let mut all = Sha256::new();
    for (name, digest) in parts {
        all.update(name.as_bytes());
        all.update(b"\n");
        all.update(digest.as_ref());
    }
    let hex: String = all.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The first 12 hex digits of a fingerprint, as screens and tables show
/// it (`sha256:` dropped); the full form is in the JSON and the report.
pub fn short_fingerprint(fingerprint: &str) -> &str {
    let hex = fingerprint.strip_prefix("sha256:").unwrap_or(fingerprint);
    &hex[..hex.len().min(12)]
}

/// Writes through to `inner` and hashes what was written, so that the
/// fingerprint hashes what the CSV writers write.
struct Tee<'w> {
    inner: &'w mut dyn Write,
    hash: &'w mut Sha256,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The bucket table of a bucketized release as CSV into `w`.
fn write_bucket_table(release: &Release, ds: &Dataset, w: &mut dyn Write) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(["BID", "attribute", "value", "count"])?;
    for (b, a, v, n) in &bucket_table(release, ds) {
        out.write_record([b.to_string(), a.clone(), v.clone(), n.to_string()])?;
    }
    out.flush()
}

/// One attribute's local buckets (LGB) as CSV into `w`.
fn write_local_buckets(
    lb: &super::LocalBuckets,
    ds: &Dataset,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let col = ds.col(lb.column);
    let mut out = csv::Writer::from_writer(w);
    out.write_record(["BID", col.name(), "count"])?;
    for (b, bucket) in lb.buckets.iter().enumerate() {
        let reference = bucket_reference(b as u32);
        for v in counts_of_rows(&bucket.rows, col) {
            out.write_record([
                reference.as_str(),
                col.display(v.code),
                &v.count.to_string(),
            ])?;
        }
    }
    out.flush()
}

/// The file of one attribute's local buckets: `out.csv` →
/// `out.<attribute>.buckets.csv` (characters other than letters, digits,
/// `-` and `_` in the name become `_`).
pub fn local_buckets_path(path: &Path, attribute: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "release".into());
    let safe: String = attribute
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    path.with_file_name(format!("{stem}.{safe}.buckets.csv"))
}

#[derive(Debug, Serialize)]
pub struct GroupJson {
    pub gid: usize,
    pub size: usize,
    /// Published cells by QI name; `Original` cells are listed per row in
    /// the CSV and shown here as `(original)`.
    pub cells: BTreeMap<String, String>,
}

/// One local bucket of an attribute (LGB).
#[derive(Debug, Serialize)]
pub struct LocalBucketJson {
    pub attribute: String,
    /// As published: `B1`, `B2`, ... per attribute.
    pub bid: String,
    pub size: usize,
    pub values: BTreeMap<String, u32>,
}

/// One subset of LGB's QI partition.
#[derive(Debug, Serialize)]
pub struct QiSubsetJson {
    /// Attributes carrying QI values for its rows.
    pub qi: Vec<String>,
    /// GIDs of its local equivalence groups.
    pub groups: Vec<usize>,
}

#[derive(Debug, Serialize)]
pub struct BucketJson {
    pub bid: usize,
    pub size: usize,
    pub sensitive: BTreeMap<String, BTreeMap<String, u32>>,
}

/// The JSON form of a release: what is published, and what is claimed.
/// Sizes and row counts are records: on a grouped table (the query
/// engine's) a row counts as the records it stands for, so the JSON is the
/// one the same release on the records gives.
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub semi_sensitive: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub qi_partition: Vec<QiSubsetJson>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_buckets: Vec<LocalBucketJson>,
    /// The top and bottom codes and roundings applied to the file's values
    /// before the algorithm ran (`data::recode`), each with the cells it
    /// changed: a published top value reads "this or more".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recodings: Vec<crate::data::AppliedRecode>,
    /// The perturbation methods applied (microaggregation), with their
    /// parameters: which published columns carry perturbed values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub perturbed: Vec<PerturbedJson>,
}

/// One perturbation method of a release, as published: what a user of
/// the file needs to read it (PRAM's matrices, to correct an analysis for
/// the randomization), never the seed.
#[derive(Debug, Serialize)]
pub struct PerturbedJson {
    /// `mdav`, `optimal-univariate`, `pram`.
    pub method: String,
    pub attributes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strata: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<usize>,
    /// PRAM: how each attribute's matrices were made, and the matrices.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matrices: Vec<MatrixJson>,
    /// Noise: its percentage or δ, and the noise level per attribute (the
    /// standard deviation of the random term); rank swapping: p.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub noise_sd: Vec<f64>,
}

impl PerturbedJson {
    /// One method as published (its attributes and strata named).
    fn of(m: &super::PerturbationMethod, ds: &Dataset) -> Self {
        use super::PerturbationMethod as M;
        let name = |c: &usize| ds.col(*c).name().to_string();
        let base = PerturbedJson {
            method: String::new(),
            attributes: m.columns().iter().map(name).collect(),
            k: None,
            aggregation: None,
            strata: None,
            groups: None,
            sources: Vec::new(),
            matrices: Vec::new(),
            parameter: None,
            noise_sd: Vec::new(),
        };
        match m {
            M::Microaggregation {
                kind,
                k,
                aggregation,
                strata,
                n_groups,
                ..
            } => PerturbedJson {
                method: kind.clone(),
                k: Some(*k),
                aggregation: Some(aggregation.as_str().to_string()),
                strata: strata.as_ref().map(name),
                groups: Some(*n_groups),
                ..base
            },
            M::Noise {
                kind,
                parameter,
                strata,
                noise_sd,
                ..
            } => PerturbedJson {
                method: format!("noise-{kind}"),
                strata: strata.as_ref().map(name),
                parameter: Some(*parameter),
                noise_sd: noise_sd.clone(),
                ..base
            },
            M::RankSwap { p, strata, .. } => PerturbedJson {
                method: "rank-swap".into(),
                strata: strata.as_ref().map(name),
                parameter: Some(*p),
                ..base
            },
            M::Pram {
                strata,
                sources,
                matrices,
                ..
            } => PerturbedJson {
                method: "pram".into(),
                strata: strata.as_ref().map(name),
                sources: sources.clone(),
                matrices: matrices
                    .iter()
                    .map(|m| MatrixJson {
                        attribute: name(&m.column),
                        stratum: m.stratum.clone(),
                        categories: m.categories.clone(),
                        rows: m.rows(),
                    })
                    .collect(),
                ..base
            },
        }
    }
}

/// A PRAM transition matrix as published.
#[derive(Debug, Serialize)]
pub struct MatrixJson {
    pub attribute: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stratum: Option<String>,
    pub categories: Vec<String>,
    /// Row i: the chances that a record of category i is published as
    /// each category.
    pub rows: Vec<Vec<f64>>,
}

impl ReleaseJson {
    pub fn new(release: &Release, ds: &Dataset) -> Self {
        let qi_names: Vec<String> = release
            .quasi_identifiers
            .iter()
            .map(|&c| ds.col(c).name().to_string())
            .collect();
        let carries = release.carries_qi();
        let groups = release
            .groups
            .iter()
            .zip(&carries)
            .enumerate()
            .map(|(g, (group, carries))| GroupJson {
                gid: g + 1,
                // Records: a grouped table's row stands for several.
                size: ds.records_of(&group.rows),
                cells: qi_names
                    .iter()
                    .zip(release.quasi_identifiers.iter().zip(&group.cells))
                    .zip(carries)
                    .map(|((name, (&c, cell)), &carries)| {
                        let text = match cell {
                            _ if !carries => "(local buckets)".to_string(),
                            super::Cell::Original => "(original)".to_string(),
                            _ => cell.render(ds.col(c), 0),
                        };
                        (name.clone(), text)
                    })
                    .collect(),
            })
            .collect();
        let name = |c: &usize| ds.col(*c).name().to_string();
        let local_buckets = release
            .local_buckets
            .iter()
            .flat_map(|lb| {
                let col = ds.col(lb.column);
                lb.buckets
                    .iter()
                    .enumerate()
                    .map(move |(b, bucket)| LocalBucketJson {
                        attribute: col.name().to_string(),
                        bid: bucket_reference(b as u32),
                        size: bucket.rows.len(),
                        values: counts_of_rows(&bucket.rows, col)
                            .into_iter()
                            .map(|v| (col.display(v.code).to_string(), v.count))
                            .collect(),
                    })
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
        // A perturbation's seed would let a reader undo its draws (PRAM's,
        // noise's): the published JSON never carries it; the internal
        // report does.
        let mut params = release.params.clone();
        if release.perturbation.is_some() {
            params.seed = None;
        }
        ReleaseJson {
            algorithm: release.algorithm.clone(),
            params,
            claims: release.claims.clone(),
            source_rows: if ds.is_grouped() {
                ds.records() as usize
            } else {
                release.source_rows
            },
            published_rows: release.groups.iter().map(|g| ds.records_of(&g.rows)).sum(),
            suppressed_rows: ds.records_of(&release.suppressed_rows),
            quasi_identifiers: qi_names,
            sensitive: release
                .sensitive
                .iter()
                .map(|&c| ds.col(c).name().to_string())
                .collect(),
            groups,
            buckets,
            semi_sensitive: release.semi_sensitive.iter().map(name).collect(),
            qi_partition: release
                .qi_partition
                .iter()
                .map(|p| QiSubsetJson {
                    qi: p.qi.iter().map(name).collect(),
                    groups: p.groups.iter().map(|&g| g as usize + 1).collect(),
                })
                .collect(),
            local_buckets,
            recodings: ds.recodings().to_vec(),
            perturbed: release
                .perturbation
                .iter()
                .flat_map(|p| &p.methods)
                .map(|m| PerturbedJson::of(m, ds))
                .collect(),
        }
    }
}

/// Write the JSON form through `data::output` (never over one of `inputs`).
pub fn write_json(release: &Release, ds: &Dataset, path: &Path, inputs: &Inputs) -> Result<()> {
    let json = ReleaseJson::new(release, ds);
    write_file(path, inputs, |w: &mut dyn Write| {
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
        let files = write_csv(&r, &ds, None, &dir.path().join("out.csv"), &Inputs::new()).unwrap();
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
        write_json(&r, &ds, &dir.path().join("out.json"), &Inputs::new()).unwrap();
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap())
                .unwrap();
        assert_eq!(j["groups"][0]["cells"]["age"], "[16-24]");
        assert_eq!(j["buckets"][1]["sensitive"]["disease"]["Flu"], 1);
        // Only the two outputs and their bucket table: no temporary files left.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        // The fingerprint hashes exactly the files written.
        let f = fingerprint(&r, &ds, None);
        let mut all = Sha256::new();
        for (name, file) in [("table", &files[0]), ("buckets", &files[1])] {
            all.update(name.as_bytes());
            all.update(b"\n");
            all.update(Sha256::digest(std::fs::read(file).unwrap()));
        }
        let hex: String = all.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(f, format!("sha256:{hex}"));
        assert_eq!(short_fingerprint(&f), &hex[..12]);
        // Another release, another fingerprint.
        r.buckets.swap(0, 1);
        assert_ne!(fingerprint(&r, &ds, None), f);
    }
}
