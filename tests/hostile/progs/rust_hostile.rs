// tests/hostile/rust.sh: threads, and panics caught with catch_unwind in
// each of them (the unwinder walks frames whose returns function_graph
// hooked).  Usage: rust_hostile THREADS CALLS; prints, exits 6.
use std::env;
use std::panic;
use std::process;
use std::thread;

#[no_mangle]
#[inline(never)]
pub extern "C" fn hostile_step(x: u64) -> u64 {
    x.wrapping_mul(3).wrapping_add(1) & 0xffff
}

#[inline(never)]
fn may_panic(i: u64) -> u64 {
    if i % 4 == 0 {
        panic!("panic {}", i);
    }
    i * 2
}

fn main() {
    let a: Vec<u64> = env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let (threads, calls) = (a[0], a[1]);
    panic::set_hook(Box::new(|_| {})); // the caught panics print nothing
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            thread::spawn(move || {
                let mut s = t;
                for _ in 0..calls {
                    s = hostile_step(s);
                }
                let caught = (0..8)
                    .filter(|&i| panic::catch_unwind(|| may_panic(i + t)).is_err())
                    .count();
                (s, caught)
            })
        })
        .collect();
    for (t, h) in handles.into_iter().enumerate() {
        let (s, caught) = h.join().unwrap();
        println!("thread {}: {} caught {}", t, s, caught);
    }
    process::exit(6);
}
