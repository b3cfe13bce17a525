//! Closures that assign what they captured, inside `#[jax::jit]`: each body
//! is compiled twice, jitted and as plain Rust, and the two must agree, as
//! Rust's semantics say (a call updates the variable it borrowed; a `move`
//! closure keeps its own state across calls).

#![allow(unused_assignments, unused_mut, clippy::redundant_closure_call)]

use jax::prelude::*;

/// The same body as a jitted function and as plain Rust.
macro_rules! both {
    ($jit:ident, $plain:ident, |$x:ident| -> $r:ty { $($body:tt)* }) => {
        #[jax::jit]
        fn $jit($x: &Array<f32, 3>) -> $r { $($body)* }
        fn $plain($x: &Array<f32, 3>) -> $r { $($body)* }
    };
}

both!(bump_twice, bump_twice_plain, |x| -> Array<f32, 3> {
    let mut c = x * 0.0;
    let mut bump = || {
        c = &c + x;
    };
    bump();
    bump();
    c
});

both!(accumulate, accumulate_plain, |x| -> (
    Array<f32, 3>,
    Array<f32, 3>
) {
    let mut acc = x.clone();
    let mut f = |y: &Array<f32, 3>| {
        acc = &acc + y;
        acc.clone()
    };
    let first = f(x);
    let second = f(x);
    (first, second + acc)
});

both!(own_state, own_state_plain, |x| -> Array<f32, 3> {
    // A `move` closure copies `k`: its writes stay in the closure.
    let mut k = 1.0f32;
    let mut double = move || {
        k *= 2.0;
        k
    };
    double();
    let r = double();
    x * r + x * k
});

both!(shadowed, shadowed_plain, |x| -> Array<f32, 3> {
    // The closure borrowed the first `c`; the second is another variable.
    let mut c = x * 0.0;
    let mut bump = || {
        c = &c + x;
        c.clone()
    };
    let c = x * 10.0;
    let a = bump();
    let b = bump();
    a + b + c
});

both!(nested, nested_plain, |x| -> Array<f32, 3> {
    let mut c = x * 0.0;
    let mut bump = || {
        c = &c + x;
    };
    let mut twice = || {
        bump();
        bump();
    };
    twice();
    twice();
    c
});

both!(in_a_loop, in_a_loop_plain, |x| -> Array<f32, 3> {
    let mut total = x * 0.0;
    let mut add = |k: f32| {
        total = &total + x * k;
    };
    for k in 0..4 {
        add(k as f32);
    }
    total
});

#[test]
fn closures_that_assign_captured_variables_follow_rust() {
    let x = Array::<f32, 3>::from_vec(vec![1.0, -2.0, 0.5]).unwrap();
    let cases: [(&str, Array<f32, 3>, Array<f32, 3>); 5] = [
        ("bump_twice", bump_twice(&x), bump_twice_plain(&x)),
        ("own_state", own_state(&x), own_state_plain(&x)),
        ("shadowed", shadowed(&x), shadowed_plain(&x)),
        ("nested", nested(&x), nested_plain(&x)),
        ("in_a_loop", in_a_loop(&x), in_a_loop_plain(&x)),
    ];
    for (name, jit, plain) in cases {
        assert_eq!(jit.to_vec(), plain.to_vec(), "{name}");
    }
    // The values Rust gives, so the comparison cannot pass vacuously.
    assert_eq!(bump_twice(&x).to_vec(), vec![2.0, -4.0, 1.0]);
    assert_eq!(own_state(&x).to_vec(), vec![5.0, -10.0, 2.5]);
    assert_eq!(nested(&x).to_vec(), vec![4.0, -8.0, 2.0]);
    let (first, second) = accumulate(&x);
    let (pfirst, psecond) = accumulate_plain(&x);
    assert_eq!(first.to_vec(), pfirst.to_vec());
    assert_eq!(second.to_vec(), psecond.to_vec());
    assert_eq!(first.to_vec(), vec![2.0, -4.0, 1.0]);
    assert_eq!(second.to_vec(), vec![6.0, -12.0, 3.0]);
}
