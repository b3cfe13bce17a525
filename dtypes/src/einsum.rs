//! `einsum`'s subscripts and its contraction plan, shared by the compiler
//! (`jnp::einsum` inside `#[jax::jit]`) and the eager runtime, so both
//! contract the same pairs in the same order with the same axes and their
//! results agree.
//!
//! The plan follows `jnp.einsum`: opt_einsum's `contract_path` (here its
//! greedy path) picks which operands to contract, then JAX's `_einsum`
//! lowers each contraction to sums over labels only one operand has,
//! diagonals of repeated labels, one `dot_general` with batch and
//! contracting axes, and a transpose to the wanted order.
//!
//! ```
//! use jax_dtypes::einsum::{plan, Step};
//!
//! // A matrix product is one dot_general contracting axis 1 with axis 0.
//! let p = plan("ij,jk->ik", &[vec![2, 3], vec![3, 4]]).unwrap();
//! assert_eq!(p.output_shape, vec![2, 4]);
//! assert_eq!(p.contractions.len(), 1);
//! let dot = p.contractions[0].dot.as_ref().unwrap();
//! assert_eq!((dot.lhs_contract.as_slice(), dot.rhs_contract.as_slice()), (&[1][..], &[0][..]));
//! // A trace keeps the diagonal, then sums it.
//! let p = plan("ii->", &[vec![3, 3]]).unwrap();
//! assert!(matches!(p.contractions[0].prepare[0][0], Step::Diagonal { .. }));
//! ```

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

/// The parsed subscripts: one label list per operand and the output's, with
/// `...` replaced by labels of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscripts {
    /// Each operand's labels, one per axis.
    pub inputs: Vec<Vec<char>>,
    /// The result's labels (NumPy's implicit output when there is no `->`).
    pub output: Vec<char>,
}

/// One operation on an operand before its contraction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Drop size-1 axes whose label has a larger size in the other operand
    /// (it broadcasts): `lax.squeeze`.
    Squeeze(Vec<usize>),
    /// Sum over these axes, in this order: `reduce_sum`.
    Sum(Vec<usize>),
    /// Zero all but the diagonal of `axes` (one label repeated), then sum
    /// `sum` (all of `axes`, or all but the last when the label stays).
    Diagonal {
        /// The axes of the repeated label.
        axes: Vec<usize>,
        /// The axes summed afterwards.
        sum: Vec<usize>,
    },
}

/// A `dot_general`, operands already in their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dot {
    /// Whether the second popped operand is the dot's left operand
    /// (JAX tries `(rhs, lhs)` first to spare a transpose).
    pub swap: bool,
    /// Contracting axes of the dot's left operand.
    pub lhs_contract: Vec<usize>,
    /// Contracting axes of the dot's right operand.
    pub rhs_contract: Vec<usize>,
    /// Batch axes of the dot's left operand.
    pub lhs_batch: Vec<usize>,
    /// Batch axes of the dot's right operand.
    pub rhs_batch: Vec<usize>,
}

/// One contraction of the path: which operands it takes from the list (in
/// the order they are removed), what happens to each, the dot of two, and
/// the final transpose. The result goes to the end of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contraction {
    /// Positions in the current operand list, removed one after the other
    /// (so each refers to the list after the previous removals).
    pub operands: Vec<usize>,
    /// The steps applied to each removed operand, in that order.
    pub prepare: Vec<Vec<Step>>,
    /// The contraction of two operands.
    pub dot: Option<Dot>,
    /// The permutation to the result's label order, when not the identity.
    pub transpose: Option<Vec<usize>>,
}

/// The whole computation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The parsed subscripts.
    pub subscripts: Subscripts,
    /// The contraction path as opt_einsum reports it (positions per step).
    pub path: Vec<Vec<usize>>,
    /// The contractions, in order.
    pub contractions: Vec<Contraction>,
    /// The result's shape.
    pub output_shape: Vec<usize>,
}

/// Parses `subscripts` for operands of ranks `ranks`; the error says what
/// is wrong.
pub fn parse(subscripts: &str, ranks: &[usize]) -> Result<Subscripts, String> {
    let text: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(bad) = text
        .chars()
        .find(|&c| !(c.is_ascii_alphabetic() || matches!(c, ',' | '-' | '>' | '.')))
    {
        return Err(format!(
            "einsum subscripts may use only letters, `,`, `->` and `...`, found `{bad}`"
        ));
    }
    let (lhs, rhs) = match text.split_once("->") {
        Some((l, r)) => {
            if r.contains("->") {
                return Err("einsum subscripts have more than one `->`".into());
            }
            (l, Some(r))
        }
        None => (text.as_str(), None),
    };
    if lhs.contains(['-', '>']) || rhs.is_some_and(|r| r.contains(['-', '>', ','])) {
        return Err("einsum subscripts: `-` and `>` only appear together as `->`, and the output after `->` has no `,`".into());
    }
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ranks.len() {
        return Err(format!(
            "einsum subscripts `{subscripts}` name {} operand(s), but the tuple holds {}: give one array per comma-separated term",
            terms.len(),
            ranks.len()
        ));
    }
    let used: BTreeSet<char> = text.chars().filter(char::is_ascii_alphabetic).collect();
    let mut fresh = ('a'..='z')
        .chain('A'..='Z')
        .filter(|c| !used.contains(c))
        .collect::<Vec<_>>()
        .into_iter();
    let mut ellipsis_labels: Vec<char> = Vec::new();
    let mut inputs = Vec::new();
    for (k, (term, &rank)) in terms.iter().zip(ranks).enumerate() {
        let (before, after, has_dots) = split_ellipsis(term, k)?;
        let named = before.len() + after.len();
        let dots = if has_dots {
            if named > rank {
                return Err(format!("einsum operand {k} has rank {rank}, but its subscripts `{term}` name {named} axes besides `...`"));
            }
            rank - named
        } else {
            if named != rank {
                return Err(format!("einsum operand {k} has rank {rank}, but its subscripts `{term}` name {named} axes: write one letter per axis, or `...` for the leading ones"));
            }
            0
        };
        while ellipsis_labels.len() < dots {
            let Some(c) = fresh.next() else {
                return Err("einsum: too many axes under `...`".into());
            };
            ellipsis_labels.insert(0, c);
        }
        let mut labels = before;
        labels.extend_from_slice(&ellipsis_labels[ellipsis_labels.len() - dots..]);
        labels.extend(after);
        inputs.push(labels);
    }
    let output = match rhs {
        Some(r) => {
            let (before, after, has_dots) = split_ellipsis(r, usize::MAX)?;
            let mut out = before;
            if has_dots {
                out.extend_from_slice(&ellipsis_labels);
            }
            out.extend(after);
            for (i, c) in out.iter().enumerate() {
                if out[..i].contains(c) {
                    return Err(format!(
                        "einsum output subscript `{c}` appears more than once"
                    ));
                }
                if !inputs.iter().any(|t| t.contains(c)) {
                    return Err(format!(
                        "einsum output subscript `{c}` does not appear in any operand's subscripts"
                    ));
                }
            }
            out
        }
        None => {
            // NumPy's implicit output: `...`'s axes, then the labels that
            // appear once, sorted.
            let mut counts: BTreeMap<char, usize> = BTreeMap::new();
            for c in inputs.iter().flatten() {
                *counts.entry(*c).or_default() += 1;
            }
            let mut out = ellipsis_labels.clone();
            out.extend(
                counts
                    .into_iter()
                    .filter(|(c, n)| *n == 1 && !ellipsis_labels.contains(c))
                    .map(|(c, _)| c),
            );
            out
        }
    };
    Ok(Subscripts { inputs, output })
}

/// The labels before and after a term's `...`, and whether it has one.
fn split_ellipsis(term: &str, k: usize) -> Result<(Vec<char>, Vec<char>, bool), String> {
    let whose = if k == usize::MAX {
        "the output".to_string()
    } else {
        format!("operand {k}")
    };
    let (before, after, dots) = match term.split_once("...") {
        Some((b, a)) => (b, a, true),
        None => (term, "", false),
    };
    if before.contains('.') || after.contains('.') {
        return Err(format!(
            "einsum subscripts of {whose}: `.` only appears as one `...`"
        ));
    }
    Ok((before.chars().collect(), after.chars().collect(), dots))
}

/// Each label's size; a size-1 axis broadcasts against a larger one, as in
/// opt_einsum. The error names the label and both sizes.
pub fn label_sizes(s: &Subscripts, shapes: &[Vec<usize>]) -> Result<BTreeMap<char, usize>, String> {
    let mut sizes: BTreeMap<char, (usize, usize)> = BTreeMap::new();
    for (k, (labels, shape)) in s.inputs.iter().zip(shapes).enumerate() {
        for (&c, &n) in labels.iter().zip(shape) {
            match sizes.get(&c) {
                Some(&(m, _)) if m == n || n == 1 => {}
                Some(&(1, _)) | None => {
                    sizes.insert(c, (n, k));
                }
                Some(&(m, first)) => {
                    return Err(format!(
                        "einsum subscript `{c}` has size {m} in operand {first} but size {n} in operand {k}: the axes one letter names must have the same size (or size 1)"
                    ))
                }
            }
        }
    }
    Ok(sizes.into_iter().map(|(c, (n, _))| (c, n)).collect())
}

fn size_of(labels: &BTreeSet<char>, sizes: &BTreeMap<char, usize>) -> i128 {
    labels.iter().map(|c| sizes[c] as i128).product()
}

/// opt_einsum's greedy path (`optimize='greedy'`), as positions in the
/// shrinking operand list: Hadamard products of operands with the same
/// labels first, then the pair whose result removes the most memory, then
/// outer products of what is left, smallest first.
pub fn greedy_path(
    inputs: &[Vec<char>],
    output: &[char],
    sizes: &BTreeMap<char, usize>,
) -> Vec<Vec<usize>> {
    let n = inputs.len();
    if n <= 2 {
        return vec![(0..n).collect()];
    }
    type Key = BTreeSet<char>;
    let sets: Vec<Key> = inputs.iter().map(|t| t.iter().copied().collect()).collect();
    let all_share: Key = sets.iter().skip(1).fold(sets[0].clone(), |acc, s| &acc & s);
    let output: Key = &output.iter().copied().collect::<Key>() | &all_share;
    let mut next_id = n;
    let mut ssa_path: Vec<(usize, usize)> = Vec::new();
    // key -> ssa id; keys are distinct.
    let mut remaining: BTreeMap<Key, usize> = BTreeMap::new();
    for (id, key) in sets.iter().enumerate() {
        if let Some(&old) = remaining.get(key) {
            ssa_path.push((old, id));
            remaining.insert(key.clone(), next_id);
            next_id += 1;
        } else {
            remaining.insert(key.clone(), id);
        }
    }
    let mut dim_to_keys: HashMap<char, BTreeSet<Key>> = HashMap::new();
    for key in remaining.keys() {
        for &d in key.difference(&output) {
            dim_to_keys.entry(d).or_default().insert(key.clone());
        }
    }
    let count_at_least = |dk: &HashMap<char, BTreeSet<Key>>, c: usize| -> Key {
        dk.iter()
            .filter(|(d, keys)| keys.len() >= c && !output.contains(d))
            .map(|(d, _)| *d)
            .collect()
    };
    let mut ref2 = count_at_least(&dim_to_keys, 2);
    let mut ref3 = count_at_least(&dim_to_keys, 3);
    let mut footprints: BTreeMap<Key, i128> = remaining
        .keys()
        .map(|k| (k.clone(), size_of(k, sizes)))
        .collect();
    // A min-heap on (cost, larger id, smaller id); `Reverse` turns Rust's max-heap.
    type Cand = std::cmp::Reverse<((i128, usize, usize), Key, Key, Key)>;
    let mut queue: BinaryHeap<Cand> = BinaryHeap::new();
    let candidate = |remaining: &BTreeMap<Key, usize>,
                     footprints: &BTreeMap<Key, i128>,
                     ref2: &Key,
                     ref3: &Key,
                     k1: &Key,
                     k2: &Key|
     -> Cand {
        let either = k1 | k2;
        let two = k1 & k2;
        let one = &either - &two;
        let k12 = &(&(&either & &output) | &(&two & ref3)) | &(&one & ref2);
        let cost = size_of(&k12, sizes) - footprints[k1] - footprints[k2];
        let (mut k1, mut k2) = (k1.clone(), k2.clone());
        let (mut id1, mut id2) = (remaining[&k1], remaining[&k2]);
        if id1 > id2 {
            std::mem::swap(&mut k1, &mut k2);
            std::mem::swap(&mut id1, &mut id2);
        }
        std::cmp::Reverse(((cost, id2, id1), k1, k2, k12))
    };
    let mut dims: Vec<char> = dim_to_keys.keys().copied().collect();
    dims.sort();
    for d in dims {
        let mut keys: Vec<Key> = dim_to_keys[&d].iter().cloned().collect();
        keys.sort_by_key(|k| remaining[k]);
        for i in 0..keys.len().saturating_sub(1) {
            let best = keys[i + 1..]
                .iter()
                .map(|k2| candidate(&remaining, &footprints, &ref2, &ref3, &keys[i], k2))
                .max()
                .expect("at least one candidate");
            queue.push(best);
        }
    }
    while let Some(std::cmp::Reverse((_, k1, k2, k12))) = queue.pop() {
        if !remaining.contains_key(&k1) || !remaining.contains_key(&k2) {
            continue;
        }
        let id1 = remaining.remove(&k1).unwrap();
        let id2 = remaining.remove(&k2).unwrap();
        for d in k1.difference(&output) {
            dim_to_keys.get_mut(d).unwrap().remove(&k1);
        }
        for d in k2.difference(&output) {
            dim_to_keys.get_mut(d).unwrap().remove(&k2);
        }
        ssa_path.push((id1, id2));
        if let Some(&old) = remaining.get(&k12) {
            ssa_path.push((old, next_id));
            next_id += 1;
        } else {
            for &d in k12.difference(&output) {
                dim_to_keys.entry(d).or_default().insert(k12.clone());
            }
        }
        remaining.insert(k12.clone(), next_id);
        next_id += 1;
        // As opt_einsum: `k1 | k2 - output`, `-` binding tighter.
        for &d in &(&k1 | &(&k2 - &output)) {
            let count = dim_to_keys.get(&d).map_or(0, |k| k.len());
            if count <= 1 {
                ref2.remove(&d);
                ref3.remove(&d);
            } else if count == 2 {
                ref2.insert(d);
                ref3.remove(&d);
            } else {
                ref2.insert(d);
                ref3.insert(d);
            }
        }
        footprints.insert(k12.clone(), size_of(&k12, sizes));
        let mut k2s: BTreeSet<Key> = k12
            .iter()
            .filter_map(|d| dim_to_keys.get(d))
            .flatten()
            .cloned()
            .collect();
        k2s.remove(&k12);
        if let Some(best) = k2s
            .iter()
            .map(|k2| candidate(&remaining, &footprints, &ref2, &ref3, &k12, k2))
            .max()
        {
            queue.push(best);
        }
    }
    // Outer products, smallest first.
    let mut finals: BinaryHeap<std::cmp::Reverse<(i128, usize, Key)>> = remaining
        .iter()
        .map(|(k, &id)| std::cmp::Reverse((size_of(&(k & &output), sizes), id, k.clone())))
        .collect();
    let std::cmp::Reverse((_, mut id1, mut k1)) = finals.pop().unwrap();
    while let Some(std::cmp::Reverse((_, id2, k2))) = finals.pop() {
        ssa_path.push((id1.min(id2), id1.max(id2)));
        let k12 = &(&k1 | &k2) & &output;
        let cost = size_of(&k12, sizes);
        finals.push(std::cmp::Reverse((cost, next_id, k12)));
        next_id += 1;
        let std::cmp::Reverse((_, i, k)) = finals.pop().unwrap();
        id1 = i;
        k1 = k;
    }
    ssa_to_linear(&ssa_path, n)
}

/// opt_einsum's `ssa_to_linear`: ids that never repeat to positions in the
/// shrinking list.
fn ssa_to_linear(ssa_path: &[(usize, usize)], n: usize) -> Vec<Vec<usize>> {
    let mut ids: Vec<usize> = (0..n).collect();
    let mut path = Vec::new();
    for (next, &(a, b)) in (n..).zip(ssa_path) {
        let mut con = vec![
            ids.partition_point(|&x| x < a),
            ids.partition_point(|&x| x < b),
        ];
        con.sort();
        for &j in con.iter().rev() {
            ids.remove(j);
        }
        ids.push(next);
        path.push(con);
    }
    path
}

/// The plan of `einsum(subscripts, operands of these shapes)`.
pub fn plan(subscripts: &str, shapes: &[Vec<usize>]) -> Result<Plan, String> {
    let ranks: Vec<usize> = shapes.iter().map(Vec::len).collect();
    let s = parse(subscripts, &ranks)?;
    let sizes = label_sizes(&s, shapes)?;
    let path = greedy_path(&s.inputs, &s.output, &sizes);
    let mut labels: Vec<Vec<char>> = s.inputs.clone();
    let mut dims: Vec<Vec<usize>> = shapes.to_vec();
    let mut contractions = Vec::new();
    let steps = path.len();
    for (k, positions) in path.iter().enumerate() {
        let mut positions = positions.clone();
        positions.sort_by(|a, b| b.cmp(a));
        // opt_einsum's find_contraction: what the others or the output still need stays.
        let taken: BTreeSet<char> = positions.iter().flat_map(|&p| labels[p].clone()).collect();
        let mut others: Vec<Vec<char>> = labels.clone();
        for &p in &positions {
            others.remove(p);
        }
        let needed: BTreeSet<char> = others.iter().flatten().chain(&s.output).copied().collect();
        let removed: Vec<char> = taken.difference(&needed).copied().collect();
        let ins: Vec<Vec<char>> = positions.iter().map(|&p| labels.remove(p)).collect();
        let in_dims: Vec<Vec<usize>> = positions.iter().map(|&p| dims.remove(p)).collect();
        let result: Vec<char> = if k + 1 == steps {
            s.output.clone()
        } else {
            let all: Vec<char> = ins.iter().flatten().copied().collect();
            let mut out: Vec<char> = taken.intersection(&needed).copied().collect();
            out.sort_by_key(|c| all.iter().position(|x| x == c));
            out
        };
        let c = contraction(positions, ins, in_dims, &removed, &result)?;
        labels.push(result.clone());
        dims.push(result.iter().map(|c| sizes[c]).collect());
        contractions.push(c);
    }
    let output_shape = s.output.iter().map(|c| sizes[c]).collect();
    Ok(Plan {
        subscripts: s,
        path,
        contractions,
        output_shape,
    })
}

/// JAX's `_einsum` for one contraction of one or two operands.
fn contraction(
    operands: Vec<usize>,
    mut names: Vec<Vec<char>>,
    mut dims: Vec<Vec<usize>>,
    contracted: &[char],
    result: &[char],
) -> Result<Contraction, String> {
    let count = |n: &[char], c: char| n.iter().filter(|&&x| x == c).count();
    let mut prepare = vec![Vec::new(); names.len()];
    let mut dot = None;
    let current: Vec<char>;
    if names.len() == 1 {
        let n0 = names[0].clone();
        let uniques: Vec<char> = contracted
            .iter()
            .copied()
            .filter(|&c| count(&n0, c) == 1)
            .collect();
        sum_uniques(&mut prepare[0], &mut names[0], &mut dims[0], &uniques);
        sum_repeats(&mut prepare[0], &mut names[0], &mut dims[0], &n0, result);
        current = names[0].clone();
    } else {
        // Size-1 axes against larger ones: squeezed (they broadcast).
        for (a, b) in [(0, 1), (1, 0)] {
            let keep: Vec<bool> = names[a]
                .iter()
                .enumerate()
                .map(|(i, c)| match names[b].iter().position(|x| x == c) {
                    Some(j) => dims[a][i] != 1 || dims[b][j] == 1,
                    None => true,
                })
                .collect();
            let squeeze: Vec<usize> = (0..keep.len()).filter(|&i| !keep[i]).collect();
            if !squeeze.is_empty() {
                prepare[a].push(Step::Squeeze(squeeze));
                let (n, d): (Vec<char>, Vec<usize>) = names[a]
                    .iter()
                    .zip(&dims[a])
                    .zip(&keep)
                    .filter(|(_, &k)| k)
                    .map(|((&c, &n), _)| (c, n))
                    .unzip();
                names[a] = n;
                dims[a] = d;
            }
        }
        let (l0, r0) = (names[0].clone(), names[1].clone());
        let lu: Vec<char> = contracted
            .iter()
            .copied()
            .filter(|&c| count(&l0, c) == 1 && count(&r0, c) == 0)
            .collect();
        let ru: Vec<char> = contracted
            .iter()
            .copied()
            .filter(|&c| count(&r0, c) == 1 && count(&l0, c) == 0)
            .collect();
        let (pl, pr) = prepare.split_at_mut(1);
        let (nl, nr) = names.split_at_mut(1);
        let (dl, dr) = dims.split_at_mut(1);
        sum_uniques(&mut pl[0], &mut nl[0], &mut dl[0], &lu);
        sum_uniques(&mut pr[0], &mut nr[0], &mut dr[0], &ru);
        let keep_l: Vec<char> = result.iter().chain(nr[0].iter()).copied().collect();
        sum_repeats(&mut pl[0], &mut nl[0], &mut dl[0], &l0, &keep_l);
        let keep_r: Vec<char> = result.iter().chain(nl[0].iter()).copied().collect();
        sum_repeats(&mut pr[0], &mut nr[0], &mut dr[0], &r0, &keep_r);
        let (ln, rn) = (&nl[0], &nr[0]);
        let contracted: Vec<char> = contracted
            .iter()
            .copied()
            .filter(|c| ln.contains(c) || rn.contains(c))
            .collect();
        let batch: Vec<char> = result
            .iter()
            .copied()
            .filter(|c| ln.contains(c) && rn.contains(c))
            .collect();
        let pos = |n: &[char], c: char| n.iter().position(|&x| x == c);
        for &c in &contracted {
            match (pos(ln, c), pos(rn, c)) {
                (Some(i), Some(j)) if dl[0][i] == dr[0][j] => {}
                _ => {
                    return Err(format!(
                        "einsum: incompatible reduction dimensions for label `{c}`"
                    ))
                }
            }
        }
        let at = |n: &[char], cs: &[char]| -> Vec<usize> {
            cs.iter().map(|&c| pos(n, c).unwrap()).collect()
        };
        let deleted: Vec<char> = batch.iter().chain(&contracted).copied().collect();
        let rest = |n: &[char]| -> Vec<char> {
            n.iter().copied().filter(|c| !deleted.contains(c)).collect()
        };
        let (lrest, rrest) = (rest(ln), rest(rn));
        let swapped: Vec<char> = batch.iter().chain(&rrest).chain(&lrest).copied().collect();
        if swapped == result {
            dot = Some(Dot {
                swap: true,
                lhs_contract: at(rn, &contracted),
                rhs_contract: at(ln, &contracted),
                lhs_batch: at(rn, &batch),
                rhs_batch: at(ln, &batch),
            });
            current = swapped;
        } else {
            dot = Some(Dot {
                swap: false,
                lhs_contract: at(ln, &contracted),
                rhs_contract: at(rn, &contracted),
                lhs_batch: at(ln, &batch),
                rhs_batch: at(rn, &batch),
            });
            current = batch.iter().chain(&lrest).chain(&rrest).copied().collect();
        }
    }
    let transpose = if current == result {
        None
    } else {
        Some(
            result
                .iter()
                .map(|c| current.iter().position(|x| x == c).unwrap())
                .collect(),
        )
    };
    Ok(Contraction {
        operands,
        prepare,
        dot,
        transpose,
    })
}

/// `sum_uniques`: one sum over the labels only this operand has.
fn sum_uniques(
    steps: &mut Vec<Step>,
    names: &mut Vec<char>,
    dims: &mut Vec<usize>,
    uniques: &[char],
) {
    if uniques.is_empty() {
        return;
    }
    let axes: Vec<usize> = uniques
        .iter()
        .map(|c| names.iter().position(|x| x == c).unwrap())
        .collect();
    steps.push(Step::Sum(axes));
    let keep: Vec<bool> = names.iter().map(|c| !uniques.contains(c)).collect();
    retain(names, dims, &keep);
}

/// `sum_repeats`: the diagonal of each repeated label, summed unless kept.
/// `original` gives the labels in the order JAX's `Counter` visits them.
fn sum_repeats(
    steps: &mut Vec<Step>,
    names: &mut Vec<char>,
    dims: &mut Vec<usize>,
    original: &[char],
    keep_names: &[char],
) {
    let mut seen = Vec::new();
    for &c in original {
        if seen.contains(&c) {
            continue;
        }
        seen.push(c);
        let count = original.iter().filter(|&&x| x == c).count();
        if count <= 1 {
            continue;
        }
        let axes: Vec<usize> = (0..names.len()).filter(|&i| names[i] == c).collect();
        if axes.is_empty() {
            continue;
        }
        let sum: Vec<usize> = if keep_names.contains(&c) {
            axes[..axes.len() - 1].to_vec()
        } else {
            axes.clone()
        };
        let keep: Vec<bool> = (0..names.len()).map(|i| !sum.contains(&i)).collect();
        steps.push(Step::Diagonal { axes, sum });
        retain(names, dims, &keep);
    }
}

fn retain(names: &mut Vec<char>, dims: &mut Vec<usize>, keep: &[bool]) {
    let mut i = 0;
    names.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    let mut i = 0;
    dims.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_output_is_the_sorted_labels_appearing_once() {
        let s = parse("ba,ac", &[2, 2]).unwrap();
        assert_eq!(s.output, vec!['b', 'c']);
        let s = parse("...ij,...jk", &[3, 2]).unwrap();
        assert_eq!(s.inputs[1].len(), 2);
        assert_eq!(s.output.len(), 3);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(parse("ij,jk->ik", &[2]).unwrap_err().contains("2 operand"));
        assert!(parse("ij->k", &[2]).unwrap_err().contains("`k`"));
        assert!(parse("i$j", &[2]).unwrap_err().contains("`$`"));
        assert!(plan("ij,jk->ik", &[vec![2, 3], vec![4, 5]])
            .unwrap_err()
            .contains("size 3 in operand 0 but size 4 in operand 1"));
    }
}
