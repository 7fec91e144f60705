//! Seeded synthetic microdata: a census-like table for scale tests and the
//! small hospital table shipped as the demo.
//!
//! Why the data is shaped as it is:
//!
//! - Risk and utility figures are only meaningful on data whose attributes
//!   depend on each other. Independent uniform columns make every record
//!   unique on three attributes and make correlation-based hierarchies (the
//!   third paper) and φ²-driven partitioning (the fourth) find nothing. So
//!   each person is drawn jointly, one attribute conditioned on the earlier
//!   ones, with proportions read roughly off UCI Adult: age drives marital
//!   status, education, retirement (hence workclass and hours); education,
//!   sex and age drive occupation; occupation drives workclass; almost
//!   everything feeds the salary odds.
//! - Category spellings are Adult's (`Married-civ-spouse`, `HS-grad`,
//!   `Prof-specialty`, `<=50K`, ...), so the Adult hierarchies under
//!   `../shared/data/adult/` apply unchanged to the census table. Adult's
//!   `Never-worked` is never produced: every generated person has an
//!   occupation, and Adult drops the rows that have none.
//! - Zip codes are clustered: a few 3-digit prefixes with skewed
//!   populations, then skewed 4th and 5th digits inside each. Masking a zip
//!   right to left therefore merges few large groups at first and the rare
//!   rural codes last, as in real data. The dominant prefix, 433, reproduces
//!   the running example of the cross-bucket paper (43302, 43307, 43309...).
//! - `native-country` is `United-States` for about nine people in ten, and
//!   the rest depends on race and on how urban the zip is.
//! - The demo is a hospital table like the papers' running examples:
//!   an identifier, three quasi-identifiers, occupation as the semi-sensitive
//!   attribute with a per-row `hide_occupation` flag (about one row in five,
//!   more for occupations people tend to keep to themselves), and disease as
//!   the sensitive attribute, correlated with age and sex. A handful of very
//!   old patients live in rare rural zip codes, so the risk view has unique
//!   records to show, and retirees sometimes have no recorded occupation, so
//!   the missing-value path is exercised.
//!
//! Reproducibility: the only source of randomness is `ChaCha8Rng` seeded by
//! `seed_from_u64`, whose output stream is fixed by its specification. The
//! mapping from raw `u32`/`u64` words to ranges, probabilities and weighted
//! choices is done here rather than by `rand`'s distributions, because rand
//! reserves the right to change those algorithms between minor versions;
//! only IEEE `+ - * /` and comparisons are used on floats. The same seed thus
//! gives byte-identical output on every platform; a dependency upgrade could
//! change it only by changing ChaCha8's stream or `seed_from_u64`, and the
//! `demo_asset` test would then fail.
//!
//! Speed: rows are written straight into one reusable byte buffer that is
//! flushed in large chunks, with no per-row allocation; no value needs CSV
//! quoting, so none is attempted.

use std::io::{self, Write};

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Seed of the shipped `assets/demo.csv`. It is the cross-bucket paper's
/// favourite zip code; any fixed value would do.
pub const DEMO_SEED: u64 = 43307;

/// Rows in the demo table: small enough to scroll through, large enough for
/// k and l to matter.
pub const DEMO_ROWS: usize = 1500;

/// Column names of [`write_census`], in order.
pub const CENSUS_COLUMNS: [&str; 11] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "hours-per-week",
    "zip",
    "salary-class",
];

/// Column names of [`write_demo`], in order.
pub const DEMO_COLUMNS: [&str; 7] = [
    "name",
    "sex",
    "age",
    "zip",
    "occupation",
    "hide_occupation",
    "disease",
];

mod tables;
use tables::*;

const MIN_AGE: u32 = 17;
const MAX_AGE: u32 = 90;
/// Flush the row buffer to the writer once it holds this many bytes.
const CHUNK: usize = 64 * 1024;

// ---------------------------------------------------------------------------
// Randomness.

/// The seeded source, with the value mappings done here (see the module
/// doc for why not `rand`'s distributions).
struct Draw(ChaCha8Rng);

impl Draw {
    fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    /// Uniform in `0..n` by multiply-shift; the bias (below n / 2^32) is far
    /// under anything these tables could show.
    fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.0.next_u32()) * u64::from(n)) >> 32) as u32
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn percent(&mut self, p: u32) -> bool {
        self.below(100) < p
    }
}

/// A discrete distribution over `0..len` given by integer weights.
struct Weighted {
    cumulative: Vec<u32>,
}

impl Weighted {
    fn new(weights: impl IntoIterator<Item = u32>) -> Self {
        let mut total = 0u32;
        let cumulative: Vec<u32> = weights
            .into_iter()
            .map(|w| {
                total += w;
                total
            })
            .collect();
        assert!(total > 0, "a synthetic weight table sums to zero");
        Self { cumulative }
    }

    fn pick(&self, draw: &mut Draw) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1);
        let r = draw.below(total);
        self.cumulative.partition_point(|&c| c <= r)
    }
}

/// Element-wise product of a weight row and percent multipliers.
fn scaled<const N: usize>(base: &[u32; N], pct: &[u32; N]) -> Weighted {
    Weighted::new(base.iter().zip(pct).map(|(b, p)| b * p))
}

// ---------------------------------------------------------------------------
// The person model shared by both tables.

/// All tables of the model, built once per call.
struct Model {
    region: Weighted,
    digit4: Vec<Weighted>,
    digit5: Vec<Weighted>,
    age: Weighted,
    old_age: Weighted,
    race_urban: Weighted,
    race_other: Weighted,
    countries: Vec<Weighted>,
    /// [age band][sex]
    marital: Vec<[Weighted; 2]>,
    education: Vec<Weighted>,
    /// [education group][sex][young]
    occupation: Vec<[[Weighted; 2]; 2]>,
    /// [occupation][retiree]
    workclass: Vec<[Weighted; 2]>,
    retiree_hours: Weighted,
}

/// Age weights for the working population, shaped like Adult's: few
/// teenagers, a broad plateau from the twenties to the forties, a long tail.
fn census_age_weight(age: u32) -> u32 {
    match age {
        17..=19 => 300 + (age - 17) * 150,
        20..=36 => 780 + (age - 20) * 5,
        37..=50 => 860 - (age - 37) * 22,
        51..=64 => 550 - (age - 51) * 22,
        65..=75 => 240 - (age - 65) * 17,
        _ => 40 - (age - 76) * 2,
    }
}

/// Age weights for rural retirees.
fn old_age_weight(age: u32) -> u32 {
    match age {
        17..=54 => 0,
        55..=74 => 100,
        75..=84 => 70,
        _ => 30,
    }
}

/// Age weights for hospital patients: the old are admitted far more often.
fn patient_age_weight(age: u32) -> u32 {
    match age {
        17..=29 => 60,
        30..=49 => 80,
        50..=69 => 130,
        70..=84 => 150,
        _ => 50,
    }
}

fn ages(weight: fn(u32) -> u32) -> Weighted {
    Weighted::new((MIN_AGE..=MAX_AGE).map(weight))
}

fn marital_band(age: u32) -> usize {
    match age {
        ..=24 => 0,
        25..=34 => 1,
        35..=44 => 2,
        45..=59 => 3,
        60..=74 => 4,
        _ => 5,
    }
}

fn education_band(age: u32) -> usize {
    match age {
        ..=18 => 0,
        19..=22 => 1,
        23..=29 => 2,
        30..=59 => 3,
        _ => 4,
    }
}

fn education_group(education: usize) -> usize {
    match education {
        0..=7 => 0,
        8 => 1,
        9..=11 => 2,
        12 => 3,
        _ => 4,
    }
}

impl Model {
    fn new() -> Self {
        let occupation = OCCUPATION_BY_EDU
            .iter()
            .map(|row| {
                let by_sex = |sex: usize| {
                    let sex_pct: [u32; 14] = std::array::from_fn(|o| {
                        let f = OCCUPATION_FEMALE_PCT[o];
                        if sex == FEMALE {
                            f
                        } else {
                            100 - f
                        }
                    });
                    let adult: [u32; 14] = std::array::from_fn(|o| row[o] * sex_pct[o]);
                    [Weighted::new(adult), scaled(&adult, &OCCUPATION_YOUNG_PCT)]
                };
                [by_sex(MALE), by_sex(FEMALE)]
            })
            .collect();
        Self {
            region: Weighted::new(REGIONS.iter().map(|r| r.weight)),
            digit4: REGIONS.iter().map(|r| Weighted::new(r.digit4)).collect(),
            digit5: REGIONS.iter().map(|r| Weighted::new(r.digit5)).collect(),
            age: ages(census_age_weight),
            old_age: ages(old_age_weight),
            race_urban: Weighted::new(RACE_URBAN),
            race_other: Weighted::new(RACE_OTHER),
            countries: COUNTRIES_BY_RACE
                .iter()
                .map(|list| Weighted::new(list.iter().map(|&(_, w)| w)))
                .collect(),
            marital: MARITAL_BY_AGE
                .iter()
                .map(|row| {
                    [
                        scaled(row, &MARITAL_SEX_PCT[MALE]),
                        scaled(row, &MARITAL_SEX_PCT[FEMALE]),
                    ]
                })
                .collect(),
            education: EDUCATION_BY_AGE
                .iter()
                .map(|&row| Weighted::new(row))
                .collect(),
            occupation,
            workclass: WORKCLASS_BY_OCCUPATION
                .iter()
                .map(|row| [Weighted::new(*row), scaled(row, &WORKCLASS_RETIREE_PCT)])
                .collect(),
            retiree_hours: Weighted::new(RETIREE_HOURS.iter().map(|&(_, w)| w)),
        }
    }

    fn sex(&self, draw: &mut Draw) -> usize {
        // About two men for each woman, as in Adult's employed population.
        usize::from(draw.below(100) < 33)
    }

    fn education(&self, draw: &mut Draw, age: u32) -> usize {
        self.education[education_band(age)].pick(draw)
    }

    fn occupation(&self, draw: &mut Draw, education: usize, sex: usize, age: u32) -> usize {
        let young = usize::from(age < 25);
        self.occupation[education_group(education)][sex][young].pick(draw)
    }

    /// Whether someone of this age has retired (and works, if at all, a few
    /// hours a week).
    fn retired(&self, draw: &mut Draw, age: u32) -> bool {
        age >= 62 && draw.chance((f64::from(age - 60) * 0.07).min(0.9))
    }
}

/// Hours per week: a spike at 40, part-time students, long hours for
/// managers, professionals and the self-employed, few hours for retirees.
fn hours(draw: &mut Draw, model: &Model, p: &Person) -> u32 {
    if p.retired {
        return RETIREE_HOURS[model.retiree_hours.pick(draw)].0;
    }
    if p.age < 22 && draw.percent(60) {
        return 10 + draw.below(26);
    }
    if p.sex == FEMALE && draw.percent(15) {
        return 15 + draw.below(21);
    }
    let long = matches!(p.occupation, EXEC | PROF | FARMING | TRANSPORT)
        || matches!(p.workclass, SELF_EMP_NOT_INC | SELF_EMP_INC);
    if draw.percent(if long { 35 } else { 55 }) {
        return 40;
    }
    let h = if long && draw.percent(70) {
        41 + draw.below(35)
    } else {
        20 + draw.below(31)
    };
    // People report round numbers.
    let h = if draw.percent(60) { (h + 2) / 5 * 5 } else { h };
    h.clamp(1, 99)
}

fn salary(draw: &mut Draw, p: &Person, region: &Region) -> usize {
    let mut odds = SALARY_ODDS_BY_EDU[p.education] * SALARY_OCCUPATION_MULT[p.occupation];
    odds *= match p.marital {
        MARRIED_CIV => 3.0,
        NEVER_MARRIED => 0.35,
        _ => 0.6,
    };
    odds *= match p.age {
        ..=24 => 0.08,
        25..=29 => 0.4,
        30..=34 => 0.8,
        35..=59 => 1.2,
        _ => 0.8,
    };
    odds *= match p.hours {
        ..=29 => 0.3,
        30..=44 => 1.0,
        _ => 1.9,
    };
    if p.workclass == SELF_EMP_INC {
        odds *= 1.8;
    }
    if p.sex == FEMALE {
        odds *= 0.7;
    }
    odds *= region.salary_mult;
    usize::from(draw.chance(odds / (1.0 + odds)))
}

#[derive(Default)]
struct Person {
    region: usize,
    zip: u32,
    sex: usize,
    age: u32,
    race: usize,
    marital: usize,
    education: usize,
    country: Option<usize>,
    workclass: usize,
    occupation: usize,
    hours: u32,
    retired: bool,
    salary: usize,
}

fn census_person(draw: &mut Draw, m: &Model) -> Person {
    let mut p = Person {
        region: m.region.pick(draw),
        ..Person::default()
    };
    let region = &REGIONS[p.region];
    let d4 = m.digit4[p.region].pick(draw) as u32;
    let d5 = m.digit5[p.region].pick(draw) as u32;
    p.zip = region.prefix * 100 + d4 * 10 + d5;
    p.sex = m.sex(draw);
    let old = region.old_share > 0.0 && draw.chance(region.old_share);
    let ages = if old { &m.old_age } else { &m.age };
    p.age = MIN_AGE + ages.pick(draw) as u32;
    p.race = if region.urban {
        m.race_urban.pick(draw)
    } else {
        m.race_other.pick(draw)
    };
    let foreign = FOREIGN_BY_RACE[p.race] * if region.urban { 1.5 } else { 0.6 };
    if draw.chance(foreign) {
        p.country = Some(m.countries[p.race].pick(draw));
    }
    p.marital = m.marital[marital_band(p.age)][p.sex].pick(draw);
    p.education = m.education(draw, p.age);
    p.occupation = m.occupation(draw, p.education, p.sex, p.age);
    p.retired = m.retired(draw, p.age);
    p.workclass = m.workclass[p.occupation][usize::from(p.retired)].pick(draw);
    p.hours = hours(draw, m, &p);
    p.salary = salary(draw, &p, region);
    p
}

// ---------------------------------------------------------------------------
// Output.

/// Rows go into one reusable buffer that is handed to the writer in large
/// chunks.
struct RowSink<W: Write> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> RowSink<W> {
    fn new(out: W) -> Self {
        Self {
            out,
            buf: Vec::with_capacity(CHUNK + 1024),
        }
    }

    fn text(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    fn num(&mut self, mut n: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&digits[i..]);
    }

    fn comma(&mut self) {
        self.buf.push(b',');
    }

    fn header(&mut self, names: &[&str]) {
        self.text(&names.join(","));
        self.end_row();
    }

    fn end_row(&mut self) {
        self.buf.push(b'\n');
    }

    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.out.flush()
    }
}

/// Census-like table for scale tests: columns [`CENSUS_COLUMNS`]
/// (sex, age, race, marital-status, education, native-country, workclass,
/// occupation, hours-per-week, zip, salary-class), comma-separated, with a
/// header. The same `seed` always gives the same bytes.
pub fn write_census<W: Write>(out: W, rows: u64, seed: u64) -> io::Result<()> {
    let model = Model::new();
    let mut draw = Draw::new(seed);
    let mut sink = RowSink::new(out);
    sink.header(&CENSUS_COLUMNS);
    for _ in 0..rows {
        let p = census_person(&mut draw, &model);
        sink.text(SEX[p.sex]);
        sink.comma();
        sink.num(p.age);
        sink.comma();
        sink.text(RACE[p.race]);
        sink.comma();
        sink.text(MARITAL[p.marital]);
        sink.comma();
        sink.text(EDUCATION[p.education]);
        sink.comma();
        sink.text(p.country.map_or(US, |c| COUNTRIES_BY_RACE[p.race][c].0));
        sink.comma();
        sink.text(WORKCLASS[p.workclass]);
        sink.comma();
        sink.text(OCCUPATION[p.occupation]);
        sink.comma();
        sink.num(p.hours);
        sink.comma();
        sink.num(p.zip);
        sink.comma();
        sink.text(SALARY[p.salary]);
        sink.end_row();
        sink.maybe_flush()?;
    }
    sink.finish()
}

/// The embedded demo: [`DEMO_ROWS`] hospital patients with columns
/// [`DEMO_COLUMNS`]: `name` (identifier, unique), `sex`, `age`, `zip`
/// (quasi-identifiers), `occupation` (semi-sensitive; empty for some
/// retirees), `hide_occupation` (`1` where that patient considers the
/// occupation cell sensitive, about one row in five) and `disease`
/// (sensitive).
pub fn write_demo<W: Write>(out: W, seed: u64) -> io::Result<()> {
    let model = Model::new();
    let mut draw = Draw::new(seed);
    let patient_ages = ages(patient_age_weight);
    let zips = Weighted::new(DEMO_ZIPS.iter().map(|&(_, w)| w));
    let male_names = FIRST_MALE.len() as u32;
    let female_names = FIRST_FEMALE.len() as u32;
    let diseases: Vec<[Weighted; 2]> = DISEASE_BY_AGE
        .iter()
        .map(|row| {
            [
                scaled(row, &DISEASE_SEX_PCT[MALE]),
                scaled(row, &DISEASE_SEX_PCT[FEMALE]),
            ]
        })
        .collect();

    // The very old patients from rare zips sit at random distinct rows.
    let mut rare_rows: Vec<usize> = Vec::with_capacity(DEMO_RARE_ZIPS.len());
    while rare_rows.len() < DEMO_RARE_ZIPS.len() {
        let row = draw.below(DEMO_ROWS as u32) as usize;
        if !rare_rows.contains(&row) {
            rare_rows.push(row);
        }
    }

    let mut names = std::collections::HashSet::with_capacity(DEMO_ROWS);
    let mut name = String::new();
    let mut sink = RowSink::new(out);
    sink.header(&DEMO_COLUMNS);
    for row in 0..DEMO_ROWS {
        // Patients, unlike the employed, are about as often women as men.
        let sex = usize::from(draw.percent(52));
        let rare = rare_rows.iter().position(|&r| r == row);
        let (age, zip) = match rare {
            Some(k) => (84 + draw.below(7), DEMO_RARE_ZIPS[k]),
            None => (
                MIN_AGE + patient_ages.pick(&mut draw) as u32,
                DEMO_ZIPS[zips.pick(&mut draw)].0,
            ),
        };
        let education = model.education(&mut draw, age);
        let occupation = model.occupation(&mut draw, education, sex, age);
        // Hospitals sometimes record no occupation for retirees.
        let unrecorded = model.retired(&mut draw, age) && draw.percent(5);
        let band = match age {
            ..=29 => 0,
            30..=49 => 1,
            50..=69 => 2,
            _ => 3,
        };
        let disease = diseases[band][sex].pick(&mut draw);
        let hide_pct = HIDE_OCCUPATION_PCT[occupation] * if disease == HIV { 2 } else { 1 };
        let hide = !unrecorded && draw.percent(hide_pct);

        // Identifiers must be unique: redraw on the rare collision.
        loop {
            let first = if sex == FEMALE {
                FIRST_FEMALE[draw.below(female_names) as usize]
            } else {
                FIRST_MALE[draw.below(male_names) as usize]
            };
            let initial = char::from(b'A' + draw.below(26) as u8);
            let last = SURNAMES[draw.below(SURNAMES.len() as u32) as usize];
            name.clear();
            name.push_str(first);
            name.push(' ');
            name.push(initial);
            name.push_str(". ");
            name.push_str(last);
            if names.insert(name.clone()) {
                break;
            }
        }

        sink.text(&name);
        sink.comma();
        sink.text(SEX[sex]);
        sink.comma();
        sink.num(age);
        sink.comma();
        sink.num(zip);
        sink.comma();
        if !unrecorded {
            sink.text(OCCUPATION[occupation]);
        }
        sink.comma();
        sink.text(if hide { "1" } else { "0" });
        sink.comma();
        sink.text(DISEASE[disease]);
        sink.end_row();
        sink.maybe_flush()?;
    }
    sink.finish()
}

#[cfg(test)]
mod tests;
