//! Link the `anonlab` binary as a position-dependent executable on Linux.
//!
//! As a position-independent executable (rustc's default) the loader
//! relocates every pointer in the binary's read-only data before `main`:
//! with the readers and the query engine linked in, some 148,000
//! relocations over 2.6 MB of pages, copied on write — 1.2 ms of CPU and
//! 680 page faults, at every start. `anonlab assess` on Adult takes about
//! 30 ms whole, so that was a twentieth of it (BENCHMARKS.md, issue 16,
//! fifth pass). A position-dependent binary has those pointers resolved
//! by the linker. The cost: the binary's own code and data are no longer
//! placed at a random address (the heap, the stack and the shared
//! libraries still are). Only the binaries are linked so; the library,
//! tests and benches are not affected.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
