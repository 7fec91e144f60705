//! The Anonymize screen's record detail: what the attacker of the LGB
//! paper (Section 2.2) learns about one published record.
//!
//! For the selected record t it lists t's **matching tuples** (Definition
//! 11: published tuples of t's QI-partition subset whose group cells on
//! QI[t] all contain t's values), and for each of t's sensitive cells the
//! **matching local buckets** (Definition 12: the attribute's local buckets
//! holding a matching tuple) with what Lemma 2 weighs them by — how many of
//! the matching tuples each holds, its size, and how often t's value occurs
//! in it — next to the breach probability p(t, s) that `risk::local_risk`
//! computed for the cell. The probabilities come from that module; this one
//! only gathers, for one record, the sets they are computed from, so the
//! screen can show why a cell is as exposed as it is.
//!
//! The matching rule is the one `risk::local_breach` documents (an attacker
//! who knows QI[t], so only t's own subset can match) and uses
//! `release::Cell::contains`, so a cell matches here exactly when it does
//! there. Releases without a QI partition are one subset carrying every
//! quasi-identifier, as in that module.

use anonlab::data::Dataset;
use anonlab::release::{BucketIndex, Release};
use anonlab::risk::LocalRisk;

/// Matching buckets listed per cell; the rest are summed up in one line.
pub const MAX_BUCKETS_SHOWN: usize = 6;

/// One matching local bucket of a sensitive cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchingBucket {
    /// Index of the bucket among the attribute's local buckets.
    pub bucket: u32,
    /// Matching tuples of t in the bucket: p(t, mb) = tuples / matching
    /// tuples in the attribute's buckets.
    pub tuples: usize,
    /// |mb|: sensitive cells in the bucket.
    pub size: usize,
    /// |mb(s)|: cells of the bucket holding t's value s.
    pub own: usize,
}

/// One sensitive cell of the record.
#[derive(Debug, Clone, PartialEq)]
pub struct CellDetail {
    pub column: usize,
    /// The record's value s (the analyst sees it; the attacker does not).
    pub value: String,
    /// The local bucket the cell was published in.
    pub bucket: Option<u32>,
    /// Matching tuples that fall in one of the attribute's local buckets.
    pub bucketed_tuples: usize,
    /// Most matching tuples first, then by bucket.
    pub matching: Vec<MatchingBucket>,
    /// p(t, s) by Lemma 2, from `risk::local_risk`.
    pub breach: Option<f64>,
}

/// What the detail panel shows for one published record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordDetail {
    /// Position in the published table (group by group).
    pub published: usize,
    /// The record's row in the source data.
    pub row: usize,
    /// Its local equivalence group (index into `Release::groups`).
    pub group: usize,
    /// QI[t]: columns carrying the record's QI values.
    pub qi: Vec<usize>,
    /// Source rows of the matching tuples, ascending.
    pub matching_tuples: Vec<u32>,
    /// Groups holding a matching tuple, ascending.
    pub matching_groups: Vec<usize>,
    /// Pr(re-id) = 1 / matching tuples (Lemma 1), from `risk::local_risk`.
    pub reidentification: Option<f64>,
    /// The record's sensitive cells, one per attribute with local buckets
    /// where its cell is a sensitive value.
    pub cells: Vec<CellDetail>,
}

/// The detail of member `i` of group `g`, published at position
/// `published`. `risk` is `None` for releases without local buckets.
pub fn record_detail(
    release: &Release,
    ds: &Dataset,
    index: &BucketIndex,
    risk: Option<&LocalRisk>,
    (g, i, published): (usize, usize, usize),
) -> RecordDetail {
    let group = &release.groups[g];
    let t = group.rows[i] as usize;
    let (qi, groups): (Vec<usize>, Vec<usize>) = match release
        .qi_partition
        .iter()
        .find(|s| s.groups.contains(&(g as u32)))
    {
        Some(s) => (s.qi.clone(), s.groups.iter().map(|&h| h as usize).collect()),
        None => (
            release.quasi_identifiers.clone(),
            (0..release.groups.len()).collect(),
        ),
    };
    let positions: Vec<(usize, usize)> = qi
        .iter()
        .filter_map(|c| {
            release
                .quasi_identifiers
                .iter()
                .position(|q| q == c)
                .map(|p| (p, *c))
        })
        .collect();
    let mut matching_tuples = Vec::new();
    let mut matching_groups = Vec::new();
    for h in groups {
        let Some(other) = release.groups.get(h) else {
            continue;
        };
        let before = matching_tuples.len();
        for &m in &other.rows {
            let holds = positions.iter().all(|&(p, c)| {
                let col = ds.col(c);
                other.cells[p].contains(col.code(m as usize), col.code(t))
            });
            if holds {
                matching_tuples.push(m);
            }
        }
        if matching_tuples.len() > before {
            matching_groups.push(h);
        }
    }
    matching_tuples.sort_unstable();
    let cells = release
        .local_buckets
        .iter()
        .filter(|lb| index.local(lb.column, t).is_some())
        .map(|lb| {
            let col = ds.col(lb.column);
            let s = col.code(t);
            let mut per_bucket: Vec<usize> = vec![0; lb.buckets.len()];
            for &m in &matching_tuples {
                if let Some(b) = index.local(lb.column, m as usize) {
                    per_bucket[b as usize] += 1;
                }
            }
            let mut matching: Vec<MatchingBucket> = per_bucket
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(b, &tuples)| {
                    let rows = &lb.buckets[b].rows;
                    MatchingBucket {
                        bucket: b as u32,
                        tuples,
                        size: rows.len(),
                        own: rows.iter().filter(|&&r| col.code(r as usize) == s).count(),
                    }
                })
                .collect();
            matching.sort_by(|a, b| b.tuples.cmp(&a.tuples).then(a.bucket.cmp(&b.bucket)));
            let breach = risk.and_then(|r| r.breach_of(lb.column)).and_then(|b| {
                b.rows
                    .binary_search(&(t as u32))
                    .ok()
                    .map(|k| b.probabilities[k])
            });
            CellDetail {
                column: lb.column,
                value: col.display(s).to_string(),
                bucket: index.local(lb.column, t),
                bucketed_tuples: per_bucket.iter().sum(),
                matching,
                breach,
            }
        })
        .collect();
    RecordDetail {
        published,
        row: t,
        group: g,
        qi,
        matching_tuples,
        matching_groups,
        reidentification: risk.and_then(|r| r.reidentification.get(t).copied()),
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anonlab::data::examples::lgb_patients;
    use anonlab::progress::Progress;
    use anonlab::release::examples::lgb_patients_fig2;
    use anonlab::risk::local_risk;

    /// The detail of the record in source row `row`.
    fn detail_of(row: u32) -> (RecordDetail, Dataset) {
        let ds = lgb_patients();
        let r = lgb_patients_fig2(&ds);
        let index = BucketIndex::new(&r);
        let risk = local_risk(&r, &ds, &Progress::new()).unwrap();
        let g = r.groups.iter().position(|g| g.rows.contains(&row)).unwrap();
        let i = r.groups[g].rows.iter().position(|&m| m == row).unwrap();
        (record_detail(&r, &ds, &index, Some(&risk), (g, i, 0)), ds)
    }

    /// Patient 1003 (row 2) hides his age: QI[t] = {Gender, Zip}. Worked
    /// by hand on the release of `lgb_patients_fig2`: only group 3 ({1003,
    /// 1007}: `*`, [43302-43312]) is in his subset, and both its tuples
    /// contain M and 43302, so Pr(re-id) = 1/2. Age: both matching tuples
    /// are in the one age bucket {22, 34}, p = 1 · 1/2. Disease: 1003 is in
    /// bucket 2 {Pneumonia, Bronchitis}, 1007 in bucket 3 {Flu, Dyspepsia},
    /// p = 1/2 · 1/2 + 1/2 · 0 = 1/4.
    #[test]
    fn a_record_hiding_a_cell_matches_its_subset_only() {
        let (d, ds) = detail_of(2);
        let name = |c: usize| ds.col(c).name().to_string();
        assert_eq!(
            d.qi.iter().map(|&c| name(c)).collect::<Vec<_>>(),
            ["Gender", "Zip"]
        );
        assert_eq!(d.matching_tuples, vec![2, 6]);
        assert_eq!(d.matching_groups, vec![3]);
        assert_eq!(d.reidentification, Some(0.5));
        assert_eq!(d.cells.len(), 2);
        let age = &d.cells[0];
        assert_eq!(
            (name(age.column).as_str(), age.value.as_str()),
            ("Age", "22")
        );
        assert_eq!(age.bucket, Some(0));
        assert_eq!(
            age.matching,
            vec![MatchingBucket {
                bucket: 0,
                tuples: 2,
                size: 2,
                own: 1
            }]
        );
        assert_eq!(age.breach, Some(0.5));
        let disease = &d.cells[1];
        assert_eq!(disease.value, "Pneumonia");
        assert_eq!(disease.bucket, Some(1));
        assert_eq!(disease.bucketed_tuples, 2);
        assert_eq!(
            disease.matching,
            vec![
                MatchingBucket {
                    bucket: 1,
                    tuples: 1,
                    size: 2,
                    own: 1
                },
                MatchingBucket {
                    bucket: 2,
                    tuples: 1,
                    size: 2,
                    own: 0
                }
            ]
        );
        assert_eq!(disease.breach, Some(0.25));
    }

    /// Patient 1004 (row 3) reveals every QI: his subset holds groups 0 and
    /// 1, but group 1's age [29-35] does not contain 24, so his matching
    /// tuples are group 0's {1001, 1004}. His only sensitive cell is his
    /// disease (bucket 4 {Pneumonia, Gastritis}; 1001's is bucket 1 {Flu,
    /// Dyspepsia}): p = 1/2 · 1/2 + 1/2 · 0 = 1/4.
    #[test]
    fn a_record_revealing_every_qi_has_only_its_sensitive_attribute() {
        let (d, _) = detail_of(3);
        assert_eq!(d.matching_tuples, vec![0, 3]);
        assert_eq!(d.matching_groups, vec![0]);
        assert_eq!(d.cells.len(), 1);
        let c = &d.cells[0];
        assert_eq!(c.bucket, Some(3));
        let lemma2: f64 = c
            .matching
            .iter()
            .map(|m| m.tuples as f64 / c.bucketed_tuples as f64 * m.own as f64 / m.size as f64)
            .sum();
        assert_eq!(lemma2, 0.25);
        assert_eq!(c.breach, Some(0.25));
    }
}
