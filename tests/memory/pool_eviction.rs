//! The buffer pool frees the buffers it has held longest to make room for a
//! returned one, whatever their type or size: stale buffers must not keep
//! out the one a loop of calls takes next. It sets the pool's process-wide
//! limit, so it runs alone (`counting::serial`) and restores it.

use jax::__rt::pool;

#[test]
fn a_full_pool_frees_its_oldest_buffers_for_a_new_one() {
    const MB: usize = 1 << 20;
    let _serial = crate::counting::serial();
    let limit = pool::limit();
    pool::clear();
    pool::set_limit(4 * MB);
    let old: Vec<Vec<u8>> = (0..4).map(|k| vec![k as u8; MB]).collect();
    for v in old {
        pool::put(v);
    }
    assert_eq!(pool::pooled_bytes(), 4 * MB);
    // A buffer of another type and twice the size: the two oldest go.
    let new = vec![1.0f32; MB / 2];
    let kept = new.as_ptr();
    pool::put(new);
    assert_eq!(pool::pooled_bytes(), 4 * MB);
    let f = pool::take::<f32>(MB / 2).expect("the newest buffer was kept");
    assert_eq!(f.as_ptr(), kept);
    let mut left = Vec::new();
    while let Some(v) = pool::take::<u8>(MB) {
        left.push(v[0]);
    }
    left.sort();
    assert_eq!(
        left,
        vec![2, 3],
        "the two buffers returned first were freed"
    );
    // A buffer larger than the whole limit is freed at once.
    pool::put(vec![0u8; 5 * MB]);
    assert_eq!(pool::pooled_bytes(), 0);
    pool::set_limit(limit);
}
