//! `jax::dispatch`: a dispatch made inside a dispatched computation, and the
//! queue afterwards.

use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on a thread of its own and waits at most a minute: a deadlocked
/// dispatch fails the test instead of hanging it.
fn within_a_minute<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{what} did not finish within a minute (deadlock)"),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        String::new()
    }
}

// One test function: the dispatch thread is one per process, and a deadlock
// in one part would otherwise make the order of the others matter.
#[test]
fn nested_dispatch_runs_and_the_queue_keeps_working() {
    // A dispatch from inside a dispatched computation.
    let nested = within_a_minute("a nested dispatch", || {
        jax::dispatch(|| jax::dispatch(|| 1).block_until_ready() + 1).block_until_ready()
    });
    assert_eq!(nested, 2);

    // Deeper nesting, and a nested result dispatched but read later.
    let deep = within_a_minute("a doubly nested dispatch", || {
        jax::dispatch(|| {
            let inner = jax::dispatch(|| jax::dispatch(|| 40).block_until_ready() + 1);
            let other = jax::dispatch(|| 1);
            inner.block_until_ready() + other.block_until_ready()
        })
        .block_until_ready()
    });
    assert_eq!(deep, 42);

    // A later dispatch from the host still runs.
    let later = within_a_minute("a dispatch after a nested one", || {
        jax::dispatch(|| 7).block_until_ready()
    });
    assert_eq!(later, 7);

    // A panic inside a nested dispatch re-raises at the outer
    // block_until_ready, with its message.
    let raised = within_a_minute("a panicking nested dispatch", || {
        std::panic::catch_unwind(|| {
            jax::dispatch(|| {
                jax::dispatch(|| -> i32 { panic!("inner computation failed") }).block_until_ready()
            })
            .block_until_ready()
        })
    });
    let panic = raised.expect_err("the nested panic re-raises");
    assert_eq!(panic_message(&*panic), "inner computation failed");

    // The queue keeps working after the panic, in dispatch order.
    let order = within_a_minute("dispatches after a nested panic", || {
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let pendings: Vec<_> = (0..5)
            .map(|i| {
                let log = log.clone();
                jax::dispatch(move || {
                    let inner = jax::dispatch(move || i * 10).block_until_ready();
                    log.lock().unwrap().push(i);
                    inner
                })
            })
            .collect();
        let values: Vec<i32> = pendings
            .into_iter()
            .map(|p| p.block_until_ready())
            .collect();
        let log = log.lock().unwrap().clone();
        (values, log)
    });
    assert_eq!(order.0, vec![0, 10, 20, 30, 40]);
    assert_eq!(order.1, vec![0, 1, 2, 3, 4]);

    // Waiting inside a dispatched computation for a result dispatched after
    // it cannot finish: a clear panic there, and the queue goes on.
    let waited = within_a_minute("a wait for a later dispatch", || {
        let (tx, rx) = mpsc::channel::<jax::Pending<i32>>();
        let first = jax::dispatch(move || rx.recv().unwrap().block_until_ready());
        tx.send(jax::dispatch(|| 3)).unwrap();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| first.block_until_ready()))
    });
    let panic = waited.expect_err("waiting for a later dispatch panics");
    let message = panic_message(&*panic);
    assert!(
        message.contains("waits for a result dispatched after that computation"),
        "{message}"
    );
    let last = within_a_minute("a dispatch after the refused wait", || {
        jax::dispatch(|| 9).block_until_ready()
    });
    assert_eq!(last, 9);
}
