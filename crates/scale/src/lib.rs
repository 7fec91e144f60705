//! anonlab beyond memory: the layer above the core (`anonlab`) that reads
//! files larger than memory with Apache DataFusion, runs the same group-by
//! on an Apache Ballista cluster (the `cluster` feature), and publishes a
//! release by streaming the file again. Every figure is still computed by
//! the core, from the frequency table built here; the core never depends
//! on this crate.
//!
//! - [`engine`]: the frequency table of a file, in bounded memory.
//! - [`engine_scan`]: the file's records in file order (the publishing
//!   pass's first read, a grouped session's sample).
//! - [`grouped`]: sessions over the frequency table.
//! - [`source`]: a `Source` opened wherever it is read (memory, engine,
//!   cluster), for every front end.
//! - [`publish`]: the publishing pass of a release made on the table.
//! - [`cluster`]: Ballista's scheduler and executors, and a client.

#[cfg(feature = "cluster")]
pub mod cluster;
pub mod engine;
pub mod engine_scan;
pub mod grouped;
pub mod publish;
pub mod source;
