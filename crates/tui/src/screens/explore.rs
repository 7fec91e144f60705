//! Exploring the data on the Data screen, in the manner of VisiData: the
//! rows sorted by the focused column (`[` ascending, `]` descending), kept
//! by a rule of the rule language (`|`, `:filter RULE`), and the focused
//! column's frequency table (`F`: counts, shares, and how many of each
//! value's records sit in classes smaller than k on what the attacker
//! knows). The table's own order is never changed: the view holds a list
//! of record numbers ([`RowOrder`]) and the screen draws through it.

use std::collections::HashMap;
use std::sync::Arc;

use anonlab::data::{Dataset, Rule};

/// The sort of the Data screen's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub column: usize,
    pub descending: bool,
}

/// The rows the Data screen shows, in the order it shows them: `None` is
/// every record in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowOrder {
    pub sort: Option<Sort>,
    /// The rule's text and the records it keeps.
    pub filter: Option<String>,
    records: Option<Arc<Vec<u32>>>,
}

impl RowOrder {
    /// Records in view order, or `None` for every record in file order.
    pub fn records(&self) -> Option<&[u32]> {
        self.records.as_deref().map(Vec::as_slice)
    }

    /// The record at view position `pos`.
    pub fn record(&self, pos: usize) -> usize {
        self.records
            .as_ref()
            .and_then(|r| r.get(pos))
            .map_or(pos, |&r| r as usize)
    }

    /// The view position of `record`, if the view shows it.
    pub fn position(&self, record: usize) -> Option<usize> {
        match &self.records {
            None => Some(record),
            Some(r) => r.iter().position(|&x| x as usize == record),
        }
    }

    /// Rows in view.
    pub fn len(&self, n_rows: usize) -> usize {
        self.records.as_ref().map_or(n_rows, |r| r.len())
    }

    /// Recompute the records for `ds` from the sort and the filter; a rule
    /// the data does not accept is an error naming it (the order is then
    /// left as it was).
    pub fn rebuild(&mut self, ds: &Dataset) -> Result<(), String> {
        let mut rows: Vec<u32> = match &self.filter {
            Some(text) => {
                let rule = Rule::parse(text).map_err(|e| e.to_string())?;
                let bits = rule.evaluate(ds).map_err(|e| e.to_string())?;
                bits.ones().map(|r| r as u32).collect()
            }
            None if self.sort.is_some() => (0..ds.n_rows() as u32).collect(),
            None => {
                self.records = None;
                return Ok(());
            }
        };
        if let Some(s) = self.sort {
            let rank = value_ranks(ds, s.column);
            let col = ds.col(s.column);
            // Stable: equal values keep file order, both ways.
            if s.descending {
                rows.sort_by(|&a, &b| {
                    rank[col.code(b as usize) as usize].cmp(&rank[col.code(a as usize) as usize])
                });
            } else {
                rows.sort_by_key(|&r| rank[col.code(r as usize) as usize]);
            }
        }
        self.records = Some(Arc::new(rows));
        Ok(())
    }
}

/// The rank of every code of column `c` in the column's value order:
/// numbers by value (a numeric column's text that is not a number, such
/// as a missing value, after them), text by its characters.
pub fn value_ranks(ds: &Dataset, c: usize) -> Vec<u32> {
    let col = ds.col(c);
    let n = col.code_space();
    let mut codes: Vec<u32> = (0..n as u32).collect();
    if col.is_numeric() {
        let key = |v: u32| col.number(v);
        codes.sort_by(|&a, &b| match (key(a), key(b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => col.display(a).cmp(col.display(b)),
        });
    } else {
        codes.sort_by(|&a, &b| col.display(a).cmp(col.display(b)));
    }
    let mut rank = vec![0u32; n];
    for (i, &c) in codes.iter().enumerate() {
        rank[c as usize] = i as u32;
    }
    rank
}

/// One value of the frequency table.
#[derive(Debug, Clone, PartialEq)]
pub struct Frequency {
    pub value: String,
    pub count: u64,
    /// Of all rows.
    pub share: f64,
    /// Records with this value in classes smaller than k on the known
    /// attributes (`None` when the attacker knows nothing).
    pub in_small_classes: Option<u64>,
}

/// The focused column's frequency table (`F`), most frequent first.
#[derive(Debug, Clone, PartialEq)]
pub struct FrequencyView {
    pub column: usize,
    pub name: String,
    pub rows: usize,
    pub values: Vec<Frequency>,
    /// The k and the known attributes the class sizes are counted on.
    pub k: u32,
    pub known: Vec<String>,
    /// First value shown.
    pub scroll: usize,
}

impl FrequencyView {
    /// Count column `c` of `ds`; class sizes on the columns `known`.
    pub fn new(ds: &Dataset, c: usize, known: &[usize], k: u32) -> Self {
        let col = ds.col(c);
        // Records, not rows: a grouped table's row stands for several.
        let n = ds.n_rows();
        let records = ds.records() as usize;
        let mut count = vec![0u64; col.code_space()];
        for (r, &v) in col.codes().iter().enumerate() {
            count[v as usize] += u64::from(ds.multiplicity(r));
        }
        // Class of each record on the known attributes: its codes.
        let small = (!known.is_empty()).then(|| {
            let key = |r: usize| -> Vec<u32> { known.iter().map(|&q| ds.col(q).code(r)).collect() };
            let mut size: HashMap<Vec<u32>, u32> = HashMap::new();
            for r in 0..n {
                *size.entry(key(r)).or_default() += ds.multiplicity(r);
            }
            let mut small = vec![0u64; count.len()];
            for r in 0..n {
                if size[&key(r)] < k {
                    small[col.code(r) as usize] += u64::from(ds.multiplicity(r));
                }
            }
            small
        });
        let mut values: Vec<Frequency> = (0..count.len())
            .filter(|&v| count[v] > 0)
            .map(|v| Frequency {
                value: col.display(v as u32).to_string(),
                count: count[v],
                share: count[v] as f64 / records.max(1) as f64,
                in_small_classes: small.as_ref().map(|s| s[v]),
            })
            .collect();
        values.sort_by(|a, b| b.count.cmp(&a.count).then(a.value.cmp(&b.value)));
        FrequencyView {
            column: c,
            name: col.name().to_string(),
            rows: records,
            values,
            k,
            known: known
                .iter()
                .map(|&q| ds.col(q).name().to_string())
                .collect(),
            scroll: 0,
        }
    }
}
