//! Correspondence loss between the non-sensitive attributes (NSAs) and the
//! sensitive attribute (SA) of a release: GLP (the refining-partition paper,
//! Definition 3) and the reconstruction error of its Property 8.
//!
//! For a record t of the original table T, S_t is the set of SA values of
//! the records of T with t's NSA values (t's own value among them). In the
//! release, t's published block (its bucket; the equivalence group when the
//! release has no buckets) assigns each value s the probability
//! Pr(t*[SA] = s) = c_s/|B|, c_s the block's records with s. Then
//!
//! - NLP(t*) = Σ_{s ∈ S − S_t} Pr(t*[SA] = s): the mass put on values never
//!   seen with t's NSA values, in [0, 1], 0 when the block keeps every
//!   correspondence;
//! - GLP(T*) = the mean of NLP over the published records. The paper calls
//!   GLP "a normalized version of NLP" without the formula; each NLP already
//!   lies in [0, 1], so the normalisation chosen is by the record count;
//! - RE(t) = Σ_{s ∈ S_B, s ≠ t[SA]} Pr(t*[SA] = s) = 1 − c_{t[SA]}/|B|, and
//!   the total RE over the published records is compared with Property 8's
//!   lower bound n(1 − 1/ℓ), reached when every block holds ℓ records with
//!   distinct values. For ARP, whose blocks hold distinct values, the total
//!   is exactly (n − r)(1 − 1/ℓ) + r with r the residues inserted at the end
//!   of Algorithm 2 (a block of m distinct values contributes m − 1).
//!
//! A release with NG's assignment (`Release::assignment`) has no blocks:
//! record t's block is the set of tuples assigned to it, each carrying its
//! owner's value (`assignment_loss`).
//!
//! The NSAs are the release's quasi-identifiers, the SA its first sensitive
//! attribute; a missing value is a value of its own; S_t is taken over every
//! row of T, suppressed ones included (they are part of the original table
//! the correspondences come from), NLP and RE over the published rows.

use fixedbitset::FixedBitSet;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::partition::Partition;
use crate::privacy::counts_of_rows;
use crate::release::Release;

/// GLP and reconstruction error of one release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorrespondenceLoss {
    /// The sensitive attribute.
    pub attribute: String,
    /// Published records measured.
    pub records: usize,
    /// Mean NLP over the published records (Definition 3).
    pub glp: f64,
    pub nlp_max: f64,
    /// Records whose NLP is above 0.
    pub records_with_loss: usize,
    /// Total reconstruction error Σ_t (1 − Pr(t*[SA] = t[SA])).
    pub reconstruction_error: f64,
    /// Property 8's lower bound n(1 − 1/ℓ), when the release has an ℓ.
    pub re_lower_bound: Option<f64>,
}

impl CorrespondenceLoss {
    /// Total RE over its lower bound (1 = the bound is reached).
    pub fn re_ratio(&self) -> Option<f64> {
        self.re_lower_bound
            .filter(|&b| b > 0.0)
            .map(|b| self.reconstruction_error / b)
    }
}

/// GLP and RE of a release over its first sensitive attribute; `None` when
/// it has no sensitive attribute.
pub fn correspondence_loss(release: &Release, ds: &Dataset) -> Result<Option<CorrespondenceLoss>> {
    let Some(&sa) = release.sensitive.first() else {
        return Ok(None);
    };
    if release.source_rows != ds.n_rows() || sa >= ds.n_cols() {
        return Err(Error::Internal(format!(
            "the release was made from {} rows, the dataset has {}",
            release.source_rows,
            ds.n_rows()
        )));
    }
    let col = ds.col(sa);
    let codes = col.codes();
    let nsa = Partition::by_columns(ds, &release.quasi_identifiers);
    // (class of NSA values, SA value) pairs that occur in T.
    let seen = SeenPairs::new(&nsa, codes, col.code_space());
    if release.has_assignment() {
        return Ok(Some(assignment_loss(release, ds, sa, &nsa, &seen)?));
    }
    let blocks: Vec<&[u32]> = if release.is_bucketized() {
        release.buckets.iter().map(|b| b.rows.as_slice()).collect()
    } else {
        release.groups.iter().map(|g| g.rows.as_slice()).collect()
    };
    let (mut records, mut with_loss) = (0usize, 0usize);
    let (mut nlp_sum, mut nlp_max, mut re) = (0.0f64, 0.0f64, 0.0f64);
    for rows in blocks {
        if rows.is_empty() {
            continue;
        }
        if let Some(&t) = rows.iter().find(|&&t| t as usize >= ds.n_rows()) {
            return Err(Error::Internal(format!(
                "the release publishes row {t}, the dataset has {} rows",
                ds.n_rows()
            )));
        }
        let size = rows.len() as f64;
        let counts = counts_of_rows(rows, col);
        for &t in rows {
            let (t, class) = (t as usize, nsa.class_of(t as usize));
            let unseen: u64 = counts
                .iter()
                .filter(|c| !seen.contains(class, c.code))
                .map(|c| u64::from(c.count))
                .sum();
            let own = counts
                .iter()
                .find(|c| c.code == codes[t])
                .map_or(0, |c| c.count);
            let nlp = unseen as f64 / size;
            nlp_sum += nlp;
            nlp_max = nlp_max.max(nlp);
            with_loss += usize::from(unseen > 0);
            re += 1.0 - own as f64 / size;
            records += 1;
        }
    }
    Ok(Some(CorrespondenceLoss {
        attribute: col.name().to_string(),
        records,
        glp: if records == 0 {
            0.0
        } else {
            nlp_sum / records as f64
        },
        nlp_max,
        records_with_loss: with_loss,
        reconstruction_error: re,
        re_lower_bound: release
            .params
            .l
            .filter(|&l| l > 0)
            .map(|l| records as f64 * (1.0 - 1.0 / f64::from(l))),
    }))
}

/// GLP and RE of a release with NG's assignment: record t's block is the
/// tuples assigned to it, each carrying its owner's value, so
/// Pr(t*[SA] = s) = (t's tuples carrying s)/(t's tuples) — 1/ℓ per value
/// under an ℓ-regular assignment with distinct values, the reading under
/// which the refining-partition paper compares NG with ARP's sub-blocks.
fn assignment_loss(
    release: &Release,
    ds: &Dataset,
    sa: usize,
    nsa: &Partition,
    seen: &SeenPairs,
) -> Result<CorrespondenceLoss> {
    let col = ds.col(sa);
    let codes = col.codes();
    let n = ds.n_rows();
    let out_of_range = |r: u32| {
        Error::Internal(format!(
            "the release publishes row {r}, the dataset has {n} rows"
        ))
    };
    let mut values: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (group, assigned) in release.groups.iter().zip(&release.assignment) {
        for &own in &group.rows {
            let value = *codes.get(own as usize).ok_or_else(|| out_of_range(own))?;
            for &r in assigned {
                values
                    .get_mut(r as usize)
                    .ok_or_else(|| out_of_range(r))?
                    .push(value);
            }
        }
    }
    let (mut records, mut with_loss) = (0usize, 0usize);
    let (mut nlp_sum, mut nlp_max, mut re) = (0.0f64, 0.0f64, 0.0f64);
    for t in release.groups.iter().flat_map(|g| &g.rows) {
        let t = *t as usize;
        let vals = &values[t];
        if vals.is_empty() {
            continue;
        }
        let class = nsa.class_of(t);
        let unseen = vals.iter().filter(|&&v| !seen.contains(class, v)).count();
        let own = vals.iter().filter(|&&v| v == codes[t]).count();
        let size = vals.len() as f64;
        let nlp = unseen as f64 / size;
        nlp_sum += nlp;
        nlp_max = nlp_max.max(nlp);
        with_loss += usize::from(unseen > 0);
        re += 1.0 - own as f64 / size;
        records += 1;
    }
    Ok(CorrespondenceLoss {
        attribute: col.name().to_string(),
        records,
        glp: if records == 0 {
            0.0
        } else {
            nlp_sum / records as f64
        },
        nlp_max,
        records_with_loss: with_loss,
        reconstruction_error: re,
        re_lower_bound: release
            .params
            .l
            .filter(|&l| l > 0)
            .map(|l| records as f64 * (1.0 - 1.0 / f64::from(l))),
    })
}

/// Which (original QI class, sensitive value) pairs occur in the table.
enum SeenPairs {
    /// Bit `class × values + value`, when that stays small (Adult: 20,000
    /// classes × 15 values, 37 KiB).
    Bits {
        values: usize,
        bits: FixedBitSet,
    },
    Hashed(FxHashSet<(u32, u32)>),
}

/// Most bits the dense form may take (8 MiB).
const SEEN_BITS: usize = 1 << 26;

impl SeenPairs {
    fn new(nsa: &Partition, codes: &[u32], code_space: usize) -> Self {
        let values = code_space.max(1);
        match nsa.n_classes().checked_mul(values) {
            Some(len) if len <= SEEN_BITS => {
                let mut bits = FixedBitSet::with_capacity(len);
                for (r, &c) in codes.iter().enumerate() {
                    bits.insert(nsa.class_of(r) as usize * values + c as usize);
                }
                SeenPairs::Bits { values, bits }
            }
            _ => SeenPairs::Hashed(
                codes
                    .iter()
                    .enumerate()
                    .map(|(r, &c)| (nsa.class_of(r), c))
                    .collect(),
            ),
        }
    }

    fn contains(&self, class: u32, code: u32) -> bool {
        match self {
            SeenPairs::Bits { values, bits } => {
                (code as usize) < *values && bits.contains(class as usize * values + code as usize)
            }
            SeenPairs::Hashed(set) => set.contains(&(class, code)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{Bucket, Cell, EquivalenceGroup};

    /// z is the NSA, d the SA: S_a = {flu, cold}, S_b = {flu, hiv}.
    fn table() -> Dataset {
        Dataset::from_rows(
            &["z", "d"],
            &[
                vec!["a", "flu"],
                vec!["a", "cold"],
                vec!["b", "flu"],
                vec!["b", "hiv"],
            ],
        )
        .unwrap()
    }

    fn bucketized(ds: &Dataset, buckets: &[&[u32]]) -> Release {
        let mut r = Release::new("test", ds, vec![0], vec![1]);
        r.params.l = Some(2);
        for b in buckets {
            r.buckets.push(Bucket { rows: b.to_vec() });
            r.groups.push(EquivalenceGroup {
                rows: b.to_vec(),
                cells: vec![Cell::Original],
            });
        }
        r
    }

    #[test]
    fn seen_pairs_bits_and_hash_agree() {
        let ds = table();
        let nsa = Partition::by_columns(&ds, &[0]);
        let col = ds.col(1);
        let bits = SeenPairs::new(&nsa, col.codes(), col.code_space());
        assert!(matches!(bits, SeenPairs::Bits { .. }));
        let hashed = SeenPairs::Hashed(
            col.codes()
                .iter()
                .enumerate()
                .map(|(r, &c)| (nsa.class_of(r), c))
                .collect(),
        );
        let mut seen = 0;
        for class in 0..nsa.n_classes() as u32 {
            for code in 0..col.code_space() as u32 + 2 {
                assert_eq!(bits.contains(class, code), hashed.contains(class, code));
                seen += usize::from(bits.contains(class, code));
            }
        }
        // a: flu, cold; b: flu, hiv.
        assert_eq!(seen, 4);
    }

    #[test]
    fn glp_of_a_hand_worked_table() {
        let ds = table();
        // One bucket {flu, cold, flu, hiv}: Pr(flu) = 2/4, Pr(cold) = Pr(hiv)
        // = 1/4. Rows with z = a: hiv ∉ S_a, NLP = 1/4; rows with z = b:
        // cold ∉ S_b, NLP = 1/4. GLP = 1/4.
        // RE = (1 − 2/4) + (1 − 1/4) + (1 − 2/4) + (1 − 1/4) = 2.5; the bound
        // n(1 − 1/ℓ) = 4 · 1/2 = 2.
        let g = correspondence_loss(&bucketized(&ds, &[&[0, 1, 2, 3]]), &ds)
            .unwrap()
            .unwrap();
        assert!((g.glp - 0.25).abs() < 1e-12, "{g:?}");
        assert!((g.nlp_max - 0.25).abs() < 1e-12);
        assert_eq!(g.records_with_loss, 4);
        assert!((g.reconstruction_error - 2.5).abs() < 1e-12);
        assert_eq!(g.re_lower_bound, Some(2.0));
        assert!((g.re_ratio().unwrap() - 1.25).abs() < 1e-12);

        // Buckets {0,3} = {flu, hiv} and {1,2} = {cold, flu}: row 0 (a) puts
        // 1/2 on hiv ∉ S_a; row 3 (b) nothing (flu, hiv ∈ S_b); row 1 (a)
        // nothing (cold, flu ∈ S_a); row 2 (b) 1/2 on cold ∉ S_b.
        // GLP = (1/2 + 0 + 0 + 1/2)/4 = 1/4. Each row's RE is 1/2: total 2,
        // the bound.
        let g = correspondence_loss(&bucketized(&ds, &[&[0, 3], &[1, 2]]), &ds)
            .unwrap()
            .unwrap();
        assert!((g.glp - 0.25).abs() < 1e-12);
        assert!((g.nlp_max - 0.5).abs() < 1e-12);
        assert_eq!(g.records_with_loss, 2);
        assert!((g.reconstruction_error - 2.0).abs() < 1e-12);
        assert_eq!(g.re_ratio(), Some(1.0));

        // Buckets by z keep every correspondence: GLP = 0.
        let g = correspondence_loss(&bucketized(&ds, &[&[0, 1], &[2, 3]]), &ds)
            .unwrap()
            .unwrap();
        assert_eq!(g.glp, 0.0);
        assert_eq!(g.records_with_loss, 0);
    }

    #[test]
    fn no_sensitive_attribute_no_measure() {
        let ds = table();
        let r = Release::new("test", &ds, vec![0], vec![]);
        assert_eq!(correspondence_loss(&r, &ds).unwrap(), None);
    }
}
