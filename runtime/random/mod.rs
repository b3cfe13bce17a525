//! JAX's default pseudo-random generator, threefry2x32 with
//! `jax_threefry_partitionable = true` (JAX 0.10's default), bit for bit.
//!
//! There is no hidden state: a [`Key`] is a value, [`split`] makes new
//! independent keys from one, and the same key always gives the same numbers.
//!
//! ```
//! use jax::random;
//! let k = random::key(0);
//! let [k1, k2] = random::split(k);
//! assert_ne!(k1, k2);
//! let b: jax::Array<u32, 3> = random::bits(k1);
//! assert_eq!(b, random::bits(k1));
//! ```

pub(crate) mod continuous;
mod discrete;
pub(crate) mod fills;
mod like;
mod randint;
pub(crate) mod threefry;
mod uniform;
pub(crate) mod xla;

use std::fmt;

pub use continuous::{exponential, gumbel, normal, truncated_normal, Continuous};
pub use discrete::{categorical, choice, choice_rows, choice_weighted};
pub use like::{normal_like, uniform_like, SampleLike};
pub use randint::RandInt;
pub use threefry::{threefry2x32, threefry_2x32};
pub use uniform::Uniform;

use crate::array::{Array, ArrayType};
use crate::eager;

/// `n` samples, element `i` computed from its threefry block `$y` (the
/// block of counter `i`, the element's row-major index) by `$body`: in
/// parallel chunks, each chunk in groups of `LANES` blocks computed side by
/// side, the body compiled once per SIMD level so each copy is inlined and
/// vectorized (see `__rt::par`). Every element depends only on its index,
/// so the result does not depend on threads or SIMD level.
macro_rules! fill {
    ($k:expr, $n:expr, cost $cost:expr, |$y:ident| $body:expr) => {{
        let key: [u32; 2] = $k.data;
        // The body is written out three times, once per SIMD level: a
        // closure called from three places is not inlined once it is large.
        macro_rules! body {
            () => {
                |(start, chunk): (usize, &mut [_])| {
                    use $crate::random::threefry::{threefry2x32_lanes, LANES};
                    let mut groups = chunk.chunks_exact_mut(LANES);
                    let mut first = start;
                    for group in &mut groups {
                        let mut x0 = [0u32; LANES];
                        let mut x1 = [0u32; LANES];
                        for l in 0..LANES {
                            let i = (first + l) as u64;
                            x0[l] = (i >> 32) as u32;
                            x1[l] = i as u32;
                        }
                        threefry2x32_lanes(key, &mut x0, &mut x1);
                        for l in 0..LANES {
                            let $y = [x0[l], x1[l]];
                            group[l] = $body;
                        }
                        first += LANES;
                    }
                    for (j, o) in groups.into_remainder().iter_mut().enumerate() {
                        let $y = $crate::random::threefry::threefry2x32(key, {
                            let i = (first + j) as u64;
                            [(i >> 32) as u32, i as u32]
                        });
                        *o = $body;
                    }
                }
            };
        }
        let mut out = $crate::__rt::buffer($n);
        $crate::__rt::par::for_each_chunk3(
            &mut out,
            // Whole groups per chunk, so chunking never changes the counters.
            $crate::__rt::par::grain($cost).next_multiple_of($crate::random::threefry::LANES),
            body!(),
            body!(),
            body!(),
        );
        out
    }};
}
pub(crate) use fill;

/// Cost of one threefry block in `__rt::par::grain` units (20 rounds of
/// add, rotate, xor).
const THREEFRY_COST: usize = 64;

/// A typed PRNG key (`jax.random.key`): two 32-bit words of threefry state.
///
/// ```
/// use jax::random;
/// let k = random::key(0);
/// assert_eq!(k, random::key(0)); // a plain value: copy it, compare it
/// assert_ne!(k, random::key(1));
/// assert_eq!(format!("{k:?}"), "Array((), dtype=key<fry>) overlaying:\n[0 0]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub(crate) data: [u32; 2],
}

/// `jax.random.key(seed)`. With 32-bit defaults (no `x64` feature) the seed
/// is an int32 as in JAX: only its low word counts and the high word is 0
/// (`key(-1)` is `[0, 0xffffffff]`); with `x64` it is an int64, split in
/// its two words.
///
/// ```
/// use jax::random;
/// assert_eq!(random::key_data(random::key(42)).to_vec(), [0, 42]);
/// let x64 = jax::config::read("jax_enable_x64").unwrap();
/// let hi = if x64 { u32::MAX } else { 0 };
/// assert_eq!(random::key_data(random::key(-1)).to_vec(), [hi, u32::MAX]);
/// ```
pub fn key(seed: i64) -> Key {
    let hi = if cfg!(feature = "x64") {
        (seed as u64 >> 32) as u32
    } else {
        0
    };
    Key {
        data: [hi, seed as u32],
    }
}

/// `jax.random.key_data`: the key's two words.
///
/// ```
/// use jax::random;
/// let d = random::key_data(random::key(7));
/// assert_eq!((d.shape(), d.to_vec()), (&[2][..], vec![0u32, 7]));
/// ```
pub fn key_data(k: Key) -> Array<u32, 2> {
    Array::from_data(k.data.to_vec())
}

/// `jax.random.wrap_key_data`: a key from two words.
///
/// ```
/// use jax::random;
/// let k = random::split::<2>(random::key(0))[1];
/// assert_eq!(random::wrap_key_data(&random::key_data(k)), k);
/// assert_eq!(random::wrap_key_data(&jax::Array::from([0u32, 3])), random::key(3));
/// ```
pub fn wrap_key_data(data: &Array<u32, 2>) -> Key {
    let d = data.data();
    Key { data: [d[0], d[1]] }
}

/// `jax.random.PRNGKey(seed)`: a legacy raw key, the words of [`key`].
///
/// ```
/// use jax::random;
/// assert_eq!(random::PRNGKey(42).to_vec(), [0, 42]);
/// assert_eq!(random::PRNGKey(5), random::key_data(random::key(5)));
/// ```
#[allow(non_snake_case)]
pub fn PRNGKey(seed: i64) -> Array<u32, 2> {
    key_data(key(seed))
}

/// The partitionable counters of element `i`: its 64-bit row-major index,
/// high word and low word.
#[inline(always)]
pub(crate) fn block(k: Key, i: usize) -> [u32; 2] {
    let i = i as u64;
    threefry2x32(k.data, [(i >> 32) as u32, i as u32])
}

/// `jax.random.split(key, N)`: `N` new keys, the count taken from the
/// array pattern (`let [a, b] = split(k);`).
///
/// ```
/// use jax::random;
/// let k = random::key(0);
/// let [a, b, c] = random::split(k);
/// assert!(a != b && b != c && a != k);
/// // Key i depends only on i, not on how many are made (partitionable).
/// assert_eq!(random::split::<2>(k), [a, b]);
/// ```
pub fn split<const N: usize>(k: Key) -> [Key; N] {
    std::array::from_fn(|i| Key { data: block(k, i) })
}

/// `jax.random.fold_in(key, data)`: a new key from a key and an integer.
///
/// ```
/// use jax::random;
/// let k = random::key(0);
/// assert_eq!(random::fold_in(k, 1), random::fold_in(k, 1));
/// assert_ne!(random::fold_in(k, 1), random::fold_in(k, 2));
/// assert_ne!(random::fold_in(k, 1), k);
/// // Any integer: JAX folds in its low 32 bits (`jnp.uint32(data)`).
/// assert_eq!(random::fold_in(k, -1i32), random::fold_in(k, u32::MAX));
/// ```
pub fn fold_in(k: Key, data: impl FoldData) -> Key {
    Key {
        data: threefry2x32(k.data, [0, data.to_u32()]),
    }
}

/// Integers [`fold_in`] takes (a loop index is `i32`): their low 32 bits,
/// as JAX converts `data` to `uint32`.
///
/// ```
/// use jax::random::FoldData;
/// assert_eq!((-2i64).to_u32(), u32::MAX - 1);
/// assert_eq!(7usize.to_u32(), 7);
/// ```
pub trait FoldData: Copy {
    /// The low 32 bits, two's complement.
    fn to_u32(self) -> u32;
}

macro_rules! fold_data {
    ($($t:ty),*) => {$(
        impl FoldData for $t {
            #[inline(always)]
            fn to_u32(self) -> u32 {
                self as u32
            }
        }
    )*};
}

fold_data!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// `nbits` random bits from one element's threefry block: `y0 ^ y1` cut to
/// width, or both words for 64 bits.
#[inline(always)]
fn bits_of_width(y: [u32; 2], nbits: u32) -> u64 {
    if nbits == 64 {
        ((y[0] as u64) << 32) | y[1] as u64
    } else {
        (y[0] ^ y[1]) as u64 & ((1u64 << nbits) - 1)
    }
}

/// Unsigned integers `bits` can fill.
///
/// ```
/// use jax::{random, Array};
/// let k = random::key(0);
/// let w: Array<u32, 4> = random::bits(k);
/// let d: Array<u64, 4> = random::bits(k);
/// // 32 bits are the xor of the two words that make up the 64-bit value.
/// assert!(w.to_vec().iter().zip(d.to_vec()).all(|(&w, d)| w == (d >> 32) as u32 ^ d as u32));
/// ```
pub trait Bits: crate::element::Element {
    /// The value of one element from its threefry block.
    ///
    /// ```
    /// use jax::random::Bits;
    /// // The two words xor-ed and cut to width, or both words for 64 bits.
    /// assert_eq!(u8::from_block([0x1234_5678, 0x0000_00ff]), 0x87);
    /// assert_eq!(u64::from_block([1, 2]), (1 << 32) | 2);
    /// ```
    fn from_block(y: [u32; 2]) -> Self;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline(always)]
            fn from_block(y: [u32; 2]) -> $t {
                bits_of_width(y, <$t>::BITS) as $t
            }
        }
    )*};
}

// An explicit `u64` is always 64 bits wide (JAX without x64 would give
// `uint32` instead).
bits!(u8, u16, u32, u64);

/// `jax.random.bits(key, shape, dtype)`: uniformly random bits, the shape
/// and width from the result type.
///
/// ```
/// use jax::{random, Array, DType};
/// let a: Array<u8, 2, 50> = random::bits(random::key(0));
/// assert_eq!((a.shape(), a.dtype()), (&[2, 50][..], DType::U8));
/// assert_eq!(a, random::bits(random::key(0)));
/// assert_ne!(a, random::bits::<Array<u8, 2, 50>>(random::key(1)));
/// ```
pub fn bits<A: ArrayType>(k: Key) -> A
where
    A::Elem: Bits,
{
    if let Some(v) = fills::bits(k, A::SIZE) {
        return A::from_data(v);
    }
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST, |y| A::Elem::from_block(y)))
}

/// `jax.random.uniform(key, shape, dtype)`: floats in [0, 1), the shape and
/// dtype from the result type.
///
/// ```
/// let u: jax::Array<f32, 3> = jax::random::uniform(jax::random::key(0));
/// assert!(u.to_vec().iter().all(|&v| (0.0..1.0).contains(&v)));
/// ```
pub fn uniform<A: ArrayType>(k: Key) -> A
where
    A::Elem: Uniform,
{
    if let Some(v) = fills::uniform(k, A::SIZE) {
        return A::from_data(v);
    }
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST, |y| A::Elem::unit(y)))
}

/// `jax.random.uniform(key, shape, dtype, minval, maxval)`: floats in
/// [minval, maxval).
///
/// ```
/// use jax::{random, Array};
/// let u: Array<f64, 100> = random::uniform_range(random::key(0), -2.0, 3.0);
/// assert!(u.to_vec().iter().all(|&v| (-2.0..3.0).contains(&v)));
/// assert!(u.to_vec().iter().any(|&v| v < 0.0) && u.to_vec().iter().any(|&v| v > 1.0));
/// ```
pub fn uniform_range<A: ArrayType>(k: Key, minval: f64, maxval: f64) -> A
where
    A::Elem: Uniform,
{
    let (lo, hi) = (A::Elem::from_f64(minval), A::Elem::from_f64(maxval));
    let span = A::Elem::sub(hi, lo);
    if let Some(v) = fills::uniform_range(k, A::SIZE, lo, span) {
        return A::from_data(v);
    }
    A::from_data(
        fill!(k, A::SIZE, cost THREEFRY_COST, |y| continuous::between(
            y, lo, span
        )),
    )
}

/// `jax.random.randint(key, shape, minval, maxval, dtype)`: integers in
/// [minval, maxval), the shape and dtype from the result type. Bounds
/// outside the type are clipped to it, and `maxval <= minval` gives
/// `minval`, as in JAX.
///
/// ```
/// let d: jax::Array<i32, 4> = jax::random::randint(jax::random::key(0), 1, 7);
/// assert!(d.to_vec().iter().all(|v| (1..7).contains(v)));
/// ```
pub fn randint<A: ArrayType>(k: Key, minval: i64, maxval: i64) -> A
where
    A::Elem: RandInt,
{
    let r = eager::call(|l| {
        jax_core::random::randint(
            l,
            key_value(k),
            &aval_of::<A>(),
            minval as i128,
            maxval as i128,
        )
    });
    eager::typed("randint", r)
}

/// `jax.random.bernoulli(key, p, shape)`: `true` with probability `p`
/// (`uniform < p`, in `p`'s float type).
///
/// ```
/// let b: jax::Array<bool, 5> = jax::random::bernoulli(jax::random::key(0), 0.0f32);
/// assert_eq!(b.to_vec(), [false; 5]);
/// ```
pub fn bernoulli<A, F>(k: Key, p: F) -> A
where
    A: ArrayType<Elem = bool>,
    F: Uniform,
{
    let r = eager::call(|l| {
        let p = eager::slice_arg(&[], &[p], false);
        jax_core::random::bernoulli(l, key_value(k), p, dims_of::<A>())
    });
    eager::typed("bernoulli", r)
}

/// `jax.random.bernoulli(key, p)` with one probability per element.
///
/// ```
/// use jax::{random, Array};
/// let p = Array::<f32, 4>::from([0.0, 1.0, 1.0, 0.0]);
/// assert_eq!(random::bernoulli_each(random::key(0), &p).to_vec(), [false, true, true, false]);
/// ```
pub fn bernoulli_each<A>(k: Key, p: &A) -> A::WithElem<bool>
where
    A: ArrayType,
    A::Elem: Uniform,
{
    let r = eager::call(|l| {
        jax_core::random::bernoulli(l, key_value(k), eager::array_arg(p), dims_of::<A>())
    });
    eager::typed("bernoulli_each", r)
}

/// `jax.random.permutation(key, n)`: `0..n` in random order, `n` and the
/// integer type from the result type.
///
/// ```
/// let p: jax::Array<i32, 5> = jax::random::permutation(jax::random::key(0));
/// let mut v = p.to_vec();
/// v.sort();
/// assert_eq!(v, [0, 1, 2, 3, 4]);
/// ```
///
/// JAX permutes `arange(n)`, an int32 array. A type that cannot hold
/// `n - 1` does not compile (`permutation: the result type u8 cannot hold
/// the indices 0..1000`), where its values would repeat:
///
/// ```compile_fail,E0080
/// let p: jax::Array<u8, 1000> = jax::random::permutation(jax::random::key(0));
/// ```
pub fn permutation<A: ArrayType>(k: Key) -> A
where
    A::Elem: RandInt,
{
    const {
        discrete::check_indices_fit(
            "permutation",
            <A::Elem as crate::Element>::DTYPE,
            A::SIZE,
            <A::Elem as RandInt>::MAX,
        )
    };
    let r = eager::call(|l| jax_core::random::permutation(l, key_value(k), &aval_of::<A>()));
    eager::typed("permutation", r)
}

/// `jax.random.permutation(key, x)`: `x` with its rows (the first axis)
/// in random order.
///
/// ```
/// use jax::{random, Array};
/// let x = Array::<i32, 4, 2>::from([[0, 1], [2, 3], [4, 5], [6, 7]]);
/// let y = random::permutation_of(random::key(0), &x);
/// let mut rows: Vec<Vec<i32>> = y.to_vec().chunks(2).map(|r| r.to_vec()).collect();
/// rows.sort();
/// assert_eq!(rows, [[0, 1], [2, 3], [4, 5], [6, 7]]); // the same rows, reordered
/// ```
pub fn permutation_of<A: ArrayType>(k: Key, x: &A) -> A {
    let r = eager::call(|l| jax_core::random::permutation_of(l, key_value(k), eager::array_arg(x)));
    eager::typed("permutation_of", r)
}

/// JAX's repr: `Array((), dtype=key<fry>) overlaying:\n[0 0]`.
/// A key as an eager value: its two words, `u32[2]`.
pub(crate) fn key_value(k: Key) -> eager::Value {
    eager::slice_arg(&[2], &k.data, false)
}

/// The shape of a result type, as the one texts take it.
pub(crate) fn dims_of<A: ArrayType>() -> Vec<jax_core::ir::Dim> {
    A::SHAPE
        .iter()
        .map(|&n| jax_core::ir::Dim::Lit(n))
        .collect()
}

/// The abstract value of a result type.
pub(crate) fn aval_of<A: ArrayType>() -> jax_core::ir::Aval {
    jax_core::ir::Aval {
        dtype: <A::Elem as crate::Element>::DTYPE,
        shape: dims_of::<A>(),
        weak: false,
    }
}

impl fmt::Debug for Key {
    #[inline(always)]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.data.map(|d| d.to_string());
        let width = w[0].len().max(w[1].len());
        write!(
            f,
            "Array((), dtype=key<fry>) overlaying:\n[{:>width$} {:>width$}]",
            w[0], w[1]
        )
    }
}
