//! `/` search in the screens' tables: the query line, and the scans.
//!
//! A data column is searched through its dictionary: the values containing
//! the text are found once (one pass over the distinct values), then the
//! rows are scanned by code, an integer compare per row, so a million rows
//! are searched without formatting a single cell. The match is the cursor's
//! new place; the data table also highlights the column's other matching
//! cells on screen.

use super::cmdline::LineEditor;

/// The search line and the last query, for `n` / `N`.
#[derive(Debug, Clone, Default)]
pub struct SearchState {
    pub editor: LineEditor,
    /// The last query run, lower-cased.
    pub query: Option<String>,
    /// The data columns the query was matched against (every column),
    /// and which of their codes match (the missing-value code never does).
    pub hits: Option<Vec<(usize, Vec<bool>)>>,
}

impl SearchState {
    /// Whether the data table should highlight code `code` of column `col`.
    pub fn highlights(&self, col: usize, code: u32) -> bool {
        self.hits.as_ref().is_some_and(|all| {
            all.iter()
                .any(|(c, hits)| *c == col && hits.get(code as usize) == Some(&true))
        })
    }
}

/// Whether `text` contains `needle` (already lower-cased), ignoring case.
pub fn contains(text: &str, needle: &str) -> bool {
    if text.is_ascii() && needle.is_ascii() {
        text.as_bytes()
            .windows(needle.len().max(1))
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
            || needle.is_empty()
    } else {
        text.to_lowercase().contains(needle)
    }
}

/// Which codes of a dictionary hold a value containing `needle`; one more
/// entry, always `false`, for the missing-value code.
pub fn matching_codes(dictionary: &[Box<str>], needle: &str) -> Vec<bool> {
    dictionary
        .iter()
        .map(|v| contains(v, needle))
        .chain(std::iter::once(false))
        .collect()
}

/// The next index after `from` (before it, backwards) among `0..n` that
/// matches, wrapping around the end; `from` itself is tried last.
pub fn next_match(
    n: usize,
    from: usize,
    forward: bool,
    mut is_match: impl FnMut(usize) -> bool,
) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let from = from.min(n - 1);
    (1..=n)
        .map(|step| {
            if forward {
                (from + step) % n
            } else {
                (from + n - step % n) % n
            }
        })
        .find(|&i| is_match(i))
}

/// How a bounded scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    Found(usize),
    /// Every index was tried.
    NotFound,
    /// The budget ran out at this index (the last one tried).
    Stopped(usize),
}

/// [`next_match`] trying at most `budget` indices, for scans whose test
/// is expensive (rendering a published row): the UI stays responsive and
/// the next search goes on from where this one stopped.
pub fn next_match_bounded(
    n: usize,
    from: usize,
    forward: bool,
    budget: usize,
    mut is_match: impl FnMut(usize) -> bool,
) -> Scan {
    let mut tried = 0;
    let mut last = from;
    let found = next_match(n, from, forward, |i| {
        tried += 1;
        last = i;
        tried > budget || is_match(i)
    });
    match found {
        Some(_) if tried > budget => Scan::Stopped(last_tried(n, last, forward)),
        Some(i) => Scan::Found(i),
        None => Scan::NotFound,
    }
}

/// The index tried before `i` in a scan in this direction.
fn last_tried(n: usize, i: usize, forward: bool) -> usize {
    if forward {
        (i + n - 1) % n
    } else {
        (i + 1) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next row whose code is a matching one.
    fn next_row(codes: &[u32], hits: &[bool], from: usize, forward: bool) -> Option<usize> {
        next_match(codes.len(), from, forward, |r| {
            hits.get(codes[r] as usize) == Some(&true)
        })
    }

    #[test]
    fn matching_ignores_case() {
        assert!(contains("Nurse", "nur"));
        assert!(contains("NURSE", "rse"));
        assert!(!contains("clerk", "nur"));
        assert!(contains("Zürich", "zür"));
        assert!(contains("anything", ""));
    }

    #[test]
    fn the_scan_wraps_both_ways() {
        let dict: Vec<Box<str>> = vec!["clerk".into(), "Nurse".into()];
        let hits = matching_codes(&dict, "nurse");
        assert_eq!(hits, vec![false, true, false]);
        // rows: nurse clerk clerk nurse missing
        let codes = [1, 0, 0, 1, 2];
        assert_eq!(next_row(&codes, &hits, 0, true), Some(3));
        assert_eq!(next_row(&codes, &hits, 3, true), Some(0));
        assert_eq!(next_row(&codes, &hits, 3, false), Some(0));
        assert_eq!(next_row(&codes, &hits, 0, false), Some(3));
        assert_eq!(next_row(&codes, &[false; 3], 0, true), None);
        assert_eq!(next_row(&[], &hits, 0, true), None);
        // A bounded scan stops after its budget, at the last row tried.
        assert_eq!(
            next_match_bounded(10, 0, true, 3, |i| i == 7),
            Scan::Stopped(3)
        );
        assert_eq!(
            next_match_bounded(10, 0, true, 9, |i| i == 7),
            Scan::Found(7)
        );
        assert_eq!(
            next_match_bounded(10, 5, false, 2, |_| false),
            Scan::Stopped(3)
        );
        assert_eq!(
            next_match_bounded(4, 0, true, 10, |_| false),
            Scan::NotFound
        );
        // A single match is found again from itself.
        assert_eq!(next_match(4, 2, true, |i| i == 2), Some(2));
    }
}
