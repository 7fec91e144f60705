//! `--top-code`, `--bottom-code` and `--round` of `anonymize`, `compare`,
//! `assess` and `report` (issue 33): global recodings of numeric columns
//! applied to the data before any algorithm runs (`anonlab::data::recode`),
//! held by the session so every surface applies the same ones, and saved
//! with a project.

use std::fmt::Write as _;

use clap::Args;

use anonlab::data::recode::Method;
use anonlab::data::{AppliedRecode, Recode};
use anonlab::session::Session;

#[derive(Debug, Args, Clone, Default)]
pub struct RecodeArgs {
    /// Top-code a numeric column: values above VALUE, or above the
    /// quantile qP of its values (R's default, type 7; q0.99 is the 99th
    /// percentile), are published as REPLACEMENT (default: the threshold
    /// itself; not below it). Repeatable. Applied to the data before the
    /// algorithm runs; the output, the release JSON and the report say how
    /// many cells each recoding changed. Given, the recodings replace a
    /// project's.
    #[arg(long = "top-code", value_name = "COL=VALUE|qP[:REPLACEMENT]")]
    pub top_code: Vec<String>,
    /// Bottom-code a numeric column: values below VALUE (or the quantile
    /// qP) are published as REPLACEMENT (default: the threshold; not above
    /// it). Repeatable.
    #[arg(long = "bottom-code", value_name = "COL=VALUE|qP[:REPLACEMENT]")]
    pub bottom_code: Vec<String>,
    /// Round a numeric column to the nearest multiple of BASE (> 0); a
    /// value halfway goes to the even multiple, as R's round(x/BASE)*BASE.
    /// Repeatable. Roundings apply before the top and bottom codes, so a
    /// top code stays the value given.
    #[arg(long = "round", value_name = "COL=BASE")]
    pub round: Vec<String>,
}

impl RecodeArgs {
    pub fn any(&self) -> bool {
        !(self.top_code.is_empty() && self.bottom_code.is_empty() && self.round.is_empty())
    }

    /// The recodings the flags give, in the order applied: the roundings,
    /// then the bottom codes, then the top codes (clap does not keep the
    /// order between different flags; this one leaves a top or bottom code
    /// exactly the value given).
    pub fn recodes(&self) -> anonlab::Result<Vec<Recode>> {
        let mut out = Vec::new();
        for spec in &self.round {
            out.push(Recode::parse_round(spec)?);
        }
        for spec in &self.bottom_code {
            out.push(Recode::parse_coding(Method::BottomCode, spec)?);
        }
        for spec in &self.top_code {
            out.push(Recode::parse_coding(Method::TopCode, spec)?);
        }
        Ok(out)
    }

    /// Recode `session` by the flags when some are given (replacing the
    /// project's recodings), and warn of a recoding that changes nothing
    /// (the session's, when no flag is given).
    pub fn apply(&self, session: &mut Session) -> anonlab::Result<()> {
        let applied = if self.any() {
            session.set_recodes(self.recodes()?)?
        } else {
            session.recodings().to_vec()
        };
        for w in applied.iter().filter_map(AppliedRecode::warning) {
            eprintln!("anonlab: warning: {w}");
        }
        Ok(())
    }
}

/// One line per recoding, for the human outputs.
pub fn human(applied: &[AppliedRecode]) -> String {
    let mut o = String::new();
    for a in applied {
        let _ = writeln!(o, "recoded {}", a.describe());
    }
    o
}
