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

const MIN_AGE: u32 = 17;
const MAX_AGE: u32 = 90;
/// Flush the row buffer to the writer once it holds this many bytes.
const CHUNK: usize = 64 * 1024;

// ---------------------------------------------------------------------------
// Vocabularies (Adult's spellings). The order of each array is the index used
// by the weight tables below.

const SEX: [&str; 2] = ["Male", "Female"];
const MALE: usize = 0;
const FEMALE: usize = 1;

const RACE: [&str; 5] = [
    "White",
    "Black",
    "Asian-Pac-Islander",
    "Amer-Indian-Eskimo",
    "Other",
];

const MARITAL: [&str; 7] = [
    "Married-civ-spouse",
    "Never-married",
    "Divorced",
    "Separated",
    "Widowed",
    "Married-spouse-absent",
    "Married-AF-spouse",
];
const MARRIED_CIV: usize = 0;
const NEVER_MARRIED: usize = 1;

/// Ordered from least to most schooling.
const EDUCATION: [&str; 16] = [
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
];

const WORKCLASS: [&str; 7] = [
    "Private",
    "Self-emp-not-inc",
    "Self-emp-inc",
    "Federal-gov",
    "Local-gov",
    "State-gov",
    "Without-pay",
];
const SELF_EMP_NOT_INC: usize = 1;
const SELF_EMP_INC: usize = 2;

const OCCUPATION: [&str; 14] = [
    "Tech-support",
    "Craft-repair",
    "Other-service",
    "Sales",
    "Exec-managerial",
    "Prof-specialty",
    "Handlers-cleaners",
    "Machine-op-inspct",
    "Adm-clerical",
    "Farming-fishing",
    "Transport-moving",
    "Priv-house-serv",
    "Protective-serv",
    "Armed-Forces",
];
const EXEC: usize = 4;
const PROF: usize = 5;
const FARMING: usize = 9;
const TRANSPORT: usize = 10;

const SALARY: [&str; 2] = ["<=50K", ">50K"];

const US: &str = "United-States";

// ---------------------------------------------------------------------------
// Census model tables.

/// Marital status by age band (<25, 25–34, 35–44, 45–59, 60–74, 75+), per
/// mille, close to Adult's.
const MARITAL_BY_AGE: [[u32; 7]; 6] = [
    [90, 870, 20, 12, 1, 8, 1],
    [420, 430, 100, 30, 3, 15, 2],
    [570, 170, 200, 40, 8, 12, 1],
    [620, 80, 200, 30, 50, 18, 0],
    [620, 60, 120, 20, 170, 10, 0],
    [450, 50, 60, 10, 430, 0, 0],
];
/// Per-sex multipliers (percent) on the marital weights: women outlive
/// their husbands, and Adult records households through the husband.
const MARITAL_SEX_PCT: [[u32; 7]; 2] = [
    [115, 100, 85, 90, 40, 100, 100],
    [70, 100, 130, 120, 300, 100, 100],
];

/// Education for ages 17–18, 19–22, 23–29, 30–59, 60+ (per ten thousand).
/// Teenagers are still at school; higher degrees need years; older
/// cohorts had less schooling.
#[rustfmt::skip]
const EDUCATION_BY_AGE: [[u32; 16]; 5] = [
    [0, 0, 10, 60, 900, 2500, 3500, 2200, 830, 0, 0, 0, 0, 0, 0, 0],
    [0, 10, 20, 60, 120, 250, 500, 450, 3300, 4800, 230, 240, 20, 0, 0, 0],
    [5, 30, 70, 110, 120, 240, 310, 160, 3000, 2700, 420, 380, 1900, 450, 60, 25],
    [15, 50, 95, 170, 150, 270, 330, 120, 3260, 2150, 450, 340, 1700, 600, 200, 140],
    [30, 110, 170, 420, 230, 280, 250, 80, 3500, 1700, 300, 220, 1400, 620, 260, 180],
];

/// Occupation weights by education group (below high school, HS-grad, some
/// college or associate, Bachelors, graduate or professional school).
const OCCUPATION_BY_EDU: [[u32; 14]; 5] = [
    [5, 160, 220, 80, 25, 10, 120, 140, 40, 70, 70, 15, 10, 1],
    [20, 200, 120, 110, 80, 25, 55, 95, 135, 40, 75, 5, 25, 1],
    [45, 130, 95, 130, 120, 75, 35, 50, 170, 25, 45, 2, 30, 1],
    [40, 40, 30, 170, 260, 280, 10, 15, 90, 12, 15, 1, 18, 1],
    [20, 10, 10, 70, 230, 620, 2, 3, 25, 5, 3, 0, 8, 1],
];
/// Percent of women in each occupation (Adult's shares, rounded).
const OCCUPATION_FEMALE_PCT: [u32; 14] = [37, 5, 55, 35, 29, 37, 12, 28, 68, 7, 6, 94, 12, 0];
/// Percent multipliers for people under 25: service and entry jobs, few
/// managers.
const OCCUPATION_YOUNG_PCT: [u32; 14] = [
    100, 80, 200, 150, 30, 50, 200, 100, 120, 100, 70, 100, 70, 200,
];

/// Workclass weights by occupation.
const WORKCLASS_BY_OCCUPATION: [[u32; 7]; 14] = [
    [760, 20, 15, 80, 50, 75, 0],
    [760, 120, 40, 25, 35, 20, 0],
    [830, 60, 10, 10, 55, 35, 1],
    [800, 80, 100, 5, 5, 10, 0],
    [650, 90, 110, 60, 50, 40, 0],
    [540, 90, 40, 40, 160, 130, 0],
    [930, 20, 5, 10, 25, 10, 0],
    [930, 20, 5, 10, 25, 10, 0],
    [700, 20, 15, 90, 90, 85, 1],
    [450, 400, 60, 5, 20, 15, 50],
    [800, 80, 20, 15, 65, 20, 0],
    [980, 20, 0, 0, 0, 0, 0],
    [250, 10, 5, 70, 500, 165, 0],
    [0, 0, 0, 1000, 0, 0, 0],
];
/// Percent multipliers on workclass for retirees who still report work:
/// they run their own small business or farm, or help without pay.
const WORKCLASS_RETIREE_PCT: [u32; 7] = [60, 400, 150, 50, 60, 60, 800];

/// Salary odds (>50K : <=50K) by education, before the multipliers below.
const SALARY_ODDS_BY_EDU: [f64; 16] = [
    0.01, 0.02, 0.03, 0.05, 0.05, 0.06, 0.05, 0.06, 0.17, 0.21, 0.27, 0.28, 0.70, 1.2, 2.6, 2.4,
];
const SALARY_OCCUPATION_MULT: [f64; 14] = [
    1.3, 1.0, 0.3, 1.1, 2.0, 1.5, 0.4, 0.6, 0.6, 0.5, 0.8, 0.1, 1.2, 0.8,
];

/// A zip region: a 3-digit prefix and its inner structure.
struct Region {
    prefix: u32,
    /// Share of the population (relative).
    weight: u32,
    /// Weights of the 4th and 5th digits.
    digit4: [u32; 10],
    digit5: [u32; 10],
    urban: bool,
    /// Probability that a resident is drawn from the old-age table instead
    /// (rural areas keep their retirees).
    old_share: f64,
    salary_mult: f64,
}

const REGIONS: [Region; 6] = [
    Region {
        prefix: 433,
        weight: 42,
        digit4: [50, 25, 8, 5, 4, 3, 2, 1, 1, 1],
        digit5: [6, 8, 20, 5, 4, 6, 14, 18, 4, 15],
        urban: true,
        old_share: 0.0,
        salary_mult: 1.0,
    },
    Region {
        prefix: 430,
        weight: 20,
        digit4: [30, 30, 15, 10, 5, 4, 3, 1, 1, 1],
        digit5: [20, 15, 12, 10, 9, 8, 8, 7, 6, 5],
        urban: false,
        old_share: 0.05,
        salary_mult: 1.7,
    },
    Region {
        prefix: 410,
        weight: 16,
        digit4: [20, 12, 10, 8, 6, 5, 5, 4, 10, 20],
        digit5: [4, 6, 8, 10, 12, 12, 10, 10, 12, 16],
        urban: true,
        old_share: 0.0,
        salary_mult: 0.9,
    },
    Region {
        prefix: 441,
        weight: 12,
        digit4: [40, 20, 15, 10, 5, 4, 3, 1, 1, 1],
        digit5: [30, 18, 13, 10, 8, 6, 5, 4, 3, 3],
        urban: false,
        old_share: 0.05,
        salary_mult: 0.8,
    },
    Region {
        prefix: 458,
        weight: 7,
        digit4: [60, 20, 10, 5, 2, 1, 1, 1, 0, 0],
        digit5: [30, 18, 13, 10, 8, 6, 5, 4, 3, 3],
        urban: false,
        old_share: 0.25,
        salary_mult: 0.7,
    },
    Region {
        prefix: 471,
        weight: 3,
        digit4: [50, 30, 10, 5, 5, 0, 0, 0, 0, 0],
        digit5: [30, 20, 10, 10, 10, 5, 5, 5, 3, 2],
        urban: false,
        old_share: 0.35,
        salary_mult: 0.7,
    },
];

const RACE_URBAN: [u32; 5] = [760, 150, 55, 5, 30];
const RACE_OTHER: [u32; 5] = [910, 55, 15, 13, 7];
/// Probability of being born abroad, by race.
const FOREIGN_BY_RACE: [f64; 5] = [0.055, 0.06, 0.6, 0.01, 0.5];
/// Countries of birth abroad, by race.
const COUNTRIES_BY_RACE: [&[(&str, u32)]; 5] = [
    &[
        ("Mexico", 300),
        ("Germany", 70),
        ("Canada", 60),
        ("England", 50),
        ("Puerto-Rico", 40),
        ("Cuba", 40),
        ("Italy", 40),
        ("Poland", 30),
        ("El-Salvador", 30),
        ("Columbia", 20),
        ("Ireland", 12),
        ("France", 12),
        ("Greece", 15),
        ("Portugal", 18),
        ("Iran", 20),
        ("Hungary", 6),
        ("Yugoslavia", 8),
        ("Scotland", 5),
        ("Holand-Netherlands", 1),
        ("Peru", 10),
        ("Ecuador", 10),
        ("Nicaragua", 10),
        ("Guatemala", 20),
        ("Honduras", 5),
        ("Dominican-Republic", 10),
    ],
    &[
        ("Jamaica", 80),
        ("Haiti", 40),
        ("Trinadad&Tobago", 20),
        ("Dominican-Republic", 20),
        ("Puerto-Rico", 20),
        ("Cuba", 10),
        ("Outlying-US(Guam-USVI-etc)", 15),
        ("South", 10),
    ],
    &[
        ("Philippines", 190),
        ("India", 100),
        ("China", 70),
        ("Vietnam", 65),
        ("Japan", 55),
        ("Taiwan", 40),
        ("South", 60),
        ("Cambodia", 18),
        ("Laos", 17),
        ("Thailand", 17),
        ("Hong", 19),
    ],
    &[("Mexico", 10), ("Canada", 10)],
    &[
        ("Mexico", 200),
        ("Puerto-Rico", 50),
        ("El-Salvador", 40),
        ("Columbia", 30),
        ("Dominican-Republic", 30),
        ("Guatemala", 20),
        ("Peru", 15),
        ("Ecuador", 15),
        ("Cuba", 15),
    ],
];

/// Hours worked by retirees who still work.
const RETIREE_HOURS: [(u32, u32); 10] = [
    (4, 3),
    (8, 8),
    (10, 10),
    (12, 6),
    (15, 12),
    (16, 6),
    (20, 25),
    (24, 8),
    (25, 10),
    (30, 12),
];

// ---------------------------------------------------------------------------
// Demo tables.

const DISEASE: [&str; 10] = [
    "Flu",
    "Gastritis",
    "Dyspepsia",
    "Bronchitis",
    "Pneumonia",
    "Hepatitis",
    "HIV",
    "Diabetes",
    "Heart-disease",
    "Cancer",
];
const HIV: usize = 6;
/// Disease weights by age band (<30, 30–49, 50–69, 70+).
const DISEASE_BY_AGE: [[u32; 10]; 4] = [
    [300, 90, 120, 130, 60, 70, 40, 15, 5, 5],
    [200, 130, 150, 100, 40, 80, 50, 70, 40, 35],
    [130, 120, 110, 90, 70, 40, 12, 150, 130, 110],
    [100, 80, 70, 110, 170, 15, 2, 140, 190, 130],
];
/// Percent multipliers on disease weights, by sex.
const DISEASE_SEX_PCT: [[u32; 10]; 2] = [
    [100, 100, 100, 100, 100, 120, 200, 100, 140, 100],
    [100, 100, 100, 100, 100, 80, 50, 100, 70, 100],
];

/// Percent of people who consider their occupation sensitive, by
/// occupation: security and armed-forces jobs, and jobs people prefer not to
/// name, are hidden more often.
const HIDE_OCCUPATION_PCT: [u32; 14] = [12, 12, 27, 15, 20, 15, 30, 12, 12, 15, 15, 45, 50, 70];

/// Zip codes of the demo's patients with their relative weights: the
/// cross-bucket paper's 433xx codes dominate, neighbouring areas follow.
const DEMO_ZIPS: [(u32, u32); 21] = [
    (43302, 14),
    (43306, 9),
    (43307, 16),
    (43309, 12),
    (43312, 8),
    (43301, 5),
    (43305, 4),
    (43310, 5),
    (43311, 3),
    (43020, 7),
    (43021, 6),
    (43026, 4),
    (43028, 3),
    (41099, 8),
    (41091, 5),
    (41094, 3),
    (41001, 4),
    (44101, 5),
    (44105, 3),
    (45802, 3),
    (45811, 2),
];
/// Rare rural codes, one per very old patient, so that each of them is
/// unique on zip alone.
const DEMO_RARE_ZIPS: [u32; 8] = [47102, 47116, 47125, 47133, 47140, 47151, 47162, 47178];

#[rustfmt::skip]
const FIRST_MALE: [&str; 30] = [
    "Mark", "James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas",
    "Charles", "Daniel", "Matthew", "Anthony", "Paul", "Steven", "Andrew", "Kenneth", "Joshua", "Kevin",
    "Brian", "George", "Edward", "Ronald", "Timothy", "Jason", "Jeffrey", "Ryan", "Jacob", "Gary",
];
#[rustfmt::skip]
const FIRST_FEMALE: [&str; 30] = [
    "Alice", "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah",
    "Karen", "Nancy", "Lisa", "Betty", "Margaret", "Sandra", "Ashley", "Dorothy", "Kimberly", "Emily",
    "Donna", "Michelle", "Carol", "Amanda", "Melissa", "Deborah", "Helen", "Laura", "Ruth", "Anna",
];
#[rustfmt::skip]
const SURNAMES: [&str; 60] = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
    "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
    "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
    "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
    "Chen", "Patel", "Kim", "Murphy", "Cook", "Rogers", "Morgan", "Cooper", "Peterson", "Reed",
];

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
mod tests {
    use super::*;

    fn census(rows: u64, seed: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write_census(&mut out, rows, seed).unwrap();
        out
    }

    fn demo(seed: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write_demo(&mut out, seed).unwrap();
        out
    }

    fn records(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
        let mut reader = csv::Reader::from_reader(bytes);
        let header = reader.headers().unwrap().iter().map(String::from).collect();
        let rows = reader
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        (header, rows)
    }

    fn share(rows: &[&Vec<String>], pred: impl Fn(&Vec<String>) -> bool) -> f64 {
        rows.iter().filter(|r| pred(r)).count() as f64 / rows.len() as f64
    }

    #[test]
    fn census_is_deterministic_per_seed() {
        assert_eq!(census(5000, 7), census(5000, 7));
        assert_ne!(census(5000, 7), census(5000, 8));
    }

    #[test]
    fn census_prefix_does_not_depend_on_row_count() {
        let long = census(3000, 11);
        let short = census(1000, 11);
        assert!(long.starts_with(&short));
    }

    #[test]
    fn census_header_and_row_count() {
        let (header, rows) = records(&census(2500, 1));
        assert_eq!(header, CENSUS_COLUMNS);
        assert_eq!(rows.len(), 2500);
        assert!(rows.iter().all(|r| r.len() == CENSUS_COLUMNS.len()));
        let (header, rows) = records(&census(0, 1));
        assert_eq!(header, CENSUS_COLUMNS);
        assert!(rows.is_empty());
    }

    #[test]
    fn census_values_in_range_and_vocabulary() {
        let (_, rows) = records(&census(20_000, 3));
        let countries: Vec<&str> = COUNTRIES_BY_RACE
            .iter()
            .flat_map(|l| l.iter().map(|&(c, _)| c))
            .chain([US])
            .collect();
        for r in &rows {
            assert!(SEX.contains(&r[0].as_str()));
            let age: u32 = r[1].parse().unwrap();
            assert!((MIN_AGE..=MAX_AGE).contains(&age), "age {age}");
            assert!(RACE.contains(&r[2].as_str()));
            assert!(MARITAL.contains(&r[3].as_str()));
            assert!(EDUCATION.contains(&r[4].as_str()));
            assert!(countries.contains(&r[5].as_str()));
            assert!(WORKCLASS.contains(&r[6].as_str()));
            assert!(OCCUPATION.contains(&r[7].as_str()));
            let hours: u32 = r[8].parse().unwrap();
            assert!((1..=99).contains(&hours), "hours {hours}");
            assert_eq!(r[9].len(), 5);
            let zip: u32 = r[9].parse().unwrap();
            assert!(REGIONS.iter().any(|g| zip / 100 == g.prefix), "zip {zip}");
            assert!(SALARY.contains(&r[10].as_str()));
        }
        let all: Vec<&Vec<String>> = rows.iter().collect();
        let us = share(&all, |r| r[5] == US);
        assert!((0.85..0.95).contains(&us), "United-States share {us}");
        let rich = share(&all, |r| r[10] == ">50K");
        assert!((0.18..0.32).contains(&rich), ">50K share {rich}");
        let male = share(&all, |r| r[0] == "Male");
        assert!((0.62..0.72).contains(&male), "male share {male}");
    }

    #[test]
    fn no_value_needs_csv_quoting() {
        let needs_quote = |s: &str| s.contains([',', '"', '\n', '\r']) || s.trim() != s;
        let all = SEX
            .iter()
            .chain(&RACE)
            .chain(&MARITAL)
            .chain(&EDUCATION)
            .chain(&WORKCLASS)
            .chain(&OCCUPATION)
            .chain(&SALARY)
            .chain(&DISEASE)
            .chain(&FIRST_MALE)
            .chain(&FIRST_FEMALE)
            .chain(&SURNAMES)
            .copied()
            .chain(
                COUNTRIES_BY_RACE
                    .iter()
                    .flat_map(|l| l.iter().map(|&(c, _)| c)),
            );
        for v in all {
            assert!(!needs_quote(v), "{v:?} would need quoting");
        }
    }

    #[test]
    fn census_correlations_are_present() {
        let (_, rows) = records(&census(20_000, 42));
        let age = |r: &Vec<String>| r[1].parse::<u32>().unwrap();
        let young: Vec<_> = rows.iter().filter(|r| age(r) < 25).collect();
        let older: Vec<_> = rows.iter().filter(|r| age(r) > 45).collect();
        let never = |r: &Vec<String>| r[3] == "Never-married";
        let (y, o) = (share(&young, never), share(&older, never));
        assert!(
            y > 0.7 && o < 0.15,
            "Never-married: {y} under 25, {o} over 45"
        );

        let of = |occ: &str| -> Vec<&Vec<String>> { rows.iter().filter(|r| r[7] == occ).collect() };
        let male = |r: &Vec<String>| r[0] == "Male";
        let craft = share(&of("Craft-repair"), male);
        let clerical = share(&of("Adm-clerical"), male);
        assert!(
            craft > 0.85 && clerical < 0.45,
            "male share: craft {craft}, clerical {clerical}"
        );

        let by_edu = |edu: &[&str]| -> Vec<&Vec<String>> {
            rows.iter()
                .filter(|r| edu.contains(&r[4].as_str()))
                .collect()
        };
        let degree = by_edu(&["Bachelors", "Masters", "Prof-school", "Doctorate"]);
        let school = by_edu(&["HS-grad", "11th", "10th", "9th"]);
        let prof = |r: &Vec<String>| r[7] == "Prof-specialty";
        let rich = |r: &Vec<String>| r[10] == ">50K";
        assert!(share(&degree, prof) > 4.0 * share(&school, prof));
        assert!(share(&degree, rich) > 2.5 * share(&school, rich));

        let hours = |r: &Vec<String>| r[8].parse::<u32>().unwrap();
        let mean =
            |rs: &[&Vec<String>]| rs.iter().map(|r| hours(r)).sum::<u32>() as f64 / rs.len() as f64;
        let retirees: Vec<_> = rows.iter().filter(|r| age(r) >= 70).collect();
        let prime: Vec<_> = rows
            .iter()
            .filter(|r| (30..=50).contains(&age(r)))
            .collect();
        assert!(mean(&retirees) + 10.0 < mean(&prime));
    }

    #[test]
    fn census_zips_are_clustered() {
        let (_, rows) = records(&census(20_000, 5));
        let mut by_prefix = std::collections::BTreeMap::<&str, usize>::new();
        let mut distinct = std::collections::BTreeSet::new();
        for r in &rows {
            *by_prefix.entry(&r[9][..3]).or_default() += 1;
            distinct.insert(r[9].as_str());
        }
        assert_eq!(by_prefix.len(), REGIONS.len());
        let biggest = *by_prefix.values().max().unwrap();
        let smallest = *by_prefix.values().min().unwrap();
        assert!(biggest > 8 * smallest, "prefix sizes {by_prefix:?}");
        assert!(distinct.len() > 200, "{} distinct zips", distinct.len());
    }

    #[test]
    fn demo_is_deterministic_and_well_formed() {
        let bytes = demo(DEMO_SEED);
        assert_eq!(bytes, demo(DEMO_SEED));
        assert_ne!(bytes, demo(DEMO_SEED + 1));
        let (header, rows) = records(&bytes);
        assert_eq!(header, DEMO_COLUMNS);
        assert_eq!(rows.len(), DEMO_ROWS);

        let names: std::collections::HashSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(names.len(), DEMO_ROWS, "names are an identifier");
        for r in &rows {
            let age: u32 = r[2].parse().unwrap();
            assert!((MIN_AGE..=MAX_AGE).contains(&age));
            assert!(r[4].is_empty() || OCCUPATION.contains(&r[4].as_str()));
            assert!(r[5] == "0" || r[5] == "1");
            assert!(
                r[4].is_empty() <= (r[5] == "0"),
                "a missing cell is not flagged"
            );
            assert!(DISEASE.contains(&r[6].as_str()));
        }
    }

    #[test]
    fn demo_flags_missing_values_and_unique_records() {
        let (_, rows) = records(&demo(DEMO_SEED));
        let all: Vec<&Vec<String>> = rows.iter().collect();
        let hidden = share(&all, |r| r[5] == "1");
        assert!(
            (0.15..0.25).contains(&hidden),
            "hide_occupation density {hidden}"
        );
        let protective: Vec<_> = rows.iter().filter(|r| r[4] == "Protective-serv").collect();
        assert!(share(&protective, |r| r[5] == "1") > 2.0 * hidden);

        let missing = rows.iter().filter(|r| r[4].is_empty()).count();
        assert!((5..=60).contains(&missing), "{missing} missing occupations");

        let mut keys = std::collections::HashMap::<(&str, &str, &str), usize>::new();
        for r in &rows {
            *keys.entry((&r[1], &r[2], &r[3])).or_default() += 1;
        }
        for &zip in &DEMO_RARE_ZIPS {
            let zip = zip.to_string();
            let here: Vec<_> = rows.iter().filter(|r| r[3] == zip).collect();
            assert_eq!(here.len(), 1, "zip {zip} holds exactly one patient");
            assert!(here[0][2].parse::<u32>().unwrap() >= 84);
            assert_eq!(
                keys[&(here[0][1].as_str(), here[0][2].as_str(), zip.as_str())],
                1
            );
        }

        let age = |r: &Vec<String>| r[2].parse::<u32>().unwrap();
        let old: Vec<_> = rows.iter().filter(|r| age(r) >= 60).collect();
        let young: Vec<_> = rows.iter().filter(|r| age(r) < 40).collect();
        let chronic =
            |r: &Vec<String>| matches!(r[6].as_str(), "Diabetes" | "Heart-disease" | "Cancer");
        assert!(share(&old, chronic) > 2.0 * share(&young, chronic));
    }
}
