//! Data-parallel training with `jax::pmap` on 1, 2 and 4 workers (CPU
//! devices): each worker takes its shard of the batch, the gradients are
//! averaged with `lax::pmean`, and after several steps every worker count
//! holds the same parameters. Sums over a shard and then over the workers
//! round differently from sums over the whole batch, so worker counts
//! agree to float tolerance; a given worker count is deterministic, bit
//! for bit, run after run (and `.ci/run` checks that 2 MPI processes give
//! the bits of 2 local devices, with `examples/data_parallel.rs`).

use jax::prelude::*;
use jax::random;

const BATCH: usize = 32;
const FEATURES: usize = 8;
const HIDDEN: usize = 16;
const STEPS: usize = 6;

/// The same model and step with the batch split over `$workers` workers.
macro_rules! data_parallel {
    ($name:ident, $workers:literal, $shard:literal) => {
        #[jax::jit]
        mod $name {
            use jax::prelude::*;

            pub const WORKERS: usize = $workers;
            pub const SHARD: usize = $shard;

            #[derive(Clone, Debug)]
            pub struct Params {
                pub w1: Array<f32, 8, 16>,
                pub b1: Array<f32, 16>,
                pub w2: Array<f32, 16>,
            }

            fn loss(p: &Params, x: &Array<f32, SHARD, 8>, y: &Array<f32, SHARD>) -> Array<f32> {
                let h = jnp::tanh(x.matmul(&p.w1) + &p.b1);
                jnp::mean((h.matmul(&p.w2) - y).powi(2))
            }

            pub fn step(
                p: &Params,
                x: &Array<f32, WORKERS, SHARD, 8>,
                y: &Array<f32, WORKERS, SHARD>,
            ) -> Params {
                jax::pmap(
                    |p, x, y| {
                        let g = lax::pmean(jax::grad(loss)(p, x, y), "workers");
                        jax::tree::map(|w, d| w - 0.05 * d, p, &g)
                    },
                    "workers",
                    (None, 0, 0),
                    None,
                )(p, x, y)
            }
        }
    };
}

data_parallel!(one, 1, 32);
data_parallel!(two, 2, 16);
data_parallel!(four, 4, 8);

/// The parameters after `STEPS` steps of `$m` on the same batches, as
/// vectors.
macro_rules! train {
    ($m:ident) => {{
        let [k1, k2, k3] = random::split(random::key(7));
        let mut p = $m::Params {
            w1: random::normal::<Array<f32, FEATURES, HIDDEN>>(k1) * 0.3,
            b1: Array::full(0.1),
            w2: random::normal::<Array<f32, HIDDEN>>(k2) * 0.3,
        };
        let mut key = k3;
        for _ in 0..STEPS {
            let [kx, next] = random::split(key);
            key = next;
            let x = random::normal::<Array<f32, BATCH, FEATURES>>(kx).to_vec();
            let y: Vec<f32> = x.chunks(FEATURES).map(|r| (r[0] - r[1]).sin()).collect();
            p = $m::step(
                &p,
                &Array::from_vec(x).unwrap(),
                &Array::from_vec(y).unwrap(),
            );
        }
        [p.w1.to_vec(), p.b1.to_vec(), p.w2.to_vec()].concat()
    }};
}

#[test]
fn one_two_and_four_workers_train_alike() {
    jax::config::set_num_cpu_devices(4).unwrap();
    let (p1, p2, p4) = (train!(one), train!(two), train!(four));
    let start = {
        let [k1, k2, _] = random::split(random::key(7));
        let w1 = (random::normal::<Array<f32, FEATURES, HIDDEN>>(k1) * 0.3).to_vec();
        let w2 = (random::normal::<Array<f32, HIDDEN>>(k2) * 0.3).to_vec();
        [w1, vec![0.1; HIDDEN], w2].concat()
    };
    // Training moved the parameters...
    let moved = p1
        .iter()
        .zip(&start)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(moved > 1e-3, "the steps changed nothing ({moved})");
    // ...by the same amount for every worker count.
    for (name, p) in [("2 workers", &p2), ("4 workers", &p4)] {
        for (k, (a, b)) in p1.iter().zip(p).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * (1.0 + a.abs()),
                "{name}: parameter {k} is {b}, one worker has {a}"
            );
        }
    }
    // And a worker count gives the same bits each time.
    let again = train!(four);
    assert!(p4
        .iter()
        .zip(&again)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
}
