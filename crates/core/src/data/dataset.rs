//! The columnar, dictionary-encoded dataset (DESIGN.md, "The data model").
//!
//! Each column keeps its distinct values once and a `u32` code per row.
//! Dictionaries are sorted — numerically for numeric columns, by byte order
//! for categorical ones — so code order is value order and codes are the
//! same whatever the row order of the file. A numeric column reads its
//! values exactly (`data::number`): values equal as numbers (`39`, `039`,
//! `3.9e1`) are one entry, held as the number's canonical text, and the
//! order is exact even where `f64` cannot tell two values apart. A missing cell has the code
//! `dictionary.len()` (one past the last value), so it is a known code that
//! sorts last and never indexes out of the dictionary by surprise.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::number::{is_number, Decimal};
use super::recode::Applied;
use crate::error::{Error, Parameter, Result};

/// How a column's values are ordered and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnKind {
    Numeric,
    Categorical,
}

impl std::fmt::Display for ColumnKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ColumnKind::Numeric => "numeric",
            ColumnKind::Categorical => "categorical",
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    name: String,
    kind: ColumnKind,
    /// Distinct non-missing values in code order.
    values: Vec<Box<str>>,
    /// The number behind each dictionary entry (numeric columns only).
    numbers: Vec<f64>,
    codes: Vec<u32>,
    /// Rows whose cell is missing: counted once when the column is built,
    /// since `Cell::covering` asks for it per generalized group.
    missing: u64,
}

impl Column {
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn kind(&self) -> ColumnKind {
        self.kind
    }
    pub fn is_numeric(&self) -> bool {
        self.kind == ColumnKind::Numeric
    }
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    /// One code per row.
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }
    pub fn code(&self, row: usize) -> u32 {
        self.codes[row]
    }
    /// Distinct non-missing values in code order.
    pub fn dictionary(&self) -> &[Box<str>] {
        &self.values
    }
    /// Number of distinct non-missing values.
    pub fn cardinality(&self) -> usize {
        self.values.len()
    }
    /// The code that marks a missing cell.
    pub fn missing_code(&self) -> u32 {
        self.values.len() as u32
    }
    pub fn is_missing(&self, code: u32) -> bool {
        code == self.missing_code()
    }
    /// Codes in use range over `0..=missing_code()`.
    pub fn code_space(&self) -> usize {
        self.values.len() + 1
    }
    /// Bits that hold every code of the column (`0..=missing_code()`; none
    /// when the only code is the missing one): a combination of codes
    /// packed into one integer gives each column this many.
    pub fn code_bits(&self) -> u32 {
        u32::BITS - self.missing_code().leading_zeros()
    }
    /// The value behind a code; `None` for the missing code.
    pub fn value(&self, code: u32) -> Option<&str> {
        self.values.get(code as usize).map(|s| &**s)
    }
    /// The value as shown to a user: missing cells show as `?`.
    pub fn display(&self, code: u32) -> &str {
        self.value(code).unwrap_or("?")
    }
    /// The number behind a code of a numeric column.
    pub fn number(&self, code: u32) -> Option<f64> {
        self.numbers.get(code as usize).copied()
    }
    /// Numbers of the dictionary, in code order (empty for categorical columns).
    pub fn numbers(&self) -> &[f64] {
        &self.numbers
    }
    /// The code of a value as written, if the column holds it. Numeric
    /// columns also match by number, so `60` finds `60.0`.
    pub fn code_of(&self, value: &str) -> Option<u32> {
        if self.is_numeric() {
            let x = Decimal::parse(value)?;
            let i = self.partition_point(|v| v < &x);
            (i < self.values.len() && self.decimal(i as u32) == Some(x)).then_some(i as u32)
        } else {
            self.values
                .binary_search_by(|v| (**v).cmp(value))
                .ok()
                .map(|i| i as u32)
        }
    }
    /// The exact number behind a code of a numeric column (`data::number`).
    pub fn decimal(&self, code: u32) -> Option<Decimal> {
        if !self.is_numeric() {
            return None;
        }
        Decimal::parse(self.value(code)?)
    }

    /// The first code of a numeric column whose exact number fails `below`
    /// (`below` must hold for a prefix of the dictionary, as `v < x`
    /// does: the dictionary is in exact numeric order).
    pub fn partition_point(&self, below: impl Fn(&Decimal) -> bool) -> usize {
        self.values
            .partition_point(|v| Decimal::parse(v).is_some_and(|d| below(&d)))
    }

    /// Row count per code, indexed `0..=missing_code()`.
    pub fn frequencies(&self) -> Vec<u64> {
        let mut f = vec![0u64; self.code_space()];
        for &c in &self.codes {
            f[c as usize] += 1;
        }
        f
    }
    pub fn missing_count(&self) -> u64 {
        self.missing
    }

    /// The same column (name, kind, dictionary) with other codes, one per
    /// row, each in `0..=missing_code()`: a table built from this column's
    /// values in another order or multiplicity (the engine's frequency
    /// table and the dataset it gives back).
    pub fn recoded(&self, codes: Vec<u32>) -> Column {
        let missing_code = self.missing_code();
        debug_assert!(codes.iter().all(|&c| c <= missing_code));
        let missing = codes.iter().filter(|&&c| c == missing_code).count() as u64;
        Column {
            name: self.name.clone(),
            kind: self.kind,
            values: self.values.clone(),
            numbers: self.numbers.clone(),
            codes,
            missing,
        }
    }
}

impl Column {
    /// The same numeric column with the value of each code `c` replaced by
    /// `numbers[c]` (one per dictionary entry): entries that become equal
    /// merge, the dictionary stays in numeric order, missing cells stay
    /// missing (`data::recode`).
    pub(crate) fn with_numbers(&self, numbers: &[Decimal]) -> Column {
        debug_assert_eq!(numbers.len(), self.values.len());
        let mut distinct: Vec<&Decimal> = numbers.iter().collect();
        distinct.sort();
        distinct.dedup();
        let values: Vec<Box<str>> = distinct.iter().map(|d| d.canonical().into()).collect();
        let remap: Vec<u32> = numbers
            .iter()
            .map(|d| distinct.binary_search(&d).unwrap_or(0) as u32)
            .collect();
        let missing_code = self.missing_code();
        let new_missing = values.len() as u32;
        let codes = self
            .codes
            .iter()
            .map(|&c| {
                if c == missing_code {
                    new_missing
                } else {
                    remap[c as usize]
                }
            })
            .collect();
        Column {
            name: self.name.clone(),
            kind: ColumnKind::Numeric,
            numbers: distinct.iter().map(|d| d.to_f64()).collect(),
            values,
            codes,
            missing: self.missing,
        }
    }
}

/// A table of dictionary-encoded columns of equal length.
///
/// A row is one record, or — in a *grouped* dataset, the frequency table
/// the query engine builds of a file too large for memory — one distinct
/// combination of values standing for [`Dataset::multiplicity`] identical
/// records. Code that reads a grouped dataset must count records by
/// multiplicity (the attack simulator, the linkage, the privacy models,
/// the statistics offices' measures, full-domain generalization and
/// Mondrian do); everything else refuses one through
/// [`Dataset::require_records`] rather than count combinations as records.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    name: String,
    columns: Vec<Column>,
    rows: usize,
    /// Records per row of a grouped dataset; `None`: one record per row.
    /// Shared, since partitions of the table carry them too.
    multiplicities: Option<Arc<[u32]>>,
    /// Σ multiplicities (`rows` when there are none).
    records: u64,
    /// The global recodings (top and bottom coding, rounding) that made
    /// this dataset from the file's (`data::recode`): empty for a file as
    /// read. A release made from the dataset says so.
    recodings: Arc<[Applied]>,
    /// The file's data the recodings were applied to (shared, not
    /// copied): what "before" figures and the side-by-side view's
    /// original values read.
    file_data: Option<Arc<Dataset>>,
}

impl Dataset {
    /// Assemble from finished columns; they must all have the same length.
    pub fn new(name: impl Into<String>, columns: Vec<Column>) -> Result<Self> {
        let rows = columns.first().map_or(0, Column::len);
        if let Some(c) = columns.iter().find(|c| c.len() != rows) {
            return Err(Error::Internal(format!(
                "column '{}' has {} rows, expected {rows}",
                c.name,
                c.len()
            )));
        }
        Ok(Self {
            name: name.into(),
            columns,
            rows,
            multiplicities: None,
            records: rows as u64,
            recodings: Arc::new([]),
            file_data: None,
        })
    }

    /// The same columns as a grouped dataset: row `r` stands for
    /// `multiplicities[r]` identical records (each at least 1). Records
    /// are counted in `u32` classes and match counts, so a table of more
    /// than `u32::MAX - 1` records is refused.
    pub fn grouped(mut self, multiplicities: Vec<u32>) -> Result<Self> {
        if multiplicities.len() != self.rows {
            return Err(Error::Internal(format!(
                "{} multiplicities for {} rows",
                multiplicities.len(),
                self.rows
            )));
        }
        if multiplicities.contains(&0) {
            return Err(Error::Internal(
                "a row of a grouped table stands for at least one record".into(),
            ));
        }
        let records: u64 = multiplicities.iter().map(|&m| u64::from(m)).sum();
        if records >= u64::from(u32::MAX) {
            return Err(Error::Limit(format!(
                "the table holds {} records; anonlab counts at most {} records",
                crate::format::thousands(records),
                crate::format::thousands(u64::from(u32::MAX) - 1)
            )));
        }
        self.records = records;
        self.multiplicities = Some(multiplicities.into());
        Ok(self)
    }

    /// The same dataset, recording that `recodings` made it
    /// (`data::recode::apply`).
    pub(crate) fn with_recodings(mut self, recodings: Vec<Applied>) -> Self {
        self.recodings = recodings.into();
        self
    }

    /// The top and bottom codes and roundings applied to the file's values
    /// to make this dataset, in order (empty for the file as read).
    pub fn recodings(&self) -> &[Applied] {
        &self.recodings
    }

    /// The same dataset, recoded from `file_data` (the same rows and
    /// columns, as read from the file).
    pub fn recoded_from(mut self, file_data: Arc<Dataset>) -> Self {
        debug_assert_eq!(file_data.n_rows(), self.n_rows());
        self.file_data = Some(file_data);
        self
    }

    /// The file's data this dataset was recoded from; `None` for data as
    /// read.
    pub fn file_data(&self) -> Option<&Arc<Dataset>> {
        self.file_data.as_ref()
    }

    /// Records per row when the dataset is grouped, `None` when every row
    /// is one record.
    pub fn multiplicities(&self) -> Option<&[u32]> {
        self.multiplicities.as_deref()
    }

    /// The multiplicities as a shared handle, for a partition of the table
    /// ([`crate::partition::Partition::weighted`]).
    pub fn shared_multiplicities(&self) -> Option<Arc<[u32]>> {
        self.multiplicities.clone()
    }

    /// Records row `row` stands for: 1 unless the dataset is grouped.
    #[inline]
    pub fn multiplicity(&self, row: usize) -> u32 {
        self.multiplicities.as_ref().map_or(1, |m| m[row])
    }

    /// Records the rows `rows` stand for (their number unless the table
    /// is grouped).
    pub fn records_of(&self, rows: &[u32]) -> usize {
        match &self.multiplicities {
            None => rows.len(),
            Some(m) => rows.iter().map(|&r| m[r as usize] as usize).sum(),
        }
    }

    /// Records per code of column `col`, indexed `0..=missing_code()`:
    /// [`Column::frequencies`] weighted by the rows' multiplicities, so a
    /// grouped table counts what its records would.
    pub fn record_frequencies(&self, col: usize) -> Vec<u64> {
        let column = &self.columns[col];
        match &self.multiplicities {
            None => column.frequencies(),
            Some(m) => {
                let mut f = vec![0u64; column.code_space()];
                for (&c, &w) in column.codes.iter().zip(m.iter()) {
                    f[c as usize] += u64::from(w);
                }
                f
            }
        }
    }

    /// Whether rows stand for several records (a frequency table).
    pub fn is_grouped(&self) -> bool {
        self.multiplicities.is_some()
    }

    /// Records in the table: the rows, or the sum of a grouped table's
    /// multiplicities.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The table grouped: one row per distinct combination of the columns'
    /// codes, in code order (first column most significant), standing for
    /// the records that hold it — what the query engine builds of a file
    /// (`data::engine`), built here from a table in memory. A grouped
    /// table's rows are merged by their multiplicities.
    pub fn to_grouped(&self) -> Result<Dataset> {
        let mut order: Vec<u32> = (0..self.rows as u32).collect();
        let key = |r: u32| self.columns.iter().map(move |c| c.codes[r as usize]);
        order.sort_by(|&a, &b| key(a).cmp(key(b)));
        let mut firsts: Vec<u32> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for &r in &order {
            let w = self.multiplicity(r as usize);
            match firsts.last() {
                Some(&f) if key(f).eq(key(r)) => {
                    if let Some(c) = counts.last_mut() {
                        *c += w;
                    }
                }
                _ => {
                    firsts.push(r);
                    counts.push(w);
                }
            }
        }
        let columns = self
            .columns
            .iter()
            .map(|c| c.recoded(firsts.iter().map(|&r| c.codes[r as usize]).collect()))
            .collect();
        Dataset::new(self.name.clone(), columns)?.grouped(counts)
    }

    /// Refuse a grouped dataset for work that reads rows as records.
    pub fn require_records(&self, what: &str) -> Result<()> {
        if self.is_grouped() {
            return Err(Error::invalid(Parameter::Engine, format!(
                "{what} reads every record, and '{}' is read as a frequency table of {} distinct combinations standing for {} records (the query engine's path); read the file in memory (--engine memory) for it",
                self.name,
                crate::format::thousands(self.rows as u64),
                crate::format::thousands(self.records)
            )));
        }
        Ok(())
    }

    /// Build from string rows; handy for tests and small examples.
    /// Empty strings are missing; kinds are detected as on CSV import.
    pub fn from_rows(names: &[&str], rows: &[Vec<&str>]) -> Result<Self> {
        let mut builders: Vec<ColumnBuilder> = names
            .iter()
            .map(|n| ColumnBuilder::new(n.to_string()))
            .collect();
        for (r, row) in rows.iter().enumerate() {
            if row.len() != names.len() {
                return Err(Error::Internal(format!(
                    "row {r} has {} fields, expected {}",
                    row.len(),
                    names.len()
                )));
            }
            for (b, v) in builders.iter_mut().zip(row) {
                if v.is_empty() {
                    b.push_missing();
                } else {
                    b.push(v);
                }
            }
        }
        let cols = builders
            .into_iter()
            .map(|b| b.finish(None))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::Internal(e.to_string()))?;
        Dataset::new("table", cols)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn n_rows(&self) -> usize {
        self.rows
    }
    pub fn n_cols(&self) -> usize {
        self.columns.len()
    }
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }
    pub fn col(&self, index: usize) -> &Column {
        &self.columns[index]
    }
    pub fn column_names(&self) -> Vec<&str> {
        self.columns.iter().map(Column::name).collect()
    }
    /// Index of a column by name, or an error that lists the columns.
    pub fn column_index(&self, name: &str) -> Result<usize> {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| Error::UnknownColumn {
                name: name.to_string(),
                available: crate::error::listed_columns(&self.column_names()),
            })
    }
    pub fn column(&self, name: &str) -> Result<&Column> {
        Ok(&self.columns[self.column_index(name)?])
    }
}

/// Why a column could not be finished.
#[derive(Debug, Clone, PartialEq)]
pub struct KindError {
    /// 0-based data row of the first value that is not a number.
    pub row: usize,
    pub value: String,
}

impl std::fmt::Display for KindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "'{}' is not a number, but the column was declared numeric (a number is a decimal numeral of magnitude below 1e150; NaN and inf are not numbers)",
            self.value
        )
    }
}

const PENDING_MISSING: u32 = u32::MAX;

/// Interns a column's values as they stream in, so a large file is never
/// held as strings: only the distinct values are kept.
#[derive(Debug)]
pub struct ColumnBuilder {
    name: String,
    /// Codes of values shorter than 16 bytes, keyed by [`pack`]: most
    /// values are short, and a `u128` key is hashed and compared without a
    /// byte loop or a `memcmp` call.
    short: FxHashMap<u128, u32>,
    /// Codes of longer values.
    index: FxHashMap<Box<[u8]>, u32>,
    values: Vec<Box<str>>,
    codes: Vec<u32>,
    /// First data row whose value does not parse as a finite number.
    first_non_numeric: Option<usize>,
}

impl ColumnBuilder {
    pub fn new(name: String) -> Self {
        Self {
            name,
            short: FxHashMap::default(),
            index: FxHashMap::default(),
            values: Vec::new(),
            codes: Vec::new(),
            first_non_numeric: None,
        }
    }

    pub fn with_capacity(name: String, rows: usize) -> Self {
        let mut b = Self::new(name);
        b.codes.reserve(rows);
        b
    }

    pub fn push(&mut self, value: &str) {
        let pushed = self.push_bytes(value.as_bytes());
        debug_assert!(pushed.is_ok(), "a str is valid UTF-8");
    }

    /// Push a value as raw bytes, as read from a file. The bytes are looked
    /// up first and validated as UTF-8 only when they are a new value: the
    /// dictionary holds valid values only, so a known value needs no check.
    /// An invalid value is refused and nothing is pushed.
    pub fn push_bytes(&mut self, value: &[u8]) -> std::result::Result<(), std::str::Utf8Error> {
        let packed = pack(value);
        let known = match packed {
            Some(key) => self.short.get(&key),
            None => self.index.get(value),
        };
        let code = match known {
            Some(&c) => c,
            None => {
                let text = std::str::from_utf8(value)?;
                let c = self.values.len() as u32;
                if self.first_non_numeric.is_none() && !is_number(text) {
                    self.first_non_numeric = Some(self.codes.len());
                }
                self.values.push(text.into());
                match packed {
                    Some(key) => self.short.insert(key, c),
                    None => self.index.insert(value.into(), c),
                };
                c
            }
        };
        self.codes.push(code);
        Ok(())
    }

    /// Rows pushed so far.
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn push_missing(&mut self) {
        self.codes.push(PENDING_MISSING);
    }

    /// Append the rows of `other`, a builder of the rows that follow this
    /// one's (a later part of the same file, read on another core): its
    /// values are interned here and its codes renumbered, so the result is
    /// the builder that had taken every row in turn, but for the order of
    /// its dictionary, which [`Self::finish`] sorts anyway.
    pub fn append(&mut self, other: ColumnBuilder) {
        let remap: Vec<u32> = other
            .values
            .into_iter()
            .map(|v| {
                let packed = pack(v.as_bytes());
                let known = match packed {
                    Some(key) => self.short.get(&key),
                    None => self.index.get(v.as_bytes()),
                };
                if let Some(&c) = known {
                    return c;
                }
                let c = self.values.len() as u32;
                match packed {
                    Some(key) => self.short.insert(key, c),
                    None => self.index.insert(v.as_bytes().into(), c),
                };
                self.values.push(v);
                c
            })
            .collect();
        // Every value here is a number while this is `None`, so `other`'s
        // first non-number is new here and the first one of the whole.
        if self.first_non_numeric.is_none() {
            self.first_non_numeric = other.first_non_numeric.map(|r| self.codes.len() + r);
        }
        self.codes.extend(other.codes.iter().map(|&c| {
            if c == PENDING_MISSING {
                c
            } else {
                remap[c as usize]
            }
        }));
    }

    /// Sort the dictionary and remap codes. `kind` forces a kind; `None`
    /// detects it: numeric when every non-missing value is a number
    /// (`data::number`) and there is at least one.
    pub fn finish(self, kind: Option<ColumnKind>) -> std::result::Result<Column, KindError> {
        let all_numeric = self.first_non_numeric.is_none() && !self.values.is_empty();
        let kind = match kind {
            Some(ColumnKind::Numeric) if !all_numeric => {
                if let Some(row) = self.first_non_numeric {
                    let code = self.codes[row];
                    return Err(KindError {
                        row,
                        value: self.values[code as usize].to_string(),
                    });
                }
                ColumnKind::Numeric
            }
            Some(k) => k,
            None if all_numeric => ColumnKind::Numeric,
            None => ColumnKind::Categorical,
        };
        if kind == ColumnKind::Numeric {
            return Ok(self.finish_numeric());
        }
        let n = self.values.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&a, &b| self.values[a as usize].cmp(&self.values[b as usize]));
        let mut remap = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            remap[old as usize] = new as u32;
        }
        let mut old_values: Vec<Option<Box<str>>> = self.values.into_iter().map(Some).collect();
        let values: Vec<Box<str>> = order
            .iter()
            .map(|&o| old_values[o as usize].take().unwrap_or_default())
            .collect();
        let (codes, missing_rows) = remap_codes(self.codes, &remap, n as u32);
        Ok(Column {
            name: self.name,
            kind,
            values,
            numbers: Vec::new(),
            codes,
            missing: missing_rows,
        })
    }

    /// A numeric column: values equal as numbers (`39`, `39.0`, `3.9e1`)
    /// become one dictionary entry holding the canonical text, in exact
    /// numeric order (`data::number`). Every value must read as a number.
    fn finish_numeric(self) -> Column {
        let parsed: Vec<Decimal> = self
            .values
            .iter()
            .map(|v| Decimal::parse(v).unwrap_or_else(Decimal::zero))
            .collect();
        let mut order: Vec<u32> = (0..parsed.len() as u32).collect();
        order.sort_by(|&a, &b| parsed[a as usize].cmp(&parsed[b as usize]));
        let mut remap = vec![0u32; parsed.len()];
        let mut values: Vec<Box<str>> = Vec::with_capacity(parsed.len());
        let mut numbers = Vec::with_capacity(parsed.len());
        let mut last: Option<&Decimal> = None;
        for &old in &order {
            let d = &parsed[old as usize];
            if last != Some(d) {
                values.push(d.canonical().into());
                numbers.push(d.to_f64());
                last = Some(d);
            }
            remap[old as usize] = (values.len() - 1) as u32;
        }
        let (codes, missing_rows) = remap_codes(self.codes, &remap, values.len() as u32);
        Column {
            name: self.name,
            kind: ColumnKind::Numeric,
            values,
            numbers,
            codes,
            missing: missing_rows,
        }
    }
}

/// Codes after the dictionary was reordered (`remap[old] = new`), pending
/// missing cells given `missing`; and the number of missing cells.
fn remap_codes(mut codes: Vec<u32>, remap: &[u32], missing: u32) -> (Vec<u32>, u64) {
    // A row estimate may have over-reserved.
    codes.shrink_to_fit();
    let mut missing_rows = 0;
    for c in codes.iter_mut() {
        *c = if *c == PENDING_MISSING {
            missing_rows += 1;
            missing
        } else {
            remap[*c as usize]
        };
    }
    (codes, missing_rows)
}

/// A value shorter than 16 bytes as one number: its bytes, zero-padded,
/// then its length in the last byte (so `a` and `a\0` differ).
pub fn pack(value: &[u8]) -> Option<u128> {
    let n = value.len();
    // Two overlapping loads of a power-of-two width cover a value of
    // 2w/2..2w bytes; the bytes of the second load the first already
    // holds are shifted out. Every field of a file goes through here: a
    // copy of a variable length is a call to `memcpy`.
    let le4 = |at: usize| {
        let mut b = [0u8; 4];
        b.copy_from_slice(&value[at..at + 4]);
        u128::from(u32::from_le_bytes(b))
    };
    let le8 = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&value[at..at + 8]);
        u128::from(u64::from_le_bytes(b))
    };
    let low = match n {
        0 => 0,
        1..=3 => {
            u128::from(value[0])
                | u128::from(value[n / 2]) << (8 * (n / 2))
                | u128::from(value[n - 1]) << (8 * (n - 1))
        }
        4..=7 => le4(0) | le4(n - 4) << (8 * (n - 4)),
        8..=15 => le8(0) | le8(n - 8) << (8 * (n - 8)),
        _ => return None,
    };
    Some(low | (n as u128) << 120)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_is_the_bytes_zero_padded_then_the_length() {
        let text: Vec<u8> = (1..=20).collect();
        for n in 0..=17 {
            let value = &text[..n];
            let want = (n < 16).then(|| {
                let mut bytes = [0u8; 16];
                bytes[..n].copy_from_slice(value);
                bytes[15] = n as u8;
                u128::from_le_bytes(bytes)
            });
            assert_eq!(pack(value), want, "{n} bytes");
        }
    }

    #[test]
    fn numeric_dictionary_is_in_numeric_order() {
        let ds =
            Dataset::from_rows(&["age"], &[vec!["10"], vec!["9"], vec![""], vec!["100"]]).unwrap();
        let c = ds.col(0);
        assert_eq!(c.kind(), ColumnKind::Numeric);
        assert_eq!(
            c.dictionary(),
            &["9".into(), "10".into(), "100".into()] as &[Box<str>]
        );
        assert_eq!(c.codes(), &[1, 0, 3, 2]);
        assert!(c.is_missing(c.code(2)));
        assert_eq!(c.code_of("10.0"), Some(1));
        assert_eq!(c.display(3), "?");
    }

    #[test]
    fn categorical_codes_sorted_and_found() {
        let ds = Dataset::from_rows(&["sex"], &[vec!["M"], vec!["F"], vec!["M"]]).unwrap();
        let c = ds.col(0);
        assert_eq!(c.kind(), ColumnKind::Categorical);
        assert_eq!(c.codes(), &[1, 0, 1]);
        assert_eq!(c.code_of("F"), Some(0));
        assert_eq!(c.code_of("X"), None);
        assert_eq!(c.frequencies(), vec![1, 2, 0]);
    }

    #[test]
    fn forcing_numeric_on_text_names_the_value() {
        let mut b = ColumnBuilder::new("zip".into());
        b.push("123");
        b.push("12a");
        let e = b.finish(Some(ColumnKind::Numeric)).unwrap_err();
        assert_eq!(e.row, 1);
        assert_eq!(e.value, "12a");
    }

    #[test]
    fn unknown_column_lists_the_known_ones() {
        let ds = Dataset::from_rows(&["a", "b"], &[vec!["1", "x"]]).unwrap();
        let msg = ds.column_index("c").unwrap_err().to_string();
        assert!(msg.contains("'c'") && msg.contains("a, b"), "{msg}");
    }

    #[test]
    fn short_and_long_values_are_interned_apart() {
        let mut b = ColumnBuilder::new("v".into());
        let values = [
            "a",
            "a\0",
            "",
            "fifteen bytes..",
            "sixteen bytes...",
            "a",
            "sixteen bytes...",
            "fifteen bytes..",
        ];
        for v in values {
            b.push(v);
        }
        assert!(b.push_bytes(b"\xff").is_err(), "invalid UTF-8 is refused");
        let c = b.finish(None).unwrap();
        assert_eq!(
            c.len(),
            values.len(),
            "nothing pushed for the refused value"
        );
        assert_eq!(c.cardinality(), 5);
        for (row, v) in values.iter().enumerate() {
            assert_eq!(c.value(c.code(row)), Some(*v));
        }
    }
}
