//! Asynchronous dispatch: the host prepares the next batch while the
//! jitted training step runs, as JAX's dispatch lets a Python loop do.
//!
//! An MLP on scikit-learn's 8×8 digits (`examples/data/digits.bin`); each
//! batch is read (a 0.3 ms wait stands for reading it from storage, as a
//! data loader does) and augmented on the host (every image shifted by a
//! random pixel and sprinkled with noise). The loop runs twice over the same batches:
//! synchronously (prepare, then step), and with `jax::dispatch` (dispatch
//! the step, prepare the next batch meanwhile, then `block_until_ready`).
//! Both give the same parameters, bit for bit; it prints both times and
//! how much of the host work the dispatch hid.
//!
//! Run with `cargo run --release --example async_dispatch`.

#[path = "data/digits.rs"]
mod digits;

use std::time::Instant;

use jax::prelude::*;
use jax::random;

use digits::IMAGES;

#[jax::jit]
mod model {
    use jax::prelude::*;

    pub const BATCH: usize = 256;
    pub const PIXELS: usize = 64;
    pub const HIDDEN: usize = 256;
    pub const CLASSES: usize = 10;

    #[derive(Clone, Debug)]
    pub struct Params {
        pub w1: Array<f32, PIXELS, HIDDEN>,
        pub b1: Array<f32, HIDDEN>,
        pub w2: Array<f32, HIDDEN, CLASSES>,
        pub b2: Array<f32, CLASSES>,
    }

    fn loss(
        p: &Params,
        x: &Array<f32, BATCH, PIXELS>,
        y: &Array<f32, BATCH, CLASSES>,
    ) -> Array<f32> {
        let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
        let logp = jnp::log_softmax(h.matmul(&p.w2) + &p.b2, -1);
        -jnp::mean(jnp::sum_axis(logp * y, -1, false))
    }

    pub fn step(
        p: &Params,
        x: &Array<f32, BATCH, PIXELS>,
        y: &Array<f32, BATCH, CLASSES>,
    ) -> Params {
        let g = jax::grad(loss)(p, x, y);
        jax::tree::map(|w, d| w - 0.1 * d, p, &g)
    }
}

use model::{Params, BATCH, CLASSES, HIDDEN, PIXELS};

type Batch = (Array<f32, BATCH, PIXELS>, Array<f32, BATCH, CLASSES>);

/// Batch `b`, read (the wait) and augmented on the host: each image shifted by up to one
/// pixel each way, and a little noise (a fixed xorshift stream per batch,
/// so both loops see the same batches).
fn prepare(pixels: &[f32], labels: &[u8], b: usize) -> Batch {
    std::thread::sleep(std::time::Duration::from_micros(300));
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ (b as u64).wrapping_mul(0x2545_f491_4f6c_dd1d);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut x = vec![0.0f32; BATCH * PIXELS];
    let mut y = vec![0.0f32; BATCH * CLASSES];
    for row in 0..BATCH {
        let i = (next() % IMAGES as u64) as usize;
        let (dx, dy) = ((next() % 3) as i64 - 1, (next() % 3) as i64 - 1);
        for r in 0..8i64 {
            for c in 0..8i64 {
                let (sr, sc) = (r - dy, c - dx);
                let v = if (0..8).contains(&sr) && (0..8).contains(&sc) {
                    pixels[i * PIXELS + (sr * 8 + sc) as usize]
                } else {
                    0.0
                };
                let noise = ((next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1;
                x[row * PIXELS + (r * 8 + c) as usize] = (v + noise).clamp(0.0, 1.0);
            }
        }
        y[row * CLASSES + labels[i] as usize] = 1.0;
    }
    (
        Array::from_vec(x).expect("BATCH images"),
        Array::from_vec(y).expect("BATCH one-hot rows"),
    )
}

fn init() -> Params {
    let [k1, k2] = random::split(random::key(0));
    Params {
        w1: random::normal::<Array<f32, PIXELS, HIDDEN>>(k1) * 0.125,
        b1: Array::full(0.0),
        w2: random::normal::<Array<f32, HIDDEN, CLASSES>>(k2) * 0.0625,
        b2: Array::full(0.0),
    }
}

const STEPS: usize = 300;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let (pixels, labels) = digits::load();
    let (mut sync_times, mut async_times) = (Vec::new(), Vec::new());
    let (mut p_sync, mut p_async) = (init(), init());
    for _round in 0..5 {
        // Prepare, then step: the host waits for the step, the step for
        // the host.
        let mut p = init();
        let start = Instant::now();
        for b in 0..STEPS {
            let (x, y) = prepare(&pixels, &labels, b);
            p = model::step(&p, &x, &y);
        }
        sync_times.push(start.elapsed().as_secs_f64());
        p_sync = p;

        // Dispatch the step, prepare the next batch while it runs.
        let mut p = init();
        let start = Instant::now();
        let mut batch = prepare(&pixels, &labels, 0);
        for b in 0..STEPS {
            let (x, y) = batch;
            let params = p;
            let pending = jax::dispatch(move || model::step(&params, &x, &y));
            if b + 1 < STEPS {
                batch = prepare(&pixels, &labels, b + 1);
            } else {
                batch = prepare(&pixels, &labels, 0); // the loop's shape; unused
            }
            p = pending.block_until_ready();
        }
        async_times.push(start.elapsed().as_secs_f64());
        p_async = p;
    }
    // The host part alone, for how much of it the dispatch hid.
    let mut host = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        for b in 0..STEPS {
            std::hint::black_box(prepare(&pixels, &labels, b));
        }
        host.push(start.elapsed().as_secs_f64());
    }
    // The steps alone, on batches prepared before.
    let batches: Vec<Batch> = (0..STEPS).map(|b| prepare(&pixels, &labels, b)).collect();
    let mut compute = Vec::new();
    for _ in 0..5 {
        let mut p = init();
        let start = Instant::now();
        for (x, y) in &batches {
            p = model::step(&p, x, y);
        }
        compute.push(start.elapsed().as_secs_f64());
        std::hint::black_box(p);
    }
    let same = [
        (p_sync.w1.to_vec(), p_async.w1.to_vec()),
        (p_sync.w2.to_vec(), p_async.w2.to_vec()),
    ]
    .iter()
    .all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
    assert!(same, "the dispatched loop computed other parameters");
    let (ts, ta, th, tc) = (
        median(sync_times),
        median(async_times),
        median(host),
        median(compute),
    );
    println!("{STEPS} steps, batch {BATCH}, hidden {HIDDEN}; medians of 5 rounds");
    println!("host preparation alone   {:7.1} ms", th * 1e3);
    println!("steps alone              {:7.1} ms", tc * 1e3);
    println!("synchronous loop         {:7.1} ms", ts * 1e3);
    println!(
        "dispatched loop          {:7.1} ms  ({:.2}× the synchronous speed)",
        ta * 1e3,
        ts / ta
    );
    println!("same parameters, bit for bit");
}
