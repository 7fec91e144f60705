//! Global recoding of numeric attributes: top coding, bottom coding and
//! rounding (the Handbook on Statistical Disclosure Control's and the SDC
//! Practice Guide's non-perturbative methods; sdcMicro's `topBotCoding`).
//! Issue 33.
//!
//! A recoding is a deterministic function of one column's value, the same
//! for every record, so it is built as a transform from a [`Dataset`] to a
//! [`Dataset`]: the recoded dataset holds the new values, and every
//! algorithm, the verifier and every "after" figure run on it unchanged.
//! Why the after figures stay exact: the recoding is published with the
//! release (it is in the release JSON and the report), so an attacker who
//! knows a target's original value applies the same function to it, and
//! the records they match in the release are exactly those whose recoded
//! value matches the recoded target value — the matched set on the recoded
//! dataset. The "before" figures stay on the original dataset.
//!
//! The choices made where the references leave room:
//! - **Top coding** replaces every value strictly above the threshold by
//!   the replacement, **bottom coding** every value strictly below it (as
//!   sdcMicro's `topBotCoding`: `x[x > value] <- replacement`). The
//!   replacement defaults to the threshold itself; one may be given (the
//!   Practice Guide suggests the mean of the coded values), but a top
//!   code's replacement below its threshold (a bottom code's above) is
//!   refused: the coded records would sort among those kept, and "90" would
//!   no longer read "90 or more". The column stays numeric (so intervals,
//!   medians and the numeric algorithms still work); that the top value
//!   stands for "this or more" is said by the recodings recorded with the
//!   dataset ([`Dataset::recodings`]), which the release JSON and the
//!   report print. An algorithm that generalizes the column then
//!   generalizes the recoded value: an interval `[70-79]` holding the top
//!   code 72 holds people of 72 or more, which only the recodings say.
//! - **Thresholds by quantile** (`q0.99`) use R's default definition, type
//!   7 (Hyndman & Fan 1996): over the n non-missing values sorted,
//!   h = (n − 1)·p, Q = x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎) (0-based) —
//!   what `quantile(x, p)` gives an sdcMicro user. It is computed exactly in
//!   decimal, not in `f64`, so a threshold between two values is the exact
//!   interpolation, and `p` must lie strictly between 0 and 1.
//! - **Rounding** maps a value to the nearest multiple of the base; a value
//!   exactly halfway goes to the multiple whose quotient is even (ties to
//!   even, as R's `round(x / base) * base`, IEC 60559), in exact decimal
//!   arithmetic.
//! - Missing cells stay missing and are not counted; several recodings of
//!   one column apply in the order given, a quantile then read from the
//!   column as the earlier ones left it.
//! - A recoding that changes no cell is applied (it is what was asked) and
//!   reported with a warning ([`Applied::warning`]).
//!
//! Only a dataset of records is recoded: a grouped table (the query
//! engine's) is refused, since its publishing pass reads the file again.

use num_bigint::BigInt;
use num_integer::Integer;
use serde::{Deserialize, Serialize};

use super::number::Decimal;
use super::Dataset;
use crate::error::{Error, Parameter, Result};

/// Where a top or bottom code starts: a value, or a quantile of the
/// column's non-missing values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Threshold {
    Value(Decimal),
    /// `p` strictly between 0 and 1 (R's type 7, see the module doc).
    Quantile(Decimal),
}

impl Threshold {
    /// `90`, `-3.5`, or `q0.99` (a quantile).
    pub fn parse(text: &str) -> std::result::Result<Threshold, String> {
        let text = text.trim();
        if let Some(p) = text.strip_prefix('q').or_else(|| text.strip_prefix('Q')) {
            let d = Decimal::parse(p)
                .ok_or_else(|| format!("quantile '{text}': '{p}' is not a number (write q0.99 for the 99th percentile)"))?;
            if d <= Decimal::zero() || d >= one() {
                return Err(format!(
                    "quantile '{text}' is outside (0, 1): write it as a share, q0.99 for the 99th percentile"
                ));
            }
            return Ok(Threshold::Quantile(d));
        }
        Decimal::parse(text)
            .map(Threshold::Value)
            .ok_or_else(|| format!("'{text}' is neither a number nor a quantile (q0.99)"))
    }
}

impl std::fmt::Display for Threshold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threshold::Value(v) => write!(f, "{v}"),
            Threshold::Quantile(p) => write!(f, "q{p}"),
        }
    }
}

fn one() -> Decimal {
    Decimal::parse("1").unwrap_or_else(Decimal::zero)
}

/// One recoding of one numeric column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RecodeFile", into = "RecodeFile")]
pub enum Recode {
    /// Values above `at` become `replacement` (default: the threshold).
    TopCode {
        column: String,
        at: Threshold,
        replacement: Option<Decimal>,
    },
    /// Values below `at` become `replacement` (default: the threshold).
    BottomCode {
        column: String,
        at: Threshold,
        replacement: Option<Decimal>,
    },
    /// Values become the nearest multiple of `base` (> 0), ties to even.
    Round { column: String, base: Decimal },
}

/// Which recoding: the word the CLI flag, the project file and the
/// reports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    TopCode,
    BottomCode,
    Round,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::TopCode => "top-code",
            Method::BottomCode => "bottom-code",
            Method::Round => "round",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn invalid(msg: String) -> Error {
    Error::invalid(Parameter::Recode, msg)
}

impl Recode {
    /// A top or bottom code as the CLI writes it: `COL=VALUE[:REPLACEMENT]`
    /// or `COL=qP[:REPLACEMENT]`.
    pub fn parse_coding(method: Method, spec: &str) -> Result<Recode> {
        let flag = method.name();
        let (column, rest) = spec.rsplit_once('=').ok_or_else(|| {
            invalid(format!(
                "{flag} '{spec}': write COL=VALUE, COL=qP (a quantile, q0.99) or either with :REPLACEMENT"
            ))
        })?;
        let column = column.trim();
        if column.is_empty() {
            return Err(invalid(format!("{flag} '{spec}' names no column")));
        }
        let (at, replacement) = match rest.split_once(':') {
            Some((at, r)) => {
                let value = Decimal::parse(r).ok_or_else(|| {
                    invalid(format!(
                        "{flag} '{spec}': the replacement '{}' is not a number",
                        r.trim()
                    ))
                })?;
                (at, Some(value))
            }
            None => (rest, None),
        };
        let at = Threshold::parse(at).map_err(|e| invalid(format!("{flag} '{spec}': {e}")))?;
        let column = column.to_string();
        Ok(match method {
            Method::TopCode => Recode::TopCode {
                column,
                at,
                replacement,
            },
            Method::BottomCode => Recode::BottomCode {
                column,
                at,
                replacement,
            },
            Method::Round => return Recode::parse_round(spec),
        })
    }

    /// A rounding as the CLI writes it: `COL=BASE`, BASE a number > 0.
    pub fn parse_round(spec: &str) -> Result<Recode> {
        let (column, base) = spec.rsplit_once('=').ok_or_else(|| {
            invalid(format!(
                "round '{spec}': write COL=BASE (round to multiples of BASE, e.g. income=1000)"
            ))
        })?;
        let column = column.trim();
        if column.is_empty() {
            return Err(invalid(format!("round '{spec}' names no column")));
        }
        let base = Decimal::parse(base).ok_or_else(|| {
            invalid(format!(
                "round '{spec}': the base '{}' is not a finite number",
                base.trim()
            ))
        })?;
        Recode::round(column, base)
    }

    /// Round `column` to multiples of `base`, which must be above 0.
    pub fn round(column: &str, base: Decimal) -> Result<Recode> {
        if base <= Decimal::zero() {
            return Err(invalid(format!(
                "round {column}={base}: the base must be above 0"
            )));
        }
        Ok(Recode::Round {
            column: column.to_string(),
            base,
        })
    }

    pub fn method(&self) -> Method {
        match self {
            Recode::TopCode { .. } => Method::TopCode,
            Recode::BottomCode { .. } => Method::BottomCode,
            Recode::Round { .. } => Method::Round,
        }
    }

    pub fn column(&self) -> &str {
        match self {
            Recode::TopCode { column, .. }
            | Recode::BottomCode { column, .. }
            | Recode::Round { column, .. } => column,
        }
    }

    /// The recoding as the CLI flag takes it: `age=90`, `income=q0.99:1e6`.
    pub fn spec(&self) -> String {
        match self {
            Recode::TopCode {
                column,
                at,
                replacement,
            }
            | Recode::BottomCode {
                column,
                at,
                replacement,
            } => match replacement {
                Some(r) => format!("{column}={at}:{r}"),
                None => format!("{column}={at}"),
            },
            Recode::Round { column, base } => format!("{column}={base}"),
        }
    }
}

impl std::fmt::Display for Recode {
    /// `--top-code age=90`: the flag that gives it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--{} {}", self.method(), self.spec())
    }
}

/// A recoding in the project file: `{"method": "top-code", "column":
/// "age", "at": "q0.99", "replacement": "95"}` or `{"method": "round",
/// "column": "income", "base": 1000}`; numbers as JSON numbers or as text
/// (text keeps every digit).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecodeFile {
    method: Method,
    column: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<NumberText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replacement: Option<NumberText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base: Option<NumberText>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum NumberText {
    Text(String),
    Number(serde_json::Number),
}

impl NumberText {
    fn text(&self) -> String {
        match self {
            NumberText::Text(s) => s.clone(),
            NumberText::Number(n) => n.to_string(),
        }
    }
}

impl TryFrom<RecodeFile> for Recode {
    type Error = String;
    fn try_from(f: RecodeFile) -> std::result::Result<Self, String> {
        let what = format!("{} of '{}'", f.method, f.column);
        let number = |n: &NumberText, field: &str| {
            Decimal::parse(&n.text())
                .ok_or_else(|| format!("{what}: {field} '{}' is not a number", n.text()))
        };
        match f.method {
            Method::TopCode | Method::BottomCode => {
                if f.base.is_some() {
                    return Err(format!("{what}: 'base' belongs to a rounding"));
                }
                let at =
                    f.at.as_ref()
                        .ok_or_else(|| format!("{what}: give 'at' (a number, or \"q0.99\")"))?;
                let at = Threshold::parse(&at.text()).map_err(|e| format!("{what}: {e}"))?;
                let replacement = f
                    .replacement
                    .as_ref()
                    .map(|r| number(r, "replacement"))
                    .transpose()?;
                let column = f.column;
                Ok(if f.method == Method::TopCode {
                    Recode::TopCode {
                        column,
                        at,
                        replacement,
                    }
                } else {
                    Recode::BottomCode {
                        column,
                        at,
                        replacement,
                    }
                })
            }
            Method::Round => {
                if f.at.is_some() || f.replacement.is_some() {
                    return Err(format!(
                        "{what}: a rounding takes 'base' only, not 'at' or 'replacement'"
                    ));
                }
                let base = f
                    .base
                    .as_ref()
                    .ok_or_else(|| format!("{what}: give 'base' (a number above 0)"))?;
                let base = number(base, "base")?;
                Recode::round(&f.column, base).map_err(|e| e.to_string())
            }
        }
    }
}

impl From<Recode> for RecodeFile {
    fn from(r: Recode) -> Self {
        let method = r.method();
        match r {
            Recode::TopCode {
                column,
                at,
                replacement,
            }
            | Recode::BottomCode {
                column,
                at,
                replacement,
            } => RecodeFile {
                method,
                column,
                at: Some(NumberText::Text(at.to_string())),
                replacement: replacement.map(|r| NumberText::Text(r.canonical())),
                base: None,
            },
            Recode::Round { column, base } => RecodeFile {
                method,
                column,
                at: None,
                replacement: None,
                base: Some(NumberText::Text(base.canonical())),
            },
        }
    }
}

/// A recoding as it was applied to a dataset: what was asked, the
/// threshold it resolved to (a quantile's value) and how many cells it
/// changed. Recorded with the recoded dataset ([`Dataset::recodings`]), so
/// every release made from it says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    pub method: Method,
    pub column: String,
    /// As given: `90`, `q0.99`, or the base of a rounding.
    pub given: String,
    /// The threshold in effect (a quantile's value); `None` for a rounding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<String>,
    /// What the coded values became; `None` for a rounding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// Cells whose value changed (missing cells never do).
    pub changed: u64,
}

impl Applied {
    /// In words, for the CLI, the report and the TUI: `age: top-coded at
    /// 90 (q0.99): values above 90 published as 90; 43 cells changed`.
    pub fn describe(&self) -> String {
        let cells = match self.changed {
            1 => "1 cell changed".to_string(),
            n => format!("{} cells changed", crate::format::thousands(n)),
        };
        let given = |t: &str| {
            if self.given == t {
                String::new()
            } else {
                format!(" ({})", self.given)
            }
        };
        match self.method {
            Method::TopCode | Method::BottomCode => {
                let t = self.threshold.as_deref().unwrap_or("?");
                let r = self.replacement.as_deref().unwrap_or(t);
                let (coded, side) = if self.method == Method::TopCode {
                    ("top-coded", "above")
                } else {
                    ("bottom-coded", "below")
                };
                format!(
                    "{}: {coded} at {t}{}: values {side} {t} published as {r}; {cells}",
                    self.column,
                    given(t)
                )
            }
            Method::Round => format!(
                "{}: rounded to multiples of {} (ties to even); {cells}",
                self.column, self.given
            ),
        }
    }

    /// In a few words, for a title: `age top-coded at 90`, `income
    /// rounded to 1000`.
    pub fn short(&self) -> String {
        let t = self.threshold.as_deref().unwrap_or(&self.given);
        match self.method {
            Method::TopCode => format!("{} top-coded at {t}", self.column),
            Method::BottomCode => format!("{} bottom-coded at {t}", self.column),
            Method::Round => format!("{} rounded to {}", self.column, self.given),
        }
    }

    /// A warning when the recoding changed nothing (the threshold lies
    /// beyond every value, or every value is a multiple of the base).
    pub fn warning(&self) -> Option<String> {
        (self.changed == 0).then(|| {
            let why = match self.method {
                Method::Round => "every value is a multiple of the base already",
                _ => "no value lies beyond the threshold",
            };
            format!(
                "--{} {}={} changes no cell of '{}' ({why})",
                self.method, self.column, self.given, self.column
            )
        })
    }
}

/// Apply `recodes` in order to `ds`: the recoded dataset, which records
/// what was applied ([`Dataset::recodings`]), and the same records as
/// [`Applied`]. Refused: a column not in the file, a column that is not
/// numeric, a grouped table, a column with no value to take a quantile of,
/// a replacement on the wrong side of its threshold.
pub fn apply(ds: &Dataset, recodes: &[Recode]) -> Result<(Dataset, Vec<Applied>)> {
    if recodes.is_empty() {
        return Ok((ds.clone(), Vec::new()));
    }
    if ds.is_grouped() {
        return Err(invalid(
            "top and bottom coding and rounding recode the file's records, and the data is read through the query engine's frequency table; read the file whole (--engine memory)".to_string(),
        ));
    }
    let mut columns = ds.columns().to_vec();
    let mut applied = Vec::with_capacity(recodes.len());
    for recode in recodes {
        let c = ds.column_index(recode.column())?;
        let col = &columns[c];
        if !col.is_numeric() {
            return Err(invalid(format!(
                "{recode}: '{}' is categorical; top and bottom coding and rounding need a numeric column (read it as numbers with --numeric {}, or recode categories with a hierarchy)",
                col.name(),
                col.name()
            )));
        }
        let values: Vec<Decimal> = (0..col.cardinality() as u32)
            .map(|code| col.decimal(code).unwrap_or_else(Decimal::zero))
            .collect();
        let (new, threshold, replacement) = match recode {
            Recode::TopCode {
                at, replacement, ..
            }
            | Recode::BottomCode {
                at, replacement, ..
            } => {
                let top = recode.method() == Method::TopCode;
                let t = match at {
                    Threshold::Value(v) => v.clone(),
                    Threshold::Quantile(p) => {
                        quantile(&values, &col.frequencies(), p).ok_or_else(|| {
                            invalid(format!(
                                "{recode}: '{}' has no value to take a quantile of",
                                col.name()
                            ))
                        })?
                    }
                };
                let r = replacement.clone().unwrap_or_else(|| t.clone());
                if (top && r < t) || (!top && r > t) {
                    return Err(invalid(format!(
                        "{recode}: the replacement {r} is {} the threshold {t}, so the coded values would sort among those kept; give a replacement {} {t}",
                        if top { "below" } else { "above" },
                        if top { "at or above" } else { "at or below" }
                    )));
                }
                let new: Vec<Decimal> = values
                    .iter()
                    .map(|v| {
                        let beyond = if top { *v > t } else { *v < t };
                        if beyond {
                            r.clone()
                        } else {
                            v.clone()
                        }
                    })
                    .collect();
                (new, Some(t.canonical()), Some(r.canonical()))
            }
            Recode::Round { base, .. } => {
                let new = values
                    .iter()
                    .map(|v| {
                        round_to(v, base).ok_or_else(|| {
                            invalid(format!(
                                "{recode}: {v} rounded to a multiple of {base} is beyond the numbers anonlab reads"
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                (new, None, None)
            }
        };
        let frequencies = col.frequencies();
        let changed = values
            .iter()
            .zip(&new)
            .zip(&frequencies)
            .filter(|((old, new), _)| old != new)
            .map(|(_, &n)| n)
            .sum();
        let recoded = col.with_numbers(&new);
        applied.push(Applied {
            method: recode.method(),
            column: col.name().to_string(),
            given: match recode {
                Recode::TopCode { at, .. } | Recode::BottomCode { at, .. } => at.to_string(),
                Recode::Round { base, .. } => base.canonical(),
            },
            threshold,
            replacement,
            changed,
        });
        columns[c] = recoded;
    }
    let out = Dataset::new(ds.name(), columns)?.with_recodings(applied.clone());
    Ok((out, applied))
}

/// R's type-7 quantile of the values `values` (in increasing order) held
/// `frequencies[i]` times each (a column's dictionary and
/// [`super::Column::frequencies`], whose last entry, the missing cells, is
/// ignored), exactly; `None` when there is no value.
pub fn quantile(values: &[Decimal], frequencies: &[u64], p: &Decimal) -> Option<Decimal> {
    let n: u64 = frequencies.iter().take(values.len()).sum();
    if n == 0 {
        return None;
    }
    // h = (n − 1)·p, as p_scaled·(n − 1) / 10^fp.
    let fp = p.fraction_digits();
    let scale = BigInt::from(10u32).pow(fp as u32);
    let h = p.scaled(fp) * BigInt::from(n - 1);
    let (j, g) = h.div_mod_floor(&scale);
    let j = u64::try_from(&j).ok()?;
    let at = |k: u64| -> Option<&Decimal> {
        let mut seen = 0;
        for (v, &f) in values.iter().zip(frequencies) {
            seen += f;
            if k < seen {
                return Some(v);
            }
        }
        None
    };
    let lo = at(j)?;
    if g == BigInt::from(0) {
        return Some(lo.clone());
    }
    let hi = at(j + 1)?;
    let s = lo.fraction_digits().max(hi.fraction_digits());
    let (lo_s, hi_s) = (lo.scaled(s), hi.scaled(s));
    let q = &lo_s * &scale + g * (hi_s - &lo_s);
    Decimal::from_scaled(&q, s + fp)
}

/// `x` to the nearest multiple of `base` (> 0), ties to the even quotient;
/// `None` beyond the magnitude bound of [`Decimal`].
pub fn round_to(x: &Decimal, base: &Decimal) -> Option<Decimal> {
    let s = x.fraction_digits().max(base.fraction_digits());
    let (xs, bs) = (x.scaled(s), base.scaled(s));
    let (mut q, r) = xs.div_mod_floor(&bs);
    let twice = &r * 2;
    if twice > bs || (twice == bs && q.is_odd()) {
        q += 1;
    }
    Decimal::from_scaled(&(q * bs), s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    fn column(values: &[&str]) -> Dataset {
        let rows: Vec<Vec<&str>> = values.iter().map(|v| vec![*v, "x"]).collect();
        Dataset::from_rows(&["v", "c"], &rows).unwrap()
    }

    fn shown(ds: &Dataset) -> Vec<String> {
        let c = ds.col(0);
        c.codes()
            .iter()
            .map(|&k| c.display(k).to_string())
            .collect()
    }

    fn top(spec: &str) -> Recode {
        Recode::parse_coding(Method::TopCode, spec).unwrap()
    }

    #[test]
    fn top_code_replaces_values_above_by_the_threshold() {
        let ds = column(&["10", "95", "90", "", "120", "3"]);
        let (out, applied) = apply(&ds, &[top("v=90")]).unwrap();
        assert_eq!(shown(&out), ["10", "90", "90", "?", "90", "3"]);
        assert_eq!(applied[0].changed, 2);
        assert!(out.col(0).is_numeric());
        assert_eq!(out.recodings(), &applied[..]);
        assert_eq!(applied[0].short(), "v top-coded at 90");
        assert_eq!(
            applied[0].describe(),
            "v: top-coded at 90: values above 90 published as 90; 2 cells changed"
        );
    }

    #[test]
    fn a_replacement_is_used_and_must_stay_on_its_side() {
        let ds = column(&["10", "95", "90", "120"]);
        let (out, applied) = apply(&ds, &[top("v=90:100")]).unwrap();
        assert_eq!(shown(&out), ["10", "100", "90", "100"]);
        assert_eq!(applied[0].changed, 2);
        let e = apply(&ds, &[top("v=90:80")]).unwrap_err().to_string();
        assert!(e.contains("below the threshold 90"), "{e}");
        let bottom = Recode::parse_coding(Method::BottomCode, "v=20:5").unwrap();
        let (out, _) = apply(&ds, &[bottom]).unwrap();
        assert_eq!(shown(&out), ["5", "95", "90", "120"]);
        let bottom = Recode::parse_coding(Method::BottomCode, "v=20:30").unwrap();
        assert!(apply(&ds, &[bottom]).is_err());
    }

    #[test]
    fn bottom_code_replaces_values_below() {
        let ds = column(&["-5", "0", "2.5", "7"]);
        let bottom = Recode::parse_coding(Method::BottomCode, "v=2.5").unwrap();
        let (out, applied) = apply(&ds, &[bottom]).unwrap();
        assert_eq!(shown(&out), ["2.5", "2.5", "2.5", "7"]);
        assert_eq!(applied[0].changed, 2);
    }

    #[test]
    fn quantiles_follow_r_type_7() {
        // R: quantile(c(1, 2, 3, 4, 10), c(0.5, 0.9, 0.25, 0.99)) gives
        // 3, 7.6, 2, 9.76.
        let values: Vec<Decimal> = ["1", "2", "3", "4", "10"].iter().map(|v| d(v)).collect();
        let freq = [1, 1, 1, 1, 1, 0];
        for (p, want) in [
            ("0.5", "3"),
            ("0.9", "7.6"),
            ("0.25", "2"),
            ("0.99", "9.76"),
        ] {
            assert_eq!(quantile(&values, &freq, &d(p)), Some(d(want)), "p = {p}");
        }
        // Repeated values: R quantile(c(1, 1, 1, 5), 0.8) = 2.6.
        let values = [d("1"), d("5")];
        assert_eq!(quantile(&values, &[3, 1, 7], &d("0.8")), Some(d("2.6")));
        assert_eq!(quantile(&[], &[4], &d("0.5")), None);
    }

    #[test]
    fn rounding_is_to_the_nearest_multiple_ties_to_even() {
        for (x, base, want) in [
            ("12", "5", "10"),
            ("13", "5", "15"),
            ("25", "10", "20"),
            ("35", "10", "40"),
            ("-25", "10", "-20"),
            ("-26", "10", "-30"),
            ("0.26", "0.1", "0.3"),
            ("1234567", "1000", "1235000"),
            ("7", "2.5", "7.5"),
        ] {
            assert_eq!(round_to(&d(x), &d(base)), Some(d(want)), "{x} by {base}");
        }
        let ds = column(&["12", "13", "15", ""]);
        let (out, applied) = apply(&ds, &[Recode::parse_round("v=5").unwrap()]).unwrap();
        assert_eq!(shown(&out), ["10", "15", "15", "?"]);
        assert_eq!(applied[0].changed, 2);
        assert_eq!(out.col(0).cardinality(), 2, "equal values merge");
    }

    #[test]
    fn bad_recodings_are_refused_with_what_to_do() {
        let ds = column(&["1", "2"]);
        let e = |r: Result<Recode>| r.unwrap_err().to_string();
        assert!(e(Recode::parse_coding(Method::TopCode, "v=q1.5")).contains("outside (0, 1)"));
        assert!(e(Recode::parse_coding(Method::TopCode, "v=q0")).contains("outside (0, 1)"));
        assert!(e(Recode::parse_coding(Method::TopCode, "v=qNaN")).contains("not a number"));
        assert!(e(Recode::parse_coding(Method::TopCode, "v=NaN")).contains("neither"));
        assert!(e(Recode::parse_coding(Method::TopCode, "v")).contains("COL=VALUE"));
        assert!(e(Recode::parse_coding(Method::TopCode, "v=9:x")).contains("replacement"));
        assert!(e(Recode::parse_round("v=0")).contains("above 0"));
        assert!(e(Recode::parse_round("v=-5")).contains("above 0"));
        assert!(e(Recode::parse_round("v=inf")).contains("finite"));
        let e = apply(&ds, &[top("w=3")]).unwrap_err().to_string();
        assert!(e.contains("'w'") && e.contains("v, c"), "{e}");
        let e = apply(&ds, &[top("c=3")]).unwrap_err().to_string();
        assert!(
            e.contains("categorical") && e.contains("--numeric c"),
            "{e}"
        );
        let empty = column(&["", ""]);
        let ds2 = Dataset::from_rows(&["v"], &[vec!["1"]]).unwrap();
        assert!(apply(&ds2, &[top("v=q0.5")]).is_ok());
        let e = apply(&empty, &[top("v=q0.5")]).unwrap_err().to_string();
        assert!(e.contains("categorical") || e.contains("no value"), "{e}");
    }

    #[test]
    fn a_recoding_that_changes_nothing_warns() {
        let ds = column(&["1", "2"]);
        let (_, applied) = apply(&ds, &[top("v=5")]).unwrap();
        let w = applied[0].warning().unwrap();
        assert!(
            w.contains("changes no cell") && w.contains("threshold"),
            "{w}"
        );
        let (_, applied) = apply(&ds, &[top("v=1")]).unwrap();
        assert!(applied[0].warning().is_none());
    }

    #[test]
    fn recodings_apply_in_order() {
        let ds = column(&["12", "97", "103"]);
        let recodes = [Recode::parse_round("v=5").unwrap(), top("v=100")];
        let (out, applied) = apply(&ds, &recodes).unwrap();
        assert_eq!(shown(&out), ["10", "95", "100"]);
        assert_eq!(applied[1].changed, 1, "105 after rounding");
    }

    #[test]
    fn the_project_form_round_trips_and_reads_numbers() {
        let recodes = vec![
            top("age=q0.99:95"),
            Recode::parse_coding(Method::BottomCode, "age=18").unwrap(),
            Recode::parse_round("income=1000").unwrap(),
        ];
        let json = serde_json::to_string(&recodes).unwrap();
        assert!(json.contains(r#""method":"top-code""#), "{json}");
        let back: Vec<Recode> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, recodes);
        let r: Recode =
            serde_json::from_str(r#"{"method": "round", "column": "x", "base": 0.5}"#).unwrap();
        assert_eq!(r, Recode::parse_round("x=0.5").unwrap());
        for bad in [
            r#"{"method": "round", "column": "x", "base": 0}"#,
            r#"{"method": "round", "column": "x"}"#,
            r#"{"method": "top-code", "column": "x", "at": "q2"}"#,
            r#"{"method": "top-code", "column": "x", "base": 3, "at": 1}"#,
            r#"{"method": "trim", "column": "x"}"#,
        ] {
            assert!(serde_json::from_str::<Recode>(bad).is_err(), "{bad}");
        }
    }

    /// sdcMicro's testdata (tests/data/sdcmicro/testdata.csv, 4,580
    /// records). The figures were computed once with R 4 and sdcMicro
    /// 5.8.1 (`quantile(x, p)`, type 7, then `topBotCoding(x, value = q,
    /// replacement = q, kind = ...)` and `sum(coded != x)`; roundings as
    /// `sum(round(x / base) * base != x)`), by a script like
    /// bench/sdcmicro's.
    #[test]
    fn testdata_agrees_with_sdcmicro() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/sdcmicro/testdata.csv");
        let ds = crate::data::load_csv(&path, &crate::data::CsvOptions::default()).unwrap();
        let one = |r: Recode| apply(&ds, &[r]).unwrap().1.remove(0);
        let coded = |m: Method, spec: &str| one(Recode::parse_coding(m, spec).unwrap());
        let a = coded(Method::TopCode, "age=q0.99");
        assert_eq!((a.threshold.as_deref(), a.changed), (Some("72"), 43));
        let a = coded(Method::TopCode, "age=90");
        assert_eq!(a.changed, 1);
        let a = coded(Method::BottomCode, "age=10");
        assert_eq!(a.changed, 1226);
        let a = coded(Method::TopCode, "income=q0.95");
        assert_eq!((a.threshold.as_deref(), a.changed), (Some("95300000"), 223));
        // R prints 4972776.5999999996: the f64 nearest the exact 4972776.6.
        let a = coded(Method::BottomCode, "income=q0.05");
        assert_eq!(
            (a.threshold.as_deref(), a.changed),
            (Some("4972776.6"), 229)
        );
        // R: 99099081.88000001, the f64 nearest 99099081.88.
        let a = coded(Method::TopCode, "expend=q0.99");
        assert_eq!(
            (a.threshold.as_deref(), a.changed),
            (Some("99099081.88"), 46)
        );
        assert_eq!(one(Recode::parse_round("age=5").unwrap()).changed, 3436);
        assert_eq!(
            one(Recode::parse_round("income=1e6").unwrap()).changed,
            4157
        );
        // 543 ages end in 5: ties, to even as R's round (sum 109,920).
        let (out, applied) = apply(&ds, &[Recode::parse_round("age=10").unwrap()]).unwrap();
        assert_eq!(applied[0].changed, 3979);
        let age = out.column("age").unwrap();
        let sum: f64 = age.codes().iter().filter_map(|&c| age.number(c)).sum();
        assert_eq!(sum, 109_920.0);
    }

    use proptest::prelude::*;

    proptest! {
        /// After a top code (bottom code) at its default replacement no
        /// value lies above (below) the threshold, and the cells it says it
        /// changed are exactly those that lay beyond it; a rounding leaves
        /// multiples of the base, and changes exactly the cells that were
        /// not.
        #[test]
        fn recodings_do_what_they_say(
            values in proptest::collection::vec(proptest::option::of(-500i32..500), 1..60),
            t in -600i32..600,
            q in 1u32..100,
            base in 1u32..40,
        ) {
            let text: Vec<String> = values
                .iter()
                .map(|v| v.map_or(String::new(), |v| format!("{}", f64::from(v) / 4.0)))
                .collect();
            let rows: Vec<Vec<&str>> = text.iter().map(|v| vec![v.as_str()]).collect();
            let Ok(ds) = Dataset::from_rows(&["v"], &rows) else { return Ok(()) };
            if !ds.col(0).is_numeric() {
                return Ok(());
            }
            let nums: Vec<Option<Decimal>> = text.iter().map(|v| Decimal::parse(v)).collect();
            let quarter = |n: i32| d(&format!("{}", f64::from(n) / 4.0));
            for (spec, top) in [
                (format!("v={}", quarter(t)), true),
                (format!("v=q0.{q:02}"), true),
                (format!("v={}", quarter(t)), false),
                (format!("v=q0.{q:02}"), false),
            ] {
                let m = if top { Method::TopCode } else { Method::BottomCode };
                let (out, applied) = apply(&ds, &[Recode::parse_coding(m, &spec).unwrap()]).unwrap();
                let th = d(applied[0].threshold.as_deref().unwrap());
                let beyond = |x: &Decimal| if top { *x > th } else { *x < th };
                let col = out.col(0);
                for code in 0..col.cardinality() as u32 {
                    prop_assert!(!beyond(&col.decimal(code).unwrap()), "{spec}");
                }
                let want = nums.iter().flatten().filter(|x| beyond(x)).count() as u64;
                prop_assert_eq!(applied[0].changed, want, "{}", spec);
                prop_assert_eq!(col.missing_count(), ds.col(0).missing_count());
            }
            let base = quarter(base as i32);
            let (out, applied) = apply(&ds, &[Recode::round("v", base.clone()).unwrap()]).unwrap();
            let col = out.col(0);
            for code in 0..col.cardinality() as u32 {
                let x = col.decimal(code).unwrap();
                prop_assert_eq!(round_to(&x, &base), Some(x));
            }
            let want = nums
                .iter()
                .flatten()
                .filter(|x| round_to(x, &base).as_ref() != Some(*x))
                .count() as u64;
            prop_assert_eq!(applied[0].changed, want);
        }
    }
}
