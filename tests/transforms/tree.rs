//! `jax::tree` against real JAX (tests/fixtures/gen/tree.py): structures as
//! `jax.tree.structure` prints them, JAX's errors for mismatched trees, tree
//! maps and reductions on nested trees, and `DynArray` arithmetic with JAX's
//! promotion and weak typing.

use jax::prelude::*;
use jax::tree::{self, DynArray, Leaf, Pytree, TreeDef};
use serde_json::Value;

/// A struct pytree, as `#[derive(jax::Pytree)]` writes it.
#[derive(Clone, Debug)]
struct Params<W, B> {
    w: W,
    b: B,
}

impl<W: Pytree, B: Pytree> Pytree for Params<W, B> {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        self.w.for_each_leaf(f);
        self.b.for_each_leaf(f);
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        self.w.for_each_leaf_mut(f);
        self.b.for_each_leaf_mut(f);
    }
    fn def(&self) -> TreeDef {
        TreeDef::Node {
            name: "Params",
            fields: vec!["w", "b"],
            children: vec![self.w.def(), self.b.def()],
        }
    }
}

#[derive(Clone, Debug)]
struct Other<W, B> {
    w: W,
    b: B,
}

impl<W: Pytree, B: Pytree> Pytree for Other<W, B> {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        self.w.for_each_leaf(f);
        self.b.for_each_leaf(f);
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        self.w.for_each_leaf_mut(f);
        self.b.for_each_leaf_mut(f);
    }
    fn def(&self) -> TreeDef {
        TreeDef::Node {
            name: "Other",
            fields: vec!["w", "b"],
            children: vec![self.w.def(), self.b.def()],
        }
    }
}

#[derive(Clone, Debug)]
struct Layer<W> {
    w: W,
}

impl<W: Pytree> Pytree for Layer<W> {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        self.w.for_each_leaf(f);
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        self.w.for_each_leaf_mut(f);
    }
    fn def(&self) -> TreeDef {
        TreeDef::Node {
            name: "Layer",
            fields: vec!["w"],
            children: vec![self.w.def()],
        }
    }
}

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tree.json"
    ))
    .expect("tests/fixtures/tree.json (python3 tests/fixtures/gen/tree.py)");
    serde_json::from_str(&text).unwrap()
}

type S = Array<f32>;
fn s() -> S {
    Array::zeros()
}
fn l() -> Layer<S> {
    Layer { w: s() }
}

#[test]
fn structures_print_as_jax() {
    let fx = fixture();
    let want = |k: &str| fx["structures"][k].as_str().unwrap().to_string();
    assert_eq!(tree::structure(&(s(), s())).to_string(), want("tuple2"));
    assert_eq!(tree::structure(&(s(),)).to_string(), want("tuple1"));
    assert_eq!(tree::structure(&()).to_string(), want("empty_tuple"));
    // Rust has no `None` leaf type: the structure is built by hand.
    let nested = TreeDef::Tuple(vec![
        (s(), s()).def(),
        TreeDef::List(vec![s().def(), (s(),).def()]),
        TreeDef::None,
        ().def(),
    ]);
    assert_eq!(nested.to_string(), want("nested"));
    assert_eq!(nested.num_leaves(), 4);
    assert_eq!(
        tree::structure(&[(s(), s()), (s(), s())]).to_string(),
        want("list_of_tuples")
    );
    assert_eq!(
        tree::structure(&Params { w: s(), b: s() }).to_string(),
        want("params")
    );
    let nested_params = Params {
        w: l(),
        b: (s(), (s(), s())),
    };
    // The field `b` is a Python list [s, (s, s)]: here a Vec cannot mix
    // types, so its structure is written out.
    let mut def = nested_params.def();
    if let TreeDef::Node { children, .. } = &mut def {
        children[1] = TreeDef::List(vec![TreeDef::Leaf, (s(), s()).def()]);
    }
    assert_eq!(def.to_string(), want("nested_params"));
    assert_eq!(
        tree::structure(&[l(), l(), l()]).to_string(),
        want("list_of_layers")
    );
    assert_eq!(
        tree::structure(&vec![l(), l(), l()]).to_string(),
        want("list_of_layers")
    );
    assert_eq!(
        tree::structure(&(Params { w: s(), b: s() }, l())).to_string(),
        want("tuple_of_params")
    );
}

fn map_error<A: Pytree, B: Pytree>(a: &A, b: &B) -> String {
    match tree::map2(|x, _| x, a, b) {
        Ok(_) => panic!("no error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn mismatched_structures_give_jax_errors() {
    let fx = fixture();
    let want = |k: &str| fx["map_errors"][k].as_str().unwrap().to_string();
    assert_eq!(
        map_error(&(s(), s()), &(s(), s(), s())),
        want("tuple_length")
    );
    assert_eq!(map_error(&(s(), s()), &[s(), s()]), want("tuple_vs_list"));
    assert_eq!(
        map_error(&(s(), (s(), s())), &(s(), (s(), s(), s()))),
        want("nested_tuple_length")
    );
    assert_eq!(
        map_error(&(s(), (s(), s())), &(s(), [s(), s()])),
        want("nested_tuple_vs_list")
    );
    assert_eq!(
        map_error(&vec![s(), s()], &vec![s(), s(), s()]),
        want("list_length")
    );
    assert_eq!(
        map_error(&Params { w: s(), b: s() }, &Other { w: s(), b: s() }),
        want("struct_names")
    );
    assert_eq!(
        map_error(&Params { w: s(), b: s() }, &(s(), s())),
        want("struct_vs_tuple")
    );
    assert_eq!(
        map_error(
            &Params {
                w: s(),
                b: (s(), s())
            },
            &Params {
                w: s(),
                b: (s(), s(), s())
            }
        ),
        want("field_tuple_length")
    );
    assert_eq!(
        map_error(
            &Params {
                w: s(),
                b: vec![s(), s()]
            },
            &Params {
                w: s(),
                b: vec![s()]
            }
        ),
        want("field_list_length")
    );
    assert_eq!(
        map_error(&(s(), (s(), s())), &(s(), s())),
        want("subtree_vs_leaf")
    );
    assert_eq!(map_error(&(), &(s(),)), want("empty_vs_one"));
    assert_eq!(
        map_error(&vec![l()], &vec![l(), l()]),
        want("layers_length")
    );
    // map3 checks every tree.
    let e = tree::map3(|x, _, _| x, &(s(), s()), &(s(), s()), &(s(), s(), s())).unwrap_err();
    assert_eq!(e.to_string(), want("tuple_length"));
}

#[test]
fn a_leaf_facing_a_subtree_is_an_error() {
    // JAX would pass the subtree to f; a Rust closure takes arrays only.
    let e = map_error(&(s(), s()), &(s(), (s(), s())));
    assert!(e.contains("tree_map tree[1]"), "{e}");
    assert!(e.contains("<class 'tuple'>"), "{e}");
}

fn dyn_of(v: &Value) -> DynArray {
    let dtype = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data: Vec<f64> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| match d.as_str() {
            Some(s) => s.parse().unwrap(), // "nan", "inf", "-inf"
            None => d.as_f64().unwrap(),
        })
        .collect();
    DynArray::from_f64(dtype, shape, &data).unwrap()
}

fn assert_close(got: &DynArray, want: &Value, rtol: f64, what: &str) {
    let want = dyn_of(want);
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    for (i, (g, w)) in got.to_vec_f64().iter().zip(want.to_vec_f64()).enumerate() {
        assert!(
            g == &w || (g - w).abs() <= rtol * w.abs().max(1.0) || (g.is_nan() && w.is_nan()),
            "{what}[{i}]: got {g}, want {w}"
        );
    }
}

type Tree = Params<Layer<Array<f32, 2, 3>>, (Array<f32, 3>, (Array<f32>, Array<f32, 2, 2>))>;

fn tree_of(leaves: &Value) -> Tree {
    let template: Tree = Params {
        w: Layer { w: Array::zeros() },
        b: (Array::zeros(), (Array::zeros(), Array::zeros())),
    };
    let leaves = leaves.as_array().unwrap().iter().map(dyn_of).collect();
    tree::unflatten(&template, leaves).unwrap()
}

#[test]
fn map_leaves_and_reduce_on_a_nested_tree() {
    let fx = fixture();
    let sgd = &fx["sgd"];
    let params = tree_of(&sgd["params"]);
    let grads = tree_of(&sgd["grads"]);
    // Flattening order: struct fields in order, then tuple elements.
    for (got, want) in tree::leaves(&params)
        .iter()
        .zip(sgd["params"].as_array().unwrap())
    {
        assert_eq!(got, &dyn_of(want));
    }
    let updated = tree::map2(|p, g| p - 0.01 * g, &params, &grads).unwrap();
    let updated_leaves = tree::leaves(&updated);
    assert_eq!(updated_leaves.len(), 4);
    for (got, want) in updated_leaves
        .iter()
        .zip(sgd["updated"].as_array().unwrap())
    {
        // f32 arithmetic as XLA's: bit for bit.
        assert_eq!(got, &dyn_of(want));
    }
    let sum_sq = tree::reduce(|acc, x| acc + (&x * &x).sum(), &grads, 0.0);
    assert_eq!(sum_sq.dtype(), DType::F32);
    assert_close(&sum_sq, &sgd["sum_sq"], 1e-6, "sum_sq");
    let mixed = tree::map2(
        |p, g| (p.maximum(&g) - p.minimum(&g)).abs().sqrt() * (&p - &g).sign() / 3.0,
        &params,
        &grads,
    )
    .unwrap();
    for (i, (got, want)) in tree::leaves(&mixed)
        .iter()
        .zip(sgd["maximum"].as_array().unwrap())
        .enumerate()
    {
        assert_close(got, want, 1e-6, &format!("leaf {i}"));
    }
    // One-tree map keeps the structure.
    let neg = tree::map(|x| -x, &params).unwrap();
    assert_eq!(neg.w.w.to_vec()[1], -params.w.w.to_vec()[1]);
}

#[test]
fn arithmetic_promotes_as_jax() {
    let fx = fixture();
    for case in fx["arith"].as_array().unwrap() {
        let x = dyn_of(&case["x"]);
        let op = case["op"].as_str().unwrap();
        let (got, what) = if let Some(y) = case.get("y") {
            let y = dyn_of(y);
            let r = match op {
                "add" => &x + &y,
                "mul" => &x * &y,
                _ => &x / &y,
            };
            (r, format!("{:?} {op} {:?}", x.dtype(), y.dtype()))
        } else {
            let sc = &case["scalar"];
            let r = match (sc.as_i64(), op) {
                (Some(i), "add") => &x + i as i32,
                (Some(i), "mul") => &x * i as i32,
                (Some(i), _) => &x / i as i32,
                (None, "add") => &x + sc.as_f64().unwrap(),
                (None, "mul") => &x * sc.as_f64().unwrap(),
                (None, _) => &x / sc.as_f64().unwrap(),
            };
            assert_eq!(r.weak_type(), case["weak"].as_bool().unwrap(), "{sc} {op}");
            (r, format!("{:?} {op} {sc}", x.dtype()))
        };
        let want = case["result"]["dtype"].as_str().unwrap();
        // With x64, a default float result (true division of integers, an
        // integer with a Python float) is float64.
        let inexact = |v: &Value| {
            let d = v["dtype"].as_str().unwrap();
            d.starts_with("float") || d.starts_with("bfloat")
        };
        let default_float =
            want == "float32" && !inexact(&case["x"]) && case.get("y").is_none_or(|y| !inexact(y));
        let want = if cfg!(feature = "x64") && default_float {
            "float64"
        } else {
            want
        };
        assert_eq!(got.dtype().name(), want, "{what}");
        assert_close(&got, &case["result"], 1e-7, &what);
    }
}

#[test]
fn unflatten_and_assign_check_leaves() {
    let template = (Array::<f32, 2>::zeros(), Array::<i32>::zeros());
    let err = tree::unflatten(
        &template,
        vec![
            DynArray::scalar(1.0f32),
            DynArray::scalar(1i32),
            DynArray::scalar(1i32),
        ],
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Too many leaves for PyTreeDef; expected 2."
    );
    let err = tree::unflatten(
        &template,
        vec![DynArray::scalar(1.0f32), DynArray::scalar(1i32)],
    )
    .unwrap_err();
    assert!(err.to_string().contains("leaf 0"), "{err}");
    assert!(
        err.to_string()
            .contains("shape [] to a leaf of dtype float32 and shape [2]"),
        "{err}"
    );
    // A map whose function changes a leaf's dtype names the leaf.
    let err = tree::map(|x| x.astype(DType::F64), &template).unwrap_err();
    assert!(err.to_string().contains("dtype float64"), "{err}");
}
