//! `anonlab cluster scheduler|executor`: Apache Ballista's scheduler and
//! executor in this binary (`anonlab_scale::cluster`), and the flags by
//! which other commands send their group-bys to such a cluster.
//!
//! Each process prints one line when it is ready — `anonlab cluster
//! scheduler listening on HOST:PORT`, `anonlab cluster executor listening
//! on …` — so that scripts and tests can wait for it, and stops on SIGINT,
//! SIGTERM or SIGHUP (a second one ends it at once). Ballista's own log
//! goes to stderr: a process's warnings and errors, a client's nothing
//! (its command reports what failed), unless `ANONLAB_LOG` names a level
//! (`info`, `debug`, ...).
//!
//! Every process of a cluster, and every client, needs the cluster's token
//! file (`--token-file`, `--cluster-token-file` for a client, or
//! `ANONLAB_CLUSTER_TOKEN_FILE`), mode 600; a scheduler and an executor
//! need a data root (`--data-root`), the directory under which they read.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct ClusterArgs {
    #[command(subcommand)]
    pub command: ClusterCommand,
}

#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Start a scheduler: clients send it jobs (`assess --cluster HOST:PORT`),
    /// executors register with it.
    Scheduler(SchedulerArgs),
    /// Start an executor: it registers with a scheduler and runs its jobs'
    /// tasks, reading the data files itself.
    Executor(ExecutorArgs),
}

#[derive(Debug, Args)]
pub struct SchedulerArgs {
    /// The address to listen on: loopback unless told otherwise (0.0.0.0
    /// for every interface; the token is checked on every request, but
    /// the traffic is not encrypted).
    #[arg(long, default_value = "127.0.0.1", value_name = "HOST")]
    pub bind: String,
    /// The port (0 for a free one, printed when listening).
    #[arg(long, default_value_t = 50050, value_name = "P")]
    pub port: u16,
    /// The cluster's token file, readable by its owner only (mode 600):
    /// every client and executor must present the token in it (default:
    /// the file ANONLAB_CLUSTER_TOKEN_FILE names).
    #[arg(long = "token-file", value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Plan jobs only on files under this directory (links resolved);
    /// any other path is refused.
    #[arg(long = "data-root", value_name = "DIR")]
    pub data_root: PathBuf,
}

#[derive(Debug, Args)]
pub struct ExecutorArgs {
    /// The scheduler to register with.
    #[arg(long, value_name = "HOST:PORT")]
    pub scheduler: String,
    /// The address to listen on: loopback unless told otherwise.
    #[arg(long, default_value = "127.0.0.1", value_name = "HOST")]
    pub bind: String,
    /// The data port, where clients and other executors fetch results
    /// (0 for a free one, printed when listening). The executor asks the
    /// scheduler for tasks; it has no other port.
    #[arg(long, default_value_t = 50051, value_name = "P")]
    pub port: u16,
    /// The cluster's token file, readable by its owner only (mode 600),
    /// the scheduler's token (default: the file
    /// ANONLAB_CLUSTER_TOKEN_FILE names).
    #[arg(long = "token-file", value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Read only files under this directory (links resolved); a task
    /// naming any other path fails. The executor reads as the user who
    /// started it.
    #[arg(long = "data-root", value_name = "DIR")]
    pub data_root: PathBuf,
    /// Where to make the work directory for shuffle files and spills
    /// (a fresh directory inside it, removed when the executor stops;
    /// default: the system's temporary directory).
    #[arg(long = "work-dir", value_name = "D")]
    pub work_dir: Option<PathBuf>,
    /// Tasks to run at once (default: one per core).
    #[arg(long, value_name = "N")]
    pub vcores: Option<usize>,
    /// Memory the tasks may hold before they spill to the work directory
    /// (default: 70% of the machine's or container's memory).
    #[arg(long = "memory-limit", value_name = "BYTES")]
    pub memory_limit: Option<u64>,
    /// Keep trying to reach the scheduler for this long.
    #[arg(long = "connect-timeout", default_value_t = 10, value_name = "SECS")]
    pub connect_timeout: u64,
}

/// The flags of a command that can send its group-by to a cluster.
#[derive(Debug, Args, Clone, Default)]
pub struct ClusterClientArgs {
    /// Build the frequency table on a cluster: its scheduler's HOST:PORT
    /// (see `anonlab cluster`); `anonymize` also has an executor read the
    /// file again for the publishing pass, the table written here. Every
    /// executor reads the file at its absolute path, so it must be there
    /// for each of them, under their data root.
    #[arg(long, value_name = "HOST:PORT")]
    pub cluster: Option<String>,
    /// The cluster's token file, readable by its owner only (mode 600)
    /// (default: the file ANONLAB_CLUSTER_TOKEN_FILE names).
    #[arg(long = "cluster-token-file", value_name = "FILE", requires = "cluster")]
    pub cluster_token_file: Option<PathBuf>,
    /// Give up on the cluster after this many seconds without progress:
    /// waiting for it to have an executor (10 s at most), then while no
    /// task of the job finishes (a job that progresses runs as long as it
    /// needs; its progress is told on stderr after a few seconds).
    #[arg(
        long = "cluster-timeout",
        default_value_t = 60,
        value_name = "SECS",
        requires = "cluster"
    )]
    pub cluster_timeout: u64,
}

impl ClusterClientArgs {
    /// The cluster the flags name, if any, as a source's engine takes it
    /// (`anonlab::session::Engine::Cluster`).
    pub fn spec(&self) -> anyhow::Result<Option<anonlab::session::ClusterSpec>> {
        let Some(address) = &self.cluster else {
            return Ok(None);
        };
        if self.cluster_timeout == 0 {
            anyhow::bail!("--cluster-timeout must be at least 1 second");
        }
        // Ballista's client logs a failed job as an error, which the
        // command reports itself: its messages only when asked for.
        #[cfg(feature = "cluster")]
        init_logger(log::LevelFilter::Off);
        Ok(Some(anonlab::session::ClusterSpec {
            address: address.clone(),
            token_file: self.cluster_token_file.clone(),
            timeout: std::time::Duration::from_secs(self.cluster_timeout),
        }))
    }

    /// The cluster the flags name, if any (`Cluster::of` its spec).
    #[cfg(feature = "cluster")]
    pub fn cluster(&self) -> anyhow::Result<Option<anonlab_scale::cluster::Cluster>> {
        match self.spec()? {
            Some(spec) => Ok(Some(anonlab_scale::cluster::Cluster::of(&spec)?)),
            None => Ok(None),
        }
    }
}

/// The cluster's token, from the file `flag` names or else the one
/// `ANONLAB_CLUSTER_TOKEN_FILE` names; none is an error: a cluster is not
/// used or served without one.
#[cfg(feature = "cluster")]
fn token(
    file: Option<&std::path::Path>,
    flag: &str,
) -> anyhow::Result<anonlab_scale::cluster::Token> {
    use anonlab_scale::cluster::{Token, TOKEN_FILE_VAR};
    let from_env = std::env::var_os(TOKEN_FILE_VAR).filter(|v| !v.is_empty());
    let Some(path) = file.map(PathBuf::from).or(from_env.map(PathBuf::from)) else {
        anyhow::bail!(
            "the cluster needs its token: give {flag} FILE (or set {TOKEN_FILE_VAR}), a file of mode 600 holding one line, the same for every process of the cluster (make one with `(umask 077; openssl rand -hex 32 > FILE)`)"
        );
    };
    Ok(Token::from_file(&path)?)
}

#[cfg(not(feature = "cluster"))]
pub fn run(_: &ClusterArgs) -> anyhow::Result<()> {
    anyhow::bail!("this build of anonlab has no cluster (it needs the `cluster` feature)")
}

#[cfg(feature = "cluster")]
pub fn run(a: &ClusterArgs) -> anyhow::Result<()> {
    use anonlab_scale::cluster::{
        DataRoot, Executor, ExecutorOptions, Scheduler, SchedulerOptions,
    };
    init_logger(log::LevelFilter::Warn);
    let stop = stop_on_signals()?;
    match &a.command {
        ClusterCommand::Scheduler(s) => {
            let mut opts = SchedulerOptions::new(
                token(s.token_file.as_deref(), "--token-file")?,
                DataRoot::new(&s.data_root)?,
            );
            opts.bind = s.bind.clone();
            opts.port = s.port;
            let scheduler = Scheduler::bind(&opts)?;
            scheduler.run(
                |at| say(format_args!("anonlab cluster scheduler listening on {at}")),
                stop,
            )?;
            println!("anonlab cluster scheduler stopped");
        }
        ClusterCommand::Executor(e) => {
            let scheduler: anonlab_scale::cluster::Address = e.scheduler.parse()?;
            let mut opts = ExecutorOptions::new(
                scheduler,
                token(e.token_file.as_deref(), "--token-file")?,
                DataRoot::new(&e.data_root)?,
            );
            opts.bind = e.bind.clone();
            opts.port = e.port;
            opts.work_dir = e.work_dir.clone();
            opts.vcores = e.vcores.unwrap_or(0);
            if e.vcores == Some(0) {
                anyhow::bail!("--vcores must be at least 1");
            }
            opts.memory_limit = e.memory_limit;
            if e.memory_limit == Some(0) {
                anyhow::bail!("--memory-limit must be more than 0 bytes");
            }
            opts.connect_within = std::time::Duration::from_secs(e.connect_timeout);
            let scheduler = opts.scheduler.clone();
            let executor = Executor::bind(opts)?;
            executor.run(
                |r| {
                    say(format_args!(
                        "anonlab cluster executor listening on {} (data), registered with the scheduler at {scheduler} as {}; work directory {}",
                        r.data,
                        r.executor_id,
                        r.work_dir.display()
                    ))
                },
                stop,
            )?;
            println!("anonlab cluster executor stopped");
        }
    }
    Ok(())
}

/// A line on stdout from a cluster process's thread, where SIGPIPE is
/// blocked (`anonlab_scale::cluster`): a reader that has gone is no reason to stop
/// serving, and `println!` would panic.
#[cfg(feature = "cluster")]
fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A future that completes at the first SIGINT, SIGTERM or SIGHUP; a
/// second one ends the process at once, as the signal would have.
#[cfg(all(feature = "cluster", unix))]
fn stop_on_signals() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for signal in signals.forever() {
            match tx.take() {
                Some(tx) => {
                    let _ = tx.send(());
                }
                None => {
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            }
        }
    });
    Ok(async move {
        // The sender lives as long as the signal thread, which is as long
        // as the process: an error here cannot mean "stop".
        if rx.await.is_err() {
            futures::future::pending::<()>().await;
        }
    })
}

#[cfg(all(feature = "cluster", not(unix)))]
fn stop_on_signals() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    Ok(futures::future::pending::<()>())
}

/// A repeated log message is shown once in this time.
#[cfg(feature = "cluster")]
const REPEATS_EVERY: std::time::Duration = std::time::Duration::from_secs(10);
/// The characters of a message that tell its kind (with its target).
#[cfg(feature = "cluster")]
const REPEAT_PREFIX: usize = 40;

/// Ballista's log messages on stderr, at the level `ANONLAB_LOG` names
/// (`error`, `warn`, `info`, `debug`, `trace`, `off`), else `default`.
///
/// A warning or error that repeats (the same target and the same first
/// words) is shown once per [`REPEATS_EVERY`], with how many were left
/// out: an
/// executor whose scheduler is down asks it for work twenty times a
/// second and warns each time, and would fill the terminal while the
/// scheduler restarts.
#[cfg(feature = "cluster")]
fn init_logger(default: log::LevelFilter) {
    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::time::Instant;
    /// When each kind of message was last shown, and how many of it
    /// were left out since.
    type Shown = HashMap<String, (Instant, u64)>;
    struct Stderr(log::LevelFilter, Mutex<Shown>);
    impl log::Log for Stderr {
        fn enabled(&self, m: &log::Metadata) -> bool {
            m.level() <= self.0
        }
        fn log(&self, r: &log::Record) {
            if !self.enabled(r.metadata()) {
                return;
            }
            let text = r.args().to_string();
            let kind: String = r
                .target()
                .chars()
                .chain(text.chars().take(REPEAT_PREFIX))
                .collect();
            let now = Instant::now();
            // Info and below are asked for (ANONLAB_LOG): all shown.
            let repeats = r.level() <= log::Level::Warn;
            let left_out = match self.1.lock() {
                Ok(_) if !repeats => 0,
                Ok(mut shown) => match shown.get_mut(&kind) {
                    Some((at, n)) if now.duration_since(*at) < REPEATS_EVERY => {
                        *n += 1;
                        return;
                    }
                    Some((at, n)) => {
                        *at = now;
                        std::mem::take(n)
                    }
                    None => {
                        if shown.len() >= 1024 {
                            shown.clear();
                        }
                        shown.insert(kind, (now, 0));
                        0
                    }
                },
                Err(_) => 0,
            };
            let more = if left_out > 0 {
                format!(
                    " ({left_out} more like it in the last {} s)",
                    REPEATS_EVERY.as_secs()
                )
            } else {
                String::new()
            };
            // Messages may quote a file's values: escaped, as every
            // message of anonlab's.
            eprintln!(
                "anonlab: {} {}: {}{more}",
                r.level().as_str().to_lowercase(),
                r.target(),
                anonlab::error::escaped(&text)
            );
        }
        fn flush(&self) {}
    }
    let level = std::env::var("ANONLAB_LOG")
        .ok()
        .and_then(|v| v.parse::<log::LevelFilter>().ok())
        .unwrap_or(default);
    // A second call (a logger already set) keeps the first.
    if log::set_boxed_logger(Box::new(Stderr(level, Mutex::new(HashMap::new())))).is_ok() {
        log::set_max_level(level);
    }
}
