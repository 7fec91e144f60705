//! The dialog that builds, imports and exports a hierarchy: its builders,
//! text fields and the preview computed on every edit.

use crate::screens::hier_folder::FolderPreview;
use anonlab::data::number::Decimal;
use anonlab::data::Dataset;
use anonlab::hierarchy::builders::{self, BuildSpec};
use anonlab::hierarchy::correlated::{self, CorrelatedSpec};
use anonlab::hierarchy::{Hierarchy, LevelStats};

/// The builders the dialog offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builder {
    Intervals,
    Quantiles,
    Mask,
    Frequency,
    /// The correlation-based construction (the correlation-hierarchy
    /// paper's Algorithm 4) with the dialog's attribute as the focus.
    Correlated,
}

impl Builder {
    pub const ALL: [Builder; 5] = [
        Builder::Intervals,
        Builder::Quantiles,
        Builder::Mask,
        Builder::Frequency,
        Builder::Correlated,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Builder::Intervals => "intervals (fixed width)",
            Builder::Quantiles => "intervals (quantiles)",
            Builder::Mask => "mask right to left",
            Builder::Frequency => "group rare values",
            Builder::Correlated => "by correlation (Algorithm 4)",
        }
    }
}

/// What the dialog does on Enter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogKind {
    Build,
    Import,
    Export,
}

/// A text field of the dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub label: &'static str,
    pub value: String,
}

/// The modal dialog of the screen: build (builder, its parameters and a
/// live preview), import (a file path) or export (a file path).
#[derive(Debug, Clone, PartialEq)]
pub struct HierarchyDialog {
    pub kind: DialogKind,
    pub column: usize,
    pub attribute: String,
    /// Build only.
    pub builder: Builder,
    pub fields: Vec<Field>,
    /// Focused row: for Build, 0 is the builder choice and fields follow.
    pub focus: usize,
    /// Build only: what each level of the built hierarchy gives on the
    /// data, or why the fields do not build one.
    pub preview: Result<Vec<LevelStats>, String>,
    /// Why the last Enter did not apply.
    pub error: Option<String>,
    /// Build only: what else the preview has to say (for the correlation
    /// construction, the attributes that conditioned the cuts).
    pub note: Option<String>,
    pub(super) built: Option<Hierarchy>,
    /// Import of a folder: what its files give, shown by the first Enter
    /// and bound by the second (cleared when the path is edited).
    pub folder: Option<FolderPreview>,
    /// Columns a correlation-based construction may condition on: every
    /// column but identifiers.
    pub(super) candidates: Vec<usize>,
}

impl HierarchyDialog {
    /// A dialog on `column` with its fields, nothing previewed, built or
    /// failed yet, and no columns to condition on.
    pub(super) fn new(
        kind: DialogKind,
        ds: &Dataset,
        column: usize,
        builder: Builder,
        fields: Vec<Field>,
    ) -> Self {
        HierarchyDialog {
            kind,
            column,
            attribute: ds.col(column).name().to_string(),
            builder,
            fields,
            focus: 0,
            preview: Ok(Vec::new()),
            error: None,
            note: None,
            built: None,
            folder: None,
            candidates: Vec::new(),
        }
    }

    /// Index into `fields` of the focused field, if a text field has focus.
    pub fn focused_field(&self) -> Option<usize> {
        match self.kind {
            DialogKind::Build => self.focus.checked_sub(1),
            _ => Some(self.focus),
        }
    }

    pub(super) fn rows(&self) -> usize {
        self.fields.len() + usize::from(self.kind == DialogKind::Build)
    }

    pub(super) fn field(&self, label: &str) -> Result<f64, String> {
        let f = self
            .fields
            .iter()
            .find(|f| f.label == label)
            .ok_or_else(|| format!("no field '{label}'"))?;
        f.value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{}: '{}' is not a number", f.label, f.value))
    }

    /// A field read as an exact number (`data::number`), for interval
    /// ends that must come out as written.
    pub(super) fn decimal(&self, label: &str) -> Result<Decimal, String> {
        let f = self
            .fields
            .iter()
            .find(|f| f.label == label)
            .ok_or_else(|| format!("no field '{label}'"))?;
        Decimal::parse(&f.value)
            .ok_or_else(|| format!("{}: '{}' is not a number", f.label, f.value))
    }

    pub(super) fn count(&self, label: &str) -> Result<u64, String> {
        let x = self.field(label)?;
        if x < 0.0 || x.fract() != 0.0 {
            return Err(format!("{label}: '{x}' is not a whole number"));
        }
        Ok(x as u64)
    }

    /// The builder spec of the fields (`None` for the correlation-based
    /// construction, which is not a [`BuildSpec`]).
    pub(super) fn spec(&self) -> Result<Option<BuildSpec>, String> {
        Ok(Some(match self.builder {
            Builder::Correlated => return Ok(None),
            Builder::Intervals => BuildSpec::Intervals {
                width: self.decimal("width")?,
                anchor: self.decimal("anchor")?,
                fanout: self.count("merge per level")? as usize,
            },
            Builder::Quantiles => BuildSpec::Quantiles {
                n: self.count("intervals")? as usize,
                min_records: self.count("min records")?,
            },
            Builder::Mask => BuildSpec::Mask,
            Builder::Frequency => BuildSpec::Frequency {
                min_records: self.count("min records")?,
            },
        }))
    }

    /// The correlation-based construction: the hierarchy and which
    /// attributes conditioned the cuts.
    pub(super) fn construct_correlated(&self, ds: &Dataset) -> Result<(Hierarchy, String), String> {
        // Its cuts count rows: on a grouped table, combinations.
        ds.require_records("the correlation-based construction")
            .map_err(|e| e.to_string())?;
        let mut spec = CorrelatedSpec::new(ds, self.column, self.count("min records")?);
        spec.depth = self.count("attributes used")? as usize;
        spec.attributes = self
            .candidates
            .iter()
            .copied()
            .filter(|&c| c != self.column)
            .collect();
        let c = correlated::construct(ds, &spec).map_err(|e| e.to_string())?;
        let used = if c.used.is_empty() {
            "no attribute conditioned the cuts".to_string()
        } else {
            format!(
                "cuts conditioned on {} ({} contexts)",
                c.used.join(", "),
                c.contexts.len()
            )
        };
        Ok((c.hierarchy, used))
    }

    /// Build from the fields and preview the levels on the data.
    pub(super) fn refresh_preview(&mut self, ds: &Dataset) {
        let built = self.spec().and_then(|spec| {
            let (h, note) = match spec {
                Some(spec) => (
                    builders::build(ds, self.column, &spec).map_err(|e| e.to_string())?,
                    None,
                ),
                None => {
                    let (h, note) = self.construct_correlated(ds)?;
                    (h, Some(note))
                }
            };
            let col = ds.col(self.column);
            let stats = h
                .bind(col)
                .map_err(|e| e.to_string())?
                .level_stats(&col.frequencies());
            Ok((h, stats, note))
        });
        match built {
            Ok((h, stats, note)) => {
                self.built = Some(h);
                self.preview = Ok(stats);
                self.note = note;
            }
            Err(e) => {
                self.built = None;
                self.preview = Err(e);
                self.note = None;
            }
        }
    }
}

/// Default fields of a builder for a column, read off the data: an
/// interval width of a round number giving about ten intervals, anchored
/// at a multiple of it below the smallest value; ten quantile intervals;
/// at least k records per interval or group.
pub(super) fn builder_fields(ds: &Dataset, column: usize, builder: Builder, k: u32) -> Vec<Field> {
    let f = |label, value: String| Field { label, value };
    match builder {
        Builder::Intervals => {
            let col = ds.col(column);
            let xs = if col.is_numeric() { col.numbers() } else { &[] };
            let (lo, hi) = match (xs.first(), xs.last()) {
                (Some(&lo), Some(&hi)) => (lo, hi),
                _ => (0.0, 10.0),
            };
            let width = round_width((hi - lo) / 10.0);
            let anchor = (lo / width).floor() * width;
            vec![
                f("width", format!("{width}")),
                f("anchor", format!("{anchor}")),
                f("merge per level", "2".into()),
            ]
        }
        Builder::Quantiles => vec![f("intervals", "10".into()), f("min records", k.to_string())],
        Builder::Mask => Vec::new(),
        Builder::Frequency => vec![f("min records", k.to_string())],
        Builder::Correlated => vec![
            f("min records", k.to_string()),
            f("attributes used", "2".into()),
        ],
    }
}

/// The round number (1, 2 or 5 times a power of ten) nearest above `x`.
pub(super) fn round_width(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&w| w >= x)
        .unwrap_or(10.0 * p)
}
