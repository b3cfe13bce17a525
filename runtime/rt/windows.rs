//! `dynamic_update_slice` as generated code calls it: the update written
//! into the result's buffer (which starts as the operand) at start indices
//! known at run time.

/// Writes `update` (of shape `sizes`) into `out` (of shape `shape`) at
/// `starts`, each clamped so the update fits, as XLA's DynamicUpdateSlice
/// (the jaxpr has already counted negative starts from the end).
pub fn dynamic_update_slice<T: Copy>(
    out: &mut [T],
    shape: &[usize],
    update: &[T],
    sizes: &[usize],
    starts: &[i128],
) {
    // Clamped here, where i128 holds every index type: a u64 past i64::MAX
    // is out of bounds high, not negative.
    let starts: Vec<i64> = starts
        .iter()
        .zip(shape.iter().zip(sizes))
        .map(|(&s, (&n, &size))| s.clamp(0, n.saturating_sub(size) as i128) as i64)
        .collect();
    crate::lax::dynamic_update_slice_data(
        "dynamic_update_slice",
        out,
        shape,
        update,
        sizes,
        &starts,
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn clamps_starts_past_either_end() {
        let mut out = vec![0; 6];
        super::dynamic_update_slice(&mut out, &[2, 3], &[1, 2], &[1, 2], &[5, -4]);
        assert_eq!(out, [0, 0, 0, 1, 2, 0]);
        let mut out = vec![0; 4];
        super::dynamic_update_slice(&mut out, &[4], &[7], &[1], &[u64::MAX as i128]);
        assert_eq!(out, [0, 0, 0, 7]);
    }
}
