//! ARX's hierarchy file format: no header, one row per leaf,
//! `leaf;level1;...;root`, `;`-separated (the files shipped with ARX's
//! Adult example, `adult_hierarchy_<column>.csv`).
//!
//! Reading accepts `;` (ARX's default), tab or `,` as the delimiter —
//! whichever of them occurs first in the file, in that order of preference —
//! and standard CSV quoting. Writing always uses `;` and quotes only fields
//! that need it, so a file written here is read back by ARX unchanged.

use std::io::Write;
use std::path::Path;

use crate::data::{write_file, Inputs};
use crate::error::{Error, Result};

use super::Hierarchy;

/// The attribute named by an ARX-style file name: `adult_hierarchy_age.csv`
/// → `age`, `hierarchy_age.csv` → `age`; `None` for other names.
pub fn attribute_from_file_name(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".csv")?;
    let i = stem.rfind("hierarchy_")?;
    let attr = &stem[i + "hierarchy_".len()..];
    (!attr.is_empty()).then_some(attr)
}

/// Read a hierarchy file; the attribute is taken from an ARX-style file name
/// (see [`attribute_from_file_name`]), else from the file stem.
pub fn read(file: &Path) -> Result<Hierarchy> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let attr = attribute_from_file_name(name)
        .map(str::to_string)
        .or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    read_as(file, &attr)
}

/// Read a hierarchy file for the attribute `attribute`.
pub fn read_as(file: &Path, attribute: &str) -> Result<Hierarchy> {
    let bytes = crate::data::input::read_text_file(file, "hierarchy file")?;
    parse(&bytes, attribute, file)
}

/// Parse ARX CSV bytes; `file` is only used to name the source in errors,
/// which carry the 1-based line of the offending row.
pub fn parse(bytes: &[u8], attribute: &str, file: &Path) -> Result<Hierarchy> {
    let (rows, lines) = parse_rows(bytes, file)?;
    Hierarchy::build(attribute, &rows, &|r| lines[r]).map_err(|e| {
        Error::input(
            file,
            e.row.map(|r| lines[r]),
            None,
            format!("hierarchy of '{attribute}': {}", e.msg),
        )
    })
}

/// The fields of each non-blank row (trimmed) and the row's 1-based line.
pub(crate) fn parse_rows(bytes: &[u8], file: &Path) -> Result<(Vec<Vec<String>>, Vec<u64>)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(sniff(bytes))
        .flexible(true)
        .from_reader(bytes);
    // The reader skips blank lines without counting them, so lines are
    // counted from the byte offset of each record, going forward only
    // (records come in order): linear in the file, whatever its length.
    let mut counter = LineCounter {
        bytes,
        at: 0,
        line: 1,
    };
    let mut line_at = |p: Option<&csv::Position>| p.map(|p| counter.line_at(p.byte() as usize));
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut lines: Vec<u64> = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| {
            Error::input(
                file,
                line_at(e.position()),
                None,
                format!("not valid CSV: {e}"),
            )
        })?;
        if rec.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        lines.push(line_at(rec.position()).unwrap_or(rows.len() as u64 + 1));
        rows.push(rec.iter().map(|f| f.trim().to_string()).collect());
    }
    Ok((rows, lines))
}

/// Lines of `bytes` counted up to increasing offsets: `\n`, `\r\n` and a
/// lone `\r` each end a line.
struct LineCounter<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u64,
}

impl LineCounter<'_> {
    /// The line of the record the CSV reader placed at `pos` (where it
    /// began reading: blank lines before the record are skipped).
    fn line_at(&mut self, pos: usize) -> u64 {
        let b = self.bytes;
        let mut end = pos.min(b.len());
        while end < b.len() && matches!(b[end], b'\n' | b'\r') {
            end += 1;
        }
        if end < self.at {
            return self.line;
        }
        for i in memchr::memchr2_iter(b'\n', b'\r', &b[self.at..end]) {
            let i = self.at + i;
            if b[i] == b'\n' || b.get(i + 1) != Some(&b'\n') {
                self.line += 1;
            }
        }
        self.at = end;
        self.line
    }
}

/// The delimiter of the first line that has one, outside quotes: `;`, then
/// tab, then `,`; `;` when no line has any (a one-level hierarchy).
fn sniff(bytes: &[u8]) -> u8 {
    for line in bytes.split(|&b| b == b'\n') {
        let mut quoted = false;
        let mut seen = [false; 3];
        for &b in line {
            match b {
                b'"' => quoted = !quoted,
                b';' if !quoted => seen[0] = true,
                b'\t' if !quoted => seen[1] = true,
                b',' if !quoted => seen[2] = true,
                _ => {}
            }
        }
        if let Some(i) = seen.iter().position(|&s| s) {
            return [b';', b'\t', b','][i];
        }
    }
    b';'
}

/// Write in ARX's format.
pub fn write(h: &Hierarchy, out: &mut dyn Write) -> std::io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .from_writer(out);
    for row in h.rows() {
        w.write_record(&row)?;
    }
    w.flush()
}

/// The ARX text of a hierarchy.
pub fn to_bytes(h: &Hierarchy) -> Vec<u8> {
    let mut v = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write(h, &mut v);
    v
}

/// Write to `file` through `data::output` (never over one of `inputs`;
/// atomic and synced).
pub fn save(h: &Hierarchy, file: &Path, inputs: &Inputs) -> Result<()> {
    write_file(file, inputs, |w| write(h, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_give_attributes() {
        assert_eq!(
            attribute_from_file_name("adult_hierarchy_marital-status.csv"),
            Some("marital-status")
        );
        assert_eq!(attribute_from_file_name("hierarchy_age.csv"), Some("age"));
        assert_eq!(attribute_from_file_name("age.csv"), None);
        assert_eq!(attribute_from_file_name("x_hierarchy_.csv"), None);
    }

    #[test]
    fn errors_name_file_and_line() {
        let m = parse(b"1;0-4;0-9;*\n\n2;0-4;0-19;*\n", "age", Path::new("h.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            m.starts_with("h.csv, row 3: hierarchy of 'age': '0-4' at level 1 has two parents at level 2: '0-9' (row 1) and '0-19' (row 3)"),
            "{m}"
        );
    }

    #[test]
    fn lines_are_right_for_every_line_ending_and_reading_is_linear() {
        for eol in ["\n", "\r\n", "\r"] {
            let text = ["1;0-4;0-9;*", "", "2;0-4;0-19;*"].join(eol);
            let m = parse(text.as_bytes(), "age", Path::new("h.csv"))
                .unwrap_err()
                .to_string();
            assert!(m.starts_with("h.csv, row 3:"), "{eol:?}: {m}");
        }
        // 200,000 leaves (the quadratic line count took over 20 s; timed in
        // BENCHMARKS.md, "Issue 14"), and the last row's line still right.
        let mut big = String::new();
        for i in 0..200_000 {
            big.push_str(&format!("v{i};g{};*\n", i % 100));
        }
        big.push_str("v0;g1;*\n");
        let m = parse(big.as_bytes(), "x", Path::new("h.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            m.contains("row 200001") && m.contains("appears twice"),
            "{m}"
        );
    }

    #[test]
    fn quoting_and_delimiters_round_trip() {
        let h = parse(b"\"a;b\",g 1,*\nc,g 1,*\n", "x", Path::new("h.csv")).unwrap();
        assert_eq!(h.leaves()[0].as_ref(), "a;b");
        let bytes = to_bytes(&h);
        assert_eq!(String::from_utf8_lossy(&bytes), "\"a;b\";g 1;*\nc;g 1;*\n");
        assert_eq!(parse(&bytes, "x", Path::new("h.csv")).unwrap(), h);
    }
}
