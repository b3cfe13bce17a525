//! Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers:
//! as easy as 1, 2, 3", SC 2011), as JAX's `threefry2x32_p` computes it.

/// Rotation amounts of the two alternating groups of four rounds.
const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];

/// The key schedule's parity constant.
const PARITY: u32 = 0x1bd1_1bda;

/// One block: the key `(k0, k1)` encrypts the counter pair `(x0, x1)`.
/// This is JAX's `threefry2x32_p` on one element.
///
/// ```
/// // JAX: threefry2x32_p.bind(0, 0, [0], [0]) == ([1797259609], [2579123966])
/// assert_eq!(jax::random::threefry2x32([0, 0], [0, 0]), [1797259609, 2579123966]);
/// ```
#[inline(always)]
pub fn threefry2x32(key: [u32; 2], x: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ PARITY];
    let [mut x0, mut x1] = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    // Written out without loops: a loop inside the per-element loop of a
    // jitted function would keep that loop from vectorizing.
    macro_rules! rounds {
        ($group:expr, $step:expr) => {
            let r = ROTATIONS[$group];
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(r[0]) ^ x0;
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(r[1]) ^ x0;
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(r[2]) ^ x0;
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(r[3]) ^ x0;
            // Key injection after every four rounds.
            x0 = x0.wrapping_add(ks[$step % 3]);
            x1 = x1
                .wrapping_add(ks[($step + 1) % 3])
                .wrapping_add($step as u32);
        };
    }
    rounds!(0, 1);
    rounds!(1, 2);
    rounds!(0, 3);
    rounds!(1, 4);
    rounds!(0, 5);
    [x0, x1]
}

/// Blocks computed side by side: enough for a 512-bit register of u32.
pub(crate) const LANES: usize = 64;

/// [`threefry2x32`] on `LANES` counter pairs at once, written lane by lane
/// so LLVM turns every step into one vector instruction.
#[inline(always)]
pub(crate) fn threefry2x32_lanes(key: [u32; 2], x0: &mut [u32; LANES], x1: &mut [u32; LANES]) {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ PARITY];
    for l in 0..LANES {
        x0[l] = x0[l].wrapping_add(ks[0]);
        x1[l] = x1[l].wrapping_add(ks[1]);
    }
    for step in 1..=5u32 {
        for r in ROTATIONS[(step as usize - 1) % 2] {
            for l in 0..LANES {
                x0[l] = x0[l].wrapping_add(x1[l]);
                x1[l] = x1[l].rotate_left(r) ^ x0[l];
            }
        }
        let (a, b) = (
            ks[step as usize % 3],
            ks[(step as usize + 1) % 3].wrapping_add(step),
        );
        for l in 0..LANES {
            x0[l] = x0[l].wrapping_add(a);
            x1[l] = x1[l].wrapping_add(b);
        }
    }
}

/// JAX's `threefry_2x32(key, count)`: the counters are split in halves
/// (padded with one zero when odd), the first half is `x0` and the second
/// `x1`, and the result is the two outputs concatenated, cut to the input's
/// length.
///
/// ```
/// assert_eq!(
///     jax::random::threefry_2x32([0, 0], &[0, 1, 2, 3]),
///     [4146024105, 967050713, 2718843009, 1272950319]
/// );
/// ```
pub fn threefry_2x32(key: [u32; 2], count: &[u32]) -> Vec<u32> {
    let half = count.len().div_ceil(2);
    let x1 = |i: usize| count.get(half + i).copied().unwrap_or(0);
    let (mut y0, mut y1) = (Vec::with_capacity(half), Vec::with_capacity(half));
    for (i, &x0) in count[..half].iter().enumerate() {
        let [a, b] = threefry2x32(key, [x0, x1(i)]);
        y0.push(a);
        y1.push(b);
    }
    y0.extend(y1);
    y0.truncate(count.len());
    y0
}
