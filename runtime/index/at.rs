//! `x.at(index)`: gathers with an out-of-bounds [`Mode`] and functional
//! updates (`set`, `add`, `mul`, `min`, `max`) as JAX's `x.at[index]`.

use super::plan::Plan;
use super::{IndexSpec, IntoIndex};
use crate::array::{impl_array, Array, ArrayType, AsArray};
use crate::element::{Complex, DType, Element, Value};
use crate::shape;

/// What gathers and scatters do with out-of-bounds indices, as JAX's
/// `GatherScatterMode`. Slices never go out of bounds: their bounds are clamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Clamp each index into the axis (`mode='clip'`). The default of gathers.
    #[default]
    Clip,
    /// Gathers give a fill value where any index is out of bounds, scatters
    /// drop such updates (`mode='fill'` / `'drop'`). The default of scatters.
    /// The default fill value is NaN for floats, the minimum for signed
    /// integers, the maximum for unsigned ones and `true` for bool, as in JAX.
    FillOrDrop,
    /// The caller promises every index is in bounds. Out-of-bounds indices
    /// then give unspecified values; here they clamp in gathers and are
    /// dropped in scatters, as on XLA's CPU backend.
    PromiseInBounds,
}

/// The value JAX gathers for out-of-bounds indices under [`Mode::FillOrDrop`]
/// when no fill value is given: NaN, the minimum signed or maximum unsigned
/// integer, or `true`.
///
/// ```
/// assert_eq!(jax::index::default_fill::<i32>(), i32::MIN);
/// assert!(jax::index::default_fill::<f32>().is_nan());
/// ```
pub fn default_fill<T: Element>() -> T {
    let bits = T::DTYPE.bits();
    match T::DTYPE {
        DType::Bool => T::ONE,
        d if d.is_float() => T::from_f64(f64::NAN),
        DType::C64 | DType::C128 => T::from_parts(f64::NAN, f64::NAN),
        d if d.is_integer() && matches!(d, DType::U8 | DType::U16 | DType::U32 | DType::U64) => {
            T::from_value(Value::Int((1i128 << bits) - 1))
        }
        d if d.is_integer() => T::from_value(Value::Int(-(1i128 << (bits - 1)))),
        d => panic!("no default fill value for {}", d.name()),
    }
}

/// Scatter update values: a Rust scalar (weakly typed: converted to the
/// array's dtype like a Python scalar, so `x_i32.at(1).set(2.7)` stores 2) or
/// an array that broadcasts to the indexed shape (converted to the array's dtype).
pub trait Updates {
    /// The shape of the update values (`[]` for a scalar).
    fn update_shape(&self) -> Vec<usize>;
    /// The values converted to `T` with XLA's conversion semantics.
    fn update_values<T: Element>(&self) -> Vec<T>;
}

macro_rules! impl_scalar_updates {
    ($($t:ty),*) => {$(
        impl Updates for $t {
            fn update_shape(&self) -> Vec<usize> {
                Vec::new()
            }
            fn update_values<T: Element>(&self) -> Vec<T> {
                vec![self.cast::<T>()]
            }
        }
    )*};
}
impl_scalar_updates!(
    bool,
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    half::f16,
    half::bf16
);

macro_rules! impl_array_updates {
    ($($ref:tt)?) => {
        impl_array! {
            impl<U: Element> Updates for $($ref)? Array<U, ..> {
                fn update_shape(&self) -> Vec<usize> {
                    Array::<U, D0, D1, D2, D3, D4, D5>::SHAPE.to_vec()
                }
                fn update_values<T: Element>(&self) -> Vec<T> {
                    self.as_slice().iter().map(|v| v.cast::<T>()).collect()
                }
            }
        }
    };
}
impl_array_updates!();
impl_array_updates!(&);

/// The pending indexed access made by [`Array::at`], as JAX's `x.at[idx]`:
/// finish it with [`get`](At::get) or a functional update
/// ([`set`](At::set), [`add`](At::add), [`mul`](At::mul), [`min`](At::min),
/// [`max`](At::max)).
#[derive(Clone, Debug)]
pub struct At<A> {
    array: A,
    index: IndexSpec,
}

/// [`Array::at`] on a borrowed array: `(&x).at(i)` leaves `x` usable (the
/// update then copies the buffer, since `x` still shares it).
pub trait AtRef {
    /// The array type.
    type Array;
    /// Starts an indexed access on a (cheap) clone of the array.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 3> = Array::arange();
    /// let y = (&x).at(0).set(5.0);
    /// assert_eq!(x.to_vec(), [0.0, 1.0, 2.0]);
    /// assert_eq!(y.to_vec(), [5.0, 1.0, 2.0]);
    /// ```
    fn at<I: IntoIndex>(self, index: I) -> At<Self::Array>;
}

// Combinations through `Value`, so integers wrap as XLA's do. Floats are
// combined in f64 and rounded once, which is exactly the correctly rounded
// f32/f16/bf16 result (f64 has more than twice their precision plus two bits).
fn combine<T: Element>(a: T, b: T, int_op: fn(i128, i128) -> i128, f_op: fn(f64, f64) -> f64) -> T {
    match (a.to_value(), b.to_value()) {
        (Value::Int(x), Value::Int(y)) => T::from_value(Value::Int(int_op(x, y))),
        (Value::Float(x), Value::Float(y)) => T::from_f64(f_op(x, y)),
        (Value::Bool(x), Value::Bool(y)) => {
            T::from_value(Value::Bool(int_op(x as i128, y as i128) != 0))
        }
        _ => unreachable!("operands of one element type"),
    }
}

fn add<T: Element>(a: T, b: T) -> T {
    if let Some(z) = complex_op(a, b, crate::ops::AddMul::add, crate::ops::AddMul::add) {
        return z;
    }
    // XLA's add on bool is a logical or.
    if T::DTYPE == DType::Bool {
        return combine(a, b, |x, y| x | y, |x, y| x + y);
    }
    combine(a, b, i128::wrapping_add, |x, y| x + y)
}

/// `op` in the element's own complex arithmetic, for complex `T`.
fn complex_op<T: Element>(
    a: T,
    b: T,
    op64: fn(Complex<f32>, Complex<f32>) -> Complex<f32>,
    op128: fn(Complex<f64>, Complex<f64>) -> Complex<f64>,
) -> Option<T> {
    match T::DTYPE {
        DType::C64 => Some(op64(a.cast(), b.cast()).cast()),
        DType::C128 => Some(op128(a.cast(), b.cast()).cast()),
        _ => None,
    }
}

fn mul<T: Element>(a: T, b: T) -> T {
    if let Some(z) = complex_op(a, b, crate::ops::AddMul::mul, crate::ops::AddMul::mul) {
        return z;
    }
    combine(a, b, i128::wrapping_mul, |x, y| x * y)
}

// min/max propagate NaN, as lax.min/lax.max.
#[allow(clippy::eq_op)]
fn min<T: Element + PartialOrd>(a: T, b: T) -> T {
    if a != a || b < a || b != b {
        if a != a {
            a
        } else {
            b
        }
    } else {
        a
    }
}

#[allow(clippy::eq_op)]
fn max<T: Element + PartialOrd>(a: T, b: T) -> T {
    if a != a || b > a || b != b {
        if a != a {
            a
        } else {
            b
        }
    } else {
        a
    }
}

impl_array! {
    impl<T: Element> Array<T, ..> {
        /// Starts an indexed access, as JAX's `x.at[index]`. Takes the array by
        /// value so that an update can write into its buffer when no one else
        /// shares it; use `(&x).at(i)` (see [`AtRef`]) or `x.clone().at(i)` to
        /// keep `x`.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 3, 3> = Array::zeros();
        /// let y = x.at((1, ..)).set(1.0);
        /// assert_eq!(y.to_vec(), [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
        /// ```
        pub fn at<I: IntoIndex>(self, index: I) -> At<Self> {
            At {
                array: self,
                index: index.into_index(),
            }
        }

        /// A copy of the indexed part (JAX's `x[index]`), usually with an
        /// [`s!`](crate::s) spec. Integer indices out of range are clamped. The
        /// result type is chosen by the caller and checked.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 10> = Array::arange();
        /// let y: Array<f32, 2> = x.slice(s![8..20]);
        /// assert_eq!(y.to_vec(), [8.0, 9.0]);
        /// ```
        #[track_caller]
        pub fn slice<Out: ArrayType<Elem = T>>(&self, index: impl IntoIndex) -> Out {
            gather_impl(self, &index.into_index(), "slice", Mode::Clip, T::ZERO)
        }
    }
}

#[track_caller]
pub(crate) fn gather_impl<T: Element, A: ArrayType<Elem = T>, Out: ArrayType<Elem = T>>(
    x: &A,
    index: &IndexSpec,
    op: &str,
    mode: Mode,
    fill: T,
) -> Out {
    let plan = Plan::new(op, A::SHAPE, index);
    shape::check_result::<Out>(op, T::DTYPE, &plan.out_shape);
    Out::from_data(plan.gather(x.data(), mode, fill)).set_weak(x.is_weak())
}

impl_array! {
    impl<T: Element> At<Array<T, ..>> {
        /// Gathers the indexed elements (JAX's `x.at[i].get()`, or `x[i]`).
        /// Out-of-bounds indices are clamped; negative ones count from the end
        /// first (`-6` on length 5 clamps to 0).
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 10> = Array::arange();
        /// let v: Array<f32> = x.at(11).get();
        /// assert_eq!(v.item(), 9.0);
        /// ```
        #[track_caller]
        pub fn get<Out: ArrayType<Elem = T>>(self) -> Out {
            self.get_with(Mode::Clip)
        }

        /// Gathers with a [`Mode`]; [`Mode::FillOrDrop`] fills with [`default_fill`].
        ///
        /// ```
        /// use jax::prelude::*;
        /// use jax::index::Mode;
        /// let x: Array<i32, 10> = Array::arange();
        /// let v: Array<i32> = x.at(11).get_with(Mode::FillOrDrop);
        /// assert_eq!(v.item(), i32::MIN);
        /// ```
        #[track_caller]
        pub fn get_with<Out: ArrayType<Elem = T>>(self, mode: Mode) -> Out {
            gather_impl(&self.array, &self.index, "get", mode, default_fill::<T>())
        }

        /// Gathers with `mode='fill'` and a fill value (converted to the array's dtype).
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 5> = Array::arange();
        /// let v: Array<f32> = x.at(-6).get_fill(-1.0);
        /// assert_eq!(v.item(), -1.0);
        /// ```
        #[track_caller]
        pub fn get_fill<Out: ArrayType<Elem = T>, S: Element>(self, fill_value: S) -> Out {
            gather_impl(&self.array, &self.index, "get", Mode::FillOrDrop, fill_value.cast())
        }

        #[track_caller]
        fn scatter(self, op_name: &str, v: impl Updates, mode: Mode, op: impl Fn(T, T) -> T) -> Array<T, D0, D1, D2, D3, D4, D5> {
            let plan = Plan::new(op_name, Array::<T, D0, D1, D2, D3, D4, D5>::SHAPE, &self.index);
            let ushape = v.update_shape();
            match shape::broadcast_shapes(&ushape, &plan.out_shape) {
                Ok(s) if s == plan.out_shape => {}
                _ => panic!(
                    "{op_name}: update values of shape {:?} do not broadcast to the indexed shape {:?}",
                    ushape, plan.out_shape
                ),
            }
            let values = v.update_values::<T>();
            let mut array = self.array;
            plan.scatter(array.make_mut(), &values, &ushape, mode, op);
            array
        }

        /// Sets the indexed elements to `v` (JAX's `x.at[i].set(v)`): a scalar or
        /// an array broadcasting to the indexed shape. Out-of-bounds updates are
        /// dropped; with duplicate indices the last update wins.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<i32, 5> = Array::arange();
        /// assert_eq!(x.at(1).set(2.7).to_vec(), [0, 2, 2, 3, 4]);
        /// ```
        #[track_caller]
        pub fn set(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
            self.set_with(v, Mode::FillOrDrop)
        }

        /// [`set`](At::set) with a [`Mode`]: `Mode::Clip` clamps out-of-bounds indices.
        ///
        /// ```
        /// use jax::prelude::*;
        /// use jax::index::Mode;
        /// let x: Array<f32, 5> = Array::arange();
        /// assert_eq!(x.at(7).set_with(9.0, Mode::Clip).to_vec(), [0.0, 1.0, 2.0, 3.0, 9.0]);
        /// ```
        #[track_caller]
        pub fn set_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
            self.scatter("set", v, mode, |_, u| u)
        }

        /// Adds `v` at the indexed elements (`x.at[i].add(v)`); duplicate indices accumulate.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x: Array<f32, 4> = Array::zeros();
        /// let i = Array::<i32, 3>::from([0, 0, 2]);
        /// assert_eq!(x.at(i).add(1.0).to_vec(), [2.0, 0.0, 1.0, 0.0]);
        /// ```
        #[track_caller]
        #[allow(clippy::should_implement_trait)] // JAX's name
        pub fn add(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
            self.add_with(v, Mode::FillOrDrop)
        }

        /// [`add`](At::add) with a [`Mode`].
        #[track_caller]
        pub fn add_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
            self.scatter("add", v, mode, add)
        }

        /// Multiplies the indexed elements by `v` (`x.at[i].mul(v)`).
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
        /// assert_eq!(x.at(1).mul(10.0).to_vec(), [1.0, 20.0, 3.0]);
        /// ```
        #[track_caller]
        #[allow(clippy::should_implement_trait)] // JAX's name
        pub fn mul(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
            self.mul_with(v, Mode::FillOrDrop)
        }

        /// [`mul`](At::mul) with a [`Mode`].
        #[track_caller]
        pub fn mul_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
            self.scatter("mul", v, mode, mul)
        }

        /// Replaces the indexed elements by their minimum with `v` (`x.at[i].min(v)`); NaN propagates.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
        /// assert_eq!(x.at(2).min(0.5).to_vec(), [1.0, 2.0, 0.5]);
        /// ```
        #[track_caller]
        pub fn min(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5>
        where
            T: PartialOrd,
        {
            self.min_with(v, Mode::FillOrDrop)
        }

        /// [`min`](At::min) with a [`Mode`].
        #[track_caller]
        pub fn min_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5>
        where
            T: PartialOrd,
        {
            self.scatter("min", v, mode, min)
        }

        /// Replaces the indexed elements by their maximum with `v` (`x.at[i].max(v)`); NaN propagates.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
        /// assert_eq!(x.at(0).max(5.0).to_vec(), [5.0, 2.0, 3.0]);
        /// ```
        #[track_caller]
        pub fn max(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5>
        where
            T: PartialOrd,
        {
            self.max_with(v, Mode::FillOrDrop)
        }

        /// [`max`](At::max) with a [`Mode`].
        #[track_caller]
        pub fn max_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5>
        where
            T: PartialOrd,
        {
            self.scatter("max", v, mode, max)
        }
    }
}

impl_array! {
    impl<T: Element> AtRef for &Array<T, ..> {
        type Array = Array<T, D0, D1, D2, D3, D4, D5>;
        fn at<I: IntoIndex>(self, index: I) -> At<Self::Array> {
            self.clone().at(index)
        }
    }
}

/// Gathers `x[index]` from any array argument (by value or reference), as
/// `jnp.take`-style indexing: the function form of `x.at(index).get()`.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3, 4> = Array::arange();
/// let v: Array<f32> = jax::index::get(&x, (-1, -2));
/// assert_eq!(v.item(), 10.0);
/// ```
#[track_caller]
pub fn get<A: AsArray, Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>>(
    x: A,
    index: impl IntoIndex,
) -> Out {
    gather_impl(
        x.as_array(),
        &index.into_index(),
        "get",
        Mode::Clip,
        <A::Array as ArrayType>::Elem::ZERO,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_propagating_min_max() {
        assert!(min(f32::NAN, 1.0).is_nan());
        assert!(min(1.0, f32::NAN).is_nan());
        assert!(max(1.0f32, f32::NAN).is_nan());
        assert_eq!(max(1i32, 2), 2);
        assert_eq!(min(1i32, 2), 1);
        assert_eq!(add(i8::MAX, 1), i8::MIN);
        assert_eq!(mul(u64::MAX, 2), u64::MAX - 1);
        assert!(add(true, false));
    }

    #[test]
    fn update_in_place_when_unshared() {
        let x: Array<f32, 4> = Array::arange();
        let p = x.as_slice().as_ptr();
        let y = x.at(1).set(7.0);
        assert_eq!(y.as_slice().as_ptr(), p);
        let z = (&y).at(0).set(7.0);
        assert_ne!(z.as_slice().as_ptr(), p);
        assert_eq!(y.to_vec(), [0.0, 7.0, 2.0, 3.0]);
    }
}
