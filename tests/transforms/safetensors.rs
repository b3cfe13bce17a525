//! Pytrees saved and loaded as safetensors files: a file written by Python's
//! `safetensors.numpy` (tests/fixtures/gen/safetensors_fixture.py) read in
//! Rust, a Rust-written file read back by Python (skipped with a message
//! when python3 or its safetensors package is missing; its bfloat16 tensor
//! alone skipped when ml_dtypes is), and the errors.

use jax::prelude::*;
use jax::tree::{self, Leaf, Pytree, TreeDef};

#[derive(Clone, Debug)]
struct Layer {
    w: Array<f32, 3>,
}

#[derive(Clone, Debug)]
struct Params<W1> {
    w1: W1,
    layers: [Layer; 2],
    step: Array<i32>,
    scale: Array<bf16, 2>,
}

// What `#[derive(jax::Pytree)]` writes.
impl Pytree for Layer {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        f(&self.w)
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        f(&mut self.w)
    }
    fn def(&self) -> TreeDef {
        TreeDef::Node {
            name: "Layer",
            fields: vec!["w"],
            children: vec![TreeDef::Leaf],
        }
    }
}

impl<W1: Pytree> Pytree for Params<W1> {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        self.w1.for_each_leaf(f);
        self.layers.for_each_leaf(f);
        f(&self.step);
        f(&self.scale);
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        self.w1.for_each_leaf_mut(f);
        self.layers.for_each_leaf_mut(f);
        f(&mut self.step);
        f(&mut self.scale);
    }
    fn def(&self) -> TreeDef {
        TreeDef::Node {
            name: "Params",
            fields: vec!["w1", "layers", "step", "scale"],
            children: vec![
                self.w1.def(),
                self.layers.def(),
                TreeDef::Leaf,
                TreeDef::Leaf,
            ],
        }
    }
}

fn template<W1: Default>() -> Params<W1> {
    Params {
        w1: W1::default(),
        layers: [Layer { w: Array::zeros() }, Layer { w: Array::zeros() }],
        step: Array::zeros(),
        scale: Array::zeros(),
    }
}

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/tree_params.safetensors"
);

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("jax_test_{}_{name}", std::process::id()))
}

#[test]
fn reads_a_file_written_by_python() {
    let p: Params<Array<f32, 2, 3>> = tree::load_safetensors(FIXTURE, &template()).unwrap();
    assert_eq!(p.w1.to_vec(), [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5]);
    for (i, (&got, want)) in p.layers[0]
        .w
        .as_slice()
        .iter()
        .zip([0.0f32, 1.0f32.sin(), 2.0f32.sin()])
        .enumerate()
    {
        assert!(
            (got - want).abs() <= 1e-6,
            "layers.0.w[{i}]: {got} vs {want}"
        );
    }
    assert_eq!(p.layers[1].w.to_vec(), [2.5; 3]);
    assert_eq!(p.step.item(), 42);
    assert_eq!(
        p.scale.to_vec(),
        [bf16::from_f32(1.5), bf16::from_f32(-0.25)]
    );
}

#[test]
fn errors_name_the_tensor() {
    let shown = std::path::Path::new(FIXTURE).display().to_string();
    // Wrong dtype.
    let e = tree::load_safetensors(FIXTURE, &template::<Array<f64, 2, 3>>()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("tensor `w1` in {shown}: dtype F32 in the file, the tree's leaf is float64 (F64)")
    );
    // Wrong shape.
    let e = tree::load_safetensors(FIXTURE, &template::<Array<f32, 3, 2>>()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "tensor `w1` in {shown}: shape [2, 3] in the file, the tree's leaf has shape [3, 2]"
        )
    );
    // Missing tensor: the tree has a leaf `w1.1` the file lacks.
    let e =
        tree::load_safetensors(FIXTURE, &template::<(Array<f32, 2, 3>, Array<f32>)>()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("tensor `w1.0` is missing from {shown}")
    );
    // Truncated and corrupt files, a missing file.
    let bytes = std::fs::read(FIXTURE).unwrap();
    for (name, content) in [
        ("truncated", &bytes[..bytes.len() - 5]),
        ("header_only", &bytes[..20]),
        ("tiny", &bytes[..3]),
        (
            "garbage",
            &b"\xff\xff\xff\xff\xff\xff\xff\x7fnot a header"[..],
        ),
    ] {
        let path = temp(name);
        std::fs::write(&path, content).unwrap();
        let e = tree::load_safetensors(&path, &template::<Array<f32, 2, 3>>()).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "{} is not a valid safetensors file",
                path.display()
            )),
            "{name}: {e}"
        );
        std::fs::remove_file(&path).unwrap();
    }
    let e = tree::load_safetensors(temp("absent"), &template::<Array<f32, 2, 3>>()).unwrap_err();
    assert!(e.to_string().starts_with("cannot read "), "{e}");
    // Complex leaves cannot be saved.
    let e =
        tree::save_safetensors(&(Array::<Complex<f32>, 2>::zeros(),), temp("complex")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "tensor `0`: dtype complex64 cannot be saved as safetensors"
    );
}

#[test]
fn round_trip_through_python() {
    let p = Params {
        w1: Array::<f32, 2, 3>::from([[1.0, -2.0, 3.5], [0.25, 1e-3, -7.0]]),
        layers: [
            Layer {
                w: Array::from([0.5, 0.75, -1.0]),
            },
            Layer {
                w: Array::from([9.0, 8.0, 7.0]),
            },
        ],
        step: Array::from(-3),
        scale: Array::from([bf16::from_f32(0.5), bf16::from_f32(3.0)]),
    };
    let path = temp("round_trip.safetensors");
    tree::save_safetensors(&p, &path).unwrap();
    // Rust reads its own file back.
    let back: Params<Array<f32, 2, 3>> = tree::load_safetensors(&path, &template()).unwrap();
    assert_eq!(tree::leaves(&back), tree::leaves(&p));

    // Python's safetensors reads it as `safetensors.numpy.load_file` does
    // (`safe_open(framework="np")`): names, dtypes, shapes and values. numpy
    // knows bfloat16 only through ml_dtypes (which JAX installs, `.ci/run`
    // too): without it the bfloat16 tensor alone is skipped, with a message.
    let script = r#"
import sys
try:
    import numpy
    from safetensors import safe_open
except ImportError:
    print("SKIP")
    sys.exit(0)
try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None
with safe_open(sys.argv[1], framework="np") as f:
    for k in sorted(f.keys()):
        if f.get_slice(k).get_dtype() == "BF16" and ml_dtypes is None:
            print(k, "SKIP-BF16")
            continue
        v = f.get_tensor(k)
        print(k, v.dtype, list(v.shape), [float(x) for x in v.reshape(-1)])
"#;
    let out = match std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&path)
        .output()
    {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout).unwrap(),
        Ok(o) => panic!("python3 failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            println!("python3 not available ({e}): the Python round trip is skipped");
            return;
        }
    };
    std::fs::remove_file(&path).unwrap();
    if out.trim() == "SKIP" {
        println!(
            "numpy or safetensors for python not installed: the round trip through Python is skipped"
        );
        return;
    }
    // Without ml_dtypes, the script names the bfloat16 tensor it skipped.
    let bf16_line = if out.contains("scale SKIP-BF16\n") {
        println!(
            "ml_dtypes for python not installed (numpy has no bfloat16 without it): \
             the bfloat16 tensor's round trip through Python is skipped"
        );
        "scale SKIP-BF16\n"
    } else {
        "scale bfloat16 [2] [0.5, 3.0]\n"
    };
    let want = format!(
        "layers.0.w float32 [3] [0.5, 0.75, -1.0]\n\
         layers.1.w float32 [3] [9.0, 8.0, 7.0]\n\
         {bf16_line}\
         step int32 [] [-3.0]\n"
    );
    let w1: Vec<String> =
        p.w1.to_vec()
            .iter()
            .map(|&x| format!("{:?}", x as f64))
            .collect();
    let want = format!("{want}w1 float32 [2, 3] [{}]\n", w1.join(", "));
    assert_eq!(out, want);
}

/// A fresh directory of this test's own.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn small_tree() -> (Array<f32, 3>, Array<i32>) {
    (Array::from([1.0, 2.0, 3.0]), Array::from(7))
}

/// A save killed mid-write leaves its temporary file (the old checkpoint
/// survives); the next save of the same file removes it, and only it: not
/// a young one or one whose writer holds its lock (a save in progress), not
/// another file's, not a file of another name.
#[test]
fn the_next_save_removes_the_temp_file_a_killed_save_left() {
    use std::fs::{File, FileTimes};
    use std::time::{Duration, SystemTime};

    let dir = temp_dir("stale_temps");
    let target = dir.join("ckpt.safetensors");
    tree::save_safetensors(&small_tree(), &target).unwrap();
    let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let make = |name: &str, old: bool| {
        let path = dir.join(name);
        let f = File::create(&path).unwrap();
        f.set_len(1 << 20).unwrap();
        if old {
            f.set_times(FileTimes::new().set_modified(an_hour_ago))
                .unwrap();
        }
        path
    };
    let stale = make(".ckpt.safetensors.4000001-0.jax-tmp", true);
    let young = make(".ckpt.safetensors.4000001-1.jax-tmp", false);
    let in_progress = make(".ckpt.safetensors.4000002-0.jax-tmp", true);
    let writer = File::options().write(true).open(&in_progress).unwrap();
    writer.lock().unwrap();
    let others = [
        make(".other.safetensors.4000001-0.jax-tmp", true),
        make(".ckpt.safetensors.notes.jax-tmp", true),
        make(".tmpAbC123", true),
        make("ckpt.safetensors.4000001-0.jax-tmp", true),
    ];

    let p = small_tree();
    tree::save_safetensors(&p, &target).unwrap();
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(young.exists(), "a young temporary file is kept");
    assert!(in_progress.exists(), "a locked temporary file is kept");
    for other in &others {
        assert!(other.exists(), "{} is not ours: kept", other.display());
    }
    let back: (Array<f32, 3>, Array<i32>) = tree::load_safetensors(&target, &p).unwrap();
    assert_eq!(tree::leaves(&back), tree::leaves(&p));
    // Nothing of the save itself is left.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".ckpt.safetensors.4000001-1.jax-tmp",
            ".ckpt.safetensors.4000002-0.jax-tmp",
            ".ckpt.safetensors.notes.jax-tmp",
            ".other.safetensors.4000001-0.jax-tmp",
            ".tmpAbC123",
            "ckpt.safetensors",
            "ckpt.safetensors.4000001-0.jax-tmp",
        ]
    );
    drop(writer);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A saved file has the mode `File::create` gives in the same process: 0666
/// less the umask for a new file, the old file's mode for an overwritten one.
#[cfg(unix)]
#[test]
fn a_saved_file_has_the_mode_file_create_gives() {
    use std::fs::{self, File, Permissions};
    use std::os::unix::fs::PermissionsExt;

    let dir = temp_dir("modes");
    let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;

    let created = dir.join("created");
    File::create(&created).unwrap();
    let saved = dir.join("saved.safetensors");
    tree::save_safetensors(&small_tree(), &saved).unwrap();
    assert_eq!(
        format!("{:o}", mode(&saved)),
        format!("{:o}", mode(&created)),
        "a new file"
    );

    // Both chmod'ed, then written again.
    fs::set_permissions(&created, Permissions::from_mode(0o640)).unwrap();
    fs::set_permissions(&saved, Permissions::from_mode(0o640)).unwrap();
    File::create(&created).unwrap();
    tree::save_safetensors(&small_tree(), &saved).unwrap();
    assert_eq!(
        format!("{:o}", mode(&saved)),
        format!("{:o}", mode(&created)),
        "an overwritten file"
    );
    fs::remove_dir_all(&dir).unwrap();
}
