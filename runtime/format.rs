//! `Debug` prints JAX's repr (`Array([0., 1.], dtype=float32)`), `Display`
//! its str (`[0. 1.]`), with NumPy's layout and float formatting.
//!
//! This follows JAX 0.10.2's `ArrayImpl.__repr__`/`__str__` and NumPy 2.4's
//! `array2string` with default print options: line width 75, summarization
//! with `...` above 1000 elements keeping 3 items at each edge, floats with at
//! most 8 fractional digits ("maxprec"), switching to scientific notation by
//! NumPy's rules. Float digits come from a port of NumPy's Dragon4 semantics
//! ([`dragon4`]), so every element type prints exactly as in JAX, including
//! `float16` (its own shortest digits) and `bfloat16` (printed by `ml_dtypes`
//! like C's `%g`).

mod dragon4;

use std::fmt;

use crate::array::{impl_array, Array};
use crate::element::{bf16, f16, DType, Element, Value};
use dragon4::{FloatFormat, Options, Parts, Trim};

/// NumPy's default `linewidth`.
const LINEWIDTH: usize = 75;
/// NumPy's default `threshold`: larger arrays are summarized.
const THRESHOLD: usize = 1000;
/// NumPy's default `edgeitems`.
const EDGEITEMS: usize = 3;
/// NumPy's default `precision` (fractional digits in positional notation).
const PRECISION: i32 = 8;

/// The element type's binary format, for the float dtypes NumPy formats itself.
fn float_format(dtype: DType) -> Option<FloatFormat> {
    match dtype {
        DType::F16 => Some(dragon4::F16),
        DType::F32 => Some(dragon4::F32),
        DType::F64 => Some(dragon4::F64),
        _ => None,
    }
}

/// Splits a float element (given exactly as `f64`) in its own format.
fn float_parts(dtype: DType, x: f64) -> Parts {
    match dtype {
        DType::F16 => dragon4::F16.parts(f16::from_f64(x).to_bits() as u64),
        DType::BF16 => dragon4::BF16.parts(bf16::from_f64(x).to_bits() as u64),
        DType::F32 => dragon4::F32.parts((x as f32).to_bits() as u64),
        _ => dragon4::F64.parts(x.to_bits()),
    }
}

/// Rounds to the element type, so comparisons and divisions happen in that
/// type as they do in NumPy (exact for the results involved: f64 carries more
/// than twice the bits of f32 and f16, so rounding its quotient once more is
/// the correctly rounded quotient of the narrow type).
fn round_to(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::F16 => f16::from_f64(x).to_f64(),
        DType::F32 => x as f32 as f64,
        _ => x,
    }
}

fn as_f64(v: Value) -> f64 {
    match v {
        Value::Float(x) => x,
        Value::Int(i) => i as f64,
        Value::Bool(b) => b as u8 as f64,
    }
}

fn as_i128(v: Value) -> i128 {
    match v {
        Value::Int(i) => i,
        Value::Bool(b) => b as i128,
        Value::Float(x) => x as i128,
    }
}

/// NumPy's `FloatingFormat` with default options, fitted to the printed values.
struct FloatFmt {
    dtype: DType,
    exp_format: bool,
    precision: i32,
    min_digits: i32,
    trim: Trim,
    pad_left: i32,
    pad_right: i32,
    exp_size: i32,
    /// NumPy's `sign='+'`: the imaginary part of a complex number.
    plus: bool,
}

impl FloatFmt {
    fn new(dtype: DType, values: &[f64]) -> FloatFmt {
        Self::with_sign(dtype, values, false)
    }

    fn with_sign(dtype: DType, values: &[f64], plus: bool) -> FloatFmt {
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let mut f = FloatFmt {
            dtype,
            exp_format: false,
            precision: PRECISION,
            min_digits: -1,
            trim: Trim::Zeros,
            pad_left: 0,
            pad_right: 0,
            exp_size: -1,
            plus,
        };
        let abs_non_zero = finite.iter().filter(|&&x| x != 0.0).map(|x| x.abs());
        let max = abs_non_zero
            .clone()
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        let min = abs_non_zero.fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.min(x))));
        if let (Some(max), Some(min)) = (max, min) {
            // 10 ** min(8, finfo(dtype).precision): the decimal digits the type holds.
            let cutoff = match dtype {
                DType::F16 => 1e3,
                DType::F32 => 1e6,
                _ => 1e8,
            };
            f.exp_format =
                max >= cutoff || min < round_to(dtype, 1e-4) || round_to(dtype, max / min) > 1000.0;
        }
        let parts = |x: f64| float_parts(dtype, x);
        if finite.is_empty() {
            f.min_digits = -1;
        } else if f.exp_format {
            let opt = Options {
                precision: PRECISION,
                trim: Trim::Zeros,
                sign: plus,
                ..Options::default()
            };
            let (mut int_len, mut frac_len, mut exp_len) = (0, 0, 0);
            for &x in &finite {
                let s = dragon4::scientific(parts(x), &opt);
                let (mantissa, exp) = s.split_once('e').expect("scientific notation");
                let (int, frac) = mantissa.split_once('.').expect("decimal point");
                int_len = int_len.max(int.len());
                frac_len = frac_len.max(frac.len());
                exp_len = exp_len.max(exp.len());
            }
            f.exp_size = exp_len as i32 - 1;
            f.trim = Trim::Keep;
            f.precision = frac_len as i32;
            f.min_digits = f.precision;
            f.pad_left = int_len as i32;
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let opt = Options {
                precision: PRECISION,
                trim: Trim::Zeros,
                sign: plus,
                ..Options::default()
            };
            let (mut int_len, mut frac_len) = (0, 0);
            for &x in &finite {
                let s = dragon4::positional(parts(x), &opt);
                let (int, frac) = s.split_once('.').expect("decimal point");
                int_len = int_len.max(int.len());
                frac_len = frac_len.max(frac.len());
            }
            f.pad_left = int_len as i32;
            f.pad_right = frac_len as i32;
            f.min_digits = 0;
        }
        if finite.len() != values.len() {
            let neg_inf = (plus || values.contains(&f64::NEG_INFINITY)) as i32;
            let offset = f.pad_right + 1;
            f.pad_left = f.pad_left.max(3 - offset).max(3 + neg_inf - offset);
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = match (x.is_nan(), x < 0.0, self.plus) {
                (true, _, false) => "nan",
                (true, _, true) => "+nan",
                (false, true, _) => "-inf",
                (false, false, false) => "inf",
                (false, false, true) => "+inf",
            };
            let width = (self.pad_left + self.pad_right + 1).max(0) as usize;
            return format!("{s:>width$}");
        }
        let parts = float_parts(self.dtype, x);
        if self.exp_format {
            dragon4::scientific(
                parts,
                &Options {
                    precision: self.precision,
                    min_digits: self.min_digits,
                    trim: self.trim,
                    pad_left: self.pad_left,
                    exp_digits: self.exp_size,
                    sign: self.plus,
                    ..Options::default()
                },
            )
        } else {
            dragon4::positional(
                parts,
                &Options {
                    precision: self.precision,
                    min_digits: self.min_digits,
                    trim: self.trim,
                    pad_left: self.pad_left,
                    pad_right: self.pad_right,
                    sign: self.plus,
                    ..Options::default()
                },
            )
        }
    }
}

/// The formatter NumPy picks for a dtype, fitted to the values to print.
enum ElemFmt {
    /// `' True'`/`'False'`, aligned except in 0-d arrays.
    Bool {
        aligned: bool,
    },
    /// Right-aligned to the widest of the largest and smallest value.
    Int {
        width: usize,
    },
    Float(FloatFmt),
    /// NumPy's `ComplexFloatingFormat`: the real parts formatted together,
    /// the imaginary parts together with a `+` sign, then `j`.
    Complex {
        re: FloatFmt,
        im: FloatFmt,
    },
    /// bfloat16 is not a NumPy float: each element is its `ml_dtypes` repr, unpadded.
    Generic {
        dtype: DType,
    },
}

impl ElemFmt {
    fn new(dtype: DType, values: &[Value], imag: &[f64], zero_d: bool) -> ElemFmt {
        match dtype {
            DType::C64 | DType::C128 => {
                let part = if dtype == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                let re: Vec<f64> = values.iter().map(|&v| as_f64(v)).collect();
                ElemFmt::Complex {
                    re: FloatFmt::new(part, &re),
                    im: FloatFmt::with_sign(part, imag, true),
                }
            }
            DType::Bool => ElemFmt::Bool { aligned: !zero_d },
            DType::BF16 => ElemFmt::Generic { dtype },
            d if float_format(d).is_some() => {
                let xs: Vec<f64> = values.iter().map(|&v| as_f64(v)).collect();
                ElemFmt::Float(FloatFmt::new(d, &xs))
            }
            _ => {
                let ints = values.iter().map(|&v| as_i128(v));
                let width = match (ints.clone().max(), ints.min()) {
                    (Some(max), Some(min)) => max.to_string().len().max(min.to_string().len()),
                    _ => 0,
                };
                ElemFmt::Int { width }
            }
        }
    }

    fn format(&self, v: Value, imag: f64) -> String {
        match self {
            ElemFmt::Complex { re, im } => {
                let r = re.format(as_f64(v));
                let i = im.format(imag);
                // The `j` goes before the imaginary part's trailing padding.
                let end = i.trim_end().len();
                format!("{r}{}j{}", &i[..end], &i[end..])
            }
            ElemFmt::Bool { aligned } => match (as_i128(v) != 0, aligned) {
                (true, true) => " True".into(),
                (true, false) => "True".into(),
                (false, _) => "False".into(),
            },
            ElemFmt::Int { width } => format!("{:>width$}", as_i128(v)),
            ElemFmt::Float(f) => f.format(as_f64(v)),
            ElemFmt::Generic { dtype } => dragon4::printf_g6(float_parts(*dtype, as_f64(v))),
        }
    }
}

/// The elements NumPy looks at: all of them, or for arrays above the
/// threshold only the first and last `EDGEITEMS` along each long axis.
struct Grid {
    /// The kept elements, row-major over `kept_shape`.
    values: Vec<Value>,
    /// The imaginary parts of the kept elements (empty for real dtypes).
    imag: Vec<f64>,
    shape: Vec<usize>,
    kept_shape: Vec<usize>,
    summarized: bool,
}

impl Grid {
    fn new<T: Copy>(data: &[T], shape: &[usize], to_value: impl Fn(T) -> Value) -> Grid {
        let size: usize = shape.iter().product();
        debug_assert_eq!(data.len(), size);
        if size <= THRESHOLD {
            return Grid {
                values: data.iter().map(|&x| to_value(x)).collect(),
                imag: Vec::new(),
                shape: shape.to_vec(),
                kept_shape: shape.to_vec(),
                summarized: false,
            };
        }
        let kept_axes: Vec<Vec<usize>> = shape
            .iter()
            .map(|&n| {
                if n > 2 * EDGEITEMS {
                    (0..EDGEITEMS).chain(n - EDGEITEMS..n).collect()
                } else {
                    (0..n).collect()
                }
            })
            .collect();
        let strides = crate::shape::strides(shape);
        let mut offsets = vec![0usize];
        for (axis, kept) in kept_axes.iter().enumerate() {
            let stride = strides[axis];
            offsets = offsets
                .iter()
                .flat_map(|&o| kept.iter().map(move |&i| o + i * stride))
                .collect();
        }
        Grid {
            values: offsets.iter().map(|&o| to_value(data[o])).collect(),
            imag: Vec::new(),
            shape: shape.to_vec(),
            kept_shape: kept_axes.iter().map(Vec::len).collect(),
            summarized: true,
        }
    }

    /// NumPy's `array2string` of a non-empty array.
    fn array2string(&self, dtype: DType, separator: &str, prefix: &str, suffix: &str) -> String {
        let fmt = ElemFmt::new(dtype, &self.values, &self.imag, self.shape.is_empty());
        let hanging = " ".repeat(1 + prefix.len());
        let width = LINEWIDTH as isize - suffix.len() as isize;
        let strides = crate::shape::strides(&self.kept_shape);
        self.recurse(&fmt, &strides, separator, 0, 0, &hanging, width)
    }

    /// NumPy's `_formatArray` recursion, one axis per level.
    #[allow(clippy::too_many_arguments)]
    fn recurse(
        &self,
        fmt: &ElemFmt,
        strides: &[usize],
        separator: &str,
        axis: usize,
        offset: usize,
        hanging: &str,
        width: isize,
    ) -> String {
        let rank = self.shape.len();
        if axis == rank {
            return fmt.format(
                self.values[offset],
                self.imag.get(offset).copied().unwrap_or(0.0),
            );
        }
        let next_hanging = format!("{hanging} ");
        let len = self.kept_shape[axis];
        let items: Vec<Option<usize>> = if self.summarized && self.shape[axis] > 2 * EDGEITEMS {
            (0..EDGEITEMS)
                .map(Some)
                .chain([None])
                .chain((len - EDGEITEMS..len).map(Some))
                .collect()
        } else {
            (0..len).map(Some).collect()
        };
        let item = |i: Option<usize>| match i {
            Some(i) => self.recurse(
                fmt,
                strides,
                separator,
                axis + 1,
                offset + i * strides[axis],
                &next_hanging,
                width - 1,
            ),
            None => "...".to_string(),
        };
        let mut s = String::new();
        if axis + 1 == rank {
            // Room for the separator or the closing bracket after each element.
            let elem_width = width - 1;
            let mut line = hanging.to_string();
            for (k, &i) in items.iter().enumerate() {
                extend_line(&mut s, &mut line, &item(i), elem_width, hanging);
                if k + 1 < items.len() {
                    line += separator;
                }
            }
            s += &line;
        } else {
            let line_sep = format!("{}{}", separator.trim_end(), "\n".repeat(rank - axis - 1));
            for (k, &i) in items.iter().enumerate() {
                s += hanging;
                s += &item(i);
                if k + 1 < items.len() {
                    s += &line_sep;
                }
            }
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// NumPy's `_extendLine`: wraps before `word` when it would pass the width,
/// unless the line holds nothing but its indent.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: isize, indent: &str) {
    let needs_wrap = (line.len() + word.len()) as isize > width && line.len() > indent.len();
    if needs_wrap {
        *s += line.trim_end();
        s.push('\n');
        *line = indent.to_string();
    }
    *line += word;
}

/// A shape as Python prints a tuple: `(0,)`, `(2, 0)`.
fn python_tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn repr_of(grid: &Grid, dtype: DType, weak: bool) -> String {
    let prefix = "Array(";
    let dtype_str = if weak {
        format!("dtype={}, weak_type=True", dtype.name())
    } else {
        format!("dtype={}", dtype.name())
    };
    let s = if grid.shape.contains(&0) {
        format!("[], shape={}", python_tuple(&grid.shape))
    } else {
        grid.array2string(dtype, ", ", prefix, ",")
    };
    // JAX's arithmetic, including its off-by-two for a single line.
    let last_line_len = match s.rfind('\n') {
        Some(i) => s.len() - i + 1,
        None => s.len() + 2,
    };
    let sep = if last_line_len + dtype_str.len() + 2 > LINEWIDTH {
        " ".repeat(prefix.len())
    } else {
        " ".to_string()
    };
    format!("{prefix}{s},{sep}{dtype_str})")
}

/// The str of a 0-d array: NumPy's str of the scalar, with all its digits.
fn scalar_str(dtype: DType, v: Value) -> String {
    match dtype {
        DType::Bool => if as_i128(v) != 0 { "True" } else { "False" }.into(),
        DType::BF16 => dragon4::printf_g6(float_parts(dtype, as_f64(v))),
        d if float_format(d).is_some() => {
            let x = as_f64(v);
            if x.is_nan() {
                return "nan".into();
            }
            if x.is_infinite() {
                return if x < 0.0 { "-inf" } else { "inf" }.into();
            }
            // NumPy's scalar cut-offs: 1e16 for float64, 10**precision for the narrower types.
            let upper = match d {
                DType::F16 => 1e3,
                DType::F32 => 1e6,
                _ => 1e16,
            };
            let parts = float_parts(d, x);
            if x == 0.0 || (1e-4..upper).contains(&x.abs()) {
                let opt = Options {
                    trim: Trim::LeaveOneZero,
                    ..Options::default()
                };
                dragon4::positional(parts, &opt)
            } else {
                let opt = Options {
                    trim: Trim::DotAndZeros,
                    ..Options::default()
                };
                dragon4::scientific(parts, &opt)
            }
        }
        _ => as_i128(v).to_string(),
    }
}

fn str_of(grid: &Grid, dtype: DType) -> String {
    if grid.shape.is_empty() && matches!(dtype, DType::C64 | DType::C128) {
        complex_scalar_str(dtype, as_f64(grid.values[0]), grid.imag[0])
    } else if grid.shape.is_empty() {
        scalar_str(dtype, grid.values[0])
    } else if grid.shape.contains(&0) {
        "[]".into()
    } else {
        grid.array2string(dtype, " ", "", "")
    }
}

/// JAX's `repr` of an array given by its row-major `values`, as `Debug` prints it.
// The entry point for dtype-erased data; `Debug` goes through `Grid` directly
// so that a summarized array converts only the elements it shows.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn format_repr(values: &[Value], shape: &[usize], dtype: DType, weak: bool) -> String {
    repr_of(&Grid::new(values, shape, |v| v), dtype, weak)
}

/// JAX's `str` of an array given by its row-major `values`, as `Display` prints it.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn format_str(values: &[Value], shape: &[usize], dtype: DType) -> String {
    str_of(&Grid::new(values, shape, |v| v), dtype)
}

/// The grid of an array's elements, with the imaginary parts of complex ones.
fn grid_of<T: Element>(data: &[T], shape: &[usize]) -> Grid {
    let mut grid = Grid::new(data, shape, T::to_value);
    if matches!(T::DTYPE, DType::C64 | DType::C128) {
        let im = Grid::new(data, shape, |x| {
            Value::Float(x.cast::<crate::element::Complex<f64>>().im)
        });
        grid.imag = im.values.into_iter().map(as_f64).collect();
    }
    grid
}

/// NumPy's str of a complex scalar: `(1+2j)`, `-0j`, `(nan+infj)`: each part
/// as the float scalar's repr with `.0` dropped, the real part left out when
/// it is +0.
fn complex_scalar_str(dtype: DType, re: f64, im: f64) -> String {
    let part = if dtype == DType::C64 {
        DType::F32
    } else {
        DType::F64
    };
    let one = |x: f64| {
        let s = scalar_str(part, Value::Float(x));
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    let im_s = one(im);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{im_s}j");
    }
    let sign = if im_s.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{im_s}j)", one(re))
}

impl_array! {
    impl<T: Element> fmt::Debug for Array<T, ..> {
        /// JAX's repr, with NumPy's layout:
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::from([[1.0f32, 2.5], [3.0, 4.0]]);
        /// assert_eq!(format!("{x:?}"), "Array([[1. , 2.5],\n       [3. , 4. ]], dtype=float32)");
        /// assert_eq!(format!("{:?}", Array::from(9i32)), "Array(9, dtype=int32)");
        /// ```
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let grid = grid_of(self.as_slice(), Self::SHAPE);
            f.write_str(&repr_of(&grid, T::DTYPE, self.weak_type()))
        }
    }
}

impl_array! {
    impl<T: Element> fmt::Display for Array<T, ..> {
        /// JAX's str (NumPy's str of the values):
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<f32, 2, 3>::ones();
        /// assert_eq!(x.to_string(), "[[1. 1. 1.]\n [1. 1. 1.]]");
        /// assert_eq!(Array::from(1.5f32).to_string(), "1.5");
        /// assert_eq!(Array::from([true, false]).to_string(), "[ True False]");
        /// ```
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let grid = grid_of(self.as_slice(), Self::SHAPE);
            f.write_str(&str_of(&grid, T::DTYPE))
        }
    }
}

#[cfg(test)]
mod tests;
