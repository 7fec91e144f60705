//! The one numeric reading of a value, used by every path that asks "is this
//! a number, and which one?": the CSV import (numeric columns), rules,
//! hierarchies, Construction(D, G)'s conditions and the verifier.
//!
//! A value is read as an exact decimal, never through a binary float first,
//! so `39`, `39.0`, `039` and `3.9e1` are one number, `-0` is `0`, and two
//! integers beyond 2^53 (or beyond i64) stay apart and in order. Each number
//! has one canonical text, the form anonlab publishes: plain decimal
//! notation, no exponent, no `+`, no leading zeros before the point, no
//! trailing zeros after it, no trailing point, and `0` for every zero
//! (`3.9e1` → `39`, `.50` → `0.5`, `-0.0` → `0`, `1e20` →
//! `100000000000000000000`).
//!
//! What counts as a number (the documented rule, README "Limits"): an
//! optional sign, digits with an optional decimal point (at least one
//! digit), an optional exponent `e`/`E` with an optional sign and digits —
//! the grammar of Rust's `f64` parser without `inf`, `infinity` and `NaN` —
//! whose value is 0 or has a magnitude in [10^-150, 10^150). Anything else
//! (words, `NaN`, `inf`, `1e400`, `0x1F`, `1,000`) is text. The magnitude
//! bound keeps every figure computed from the numbers in `f64` finite:
//! ranges, sums over 2^32 rows and squares of values (Pearson's r) stay
//! far below `f64::MAX`, so no NCP, query error or correlation ever reads
//! `inf` or `NaN`. The exact values are kept for everything published or
//! compared; `f64` is used for figures only.
//!
//! Why not a decimal crate: what is needed is this grammar (the same one the
//! column detection always used), its bounds and a canonical text, plus an
//! exact comparison — a few lines on a digit string. Arithmetic on the
//! numbers (hierarchy interval ends) uses `num-bigint` on integers scaled by
//! a power of ten ([`Decimal::scaled`], [`Decimal::from_scaled`]).

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};

/// Numbers of magnitude 10^MAX_EXPONENT and beyond (or non-zero and below
/// 10^-MAX_EXPONENT) are read as text.
pub const MAX_EXPONENT: i64 = 150;

/// An exact decimal number: `0.DIGITS × 10^point`, `DIGITS` without
/// leading or trailing zeros (empty for zero).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decimal {
    negative: bool,
    digits: Box<[u8]>,
    point: i64,
}

/// An optional sign at `b[*i]`, stepped over; whether it is `-`.
fn read_sign(b: &[u8], i: &mut usize) -> bool {
    match b.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    }
}

impl Decimal {
    /// Read `text` (surrounding white space ignored) as a number; `None`
    /// when it is not one by the rule of the module doc.
    pub fn parse(text: &str) -> Option<Decimal> {
        let b = text.trim().as_bytes();
        let mut i = 0;
        let negative = read_sign(b, &mut i);
        let int_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &b[int_start..i];
        let mut frac_part: &[u8] = &[];
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &b[start..i];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let mut exp: i64 = 0;
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            let exp_negative = read_sign(b, &mut i);
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                // Saturates far beyond any bound checked below.
                exp = (exp * 10 + i64::from(b[i] - b'0')).min(1 << 40);
                i += 1;
            }
            if i == start {
                return None;
            }
            if exp_negative {
                exp = -exp;
            }
        }
        if i != b.len() {
            return None;
        }
        // The significant digits, and where the point sits among them.
        let lead = int_part
            .iter()
            .chain(frac_part)
            .take_while(|&&d| d == b'0')
            .count();
        let all: Vec<u8> = int_part.iter().chain(frac_part).copied().collect();
        let significant = &all[lead..];
        let trail = significant.iter().rev().take_while(|&&d| d == b'0').count();
        let digits = &significant[..significant.len() - trail];
        if digits.is_empty() {
            return Some(Decimal::zero());
        }
        let point = int_part.len() as i64 - lead as i64 + exp;
        // 10^(point-1) ≤ |x| < 10^point.
        if point > MAX_EXPONENT || point - 1 < -MAX_EXPONENT {
            return None;
        }
        Some(Decimal {
            negative,
            digits: digits.into(),
            point,
        })
    }

    pub fn zero() -> Decimal {
        Decimal {
            negative: false,
            digits: Box::new([]),
            point: 0,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The canonical text (see the module doc).
    pub fn canonical(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let digits = std::str::from_utf8(&self.digits).unwrap_or("0");
        let mut s = String::with_capacity(digits.len() + self.point.unsigned_abs() as usize + 3);
        if self.negative {
            s.push('-');
        }
        let len = digits.len() as i64;
        if self.point <= 0 {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', (-self.point) as usize));
            s.push_str(digits);
        } else if self.point < len {
            let (int, frac) = digits.split_at(self.point as usize);
            s.push_str(int);
            s.push('.');
            s.push_str(frac);
        } else {
            s.push_str(digits);
            s.extend(std::iter::repeat_n('0', (self.point - len) as usize));
        }
        s
    }

    /// The nearest `f64` (finite by the magnitude bound), for figures.
    pub fn to_f64(&self) -> f64 {
        if self.is_zero() {
            return 0.0;
        }
        let digits = std::str::from_utf8(&self.digits).unwrap_or("0");
        let sign = if self.negative { "-" } else { "" };
        format!("{sign}0.{digits}e{}", self.point)
            .parse()
            .unwrap_or(0.0)
    }

    /// Digits after the decimal point in the canonical text.
    pub fn fraction_digits(&self) -> u64 {
        (self.digits.len() as i64 - self.point).max(0) as u64
    }

    /// Whether the number is a whole number.
    pub fn is_integer(&self) -> bool {
        self.fraction_digits() == 0
    }

    /// The number times 10^`scale`, which must be at least
    /// [`Self::fraction_digits`] (then the result is a whole number).
    pub fn scaled(&self, scale: u64) -> BigInt {
        debug_assert!(scale >= self.fraction_digits());
        if self.is_zero() {
            return BigInt::from(0);
        }
        let digits: Vec<u8> = self.digits.iter().map(|d| d - b'0').collect();
        let magnitude = num_bigint::BigUint::from_radix_be(&digits, 10).unwrap_or_default();
        let zeros = self.point - self.digits.len() as i64 + scale as i64;
        let magnitude = magnitude * num_bigint::BigUint::from(10u32).pow(zeros.max(0) as u32);
        let sign = if self.negative {
            Sign::Minus
        } else {
            Sign::Plus
        };
        BigInt::from_biguint(sign, magnitude)
    }

    /// The number `value / 10^scale`, exactly; `None` beyond the magnitude
    /// bound.
    pub fn from_scaled(value: &BigInt, scale: u64) -> Option<Decimal> {
        let (sign, magnitude) = value.to_radix_be(10);
        let text: String = magnitude.iter().map(|d| char::from(b'0' + d)).collect();
        let sign = if sign == Sign::Minus { "-" } else { "" };
        Decimal::parse(&format!("{sign}{text}e-{scale}"))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Decimal| match (d.is_zero(), d.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        let (a, b) = (sign(self), sign(other));
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let magnitude = self
            .point
            .cmp(&other.point)
            .then_with(|| self.digits.cmp(&other.digits));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.canonical())
    }
}

/// What a generalized label says about the numbers it stands for, when it
/// says anything: the forms anonlab writes (`39`, `[20-29]`, `[20.5-30.5)`,
/// `<150`, `>=90`, `*`). A label of another form (`elderly`, `{1,2}`)
/// makes no numeric claim — nor does a bare `0-4`: ARX's hierarchies use
/// it as a name (the Adult age hierarchy files age 20 under `15-19`, and
/// that benchmark hierarchy must stay usable), so a range claims numbers
/// only in brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumericLabel {
    /// Every number (`*`).
    Any,
    /// Exactly this number.
    Value(Decimal),
    /// Between two ends, each included or not; `None` is unbounded.
    Range {
        lo: Option<(Decimal, bool)>,
        hi: Option<(Decimal, bool)>,
    },
}

impl NumericLabel {
    /// Read a label; `None` when it makes no numeric claim.
    pub fn parse(label: &str) -> Option<NumericLabel> {
        let t = label.trim();
        if t == "*" {
            return Some(NumericLabel::Any);
        }
        if let Some(x) = Decimal::parse(t) {
            return Some(NumericLabel::Value(x));
        }
        for (op, lo, hi) in [
            ("<=", false, true),
            (">=", true, true),
            ("<", false, false),
            (">", true, false),
        ] {
            if let Some(x) = t.strip_prefix(op).and_then(Decimal::parse) {
                let end = Some((x, hi));
                return Some(if lo {
                    NumericLabel::Range { lo: end, hi: None }
                } else {
                    NumericLabel::Range { lo: None, hi: end }
                });
            }
        }
        let (lo_closed, rest) = match t.as_bytes().first() {
            Some(b'[') => (true, &t[1..]),
            Some(b'(') => (false, &t[1..]),
            _ => return None,
        };
        let (hi_closed, inner) = match rest.as_bytes().last() {
            Some(b']') => (true, &rest[..rest.len() - 1]),
            Some(b')') => (false, &rest[..rest.len() - 1]),
            _ => return None,
        };
        // The '-' between the ends: not a sign (first, or after another
        // '-' or an exponent's 'e').
        for (i, _) in inner.match_indices('-') {
            if i == 0 || matches!(inner.as_bytes()[i - 1], b'-' | b'e' | b'E') {
                continue;
            }
            if let (Some(lo), Some(hi)) =
                (Decimal::parse(&inner[..i]), Decimal::parse(&inner[i + 1..]))
            {
                return Some(NumericLabel::Range {
                    lo: Some((lo, lo_closed)),
                    hi: Some((hi, hi_closed)),
                });
            }
        }
        None
    }

    /// Whether the number `x` is among those the label stands for.
    pub fn covers(&self, x: &Decimal) -> bool {
        match self {
            NumericLabel::Any => true,
            NumericLabel::Value(v) => v == x,
            NumericLabel::Range { lo, hi } => {
                let above = lo
                    .as_ref()
                    .is_none_or(|(l, closed)| if *closed { x >= l } else { x > l });
                let below = hi
                    .as_ref()
                    .is_none_or(|(h, closed)| if *closed { x <= h } else { x < h });
                above && below
            }
        }
    }
}

/// The canonical text of `value / 10^scale` (no magnitude bound: interval
/// ends computed from the data may lie beyond the numbers a value may be).
pub fn scaled_text(value: &BigInt, scale: u64) -> String {
    let (sign, magnitude) = value.to_radix_be(10);
    let mut digits: Vec<u8> = magnitude.iter().map(|d| b'0' + d).collect();
    let scale = scale as usize;
    if digits.len() <= scale {
        let mut padded = vec![b'0'; scale + 1 - digits.len()];
        padded.extend(digits);
        digits = padded;
    }
    let (int, frac) = digits.split_at(digits.len() - scale);
    let frac = {
        let keep = frac.len() - frac.iter().rev().take_while(|&&d| d == b'0').count();
        &frac[..keep]
    };
    let int = {
        let skip = int
            .iter()
            .take_while(|&&d| d == b'0')
            .count()
            .min(int.len() - 1);
        &int[skip..]
    };
    let zero = int == b"0" && frac.is_empty();
    let mut s = String::with_capacity(int.len() + frac.len() + 2);
    if sign == Sign::Minus && !zero {
        s.push('-');
    }
    s.push_str(std::str::from_utf8(int).unwrap_or("0"));
    if !frac.is_empty() {
        s.push('.');
        s.push_str(std::str::from_utf8(frac).unwrap_or(""));
    }
    s
}

/// Whether `text` reads as a number (see the module doc).
pub fn is_number(text: &str) -> bool {
    Decimal::parse(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> Option<String> {
        Decimal::parse(s).map(|d| d.canonical())
    }

    #[test]
    fn spellings_of_one_number_are_one_value() {
        for s in ["39", "39.0", "039", "3.9e1", "+39", "390e-1", " 39 ", "39."] {
            assert_eq!(canon(s).as_deref(), Some("39"), "{s}");
        }
        for s in ["0", "-0", "0.0", "00", "-0.000e5", ".0", "0e999999999999"] {
            assert_eq!(canon(s).as_deref(), Some("0"), "{s}");
        }
        assert_eq!(canon(".50").as_deref(), Some("0.5"));
        assert_eq!(canon("-.5e-1").as_deref(), Some("-0.05"));
        assert_eq!(canon("1e20").as_deref(), Some("100000000000000000000"));
        assert_eq!(canon("1.25E2").as_deref(), Some("125"));
    }

    #[test]
    fn text_nan_inf_and_out_of_range_are_not_numbers() {
        for s in [
            "", "-", ".", "e5", "1e", "1e+", "NaN", "nan", "inf", "-inf", "infinity", "0x1F",
            "1,000", "1 000", "1e150", "-1e151", "1e-151", "1e400", "--1", "1.2.3", "١٢",
        ] {
            assert_eq!(canon(s), None, "{s}");
        }
        assert!(Decimal::parse("9.99e149").is_some());
        assert!(Decimal::parse("1e-150").is_some());
    }

    #[test]
    fn order_is_exact_beyond_f64() {
        let a = Decimal::parse("12345678901234567891").unwrap();
        let b = Decimal::parse("12345678901234567892").unwrap();
        assert_eq!(a.to_f64(), b.to_f64());
        assert!(a < b);
        let mut v: Vec<Decimal> = ["-2", "-10", "0", "0.001", "-0.5", "3", "1e3", "999.9"]
            .iter()
            .map(|s| Decimal::parse(s).unwrap())
            .collect();
        v.sort();
        let texts: Vec<String> = v.iter().map(Decimal::canonical).collect();
        assert_eq!(
            texts,
            ["-10", "-2", "-0.5", "0", "0.001", "3", "999.9", "1000"]
        );
    }

    #[test]
    fn scaled_integers_round_trip() {
        for s in [
            "-12.5",
            "0",
            "1e20",
            "0.0001",
            "123456789012345678901234567890.5",
        ] {
            let d = Decimal::parse(s).unwrap();
            let scale = d.fraction_digits() + 2;
            assert_eq!(Decimal::from_scaled(&d.scaled(scale), scale), Some(d));
        }
    }

    #[test]
    fn labels_claim_what_they_say() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        let covers = |label: &str, x: &str| NumericLabel::parse(label).unwrap().covers(&d(x));
        assert!(covers("[20-29]", "29") && !covers("[20-29]", "29.5"));
        assert!(covers("[20.5-30.5)", "20.5") && !covers("[20.5-30.5)", "30.5"));
        assert!(covers("[-5--1]", "-3") && !covers("[-5--1]", "0"));
        assert!(covers("[1e-3-2e1]", "20"));
        assert!(covers("<150", "149") && !covers("<150", "150"));
        assert!(covers(">=90", "90") && !covers(">90", "90"));
        assert!(covers("39", "39.0") && !covers("39", "70"));
        assert!(covers("*", "-7"));
        for free in [
            "elderly",
            "{1,2}",
            "North America",
            "a-b",
            "[x-1]",
            "0-4",
            "15-19",
            "[0-4",
        ] {
            assert_eq!(NumericLabel::parse(free), None, "{free}");
        }
    }

    #[test]
    fn scaled_text_is_canonical_without_the_bound() {
        let t = |v: i64, s: u64| scaled_text(&BigInt::from(v), s);
        assert_eq!(t(2500, 2), "25");
        assert_eq!(t(2505, 2), "25.05");
        assert_eq!(t(-5, 3), "-0.005");
        assert_eq!(t(0, 4), "0");
        assert_eq!(t(7, 0), "7");
        let big = BigInt::from(10).pow(400);
        assert_eq!(scaled_text(&big, 0).len(), 401);
    }

    #[test]
    fn f64_is_the_nearest() {
        assert_eq!(Decimal::parse("0.1").unwrap().to_f64(), 0.1);
        assert_eq!(Decimal::parse("-3.9e1").unwrap().to_f64(), -39.0);
        assert!(Decimal::parse("9.9e149").unwrap().to_f64().is_finite());
    }
}
