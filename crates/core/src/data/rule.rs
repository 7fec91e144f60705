//! Row predicates such as `age>=60` or `occupation in {Armed-Forces,Protective-serv}`.
//!
//! Rules fill cell sensitivity (DESIGN.md) and, later, the conditions of the
//! risk tool's Construction(D, G). The grammar is small on purpose:
//!
//! ```text
//! expr := and ('or' and)*        and := unary ('and' unary)*
//! unary := 'not' unary | '(' expr ')' | atom
//! atom := COLUMN op VALUE | COLUMN ['not'] 'in' '{' VALUE (',' VALUE)* '}'
//! op := >= | <= | > | < | = | == | !=
//! ```
//!
//! Names and values are bare words (letters, digits, `-`, `.`, `_`, …) or
//! quoted with `'` or `"`. Inside `{…}` values run to the next comma, so
//! values with parentheses such as `Outlying-US(Guam-USVI-etc)` need no
//! quotes there.
//!
//! Choices: ordering comparisons need a numeric column (comparing category
//! names alphabetically is never what a user means); a categorical value
//! that the column does not hold is an error rather than a silent
//! never-match, since it is almost always a typo; a missing cell satisfies
//! no atom — not even `!=` or `not in` — because its value is unknown.
//! Rules are compiled to a truth table per atom over the column's codes, so
//! evaluating a row is a few array lookups.

use fixedbitset::FixedBitSet;

use super::number::Decimal;
use super::{Column, Dataset};
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    text: String,
    expr: Expr,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Atom(Atom),
}

#[derive(Debug, Clone, PartialEq)]
struct Atom {
    column: String,
    test: Test,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, PartialEq)]
enum Test {
    Cmp(Op, String),
    In(Vec<String>, bool),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Op(Op),
    LParen,
    RParen,
    Set(Vec<String>),
}

fn tokenize(text: &str) -> std::result::Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            _ if c.is_whitespace() => i += 1,
            '(' => {
                out.push(Tok::LParen);
                i += 1;
            }
            ')' => {
                out.push(Tok::RParen);
                i += 1;
            }
            '{' => {
                let close = chars[i..]
                    .iter()
                    .position(|&c| c == '}')
                    .ok_or("a '{' is never closed with '}'")?;
                let inner: String = chars[i + 1..i + close].iter().collect();
                let items: Vec<String> = inner
                    .split(',')
                    .map(|s| unquote(s.trim()).to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                if items.is_empty() {
                    return Err("an empty value set '{}'".into());
                }
                out.push(Tok::Set(items));
                i += close + 1;
            }
            '}' => return Err("a '}' without '{'".into()),
            '\'' | '"' => {
                let close = chars[i + 1..]
                    .iter()
                    .position(|&q| q == c)
                    .ok_or_else(|| format!("a {c} quote is never closed"))?;
                out.push(Tok::Quoted(chars[i + 1..i + 1 + close].iter().collect()));
                i += close + 2;
            }
            '<' | '>' | '=' | '!' => {
                let next = chars.get(i + 1).copied();
                let (op, len) = match (c, next) {
                    ('<', Some('=')) => (Op::Le, 2),
                    ('>', Some('=')) => (Op::Ge, 2),
                    ('=', Some('=')) => (Op::Eq, 2),
                    ('!', Some('=')) => (Op::Ne, 2),
                    ('<', _) => (Op::Lt, 1),
                    ('>', _) => (Op::Gt, 1),
                    ('=', _) => (Op::Eq, 1),
                    _ => return Err("'!' must be followed by '='".into()),
                };
                out.push(Tok::Op(op));
                i += len;
            }
            _ => {
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !"(){}<>=!'\"".contains(chars[i])
                {
                    i += 1;
                }
                out.push(Tok::Word(chars[start..i].iter().collect()));
            }
        }
    }
    Ok(out)
}

fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

/// How deeply `(` and `not` may nest. Parsing, compiling and evaluating
/// recurse once per level, so without a bound a rule of a few thousand
/// `(` overflows the stack; no rule a person writes comes near it.
pub const MAX_RULE_DEPTH: usize = 100;

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek_keyword(&self, kw: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw))
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }
    fn expr(&mut self) -> std::result::Result<Expr, String> {
        let mut parts = vec![self.and()?];
        while self.peek_keyword("or") {
            self.pos += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().unwrap_or(Expr::And(Vec::new()))
        } else {
            Expr::Or(parts)
        })
    }
    fn and(&mut self) -> std::result::Result<Expr, String> {
        let mut parts = vec![self.unary()?];
        while self.peek_keyword("and") {
            self.pos += 1;
            parts.push(self.unary()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().unwrap_or(Expr::And(Vec::new()))
        } else {
            Expr::And(parts)
        })
    }
    fn unary(&mut self) -> std::result::Result<Expr, String> {
        self.depth += 1;
        let e = self.unary_nested();
        self.depth -= 1;
        e
    }
    fn unary_nested(&mut self) -> std::result::Result<Expr, String> {
        if self.depth > MAX_RULE_DEPTH {
            return Err(format!(
                "'(' and 'not' nest more than {MAX_RULE_DEPTH} deep; write the rule with fewer levels"
            ));
        }
        if self.peek_keyword("not") {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.toks.get(self.pos) == Some(&Tok::LParen) {
            self.pos += 1;
            let e = self.expr()?;
            return match self.next() {
                Some(Tok::RParen) => Ok(e),
                _ => Err("a '(' is never closed with ')'".into()),
            };
        }
        self.atom()
    }
    fn atom(&mut self) -> std::result::Result<Expr, String> {
        let column = match self.next() {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => w,
            Some(t) => return Err(format!("expected a column name, found {}", describe(&t))),
            None => return Err("expected a column name, found the end".into()),
        };
        let test = match self.next() {
            Some(Tok::Op(op)) => match self.next() {
                Some(Tok::Word(v)) | Some(Tok::Quoted(v)) => Test::Cmp(op, v),
                _ => return Err(format!("expected a value after the operator on '{column}'")),
            },
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("in") => {
                Test::In(self.set(&column)?, false)
            }
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("not") && self.peek_keyword("in") => {
                self.pos += 1;
                Test::In(self.set(&column)?, true)
            }
            _ => {
                return Err(format!(
                    "expected a comparison (>=, <=, >, <, =, !=) or 'in {{…}}' after '{column}'"
                ))
            }
        };
        Ok(Expr::Atom(Atom { column, test }))
    }
    fn set(&mut self, column: &str) -> std::result::Result<Vec<String>, String> {
        match self.next() {
            Some(Tok::Set(v)) => Ok(v),
            _ => Err(format!(
                "expected a value set {{a,b,…}} after '{column} in'"
            )),
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(w) | Tok::Quoted(w) => format!("'{w}'"),
        Tok::Op(_) => "an operator".into(),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Set(_) => "a value set".into(),
    }
}

impl Rule {
    pub fn parse(text: &str) -> Result<Rule> {
        let err = |msg: String| Error::Rule {
            rule: text.to_string(),
            msg,
        };
        let toks = tokenize(text).map_err(err)?;
        if toks.is_empty() {
            return Err(err("the rule is empty".into()));
        }
        let mut p = Parser {
            toks,
            pos: 0,
            depth: 0,
        };
        let expr = p.expr().map_err(err)?;
        if p.pos < p.toks.len() {
            let rest = describe(&p.toks[p.pos]);
            return Err(err(format!(
                "unexpected {rest}; join conditions with 'and' / 'or'"
            )));
        }
        Ok(Rule {
            text: text.to_string(),
            expr,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Names of the columns the rule reads.
    pub fn columns(&self) -> Vec<&str> {
        fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
            match e {
                Expr::Or(v) | Expr::And(v) => v.iter().for_each(|e| walk(e, out)),
                Expr::Not(e) => walk(e, out),
                Expr::Atom(a) => {
                    if !out.contains(&a.column.as_str()) {
                        out.push(&a.column)
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.expr, &mut out);
        out
    }

    /// Resolve names and values against a dataset.
    pub fn compile<'d>(&self, ds: &'d Dataset) -> Result<CompiledRule<'d>> {
        let mut atoms = Vec::new();
        let expr = self.compile_expr(&self.expr, ds, &mut atoms)?;
        Ok(CompiledRule { expr, atoms })
    }

    /// The rows that satisfy the rule.
    pub fn evaluate(&self, ds: &Dataset) -> Result<FixedBitSet> {
        let c = self.compile(ds)?;
        let mut bits = FixedBitSet::with_capacity(ds.n_rows());
        for r in 0..ds.n_rows() {
            if c.matches(r) {
                bits.insert(r);
            }
        }
        Ok(bits)
    }

    fn compile_expr<'d>(
        &self,
        e: &Expr,
        ds: &'d Dataset,
        atoms: &mut Vec<(&'d [u32], Vec<bool>)>,
    ) -> Result<CExpr> {
        Ok(match e {
            Expr::Or(v) => CExpr::Or(
                v.iter()
                    .map(|e| self.compile_expr(e, ds, atoms))
                    .collect::<Result<_>>()?,
            ),
            Expr::And(v) => CExpr::And(
                v.iter()
                    .map(|e| self.compile_expr(e, ds, atoms))
                    .collect::<Result<_>>()?,
            ),
            Expr::Not(e) => CExpr::Not(Box::new(self.compile_expr(e, ds, atoms)?)),
            Expr::Atom(a) => {
                let col = ds.column(&a.column)?;
                let table = self.truth_table(col, &a.test)?;
                atoms.push((col.codes(), table));
                CExpr::Atom(atoms.len() - 1)
            }
        })
    }

    fn truth_table(&self, col: &Column, test: &Test) -> Result<Vec<bool>> {
        let err = |msg: String| Error::Rule {
            rule: self.text.clone(),
            msg,
        };
        let mut table = vec![false; col.code_space()];
        let n = col.cardinality();
        match test {
            Test::Cmp(op, v) if col.is_numeric() => {
                let x = self.number(col, v)?;
                // The dictionary is in exact numeric order: each operator
                // holds on a prefix, a suffix or one code.
                let below = col.partition_point(|y| y < &x);
                let up_to = col.partition_point(|y| y <= &x);
                let range = match op {
                    Op::Lt => 0..below,
                    Op::Le => 0..up_to,
                    Op::Gt => up_to..n,
                    Op::Ge => below..n,
                    Op::Eq | Op::Ne => below..up_to,
                };
                for (code, slot) in table.iter_mut().enumerate().take(n) {
                    *slot = range.contains(&code) != (*op == Op::Ne);
                }
            }
            Test::Cmp(op @ (Op::Eq | Op::Ne), v) => {
                let code = self.categorical_code(col, v)?;
                for (c, slot) in table.iter_mut().enumerate().take(n) {
                    *slot = (c as u32 == code) == (*op == Op::Eq);
                }
            }
            Test::Cmp(_, _) => {
                return Err(err(format!(
                    "'{}' is categorical: use =, != or 'in {{…}}', not an ordering",
                    col.name()
                )))
            }
            Test::In(values, negated) => {
                let mut hit = vec![false; n];
                for v in values {
                    let code = if col.is_numeric() {
                        match col.code_of(&self.number(col, v)?.canonical()) {
                            Some(c) => c,
                            None => continue,
                        }
                    } else {
                        self.categorical_code(col, v)?
                    };
                    hit[code as usize] = true;
                }
                for (slot, h) in table.iter_mut().zip(hit) {
                    *slot = h != *negated;
                }
            }
        }
        Ok(table)
    }

    /// A rule's value on a numeric column, read as the column's values are
    /// (`data::number`): `NaN`, `inf` and words are refused, never compared.
    fn number(&self, col: &Column, v: &str) -> Result<Decimal> {
        Decimal::parse(v).ok_or_else(|| Error::Rule {
            rule: self.text.clone(),
            msg: format!(
                "'{v}' is not a number, but '{}' is numeric (a number is a decimal numeral of magnitude below 1e150; NaN and inf are not numbers)",
                col.name()
            ),
        })
    }

    fn categorical_code(&self, col: &Column, v: &str) -> Result<u32> {
        col.code_of(v).ok_or_else(|| {
            let close: Vec<&str> = col
                .dictionary()
                .iter()
                .map(|s| &**s)
                .filter(|s| s.eq_ignore_ascii_case(v) || s.contains(v) || v.contains(*s))
                .take(3)
                .collect();
            let hint = if close.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", close.join(", "))
            };
            Error::Rule {
                rule: self.text.clone(),
                msg: format!("column '{}' has no value '{v}'{hint}", col.name()),
            }
        })
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[derive(Debug)]
enum CExpr {
    Or(Vec<CExpr>),
    And(Vec<CExpr>),
    Not(Box<CExpr>),
    Atom(usize),
}

/// A rule bound to one dataset's columns.
#[derive(Debug)]
pub struct CompiledRule<'d> {
    expr: CExpr,
    atoms: Vec<(&'d [u32], Vec<bool>)>,
}

impl CompiledRule<'_> {
    pub fn matches(&self, row: usize) -> bool {
        self.eval(&self.expr, row)
    }
    fn eval(&self, e: &CExpr, row: usize) -> bool {
        match e {
            CExpr::Or(v) => v.iter().any(|e| self.eval(e, row)),
            CExpr::And(v) => v.iter().all(|e| self.eval(e, row)),
            CExpr::Not(e) => !self.eval(e, row),
            CExpr::Atom(i) => {
                let (codes, table) = &self.atoms[*i];
                table[codes[row] as usize]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds() -> Dataset {
        Dataset::from_rows(
            &["age", "occupation", "marital-status"],
            &[
                vec!["65", "Armed-Forces", "Married"],
                vec!["30", "Sales", "Never-married"],
                vec!["", "Protective-serv", "Married"],
                vec!["60", "Outlying-US(Guam-USVI-etc)", "Widowed"],
            ],
        )
        .unwrap()
    }

    fn rows(rule: &str) -> Vec<usize> {
        Rule::parse(rule)
            .unwrap()
            .evaluate(&ds())
            .unwrap()
            .ones()
            .collect()
    }

    #[test]
    fn comparisons_and_sets() {
        assert_eq!(rows("age>=60"), vec![0, 3]);
        assert_eq!(rows("age < 60"), vec![1]);
        assert_eq!(
            rows("occupation in {Armed-Forces,Protective-serv}"),
            vec![0, 2]
        );
        assert_eq!(rows("occupation in {Outlying-US(Guam-USVI-etc)}"), vec![3]);
        assert_eq!(rows("marital-status != Married"), vec![1, 3]);
        assert_eq!(rows("age>=60 and marital-status = 'Married'"), vec![0]);
        assert_eq!(rows("age>=61 or occupation = Sales"), vec![0, 1]);
        assert_eq!(rows("not (age>=61 or occupation = Sales)"), vec![2, 3]);
    }

    #[test]
    fn missing_cells_match_no_atom() {
        // Row 2 has no age: neither `age>=0` nor `age!=30` holds for it.
        assert_eq!(rows("age >= 0"), vec![0, 1, 3]);
        assert_eq!(rows("age != 30"), vec![0, 3]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let d = ds();
        let msg = |r: &str| match Rule::parse(r) {
            Err(e) => e.to_string(),
            Ok(rule) => rule.evaluate(&d).unwrap_err().to_string(),
        };
        assert!(msg("height > 3").contains("unknown column 'height'"));
        assert!(msg("age >= old").contains("not a number"));
        assert!(msg("occupation > Sales").contains("categorical"));
        assert!(msg("occupation = sales").contains("did you mean Sales"));
        assert!(msg("age >=").contains("expected a value"));
        assert!(msg("occupation in {a").contains("never closed"));
        assert!(msg("age > 3 age < 5").contains("'and' / 'or'"));
        assert!(msg("").contains("empty"));
        assert!(msg("age >= NaN").contains("'NaN' is not a number"));
        assert!(msg("age != inf").contains("'inf' is not a number"));
        assert!(msg("age in {1, NaN}").contains("'NaN' is not a number"));
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = format!("{}age>1{}", "(".repeat(8000), ")".repeat(8000));
        let m = Rule::parse(&deep).unwrap_err().to_string();
        assert!(m.contains("nest more than 100 deep"), "{m}");
        let nots = format!("{}age>1", "not ".repeat(5000));
        assert!(Rule::parse(&nots).is_err());
        let ok = format!("{}age>1{}", "(".repeat(50), ")".repeat(50));
        assert_eq!(
            Rule::parse(&ok)
                .unwrap()
                .evaluate(&ds())
                .unwrap()
                .count_ones(..),
            3
        );
    }

    #[test]
    fn numbers_are_compared_exactly_and_as_numbers() {
        let d = Dataset::from_rows(
            &["n"],
            &[
                vec!["39"],
                vec!["039"],
                vec!["3.9e1"],
                vec!["12345678901234567891"],
                vec!["12345678901234567892"],
                vec!["-0"],
                vec!["0.0"],
            ],
        )
        .unwrap();
        let hits = |r: &str| -> Vec<usize> {
            Rule::parse(r)
                .unwrap()
                .evaluate(&d)
                .unwrap()
                .ones()
                .collect()
        };
        assert_eq!(hits("n = 39.0"), vec![0, 1, 2]);
        assert_eq!(hits("n in {3.90e1}"), vec![0, 1, 2]);
        assert_eq!(hits("n > 12345678901234567891"), vec![4]);
        assert_eq!(hits("n <= 12345678901234567891"), vec![0, 1, 2, 3, 5, 6]);
        assert_eq!(hits("n != 0"), vec![0, 1, 2, 3, 4]);
        assert_eq!(hits("n = -0.0"), vec![5, 6]);
    }

    #[test]
    fn lists_columns() {
        let r = Rule::parse("age>3 and (age<9 or occupation in {x})").unwrap();
        assert_eq!(r.columns(), vec!["age", "occupation"]);
    }
}
