//! The Data screen's "mark sensitive cells" dialog: which cells of a
//! semi-sensitive column hold sensitive values, set in one go by a rule
//! (`age>=60`), a seeded random density (the LGB paper's 10–40 %
//! experiments) or a flag column, instead of cell by cell.
//!
//! The dialog only edits text and choices; [`MarkDialog::source`] turns
//! them into a [`SensitivitySource`] and the app resolves it against the
//! data. A failure — a rule that does not parse or names a missing column,
//! a density outside [0, 1], a seed that is not a number — is shown inside
//! the dialog, which stays open so the user can fix the text.
//!
//! Choice: applying a source replaces the column's marks, hand toggles
//! included. Toggles are stored relative to the source they were made on
//! (see `CellSensitivity`), so keeping them across a change of source would
//! flip cells the user never looked at.

use anonlab::data::{CellSensitivity, Dataset, SensitivitySource};

pub(crate) mod draw;

/// How the cells are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkMode {
    Rule,
    Density,
    Flag,
    /// No source: only cells toggled by hand afterwards.
    Clear,
}

impl MarkMode {
    pub const ALL: [MarkMode; 4] = [
        MarkMode::Rule,
        MarkMode::Density,
        MarkMode::Flag,
        MarkMode::Clear,
    ];

    pub fn label(self) -> &'static str {
        match self {
            MarkMode::Rule => "rule",
            MarkMode::Density => "density",
            MarkMode::Flag => "flag column",
            MarkMode::Clear => "none",
        }
    }

    /// The fields shown for this mode, after the mode line itself.
    pub fn fields(self) -> &'static [MarkField] {
        match self {
            MarkMode::Rule => &[MarkField::Mode, MarkField::Rule],
            MarkMode::Density => &[MarkField::Mode, MarkField::Density, MarkField::Seed],
            MarkMode::Flag => &[MarkField::Mode, MarkField::Flag],
            MarkMode::Clear => &[MarkField::Mode],
        }
    }
}

/// One line of the dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkField {
    Mode,
    Rule,
    Density,
    Seed,
    Flag,
}

impl MarkField {
    pub fn label(self) -> &'static str {
        match self {
            MarkField::Mode => "by",
            MarkField::Rule => "rule",
            MarkField::Density => "density",
            MarkField::Seed => "seed",
            MarkField::Flag => "column",
        }
    }

    /// Whether typed characters go into this field.
    pub fn is_text(self) -> bool {
        matches!(self, MarkField::Rule | MarkField::Density | MarkField::Seed)
    }
}

/// The dialog's state. Drawing reads it; [`App::step`](super::App::step)
/// changes it.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkDialog {
    /// The semi-sensitive column being marked.
    pub column: usize,
    pub mode: MarkMode,
    /// Index into `mode.fields()`.
    pub focus: usize,
    pub rule: String,
    pub density: String,
    pub seed: String,
    /// Columns that hold only flag values (0/1, true/false, yes/no).
    pub flags: Vec<usize>,
    /// Index into `flags`.
    pub flag: usize,
    /// Cells marked now, and how (shown so the user sees what is replaced).
    pub current: String,
    /// Why the last Enter was refused.
    pub error: Option<String>,
    /// How many cells Enter would mark now, or why the fields do not make
    /// a source yet: counted as the fields change.
    pub preview: Result<usize, String>,
}

impl MarkDialog {
    /// A dialog for `column`, filled from its current source; a density
    /// without one starts from the session's seed.
    pub fn open(
        ds: &Dataset,
        column: usize,
        spec: &CellSensitivity,
        marked: usize,
        seed: u64,
    ) -> Self {
        let flags = flag_columns(ds, column);
        let mut d = MarkDialog {
            column,
            mode: MarkMode::Rule,
            focus: 0,
            rule: String::new(),
            density: "0.2".into(),
            seed: seed.to_string(),
            flags,
            flag: 0,
            current: describe(spec, marked, ds.n_rows()),
            error: None,
            preview: Ok(0),
        };
        match &spec.source {
            SensitivitySource::None => {}
            SensitivitySource::Rule { rule } => d.rule = rule.clone(),
            SensitivitySource::Density { density, seed } => {
                d.mode = MarkMode::Density;
                d.density = density.to_string();
                d.seed = seed.to_string();
            }
            SensitivitySource::FlagColumn { column } => {
                d.mode = MarkMode::Flag;
                if let Some(i) = ds
                    .column_index(column)
                    .ok()
                    .and_then(|c| d.flags.iter().position(|&f| f == c))
                {
                    d.flag = i;
                }
            }
        }
        d.refresh_preview(ds);
        d
    }

    /// Count the cells the fields would mark (the rule, density or flag
    /// resolved exactly as Enter resolves it).
    pub fn refresh_preview(&mut self, ds: &Dataset) {
        let name = ds.col(self.column).name();
        self.preview = self.source(ds).and_then(|source| {
            CellSensitivity::new(source)
                .resolve(ds, name)
                .map(|bits| bits.count_ones(..))
                .map_err(|e| e.to_string())
        });
    }

    pub fn field(&self) -> MarkField {
        let fields = self.mode.fields();
        fields[self.focus.min(fields.len() - 1)]
    }

    /// Move the focus to the next (`by` = 1) or previous field, wrapping.
    pub fn move_focus(&mut self, by: i32) {
        let n = self.mode.fields().len() as i32;
        self.focus = (self.focus as i32 + by).rem_euclid(n) as usize;
    }

    /// ←/→: change the mode on the mode line, the column on the flag line.
    pub fn choose(&mut self, by: i32) {
        match self.field() {
            MarkField::Mode => {
                let n = MarkMode::ALL.len() as i32;
                let i = MarkMode::ALL
                    .iter()
                    .position(|&m| m == self.mode)
                    .unwrap_or(0) as i32;
                self.mode = MarkMode::ALL[(i + by).rem_euclid(n) as usize];
                self.error = None;
            }
            MarkField::Flag if !self.flags.is_empty() => {
                let n = self.flags.len() as i32;
                self.flag = (self.flag as i32 + by).rem_euclid(n) as usize;
                self.error = None;
            }
            _ => {}
        }
    }

    /// A typed character goes to the focused text field; typed on the mode
    /// line, it goes to the mode's first text field (so `m` then typing a
    /// rule just works).
    pub fn type_char(&mut self, c: char) {
        if !self.field().is_text() {
            match self.mode.fields().iter().position(|f| f.is_text()) {
                Some(i) => self.focus = i,
                None => return,
            }
        }
        if let Some(text) = self.text_mut() {
            text.push(c);
            self.error = None;
        }
    }

    pub fn delete_char(&mut self) {
        if let Some(text) = self.text_mut() {
            text.pop();
            self.error = None;
        }
    }

    fn text_mut(&mut self) -> Option<&mut String> {
        match self.field() {
            MarkField::Rule => Some(&mut self.rule),
            MarkField::Density => Some(&mut self.density),
            MarkField::Seed => Some(&mut self.seed),
            _ => None,
        }
    }

    /// The source the fields describe, or what is wrong with them. The rule
    /// itself is checked when the app resolves it against the data.
    pub fn source(&self, ds: &Dataset) -> Result<SensitivitySource, String> {
        Ok(match self.mode {
            MarkMode::Rule => SensitivitySource::Rule {
                rule: self.rule.trim().to_string(),
            },
            MarkMode::Density => SensitivitySource::Density {
                density: parse_density(&self.density)?,
                seed: self.seed.trim().parse().map_err(|_| {
                    format!(
                        "seed '{}' is not a whole number from 0 to {}",
                        self.seed.trim(),
                        u64::MAX
                    )
                })?,
            },
            MarkMode::Flag => {
                let Some(&c) = self.flags.get(self.flag) else {
                    return Err("no column holds only flags (0/1, true/false, yes/no) to \
                                mark the cells by"
                        .into());
                };
                SensitivitySource::FlagColumn {
                    column: ds.col(c).name().to_string(),
                }
            }
            MarkMode::Clear => SensitivitySource::None,
        })
    }
}

/// `0.2`, `.2` or `20%`: a share of the cells between 0 and 1.
pub fn parse_density(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let bad = || {
        format!("density '{t}' is not a share between 0 and 1 (such as 0.2) or a percentage (such as 20%)")
    };
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map_err(|_| bad())? / 100.0,
        None => t.parse::<f64>().map_err(|_| bad())?,
    };
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(bad())
    }
}

/// Columns other than `column` whose every value is a flag, so marking by
/// them cannot fail. Checked by resolving them as the app would.
fn flag_columns(ds: &Dataset, column: usize) -> Vec<usize> {
    (0..ds.n_cols())
        .filter(|&c| c != column)
        .filter(|&c| {
            let name = ds.col(c).name();
            let spec = CellSensitivity::new(SensitivitySource::FlagColumn {
                column: name.to_string(),
            });
            spec.resolve(ds, name).is_ok()
        })
        .collect()
}

/// "12 cells (20.0%) by rule age>=60, 2 toggled by hand".
pub fn describe(spec: &CellSensitivity, marked: usize, rows: usize) -> String {
    let share = if rows == 0 {
        "0.0%".to_string()
    } else {
        format!("{:.1}%", marked as f64 * 100.0 / rows as f64)
    };
    let how = match &spec.source {
        SensitivitySource::None => "by hand".to_string(),
        SensitivitySource::Rule { rule } => format!("by rule {rule}"),
        SensitivitySource::Density { density, seed } => {
            format!("by density {density}, seed {seed}")
        }
        SensitivitySource::FlagColumn { column } => format!("by flag column {column}"),
    };
    let toggled = match (spec.toggled.len(), &spec.source) {
        (0, _) | (_, SensitivitySource::None) => String::new(),
        (1, _) => ", 1 toggled by hand".into(),
        (n, _) => format!(", {n} toggled by hand"),
    };
    format!(
        "{} cells ({share}) {how}{toggled}",
        anonlab::format::thousands(marked as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds() -> Dataset {
        Dataset::from_rows(
            &["age", "flag", "job"],
            &[
                vec!["30", "1", "a"],
                vec!["61", "0", "b"],
                vec!["70", "yes", "a"],
            ],
        )
        .unwrap()
    }

    #[test]
    fn densities_read_as_shares_or_percentages() {
        assert_eq!(parse_density("0.2"), Ok(0.2));
        assert_eq!(parse_density(" 20% "), Ok(0.2));
        assert_eq!(parse_density(".5"), Ok(0.5));
        assert!(parse_density("1.5").unwrap_err().contains("'1.5'"));
        assert!(parse_density("lots").is_err());
        assert!(parse_density("-10%").is_err());
    }

    #[test]
    fn only_flag_columns_are_offered() {
        let d = ds();
        let dialog = MarkDialog::open(&d, 0, &CellSensitivity::default(), 0, 7);
        assert_eq!(dialog.flags, vec![1]);
        assert_eq!(dialog.seed, "7");
    }

    #[test]
    fn typing_on_the_mode_line_goes_to_the_text_field() {
        let d = ds();
        let mut dialog = MarkDialog::open(&d, 2, &CellSensitivity::default(), 0, 1);
        assert_eq!(dialog.field(), MarkField::Mode);
        for c in "age>=60".chars() {
            dialog.type_char(c);
        }
        dialog.delete_char();
        dialog.type_char('1');
        assert_eq!(dialog.rule, "age>=61");
        assert_eq!(dialog.field(), MarkField::Rule);
        dialog.move_focus(-1);
        dialog.choose(1);
        assert_eq!(dialog.mode, MarkMode::Density);
        dialog.move_focus(2);
        assert_eq!(dialog.field(), MarkField::Seed);
        dialog.type_char('x');
        let e = dialog.source(&d).unwrap_err();
        assert!(e.contains("seed '1x'"), "{e}");
    }

    #[test]
    fn an_existing_source_fills_the_dialog() {
        let d = ds();
        let spec = CellSensitivity::new(SensitivitySource::FlagColumn {
            column: "flag".into(),
        });
        let dialog = MarkDialog::open(&d, 2, &spec, 2, 1);
        assert_eq!(dialog.mode, MarkMode::Flag);
        assert_eq!(
            dialog.source(&d),
            Ok(SensitivitySource::FlagColumn {
                column: "flag".into()
            })
        );
        assert_eq!(dialog.current, "2 cells (66.7%) by flag column flag");
    }
}
