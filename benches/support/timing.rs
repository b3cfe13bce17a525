//! How benchmarks time a call, shared by `benches/workloads.rs` and the
//! programs' `--bench` modes (`examples/fluidsim.rs`): the protocol
//! `benches/compare.py` gives its JAX side too, and one JSON line per
//! measurement, which it reads.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// How every workload is timed; `benches/compare.py` passes the same values
/// to its JAX side so both halves of the table are measured alike.
pub struct Timing {
    /// Untimed calls first: page in the inputs, warm caches and rayon's pool.
    pub warmup: usize,
    /// Fewest timed calls, however long they take.
    pub min_samples: usize,
    /// Most timed calls, however short they are.
    pub max_samples: usize,
    /// Keep sampling (past `min_samples`) until this much time has passed.
    pub budget: Duration,
}

/// Order statistics of one workload's samples, in milliseconds.
pub struct Stats {
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub min: f64,
    pub samples: usize,
}

impl Timing {
    /// Times `f`: `warmup` untimed calls, then timed calls until there are
    /// `min_samples` and the budget is spent (or `max_samples`). Dropping
    /// the result is part of a call, as a discarded result is in Python.
    pub fn run(&self, mut f: impl FnMut()) -> Stats {
        for _ in 0..self.warmup {
            f();
        }
        let mut samples = Vec::new();
        let start = Instant::now();
        while samples.len() < self.min_samples
            || (start.elapsed() < self.budget && samples.len() < self.max_samples)
        {
            let t = Instant::now();
            f();
            samples.push(t.elapsed().as_secs_f64() * 1e3);
        }
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        // The same definitions as `benches/jax_workloads.py`: the mean of the
        // two middle samples for an even count, quartiles by nearest rank.
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2.0
        };
        let rank = |q: f64| samples[((n - 1) as f64 * q).round() as usize];
        Stats {
            median,
            q1: rank(0.25),
            q3: rank(0.75),
            min: samples[0],
            samples: n,
        }
    }
}

/// One JSON line per workload: what `benches/compare.py` reads.
pub fn report(name: &str, t: &Timing, s: Stats) {
    println!(
        "{{\"name\": \"{name}\", \"median_ms\": {:.6}, \"q1_ms\": {:.6}, \"q3_ms\": {:.6}, \
         \"min_ms\": {:.6}, \"samples\": {}, \"warmup\": {}, \"budget_s\": {}}}",
        s.median,
        s.q1,
        s.q3,
        s.min,
        s.samples,
        t.warmup,
        t.budget.as_secs_f64()
    );
}

/// The value of a `--key=value` argument, or `default`.
pub fn flag<T: std::str::FromStr>(args: &[String], key: &str, default: T) -> T {
    let prefix = format!("--{key}=");
    args.iter()
        .find_map(|a| a.strip_prefix(&prefix))
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("--{key}: cannot parse {v:?}"))
        })
        .unwrap_or(default)
}

impl Timing {
    /// The timing flags of `args` (`--warmup=N --min-samples=N
    /// --max-samples=N --budget=S`), with the defaults of `compare.py`.
    pub fn from_args(args: &[String]) -> Timing {
        Timing {
            warmup: flag(args, "warmup", 3),
            min_samples: flag(args, "min-samples", 10),
            max_samples: flag(args, "max-samples", 1000),
            budget: Duration::from_secs_f64(flag(args, "budget", 2.0)),
        }
    }
}
