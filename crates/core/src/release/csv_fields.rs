//! The published table's rows as CSV, from fields encoded once: the published table
//! writes the same few dictionary values and group cells on every row, so
//! `render::write_table` encodes each distinct value once (here) and
//! builds rows by copying bytes, instead of passing every field through
//! `csv::Writer`'s quoting checks. The bytes are exactly those the csv
//! crate writes with its defaults (`QuoteStyle::Necessary`, `,` between
//! fields, `"` doubled inside quotes, `\n` after each record): a field is
//! quoted when it holds a delimiter, a quote, `\r` or `\n`. A test compares
//! rows of awkward values with `csv::Writer`'s output; the fingerprints of
//! saved releases (`tests/release_fingerprints.rs`) check the whole files.

use std::io::Write;

use super::render::{bucket_reference, local_index, passthrough, published_headers, LocalRef};
use super::Release;
use crate::data::{Column, Dataset, Role};

/// Append `text` as the csv crate writes it as one field of a record with
/// more than one field.
pub fn encode(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    if !bytes
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Every code of a column as its encoded field (`Column::display`).
pub(super) struct Dictionary {
    bytes: Vec<u8>,
    /// Code c at `bytes[at[c]..at[c + 1]]`.
    at: Vec<usize>,
}

impl Dictionary {
    pub fn new(col: &Column) -> Self {
        let codes = col.code_space() as u32;
        let mut bytes = Vec::new();
        let mut at = Vec::with_capacity(codes as usize + 1);
        at.push(0);
        for code in 0..codes {
            encode(col.display(code), &mut bytes);
            at.push(bytes.len());
        }
        Dictionary { bytes, at }
    }

    /// The encoded field of `code`; a code outside the column's space
    /// renders as `Column::display` renders it.
    pub fn field(&self, code: u32) -> &[u8] {
        match self.at.get(code as usize + 1) {
            Some(&end) => &self.bytes[self.at[code as usize]..end],
            None => b"?",
        }
    }
}

/// The published table as CSV into `w`: the header through `csv::Writer`,
/// the rows built from fields encoded once per dictionary value and per
/// group cell (`csv_fields`, the same bytes `csv::Writer` writes) and
/// written in blocks.
pub(super) fn write_table(
    release: &Release,
    ds: &Dataset,
    roles: Option<&[Role]>,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let bucket_of_row = release.bucket_of_row();
    let passthrough = passthrough(release, ds, roles);
    let bucketized = release.is_bucketized();
    let local = local_index(release);
    let local = LocalRef(&local);
    let has_local = !release.local_buckets.is_empty();
    {
        let mut header = csv::Writer::from_writer(&mut *w);
        header.write_record(published_headers(release, ds, roles))?;
        header.flush()?;
    }
    // The dictionary of every column a row shows by its own value.
    let mut dictionaries: Vec<Option<Dictionary>> = (0..ds.n_cols()).map(|_| None).collect();
    let shown = release
        .quasi_identifiers
        .iter()
        .chain(&passthrough)
        .chain(if bucketized {
            &[][..]
        } else {
            &release.sensitive[..]
        });
    for &c in shown {
        dictionaries[c].get_or_insert_with(|| Dictionary::new(ds.col(c)));
    }
    let dict = |c: usize| dictionaries[c].as_ref().expect("encoded above");
    // A perturbed column publishes its perturbed value (`perturbation`),
    // encoded per row: its values are not the dictionary's.
    let perturbed: Vec<Option<&super::PublishedValues>> =
        (0..ds.n_cols()).map(|c| release.perturbed(c)).collect();
    let own = |c: usize, r: usize, out: &mut Vec<u8>| match perturbed[c] {
        Some(values) => encode(&values.render(ds.col(c), r), out),
        None => out.extend_from_slice(dict(c).field(ds.col(c).code(r))),
    };
    let mut out: Vec<u8> = Vec::with_capacity(BLOCK + 4096);
    // A group's generalized cells are the same on all its rows: encoded
    // once per group (`None` for an `Original` cell, shown by row).
    let mut group_cells: Vec<Option<Vec<u8>>> = Vec::new();
    let mut gid = Vec::new();
    for (g, group) in release.groups.iter().enumerate() {
        group_cells.clear();
        group_cells.extend(
            release
                .quasi_identifiers
                .iter()
                .zip(&group.cells)
                .map(|(&c, cell)| match cell {
                    super::Cell::Original => None,
                    _ => {
                        let mut field = Vec::new();
                        encode(&cell.render(ds.col(c), 0), &mut field);
                        Some(field)
                    }
                }),
        );
        gid.clear();
        encode(&(g + 1).to_string(), &mut gid);
        for &r in &group.rows {
            let r = r as usize;
            let mut first = true;
            let mut sep = |out: &mut Vec<u8>| {
                if !std::mem::take(&mut first) {
                    out.push(b',');
                }
            };
            for (&c, cell) in release.quasi_identifiers.iter().zip(&group_cells) {
                sep(&mut out);
                if let Some(b) = has_local.then(|| local.local(c, r)).flatten() {
                    encode(&bucket_reference(b), &mut out);
                    continue;
                }
                match cell {
                    Some(field) => out.extend_from_slice(field),
                    None => out.extend_from_slice(dict(c).field(ds.col(c).code(r))),
                }
            }
            for &c in &passthrough {
                sep(&mut out);
                own(c, r, &mut out);
            }
            if !bucketized {
                for &c in &release.sensitive {
                    sep(&mut out);
                    match has_local.then(|| local.local(c, r)).flatten() {
                        Some(b) => encode(&bucket_reference(b), &mut out),
                        None if local.has_local(c) => {}
                        None => own(c, r, &mut out),
                    }
                }
            }
            sep(&mut out);
            out.extend_from_slice(&gid);
            if bucketized {
                out.push(b',');
                if let Some(b) = bucket_of_row.get(r).copied().flatten() {
                    encode(&(b + 1).to_string(), &mut out);
                }
            }
            out.push(b'\n');
            if out.len() >= BLOCK {
                w.write_all(&out)?;
                out.clear();
            }
        }
    }
    w.write_all(&out)?;
    w.flush()
}

/// Bytes of rows handed to the writer (and the hash) at once.
const BLOCK: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_encoded_as_the_csv_crate_writes_them() {
        let awkward = [
            "",
            "plain",
            "a,b",
            "say \"hi\"",
            "\"",
            "line\nbreak",
            "cr\rhere",
            " spaced ",
            "#x",
            "é,ü",
            "''",
            ";",
            "\t",
        ];
        for first in awkward {
            for second in awkward {
                let mut w = csv::Writer::from_writer(Vec::new());
                w.write_record([first, second, "1"]).unwrap();
                let want = w.into_inner().unwrap();
                let mut got = Vec::new();
                encode(first, &mut got);
                got.push(b',');
                encode(second, &mut got);
                got.extend_from_slice(b",1\n");
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{first:?}, {second:?}"
                );
            }
        }
    }
}
