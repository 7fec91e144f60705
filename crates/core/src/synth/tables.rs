//! The census tables the generator draws from: Adult's vocabularies and
//! the weights that tie them together (a data table, kept apart from the
//! generator that reads it).

// ---------------------------------------------------------------------------
// Vocabularies (Adult's spellings). The order of each array is the index used
// by the weight tables below.

pub(super) const SEX: [&str; 2] = ["Male", "Female"];
pub(super) const MALE: usize = 0;
pub(super) const FEMALE: usize = 1;

pub(super) const RACE: [&str; 5] = [
    "White",
    "Black",
    "Asian-Pac-Islander",
    "Amer-Indian-Eskimo",
    "Other",
];

pub(super) const MARITAL: [&str; 7] = [
    "Married-civ-spouse",
    "Never-married",
    "Divorced",
    "Separated",
    "Widowed",
    "Married-spouse-absent",
    "Married-AF-spouse",
];
pub(super) const MARRIED_CIV: usize = 0;
pub(super) const NEVER_MARRIED: usize = 1;

/// Ordered from least to most schooling.
pub(super) const EDUCATION: [&str; 16] = [
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

pub(super) const WORKCLASS: [&str; 7] = [
    "Private",
    "Self-emp-not-inc",
    "Self-emp-inc",
    "Federal-gov",
    "Local-gov",
    "State-gov",
    "Without-pay",
];
pub(super) const SELF_EMP_NOT_INC: usize = 1;
pub(super) const SELF_EMP_INC: usize = 2;

pub(super) const OCCUPATION: [&str; 14] = [
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
pub(super) const EXEC: usize = 4;
pub(super) const PROF: usize = 5;
pub(super) const FARMING: usize = 9;
pub(super) const TRANSPORT: usize = 10;

pub(super) const SALARY: [&str; 2] = ["<=50K", ">50K"];

pub(super) const US: &str = "United-States";

// ---------------------------------------------------------------------------
// Census model tables.

/// Marital status by age band (<25, 25–34, 35–44, 45–59, 60–74, 75+), per
/// mille, close to Adult's.
pub(super) const MARITAL_BY_AGE: [[u32; 7]; 6] = [
    [90, 870, 20, 12, 1, 8, 1],
    [420, 430, 100, 30, 3, 15, 2],
    [570, 170, 200, 40, 8, 12, 1],
    [620, 80, 200, 30, 50, 18, 0],
    [620, 60, 120, 20, 170, 10, 0],
    [450, 50, 60, 10, 430, 0, 0],
];
/// Per-sex multipliers (percent) on the marital weights: women outlive
/// their husbands, and Adult records households through the husband.
pub(super) const MARITAL_SEX_PCT: [[u32; 7]; 2] = [
    [115, 100, 85, 90, 40, 100, 100],
    [70, 100, 130, 120, 300, 100, 100],
];

/// Education for ages 17–18, 19–22, 23–29, 30–59, 60+ (per ten thousand).
/// Teenagers are still at school; higher degrees need years; older
/// cohorts had less schooling.
#[rustfmt::skip]
pub(super) const EDUCATION_BY_AGE: [[u32; 16]; 5] = [
    [0, 0, 10, 60, 900, 2500, 3500, 2200, 830, 0, 0, 0, 0, 0, 0, 0],
    [0, 10, 20, 60, 120, 250, 500, 450, 3300, 4800, 230, 240, 20, 0, 0, 0],
    [5, 30, 70, 110, 120, 240, 310, 160, 3000, 2700, 420, 380, 1900, 450, 60, 25],
    [15, 50, 95, 170, 150, 270, 330, 120, 3260, 2150, 450, 340, 1700, 600, 200, 140],
    [30, 110, 170, 420, 230, 280, 250, 80, 3500, 1700, 300, 220, 1400, 620, 260, 180],
];

/// Occupation weights by education group (below high school, HS-grad, some
/// college or associate, Bachelors, graduate or professional school).
pub(super) const OCCUPATION_BY_EDU: [[u32; 14]; 5] = [
    [5, 160, 220, 80, 25, 10, 120, 140, 40, 70, 70, 15, 10, 1],
    [20, 200, 120, 110, 80, 25, 55, 95, 135, 40, 75, 5, 25, 1],
    [45, 130, 95, 130, 120, 75, 35, 50, 170, 25, 45, 2, 30, 1],
    [40, 40, 30, 170, 260, 280, 10, 15, 90, 12, 15, 1, 18, 1],
    [20, 10, 10, 70, 230, 620, 2, 3, 25, 5, 3, 0, 8, 1],
];
/// Percent of women in each occupation (Adult's shares, rounded).
pub(super) const OCCUPATION_FEMALE_PCT: [u32; 14] =
    [37, 5, 55, 35, 29, 37, 12, 28, 68, 7, 6, 94, 12, 0];
/// Percent multipliers for people under 25: service and entry jobs, few
/// managers.
pub(super) const OCCUPATION_YOUNG_PCT: [u32; 14] = [
    100, 80, 200, 150, 30, 50, 200, 100, 120, 100, 70, 100, 70, 200,
];

/// Workclass weights by occupation.
pub(super) const WORKCLASS_BY_OCCUPATION: [[u32; 7]; 14] = [
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
pub(super) const WORKCLASS_RETIREE_PCT: [u32; 7] = [60, 400, 150, 50, 60, 60, 800];

/// Salary odds (>50K : <=50K) by education, before the multipliers below.
pub(super) const SALARY_ODDS_BY_EDU: [f64; 16] = [
    0.01, 0.02, 0.03, 0.05, 0.05, 0.06, 0.05, 0.06, 0.17, 0.21, 0.27, 0.28, 0.70, 1.2, 2.6, 2.4,
];
pub(super) const SALARY_OCCUPATION_MULT: [f64; 14] = [
    1.3, 1.0, 0.3, 1.1, 2.0, 1.5, 0.4, 0.6, 0.6, 0.5, 0.8, 0.1, 1.2, 0.8,
];

/// A zip region: a 3-digit prefix and its inner structure.
pub(super) struct Region {
    pub(super) prefix: u32,
    /// Share of the population (relative).
    pub(super) weight: u32,
    /// Weights of the 4th and 5th digits.
    pub(super) digit4: [u32; 10],
    pub(super) digit5: [u32; 10],
    pub(super) urban: bool,
    /// Probability that a resident is drawn from the old-age table instead
    /// (rural areas keep their retirees).
    pub(super) old_share: f64,
    pub(super) salary_mult: f64,
}

pub(super) const REGIONS: [Region; 6] = [
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

pub(super) const RACE_URBAN: [u32; 5] = [760, 150, 55, 5, 30];
pub(super) const RACE_OTHER: [u32; 5] = [910, 55, 15, 13, 7];
/// Probability of being born abroad, by race.
pub(super) const FOREIGN_BY_RACE: [f64; 5] = [0.055, 0.06, 0.6, 0.01, 0.5];
/// Countries of birth abroad, by race.
pub(super) const COUNTRIES_BY_RACE: [&[(&str, u32)]; 5] = [
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
pub(super) const RETIREE_HOURS: [(u32, u32); 10] = [
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

pub(super) const DISEASE: [&str; 10] = [
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
pub(super) const HIV: usize = 6;
/// Disease weights by age band (<30, 30–49, 50–69, 70+).
pub(super) const DISEASE_BY_AGE: [[u32; 10]; 4] = [
    [300, 90, 120, 130, 60, 70, 40, 15, 5, 5],
    [200, 130, 150, 100, 40, 80, 50, 70, 40, 35],
    [130, 120, 110, 90, 70, 40, 12, 150, 130, 110],
    [100, 80, 70, 110, 170, 15, 2, 140, 190, 130],
];
/// Percent multipliers on disease weights, by sex.
pub(super) const DISEASE_SEX_PCT: [[u32; 10]; 2] = [
    [100, 100, 100, 100, 100, 120, 200, 100, 140, 100],
    [100, 100, 100, 100, 100, 80, 50, 100, 70, 100],
];

/// Percent of people who consider their occupation sensitive, by
/// occupation: security and armed-forces jobs, and jobs people prefer not to
/// name, are hidden more often.
pub(super) const HIDE_OCCUPATION_PCT: [u32; 14] =
    [12, 12, 27, 15, 20, 15, 30, 12, 12, 15, 15, 45, 50, 70];

/// Zip codes of the demo's patients with their relative weights: the
/// cross-bucket paper's 433xx codes dominate, neighbouring areas follow.
pub(super) const DEMO_ZIPS: [(u32, u32); 21] = [
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
pub(super) const DEMO_RARE_ZIPS: [u32; 8] =
    [47102, 47116, 47125, 47133, 47140, 47151, 47162, 47178];

#[rustfmt::skip]
pub(super) const FIRST_MALE: [&str; 30] = [
    "Mark", "James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph", "Thomas",
    "Charles", "Daniel", "Matthew", "Anthony", "Paul", "Steven", "Andrew", "Kenneth", "Joshua", "Kevin",
    "Brian", "George", "Edward", "Ronald", "Timothy", "Jason", "Jeffrey", "Ryan", "Jacob", "Gary",
];
#[rustfmt::skip]
pub(super) const FIRST_FEMALE: [&str; 30] = [
    "Alice", "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah",
    "Karen", "Nancy", "Lisa", "Betty", "Margaret", "Sandra", "Ashley", "Dorothy", "Kimberly", "Emily",
    "Donna", "Michelle", "Carol", "Amanda", "Melissa", "Deborah", "Helen", "Laura", "Ruth", "Anna",
];
#[rustfmt::skip]
pub(super) const SURNAMES: [&str; 60] = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
    "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
    "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
    "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
    "Chen", "Patel", "Kim", "Murphy", "Cook", "Rogers", "Morgan", "Cooper", "Peterson", "Reed",
];
