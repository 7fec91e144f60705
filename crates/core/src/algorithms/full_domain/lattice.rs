//! The generalization lattice: one node per level vector, numbered in mixed
//! radix (the first quasi-identifier varies slowest), so a node's direct
//! generalizations and specializations are one addition or subtraction away
//! and every specialization has a smaller index than the node itself.

/// Whether a node satisfies the privacy model within the suppression limit,
/// as far as the search knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Unknown,
    Anonymous,
    NotAnonymous,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Lattice {
    /// Levels per attribute (height + 1).
    levels: Vec<usize>,
    /// Index step of one level of each attribute.
    step: Vec<usize>,
    size: usize,
}

impl Lattice {
    /// `levels[a]` = number of levels of attribute `a` (at least 1). `None`
    /// when the lattice would not fit in memory-addressable indices.
    pub(super) fn new(levels: Vec<usize>) -> Option<Self> {
        let mut step = vec![1usize; levels.len()];
        let mut size = 1usize;
        for a in (0..levels.len()).rev() {
            step[a] = size;
            size = size.checked_mul(levels[a])?;
        }
        Some(Lattice { levels, step, size })
    }

    pub(super) fn size(&self) -> usize {
        self.size
    }

    pub(super) fn dims(&self) -> usize {
        self.levels.len()
    }

    /// Levels per attribute (height + 1).
    pub(super) fn levels(&self) -> &[usize] {
        &self.levels
    }

    /// The level vector of a node.
    pub(super) fn vector(&self, node: usize) -> Vec<usize> {
        self.levels
            .iter()
            .zip(&self.step)
            .map(|(&l, &s)| (node / s) % l)
            .collect()
    }

    pub(super) fn index(&self, vector: &[usize]) -> usize {
        vector.iter().zip(&self.step).map(|(&v, &s)| v * s).sum()
    }

    /// Sum of the levels: the node's height in the lattice.
    pub(super) fn height(&self, node: usize) -> usize {
        self.vector(node).iter().sum()
    }

    /// Direct generalizations: one attribute one level up.
    pub(super) fn successors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.dims()).filter_map(move |a| {
            let level = (node / self.step[a]) % self.levels[a];
            (level + 1 < self.levels[a]).then(|| node + self.step[a])
        })
    }

    /// Direct specializations: one attribute one level down.
    pub(super) fn predecessors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.dims()).filter_map(move |a| {
            let level = (node / self.step[a]) % self.levels[a];
            (level > 0).then(|| node - self.step[a])
        })
    }

    /// Tag `node` and everything above (`up`) or below it with `status`,
    /// stopping at nodes that already carry it: by monotonicity their own
    /// generalizations (specializations) were tagged with them.
    pub(super) fn tag(&self, status: &mut [Status], node: usize, up: bool, tag: Status) {
        let mut stack = vec![node];
        while let Some(v) = stack.pop() {
            if status[v] == tag {
                continue;
            }
            status[v] = tag;
            if up {
                stack.extend(self.successors(v).filter(|&s| status[s] != tag));
            } else {
                stack.extend(self.predecessors(v).filter(|&s| status[s] != tag));
            }
        }
    }

    /// Anonymous nodes with no anonymous node anywhere below them. Works
    /// whether or not anonymity is monotone; `Unknown` counts as not
    /// anonymous.
    pub(super) fn minimal(&self, status: &[Status]) -> Vec<usize> {
        // Specializations have smaller indices, so one ascending pass sees
        // every predecessor's answer first.
        let mut below = vec![false; self.size];
        let mut out = Vec::new();
        for v in 0..self.size {
            let b = self
                .predecessors(v)
                .any(|p| below[p] || status[p] == Status::Anonymous);
            below[v] = b;
            if !b && status[v] == Status::Anonymous {
                out.push(v);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_vectors_and_neighbours() {
        let l = Lattice::new(vec![2, 3]).unwrap();
        assert_eq!(l.size(), 6);
        assert_eq!(l.vector(4), vec![1, 1]);
        assert_eq!(l.index(&[1, 2]), 5);
        assert_eq!(l.successors(0).collect::<Vec<_>>(), vec![3, 1]);
        assert_eq!(l.predecessors(4).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(l.height(5), 3);
    }

    #[test]
    fn tagging_and_minimal_nodes() {
        let l = Lattice::new(vec![2, 3]).unwrap();
        let mut s = vec![Status::Unknown; 6];
        l.tag(&mut s, l.index(&[0, 2]), true, Status::Anonymous);
        l.tag(&mut s, l.index(&[1, 0]), true, Status::Anonymous);
        assert_eq!(s[l.index(&[1, 2])], Status::Anonymous);
        assert_eq!(s[l.index(&[0, 1])], Status::Unknown);
        l.tag(&mut s, l.index(&[0, 1]), false, Status::NotAnonymous);
        assert_eq!(s[0], Status::NotAnonymous);
        assert_eq!(l.minimal(&s), vec![l.index(&[0, 2]), l.index(&[1, 0])]);
    }
}
