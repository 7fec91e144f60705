//! The report's figures in plain words, for readers who are not privacy
//! engineers: short sentences, chances as "1 in N", shares as percentages,
//! counts with thousands separators. Every sentence is filled from a
//! [`Report`]; none is written ahead of the figures.

use super::Report;
use crate::format::thousands;

/// `n` with thousands separators.
pub fn count(n: usize) -> String {
    thousands(n as u64)
}

/// A probability as odds people read at a glance: "1 in 5", "about 1 in
/// 2.5"; above one half as a percentage ("80%"), where "1 in 1.2" says
/// nothing; "1 in 1 (certain)" and "0".
pub fn odds(p: f64) -> String {
    if p <= 0.0 {
        return "0".into();
    }
    if p >= 1.0 - 1e-9 {
        return "1 in 1 (certain)".into();
    }
    if p > 0.5 {
        return percent(p);
    }
    let n = 1.0 / p;
    if (n - n.round()).abs() < 0.05 {
        format!("1 in {}", thousands(n.round() as u64))
    } else if n >= 10.0 {
        // "about 1 in 123", not "1 in 122.9": a tenth of a person says
        // nothing to a reader once the odds are in the tens.
        format!("about 1 in {}", thousands(n.round() as u64))
    } else {
        format!("about 1 in {n:.1}")
    }
}

/// [`odds`] in a sentence: "a 1 in 5 chance", "an 80% chance", "certainty".
pub fn chance(p: f64) -> String {
    if p <= 0.0 {
        return "no chance".into();
    }
    if p >= 1.0 - 1e-9 {
        return "certainty".into();
    }
    let o = odds(p);
    if let Some(rest) = o.strip_prefix("about ") {
        return format!("about a {rest} chance");
    }
    let article = if o.starts_with('8') { "an" } else { "a" };
    format!("{article} {o} chance")
}

/// The highest chance of a figure in a sentence: "with at most a 1 in 5
/// chance", and at 1 "for at least one person, with certainty" ("with at
/// most certainty" reads as a sentence cut short).
pub fn at_most(p: f64) -> String {
    if p >= 1.0 - 1e-9 {
        "for at least one person, with certainty".into()
    } else {
        format!("with at most {}", chance(p))
    }
}

/// A share as a percentage with at most one decimal: 12.5 %, 3 %.
pub fn percent(share: f64) -> String {
    let s = format!("{:.1}", share * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// "a, b and c".
pub fn list(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "none", "1 person", "12 people" — with "of N" when asked.
fn people(n: usize) -> String {
    match n {
        0 => "none".into(),
        1 => "1 person".into(),
        n => format!("{} people", count(n)),
    }
}

/// The headline sentences, in reading order.
pub fn summary(r: &Report) -> Vec<String> {
    let risk = &r.risk;
    let mut out = Vec::new();
    let failed = r.guarantees.iter().filter(|g| !g.holds).count();
    if failed > 0 {
        out.push(format!(
            "Warning: {failed} of the {} promises the method makes did not hold when checked independently. Do not publish this release.",
            r.guarantees.len()
        ));
    }
    let before = &risk.before;
    let after = &risk.after_linkage;
    let knows = list(&r.attacker.knows);
    let hidden = match r.attacker.hidden_cells {
        0 => String::new(),
        n => format!(
            " (except {} cells marked sensitive, which they do not know)",
            count(n)
        ),
    };
    out.push(format!(
        "Before anonymization, {} of {} people could be singled out by someone who knows their {knows}{hidden}.",
        if before.singled_out == 0 {
            "none".to_string()
        } else {
            count(before.singled_out)
        },
        count(before.records),
    ));
    out.push(format!(
        "After, {} could be singled out; the most exposed person has {} of being identified.",
        if after.singled_out == 0 {
            "none".to_string()
        } else {
            format!("{} of {}", count(after.singled_out), count(after.records))
        },
        chance(after.max),
    ));
    out.push(format!(
        "People with more than a {} chance of being identified: {} before, {} after.",
        odds(risk.threshold),
        people(before.above_threshold),
        people(after.above_threshold),
    ));
    if let Some(b) = &risk.breach {
        out.push(format!(
            "Someone who finds a person in the release can guess their {} {} (on average with {}).",
            b.attribute,
            at_most(b.max),
            chance(b.mean),
        ));
    }
    out.extend(super::sample::headline(r));
    if failed == 0 && !r.guarantees.is_empty() {
        out.push(format!(
            "All {} promises the method makes were checked independently on the release and hold.",
            r.guarantees.len(),
        ));
    }
    let u = &r.utility;
    let mut kept = format!(
        "On average a published value is blurred over {} of its attribute's range (0% would be the exact value)",
        percent(u.gcp_share)
    );
    if let Some(q) = &u.queries {
        kept.push_str(&query_error(&q.aggregate, q.mean_relative_error));
    }
    kept.push('.');
    out.push(kept);
    out
}

/// The query workload's error in words: its relative error is the width
/// of the range of answers the release allows over the true answer
/// (`metrics::queries`), so "564.8%" reads as a range about 6 times the
/// true answer, and a small one as a share of it.
fn query_error(aggregate: &str, relative: f64) -> String {
    let question = if aggregate.starts_with("COUNT") {
        "how many people with some combination of values there are".to_string()
    } else {
        format!("the {aggregate} of people with some combination of values")
    };
    if relative >= 1.0 {
        format!(
            "; a typical question asked of the release ({question}) can only be answered within a range about {} times the true answer",
            thousands(relative.round() as u64)
        )
    } else {
        format!(
            "; a typical question asked of the release ({question}) is answered within {} of the true answer",
            percent(relative)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_read_naturally() {
        assert_eq!(chance(0.2), "a 1 in 5 chance");
        assert_eq!(chance(1.0), "certainty");
        assert_eq!(chance(0.4), "about a 1 in 2.5 chance");
        assert_eq!(chance(1.0 / 122.9), "about a 1 in 123 chance");
        assert_eq!(odds(1.0 / 10.4), "about 1 in 10");
        let count = "COUNT(occupation = v)";
        assert!(query_error(count, 5.648).contains("about 6 times the true answer"));
        assert!(query_error(count, 0.125).contains("within 12.5% of the true answer"));
        assert_eq!(chance(0.8), "an 80% chance");
        assert_eq!(odds(0.6), "60%");
        assert_eq!(odds(1.0), "1 in 1 (certain)");
        assert_eq!(chance(1.0 / 30162.0), "a 1 in 30,162 chance");
        assert_eq!(chance(0.0), "no chance");
        assert_eq!(at_most(1.0), "for at least one person, with certainty");
        assert_eq!(at_most(0.25), "with at most a 1 in 4 chance");
        assert_eq!(percent(0.125), "12.5%");
        assert_eq!(percent(0.03), "3%");
        assert_eq!(list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
