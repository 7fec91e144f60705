//! The per-record work of the first pass that does not depend on file
//! order, done on every core: each record's grouped cells looked up in the
//! grouped table's dictionaries, its combination found, and its
//! passthrough cells checked for numbers (issue 19: on one thread this
//! lookup was half the publishing pass).
//!
//! A batch is cut into consecutive row chunks, one per worker; each worker
//! has its own text → code caches (so no lock is taken per cell) and writes
//! its chunk's combinations into its slice of one vector. What depends on
//! order — counting each combination's records, placing them, spilling —
//! stays on the pass's thread, which reads the vector in file order
//! (`Pass::batch`), so the spilled records, and the release, are the
//! same bytes whatever the number of threads.
//!
//! A worker stops at the first record of its chunk it cannot map and
//! notes why ([`Failure`]); the records after it are left unmapped. The
//! pass, reading in order, meets that record before any later one, so it
//! refuses the same record with the same message as a pass on one thread.

use rayon::prelude::*;

use super::*;

/// A record left unmapped (after a failure in its chunk, or the failure
/// itself): never a combination, the grouped table's rows being counted
/// in `u32` below this.
const UNMAPPED: u32 = u32::MAX;

/// Records per chunk at least: below this, the hand-off to another thread
/// costs more than the lookups.
const MIN_CHUNK: usize = 1024;

/// Why a record could not be mapped.
pub(super) enum Failure {
    /// Its cell in grouped column `column` (the grouped table's order) is
    /// not in that column's dictionary.
    Value { column: usize, text: String },
    /// Its combination of codes is not a row of the grouped table.
    Combination,
}

/// A grouped column's codes by text, cached: most columns have few
/// spellings, and a numeric lookup parses the dictionary it searches.
/// A text shorter than 16 bytes (most cells) is cached by its bytes packed
/// into one number, as the column builder interns it: hashed and compared
/// without a byte loop or a `memcmp` call (which was a tenth of the pass).
pub(super) struct Lookup<'a> {
    pub(super) column: &'a Column,
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Box<str>, u32>,
}

impl<'a> Lookup<'a> {
    fn new(column: &'a Column) -> Self {
        Lookup {
            column,
            short: FxHashMap::default(),
            long: FxHashMap::default(),
        }
    }

    fn code(&mut self, text: &str) -> Option<u32> {
        let packed = anonlab::data::pack_short(text.as_bytes());
        let cached = match packed {
            Some(key) => self.short.get(&key),
            None => self.long.get(text),
        };
        if let Some(&c) = cached {
            return Some(c);
        }
        let code = self.column.code_of(text)?;
        if self.short.len() + self.long.len() < CACHE_ENTRIES {
            match packed {
                Some(key) => self.short.insert(key, code),
                None => self.long.insert(text.into(), code),
            };
        }
        Some(code)
    }
}

/// What is learned of a passthrough column's kind while streaming.
#[derive(Default, Clone)]
pub(super) struct KindSeen {
    pub(super) any_value: bool,
    /// The first value that is not a number, and its record.
    pub(super) first_text: Option<(u64, String)>,
}

impl KindSeen {
    /// Fold in what was seen of the records after those already seen.
    fn then(&mut self, later: &KindSeen) {
        self.any_value |= later.any_value;
        if self.first_text.is_none() {
            self.first_text.clone_from(&later.first_text);
        }
    }
}

/// One worker's caches and what it found in its chunk.
struct Worker<'a> {
    lookups: Vec<Lookup<'a>>,
    key: Vec<u32>,
    /// The packed codes of the chunk's rows (packed combinations only).
    packed: Vec<u64>,
    /// The first record of the chunk that could not be mapped (its row in
    /// the batch) and why.
    failure: Option<(usize, Failure)>,
    /// The chunk's passthrough cells.
    kinds: Vec<KindSeen>,
}

impl Worker<'_> {
    /// Map the batch's rows `first..` into `out` (one slot per row), and
    /// note the passthrough cells' kinds.
    ///
    /// The codes of every row come first, then the combinations are
    /// looked up in a loop of nothing else: the probes are independent,
    /// so their cache misses overlap (the map of a large table is tens of
    /// megabytes). A probe made between one row's cell lookups and the
    /// next waited for its miss alone; it was a third of the pass.
    fn map(
        &mut self,
        combos: &Combinations,
        batch: &crate::engine_scan::TextBatch,
        first: usize,
        out: &mut [u32],
    ) {
        self.failure = None;
        self.kinds.iter_mut().for_each(|k| *k = KindSeen::default());
        // Rows before the first failure, whose codes are known.
        let mut coded = out.len();
        self.packed.clear();
        for (i, slot) in out.iter_mut().enumerate() {
            if !self.codes(batch, first + i) {
                coded = i;
                break;
            }
            match combos {
                Combinations::Packed { bits, .. } => self.packed.push(pack(bits, &self.key)),
                Combinations::Wide(_) => match combos.get(&self.key) {
                    Some(combo) => *slot = combo,
                    None => {
                        self.failure = Some((first + i, Failure::Combination));
                        coded = i;
                        break;
                    }
                },
            }
        }
        let mut mapped = coded;
        if let Combinations::Packed { rows, .. } = combos {
            for (i, (slot, key)) in out.iter_mut().zip(&self.packed).enumerate() {
                match rows.get(key) {
                    Some(&combo) => *slot = combo,
                    None => {
                        // Before any failed cell: the chunk's first failure.
                        self.failure = Some((first + i, Failure::Combination));
                        mapped = i;
                        break;
                    }
                }
            }
        }
        let grouped = self.lookups.len();
        for r in first..first + mapped {
            for (c, seen) in self.kinds.iter_mut().enumerate() {
                if let Some(text) = batch.cell(grouped + c, r) {
                    seen.any_value = true;
                    if seen.first_text.is_none() && !plain_integer(text) && !is_number(text) {
                        let index = batch.first_record() + r as u64;
                        seen.first_text = Some((index, text.to_string()));
                    }
                }
            }
        }
    }

    /// The codes of row `r`'s grouped cells into `key`; `false`, with the
    /// failure noted, at a cell the column's dictionary does not hold.
    fn codes(&mut self, batch: &crate::engine_scan::TextBatch, r: usize) -> bool {
        for (j, lookup) in self.lookups.iter_mut().enumerate() {
            self.key[j] = match batch.cell(j, r) {
                None => lookup.column.missing_code(),
                Some(text) => match lookup.code(text) {
                    Some(c) => c,
                    None => {
                        self.failure = Some((
                            r,
                            Failure::Value {
                                column: j,
                                text: text.to_string(),
                            },
                        ));
                        return false;
                    }
                },
            };
        }
        true
    }
}

/// The combinations of a batch's records, mapped on every core.
pub(super) struct Keys<'a> {
    combos: Combinations,
    workers: Vec<Worker<'a>>,
    /// What the passthrough cells of the batches mapped so far say of
    /// their columns' kinds.
    pub(super) kinds: Vec<KindSeen>,
}

/// A batch's records mapped: each one's combination, or why it has none.
pub(super) struct Mapped {
    /// Combination of each record, or [`UNMAPPED`].
    of: Vec<u32>,
    /// The first record of each chunk that could not be mapped, and why.
    failures: Vec<(usize, Failure)>,
}

impl<'a> Keys<'a> {
    /// One worker per thread of rayon's pool; each batch column's
    /// passthrough cells follow its `grouped` ones.
    pub(super) fn new(ds: &'a Dataset, passthrough: usize) -> Self {
        let workers = (0..rayon::current_num_threads().max(1))
            .map(|_| Worker {
                lookups: ds.columns().iter().map(Lookup::new).collect(),
                key: vec![0; ds.n_cols()],
                packed: Vec::new(),
                failure: None,
                kinds: vec![KindSeen::default(); passthrough],
            })
            .collect();
        Keys {
            combos: Combinations::new(ds),
            workers,
            kinds: vec![KindSeen::default(); passthrough],
        }
    }

    /// Map every record of `batch`, and fold what its passthrough cells
    /// say of their kinds into [`Self::kinds`] (when every record was
    /// mapped; a batch with a failure ends the pass).
    pub(super) fn map(&mut self, batch: &crate::engine_scan::TextBatch) -> Mapped {
        let n = batch.len();
        let mut of = vec![UNMAPPED; n];
        let chunk = n.div_ceil(self.workers.len()).max(MIN_CHUNK);
        let combos = &self.combos;
        let used = n.div_ceil(chunk);
        self.workers[..used]
            .par_iter_mut()
            .zip(of.par_chunks_mut(chunk))
            .enumerate()
            .for_each(|(i, (worker, out))| worker.map(combos, batch, i * chunk, out));
        // In chunk order, so each column's first non-number is the file's.
        for worker in &self.workers[..used] {
            for (k, seen) in self.kinds.iter_mut().zip(&worker.kinds) {
                k.then(seen);
            }
        }
        let failures = self.workers[..used]
            .iter_mut()
            .filter_map(|w| w.failure.take())
            .collect();
        Mapped { of, failures }
    }
}

impl Mapped {
    /// The combination of the `row`-th record of the batch, or why it has
    /// none. Asked in row order, a record without one is the first
    /// failure of its chunk.
    pub(super) fn combo(&self, row: usize) -> std::result::Result<u32, &Failure> {
        match self.of[row] {
            UNMAPPED => Err(self
                .failures
                .iter()
                .find(|(r, _)| *r == row)
                .map(|(_, f)| f)
                .unwrap_or(&Failure::Combination)),
            combo => Ok(combo),
        }
    }
}
