//! The first pass of [`publish`](super::publish): every record of the file
//! mapped to its combination and group, spilled by output position.

use super::*;

/// The spilled ranges: one scratch file per range of output rows.
pub(super) struct Spilled {
    pub(super) files: Vec<(Scratch, u64, u64)>,
    /// Kind of each passthrough column.
    pub(super) kinds: Vec<ColumnKind>,
}

/// The first pass: every record placed and spilled.
pub(super) struct Pass<'a> {
    job: &'a PublishJob<'a>,
    layout: &'a Layout,
    format: InputFormat,
    /// Records of each combination seen so far.
    seen: Vec<u32>,
    /// Rows of each group placed so far.
    placed: Vec<u64>,
    /// Rows per range and the range files being written.
    per_range: u64,
    writers: Vec<(Scratch, BufWriter<File>)>,
    record: Vec<u8>,
}

/// The directory spilled rows go to.
pub(super) fn spill_dir(job: &PublishJob<'_>) -> PathBuf {
    if let Some(d) = &job.spill_dir {
        return d.clone();
    }
    let Some(output) = job.output else {
        return std::env::temp_dir();
    };
    let device = std::fs::metadata(output).is_ok_and(|m| !m.is_file() && !m.is_dir());
    match output.parent() {
        _ if device => std::env::temp_dir(),
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The scratch files' name: the output's, so that a killed run's are
/// removed by the next run for the same output.
pub(super) fn spill_name(job: &PublishJob<'_>) -> String {
    let name = job
        .output
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "release".into());
    format!("{name}.spill")
}

impl<'a> Pass<'a> {
    pub(super) fn new(
        job: &'a PublishJob<'a>,
        layout: &'a Layout,
        format: InputFormat,
        inputs: &Inputs,
    ) -> Result<Self> {
        let ds = job.grouped;
        // Ranges from an estimate of the spilled bytes: the passthrough
        // text is at most the records' share of the file for CSV (twice
        // that for a compressed columnar file); a range that comes out
        // larger than the budget is split when it is written.
        let file_bytes = std::fs::metadata(job.data).map_or(0, |m| m.len());
        let share = if layout.names.is_empty() {
            0.0
        } else {
            layout.passthrough.len() as f64 / layout.names.len() as f64
        };
        let factor = if format == InputFormat::Csv { 1.0 } else { 2.0 };
        let text = file_bytes as f64 * share * factor;
        let estimate = layout.rows as f64 * (12.0 + 4.0 * layout.passthrough.len() as f64) + text;
        let budget = job.range_bytes.max(1) as f64;
        let ranges = ((estimate / budget).ceil() as usize).clamp(1, MAX_RANGES);
        let per_range = layout.rows.div_ceil(ranges as u64).max(1);
        let ranges = layout.rows.div_ceil(per_range).max(1) as usize;
        let dir = spill_dir(job);
        let name = spill_name(job);
        let mut writers = Vec::with_capacity(ranges);
        for _ in 0..ranges {
            let (scratch, file) = Scratch::create(&dir, &name, inputs)?;
            writers.push((scratch, BufWriter::with_capacity(SPILL_BUFFER, file)));
        }
        Ok(Pass {
            job,
            layout,
            format,
            seen: vec![0; ds.n_rows()],
            placed: vec![0; job.release.groups.len()],
            per_range,
            writers,
            record: Vec::new(),
        })
    }

    fn row_label(&self, index: u64) -> u64 {
        crate::engine_scan::row_label(self.format, index)
    }

    /// The message of a record the frequency table did not count.
    fn changed(&self, index: u64, column: Option<&str>, what: String) -> Error {
        Error::input(
            self.job.data,
            Some(self.row_label(index)),
            column.map(str::to_string),
            format!("{what}: the file changed since its frequency table was built; build the table again from the file as it is now"),
        )
    }

    /// Place and spill a batch's records, in file order; their
    /// combinations were looked up first, on every core (`keys`).
    pub(super) fn batch(
        &mut self,
        batch: &crate::engine_scan::TextBatch,
        mapped: &Mapped,
    ) -> Result<()> {
        self.job.check()?;
        self.job.advance(batch.len() as u64);
        let grouped = self.job.grouped.n_cols();
        let passthrough = self.layout.passthrough.len();
        for r in 0..batch.len() {
            let index = batch.first_record() + r as u64;
            let combo = match mapped.combo(r) {
                Ok(combo) => combo as usize,
                Err(Failure::Value { column, text }) => {
                    return Err(self.changed(
                        index,
                        Some(self.job.grouped.col(*column).name()),
                        format!(
                            "the value '{}' is not in the frequency table",
                            anonlab::error::shown(text, 60)
                        ),
                    ));
                }
                Err(Failure::Combination) => {
                    return Err(self.changed(
                        index,
                        None,
                        "the record's combination of values is not in the frequency table".into(),
                    ));
                }
            };
            self.seen[combo] += 1;
            if self.seen[combo] > self.job.grouped.multiplicity(combo) {
                return Err(self.changed(
                    index,
                    None,
                    format!(
                        "the record's combination of values is counted {} times in the frequency table, and this is its record number {}",
                        thousands(u64::from(self.job.grouped.multiplicity(combo))),
                        thousands(u64::from(self.seen[combo]))
                    ),
                ));
            }
            let g = self.layout.group_of[combo];
            if g == SUPPRESSED {
                continue;
            }
            let g = g as usize;
            let place = self.layout.starts[g] + self.placed[g];
            self.placed[g] += 1;
            self.record.clear();
            self.record.extend_from_slice(&place.to_le_bytes());
            self.record.extend_from_slice(&(combo as u32).to_le_bytes());
            for i in 0..passthrough {
                match batch.cell(grouped + i, r) {
                    None => self.record.extend_from_slice(&MISSING.to_le_bytes()),
                    Some(text) => {
                        self.record
                            .extend_from_slice(&(text.len() as u32).to_le_bytes());
                        self.record.extend_from_slice(text.as_bytes());
                    }
                }
            }
            let (scratch, w) = &mut self.writers[(place / self.per_range) as usize];
            w.write_all(&self.record)
                .map_err(|e| Error::Write(scratch.path().to_path_buf(), e))?;
        }
        Ok(())
    }

    /// Check that the file held what the table counted, decide the
    /// passthrough columns' kinds from what their cells said (`kinds`,
    /// in the order of `Layout::passthrough`), and close the range files.
    pub(super) fn finish(self, records: u64, kinds_seen: &[KindSeen]) -> Result<Spilled> {
        let ds = self.job.grouped;
        if records != ds.records() {
            return Err(Error::input(
                self.job.data,
                None,
                None,
                format!(
                    "the file holds {} records and its frequency table {}: the file changed since the table was built; build the table again from the file as it is now",
                    thousands(records),
                    thousands(ds.records())
                ),
            ));
        }
        if let Some(combo) = (0..ds.n_rows()).find(|&r| self.seen[r] != ds.multiplicity(r)) {
            return Err(Error::input(
                self.job.data,
                None,
                None,
                format!(
                    "a combination of values counted {} times in the frequency table occurs {} times in the file: the file changed since the table was built; build the table again from the file as it is now",
                    thousands(u64::from(ds.multiplicity(combo))),
                    thousands(u64::from(self.seen[combo]))
                ),
            ));
        }
        let mut kinds = Vec::with_capacity(kinds_seen.len());
        for (seen, &c) in kinds_seen.iter().zip(&self.layout.passthrough) {
            let name = &self.layout.names[c];
            let kind = match self.job.opts.forced_kind(name) {
                Some(ColumnKind::Numeric) => {
                    if let Some((index, value)) = &seen.first_text {
                        let e = KindError {
                            row: *index as usize,
                            value: value.clone(),
                        };
                        return Err(Error::input(
                            self.job.data,
                            Some(self.row_label(*index)),
                            Some(name.clone()),
                            e.to_string(),
                        ));
                    }
                    ColumnKind::Numeric
                }
                Some(kind) => kind,
                None if seen.any_value && seen.first_text.is_none() => ColumnKind::Numeric,
                None => ColumnKind::Categorical,
            };
            kinds.push(kind);
        }
        let mut files = Vec::with_capacity(self.writers.len());
        for (i, (scratch, w)) in self.writers.into_iter().enumerate() {
            let lo = i as u64 * self.per_range;
            let hi = (lo + self.per_range).min(self.layout.rows);
            w.into_inner()
                .map_err(|e| Error::Write(scratch.path().to_path_buf(), e.into_error()))?;
            files.push((scratch, lo, hi.max(lo)));
        }
        Ok(Spilled { files, kinds })
    }
}

/// A number written in its canonical form already, told without parsing
/// (most numbers of a table): digits without a leading zero, far below
/// `data::number`'s magnitude bound.
pub(super) fn plain_integer(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= 100
        && (b[0] != b'0' || b.len() == 1)
        && b.iter().all(u8::is_ascii_digit)
}

/// The grouped table's rows by their codes: packed into one `u64` when
/// the columns' code spaces fit (they nearly always do), so a lookup
/// hashes a number, not a slice.
pub(super) enum Combinations {
    Packed {
        bits: Vec<u32>,
        rows: FxHashMap<u64, u32>,
    },
    Wide(FxHashMap<Box<[u32]>, u32>),
}

impl Combinations {
    pub(super) fn new(ds: &Dataset) -> Self {
        let bits: Vec<u32> = ds.columns().iter().map(Column::code_bits).collect();
        if bits.iter().sum::<u32>() <= 64 {
            let mut rows = FxHashMap::default();
            rows.reserve(ds.n_rows());
            let mut key = vec![0u32; ds.n_cols()];
            for r in 0..ds.n_rows() {
                for (k, c) in key.iter_mut().zip(ds.columns()) {
                    *k = c.code(r);
                }
                rows.insert(pack(&bits, &key), r as u32);
            }
            return Combinations::Packed { bits, rows };
        }
        let mut rows: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
        rows.reserve(ds.n_rows());
        for r in 0..ds.n_rows() {
            let key: Box<[u32]> = ds.columns().iter().map(|c| c.code(r)).collect();
            rows.insert(key, r as u32);
        }
        Combinations::Wide(rows)
    }

    /// The row of a combination of codes (each within its column's code
    /// space).
    pub(super) fn get(&self, key: &[u32]) -> Option<u32> {
        match self {
            Combinations::Packed { bits, rows } => rows.get(&pack(bits, key)).copied(),
            Combinations::Wide(rows) => rows.get(key).copied(),
        }
    }
}

pub(super) fn pack(bits: &[u32], key: &[u32]) -> u64 {
    key.iter()
        .zip(bits)
        .fold(0u64, |acc, (&k, &b)| (acc << b) | u64::from(k))
}

/// Where the spilled record at `bytes[at..]` goes, and where the next
/// one starts.
pub(super) fn record_end(bytes: &[u8], at: usize, passthrough: usize) -> Option<(u64, usize)> {
    let place = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?);
    let mut next = at + 12;
    for _ in 0..passthrough {
        let len = u32::from_le_bytes(bytes.get(next..next + 4)?.try_into().ok()?);
        next += 4;
        if len != MISSING {
            next += len as usize;
        }
    }
    (next <= bytes.len()).then_some((place, next))
}

/// The spilled record at `bytes[at..]`: its combination, its passthrough
/// cells into `cells` (`None` where missing).
pub(super) fn read_record<'b>(
    bytes: &'b [u8],
    at: usize,
    passthrough: usize,
    cells: &mut Vec<Option<&'b str>>,
) -> Option<usize> {
    let combo = u32::from_le_bytes(bytes.get(at + 8..at + 12)?.try_into().ok()?) as usize;
    let mut next = at + 12;
    cells.clear();
    for _ in 0..passthrough {
        let len = u32::from_le_bytes(bytes.get(next..next + 4)?.try_into().ok()?);
        next += 4;
        if len == MISSING {
            cells.push(None);
            continue;
        }
        let text = std::str::from_utf8(bytes.get(next..next + len as usize)?).ok()?;
        next += len as usize;
        cells.push(Some(text));
    }
    Some(combo)
}

/// Read one spilled record from a stream (to split a range): its place
/// and its bytes, or `None` at the end.
pub(super) fn next_record(
    r: &mut impl Read,
    passthrough: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<u64>> {
    buf.clear();
    let mut head = [0u8; 12];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    buf.extend_from_slice(&head);
    for _ in 0..passthrough {
        let mut len = [0u8; 4];
        r.read_exact(&mut len)?;
        buf.extend_from_slice(&len);
        let len = u32::from_le_bytes(len);
        if len != MISSING {
            let start = buf.len();
            buf.resize(start + len as usize, 0);
            r.read_exact(&mut buf[start..])?;
        }
    }
    let place = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
    Ok(Some(place))
}
