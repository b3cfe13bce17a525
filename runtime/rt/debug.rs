//! What the checks of `jax_debug_nans` call (see [`crate::debug`]).

use crate::element::Element;

/// The value the flags look for in `x`: `"nan"`, or `"inf"` with
/// `jax_debug_infs`. Only floats can hold either.
#[inline]
pub fn bad_scalar<T: Element>(x: T) -> Option<&'static str> {
    if !T::DTYPE.is_float() {
        return None;
    }
    let v = x.to_f64();
    if v.is_nan() {
        Some("nan")
    } else if v.is_infinite() && crate::config::debug_infs() {
        Some("inf")
    } else {
        None
    }
}

/// The first bad value in `xs` (see [`bad_scalar`]). Not inlined: the
/// replay calls it for every operation.
#[inline(never)]
pub fn bad<T: Element>(xs: &[T]) -> Option<&'static str> {
    if !T::DTYPE.is_float() {
        return None;
    }
    xs.iter().find_map(|&x| bad_scalar(x))
}

/// Says, as JAX does, that the function runs again one operation at a
/// time (on standard error: standard output is the program's).
pub fn replaying(value: &str) {
    eprintln!(
        "Invalid {value} value encountered in the output of a jax.jit function. Calling the de-optimized version."
    );
}

/// The error for a bad value `value` made by `primitive` at `location`.
pub fn error(
    value: &'static str,
    primitive: &'static str,
    location: &'static str,
) -> crate::debug::FloatingPointError {
    crate::debug::FloatingPointError {
        value,
        primitive,
        location,
    }
}

pub use crate::debug::{active, print_line as print, raise};

/// An operand of an elementwise operation replayed by `jax_debug_nans`: a
/// strided view of `data` over the result's index space (a stride per
/// result axis, 0 along broadcast axes; none at all for a scalar).
#[derive(Clone, Copy)]
pub struct View<'a, T> {
    data: &'a [T],
    offset: usize,
    strides: &'a [usize],
}

/// A view of `data` from `offset` with `strides` (see [`View`]).
#[inline]
pub fn view<'a, T>(data: &'a [T], offset: usize, strides: &'a [usize]) -> View<'a, T> {
    View {
        data,
        offset,
        strides,
    }
}

/// A scalar operand, the same at every index.
#[inline]
pub fn scalar<T>(x: &T) -> View<'_, T> {
    view(std::slice::from_ref(x), 0, &[])
}

impl<T: Copy> View<'_, T> {
    fn at(&self, index: &[usize]) -> T {
        let at: usize = self.strides.iter().zip(index).map(|(s, i)| s * i).sum();
        self.data[self.offset + at]
    }
}

/// Calls `f` with every multi-index of `shape`, in row-major order.
fn each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0usize; shape.len()];
    loop {
        f(&index);
        let mut k = shape.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

// The replay runs each operation alone (the de-optimized path, as JAX runs
// one primitive at a time), so these take a function pointer: one copy of
// each serves every operation of a type, and a long function's replay costs
// one call per operation to compile, not one loop (hence `inline(never)`).
// Results live in the replay's [`Arena`], freed at once when it ends.

/// Where the replay keeps the results of its elementwise operations.
#[derive(Default)]
pub struct Arena(bumpalo::Bump);

/// What the replay knows of the operation being run: its primitive and
/// where it is in the user's source.
pub type Site = (&'static str, &'static str);

/// One operation of the replay: `element(index)` at every index of
/// `shape`, row-major, into the arena; the first error is kept (`found`)
/// when the result holds a bad value made from operands without one.
fn run<'a, R: Element>(
    arena: &'a Arena,
    found: &mut Option<crate::debug::FloatingPointError>,
    (primitive, location): Site,
    shape: &[usize],
    clean: bool,
    element: impl Fn(&[usize]) -> R,
) -> &'a [R] {
    let mut out = Vec::with_capacity(shape.iter().product());
    each_index(shape, |i| out.push(element(i)));
    if found.is_none()
        && clean
        && let Some(value) = bad(&out)
    {
        *found = Some(error(value, primitive, location));
    }
    arena.0.alloc_slice_copy(&out)
}

impl<T: Element> View<'_, T> {
    /// Whether the viewed buffer holds no bad value.
    fn clean(&self) -> bool {
        bad(self.data).is_none()
    }
}

/// `f` of one operand at every index of `shape`, row-major, judged.
#[inline(never)]
pub fn map1<'a, A: Element, R: Element>(
    arena: &'a Arena,
    found: &mut Option<crate::debug::FloatingPointError>,
    site: Site,
    shape: &[usize],
    a: View<'_, A>,
    f: fn(A) -> R,
) -> &'a [R] {
    let clean = a.clean();
    run(arena, found, site, shape, clean, |i| f(a.at(i)))
}

/// `f` of two operands at every index of `shape`, row-major, judged.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn map2<'a, A: Element, B: Element, R: Element>(
    arena: &'a Arena,
    found: &mut Option<crate::debug::FloatingPointError>,
    site: Site,
    shape: &[usize],
    a: View<'_, A>,
    b: View<'_, B>,
    f: fn(A, B) -> R,
) -> &'a [R] {
    let clean = a.clean() && b.clean();
    run(arena, found, site, shape, clean, |i| f(a.at(i), b.at(i)))
}

/// `f` of three operands at every index of `shape`, row-major, judged.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn map3<'a, A: Element, B: Element, C: Element, R: Element>(
    arena: &'a Arena,
    found: &mut Option<crate::debug::FloatingPointError>,
    site: Site,
    shape: &[usize],
    a: View<'_, A>,
    b: View<'_, B>,
    c: View<'_, C>,
    f: fn(A, B, C) -> R,
) -> &'a [R] {
    let clean = a.clean() && b.clean() && c.clean();
    run(arena, found, site, shape, clean, |i| {
        f(a.at(i), b.at(i), c.at(i))
    })
}

/// An argument of a donating function, kept for the `jax_debug_nans`
/// replay: `(&Keep(&x)).keep()` is a clone of `x` when its type is `Clone`
/// ([`KeepByClone`]), else `None` ([`KeepNothing`]), chosen by method
/// resolution, so generated code needs no bound on the user's types.
pub struct Keep<'a, T>(pub &'a T);

/// [`Keep`] for a `Clone` argument.
pub trait KeepByClone<T> {
    /// A clone of the argument.
    fn keep(&self) -> Option<T>;
}

impl<T: Clone> KeepByClone<T> for Keep<'_, T> {
    fn keep(&self) -> Option<T> {
        Some(self.0.clone())
    }
}

/// [`Keep`] for any other argument: nothing to replay from.
pub trait KeepNothing<T> {
    /// `None`.
    fn keep(&self) -> Option<T>;
}

impl<T> KeepNothing<T> for &Keep<'_, T> {
    fn keep(&self) -> Option<T> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_follow_strides_and_scalars() {
        // x: [[0, 1, 2], [3, 4, 5]]; its transpose read through strides.
        let arena = Arena::default();
        let mut found = None;
        let site = ("add", "here");
        let x = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0];
        let t = map1(
            &arena,
            &mut found,
            site,
            &[3, 2],
            view(&x, 0, &[1, 3]),
            |a| a,
        );
        assert_eq!(t, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        // A broadcast row plus a scalar.
        let row = [10.0f32, 20.0, 30.0];
        let s = map2(
            &arena,
            &mut found,
            site,
            &[2, 3],
            view(&row, 0, &[0, 1]),
            scalar(&1.0f32),
            |a, b| a + b,
        );
        assert_eq!(s, [11.0, 21.0, 31.0, 11.0, 21.0, 31.0]);
        let pick = map3(
            &arena,
            &mut found,
            site,
            &[3],
            view(&[true, false, true], 0, &[1]),
            scalar(&0i32),
            view(&[7i32, 8, 9], 0, &[1]),
            |p, a, b| if p { b } else { a },
        );
        assert_eq!(pick, [7, 0, 9]);
        assert!(map1(
            &arena,
            &mut found,
            site,
            &[2, 0],
            view(&x, 0, &[0, 0]),
            |a| a
        )
        .is_empty());
        assert_eq!(
            map1(&arena, &mut found, site, &[], scalar(&2.5f32), |a| a * 2.0),
            [5.0]
        );
        assert!(found.is_none());
    }

    #[test]
    fn the_first_operation_making_a_nan_from_clean_operands_is_kept() {
        let arena = Arena::default();
        let mut found = None;
        let x = [0.0f32, 1.0];
        // 0 / 0 from clean operands: this one.
        let q = map2(
            &arena,
            &mut found,
            ("div", "a.rs:1:1"),
            &[2],
            view(&x, 0, &[1]),
            view(&x, 0, &[1]),
            |a, b| a / b,
        );
        assert!(q[0].is_nan());
        // A NaN carried on from a bad operand is not a new one.
        let _ = map1(
            &arena,
            &mut found,
            ("sin", "a.rs:2:1"),
            &[2],
            view(q, 0, &[1]),
            |a: f32| a.sin(),
        );
        assert_eq!(
            found.as_ref().map(|e| (e.value, e.primitive, e.location)),
            Some(("nan", "div", "a.rs:1:1"))
        );
    }
}
