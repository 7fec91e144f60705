//! The p-sensitive flags of `anonymize` and `compare` (the p-sensitive
//! k-anonymity paper): the extended model's sensitive-attribute hierarchies
//! and protected values, and `--sample N`, the seeded sample the paper's
//! experiments draw from Adult. p itself is `-p` (shared with full-domain's
//! `--model p-sensitive`, so one p drives all three algorithms of the
//! paper's comparison); several sensitive attributes are several
//! `--sensitive`. Parsed raw by clap, then validated into
//! `algorithms::PkOptions` in one step ([`PkArgs::load`]).

use anyhow::{bail, Context};
use clap::Args;

use anonlab::algorithms::pk::{max_clusters, PkOptions};
use anonlab::algorithms::Options;
use anonlab::data::Dataset;
use anonlab::hierarchy::HierarchySet;

#[derive(Debug, Args, Clone, Default)]
pub struct PkArgs {
    /// Extended p-sensitivity (pk-enhanced, pk-greedy): the hierarchy of a
    /// sensitive attribute, 'COL=FILE' (ARX format; repeat or comma-separate).
    #[arg(long, value_delimiter = ',', value_name = "COL=FILE")]
    pub sa_hierarchy: Vec<String>,
    /// Extended p-sensitivity: protected values of those hierarchies (their
    /// subtrees are protected; leaves always are), e.g. 'Higher education'.
    #[arg(long, value_delimiter = ',', value_name = "VALUES")]
    pub protected: Vec<String>,
    /// Anonymize a seeded random sample of N rows (seed: --seed), as the
    /// p-sensitive paper's 10,000 Adult records.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
}

/// Algorithms that read `Options::pk`.
const PK_ALGORITHMS: [&str; 2] = ["pk-enhanced", "pk-greedy"];

/// The flags with their files read.
#[derive(Debug, Clone, Default)]
pub struct LoadedPk {
    sa_hierarchies: HierarchySet,
    protected: Vec<String>,
    /// Whether one of the algorithms that will run is p-sensitive, so
    /// evaluations get the paper's measures.
    pub active: bool,
}

impl PkArgs {
    /// Read the hierarchy files; refuse the extended-model flags when no
    /// p-sensitive algorithm runs.
    pub fn load(&self, algorithms: &[&str]) -> anyhow::Result<LoadedPk> {
        let active = algorithms.iter().any(|a| PK_ALGORITHMS.contains(a));
        let extended = !self.sa_hierarchy.is_empty() || !self.protected.is_empty();
        if extended && !active {
            bail!("--sa-hierarchy and --protected are read by --algorithm pk-enhanced and pk-greedy only");
        }
        if !self.protected.is_empty() && self.sa_hierarchy.is_empty() {
            bail!("--protected names nodes of a sensitive attribute's hierarchy: add --sa-hierarchy COL=FILE");
        }
        if let Some(bad) = self.sa_hierarchy.iter().find(|p| !p.contains('=')) {
            bail!("--sa-hierarchy: '{bad}' is not 'COL=FILE'");
        }
        let sa_hierarchies = if self.sa_hierarchy.is_empty() {
            HierarchySet::new()
        } else {
            HierarchySet::load_spec(&self.sa_hierarchy.join(","))?
        };
        Ok(LoadedPk {
            sa_hierarchies,
            protected: self
                .protected
                .iter()
                .map(|v| v.trim().to_string())
                .collect(),
            active,
        })
    }

    /// The sample to anonymize instead of the whole file, if asked.
    pub fn sample(&self, ds: Dataset, seed: u64) -> anyhow::Result<Dataset> {
        match self.sample {
            Some(n) => anonlab::algorithms::pk::seeded_sample(&ds, n, seed).context("--sample"),
            None => Ok(ds),
        }
    }
}

impl LoadedPk {
    /// Copy into a request's options with the command's p.
    pub fn apply(&self, o: &mut Options, p: u32) {
        o.pk = PkOptions {
            p,
            sa_hierarchies: self.sa_hierarchies.clone(),
            protected: self.protected.clone(),
        };
    }

    /// Condition 2's bound for the request, as one line (pk algorithms only).
    pub fn describe_bound(&self, ds: &Dataset, sensitive: &[usize], o: &Options) -> Option<String> {
        if !self.active {
            return None;
        }
        max_clusters(ds, sensitive, &o.pk)
            .ok()
            .map(|b| b.describe())
    }
}
