//! The engine beyond one machine: Apache Ballista, DataFusion's own
//! distributed scheduler and executors, embedded as they are (no protocol
//! of anonlab's). A [`Scheduler`] accepts jobs and hands their tasks to
//! [`Executor`]s; a [`Cluster`] is a client's handle on a scheduler, and
//! builds a file's frequency table there: the same plan as the engine on
//! this machine ([`crate::engine::frequency_table_in`]), run in a Ballista
//! remote session instead of a local one. The executors read the file and
//! do the group-by; the distinct combinations come back to the client,
//! which applies anonlab's reading rules to them and computes every figure
//! from the table, as on one machine. A release made on that table is
//! published through the cluster too ([`Cluster::publish`]): an executor
//! reads the file in file order, the client places and writes the rows.
//!
//! Security: who may use a cluster, and what it reads.
//! - Every process of a cluster holds the cluster's token, read from a
//!   file only its user may read ([`Token::from_file`]: mode 600, anything
//!   else refused). Every request to every port presents it and is refused
//!   without it: the scheduler's port (gRPC and `/readyz`), which anonlab
//!   serves itself around Ballista's service (`scheduler`), and each
//!   executor's data port (Arrow Flight), which anonlab serves too
//!   (`executor`). Every channel Ballista opens presents it through
//!   Ballista's endpoint hook (`auth` says how). The executors run with
//!   Ballista's pull scheduling, so they have no task port: Ballista would
//!   start that server itself, with no way to check a credential there.
//!   Chosen over mutual TLS, which would need a TLS library this build
//!   does not carry and certificates for every node; the token does not
//!   encrypt (`auth`).
//! - A scheduler and an executor refuse to start without a token, on
//!   loopback too (on a machine with other users, loopback is no
//!   boundary), and a client does not send a job without one.
//! - A scheduler plans, and an executor reads, only files under its data
//!   root (`--data-root`), resolved with links followed; any other path
//!   is refused with its name and the root's (`root`), and nothing is
//!   written through the cluster. An executor reads as the user who
//!   started it.
//!
//! Choices made here, and why:
//! - Every process reads the file by the same absolute path: the client
//!   (the header, the schema), the scheduler (planning the scan) and the
//!   executors (the rows). A cluster is therefore for files on storage
//!   that every node mounts at the same place, under the data root of
//!   each; the client names the file as any command does (relative to
//!   its working directory, or absolute), makes the path absolute, and
//!   refuses what it cannot read itself.
//! - Before a job is sent, the client asks the scheduler's `/readyz`
//!   whether an executor has registered: Ballista would queue the job
//!   without end on a scheduler with none. Every network wait has a bound
//!   ([`ClusterOptions`]).
//! - Scheduler and executors use Ballista's pull scheduling (each
//!   executor asks for tasks as it has cores free), so a job's tasks
//!   spread over the executors that are free. The processes bind to the
//!   loopback interface unless told otherwise.

mod auth;
mod executor;
mod root;
mod scheduler;

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use auth::{Token, TOKEN_FILE_VAR};
pub use executor::{Executor, ExecutorOptions, ExecutorReady};
pub use root::DataRoot;
pub use scheduler::{Scheduler, SchedulerOptions};

use crate::engine::{check_input, frequency_table_in, FrequencyTable};
use anonlab::data::CsvOptions;
use anonlab::error::{escaped, Error, Parameter, Result};

/// Refuse an Arrow IPC file in the stream format (`.arrows`) before a job
/// is sent: DataFusion's plans, as the client sends them to the cluster,
/// do not say which of the two Arrow IPC formats a file is in, and the
/// executors read every Arrow file as the file format ("Arrow file does
/// not contain correct footer", whatever the stream holds: issue 36,
/// item 5 found it with a stream whose dictionary a later batch
/// replaces). The in-memory path and the engine on this machine read a
/// stream; the cluster says so and how to convert it, as it does for a
/// compressed CSV file.
pub fn refuse_arrow_stream(engine: &str, path: &Path, opts: &CsvOptions) -> Result<()> {
    use std::io::Read;
    if anonlab::data::formats::detect(path, opts) != anonlab::data::InputFormat::Arrow {
        return Ok(());
    }
    let mut magic = Vec::with_capacity(6);
    std::fs::File::open(path)
        .and_then(|f| f.take(6).read_to_end(&mut magic))
        .map_err(|e| Error::Io(path.to_path_buf(), e))?;
    if magic == b"ARROW1" {
        return Ok(());
    }
    Err(Error::input(
        path,
        None,
        None,
        format!(
            "{engine} reads Arrow IPC files in the file format (ARROW1), not the stream format: its executors would read a stream as a file; store it as an Arrow IPC file or Parquet (the in-memory path and --engine datafusion read it as it is)"
        ),
    ))
}

/// The address of a cluster process as given on a command line:
/// `HOST:PORT`, an IPv6 host in brackets (`[::1]:50050`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    host: String,
    port: u16,
}

impl Address {
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        Address {
            host: host.into(),
            port,
        }
    }
    pub fn host(&self) -> &str {
        &self.host
    }
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The socket addresses the host name stands for.
    pub fn resolve(&self) -> Result<Vec<SocketAddr>> {
        let found: Vec<SocketAddr> = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| self.error(format!("cannot resolve the host name: {e}")))?
            .collect();
        if found.is_empty() {
            return Err(self.error("the host name resolves to no address"));
        }
        Ok(found)
    }

    /// An error about the process at this address.
    pub fn error(&self, msg: impl Into<String>) -> Error {
        Error::Cluster {
            address: self.to_string(),
            msg: msg.into(),
        }
    }
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

impl FromStr for Address {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::invalid(
                Parameter::ClusterAddress,
                format!(
                    "'{}' is not a HOST:PORT address (such as 127.0.0.1:50050): {why}",
                    escaped(s)
                ),
            )
        };
        if s.contains("://") {
            return Err(bad("give the host and port without a scheme"));
        }
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (host, port) = rest
                .split_once(']')
                .ok_or_else(|| bad("an IPv6 address in [ ] lacks its ]"))?;
            let port = port.strip_prefix(':').ok_or_else(|| bad("no :PORT"))?;
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(bad("what is in [ ] is not an IPv6 address"));
            }
            (host, port)
        } else {
            let (host, port) = s.rsplit_once(':').ok_or_else(|| bad("no :PORT"))?;
            if host.contains(':') {
                return Err(bad("an IPv6 address goes in brackets, as [::1]:50050"));
            }
            (host, port)
        };
        if host.trim().is_empty() {
            return Err(bad("no host"));
        }
        if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("the host has spaces or control characters"));
        }
        match port.parse::<u16>() {
            Ok(p) if p > 0 => Ok(Address::new(host, p)),
            _ => Err(bad("the port must be a number from 1 to 65535")),
        }
    }
}

/// An IP address to bind to: `host` as a literal address, or the first
/// address its name resolves to on this machine.
pub fn bind_ip(host: &str) -> Result<IpAddr> {
    let bad = |msg: String| {
        Error::invalid(
            Parameter::Host,
            format!("cannot bind to '{}': {msg}", escaped(host)),
        )
    };
    if let Ok(ip) = host.trim_matches(|c| c == '[' || c == ']').parse() {
        return Ok(ip);
    }
    (host, 0)
        .to_socket_addrs()
        .map_err(|e| bad(format!("cannot resolve it: {e}")))?
        .next()
        .map(|a| a.ip())
        .ok_or_else(|| bad("it resolves to no address".into()))
}

/// Run `f` on a thread of its own with SIGPIPE blocked there and in every
/// thread it starts (they inherit the mask). The network code writes to
/// sockets with `writev`, which raises SIGPIPE when the peer has gone;
/// the binary restores SIGPIPE's default action, which ends the process,
/// for its output to a closed pipe (`anonlab assess | head`). Blocked, a
/// write to a peer that has gone is an error the network code handles.
pub(crate) fn without_sigpipe<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        let thread = std::thread::Builder::new()
            .name("anonlab-cluster".into())
            // DataFusion's planning recurses: the main thread's 8 MiB.
            .stack_size(8 << 20)
            .spawn_scoped(s, || {
                block_sigpipe();
                f()
            })
            .expect("a thread for the cluster's work");
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

#[cfg(unix)]
fn block_sigpipe() {
    // SAFETY: a signal set built by sigemptyset/sigaddset, applied to the
    // calling thread's own mask only.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

#[cfg(not(unix))]
fn block_sigpipe() {}

/// An IP address as Ballista's configuration wants it in `host:port`
/// text: IPv6 in brackets.
fn ip_text(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

/// How a client runs its work on a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterOptions {
    /// Partitions of a job's plans: how many tasks its stages are cut
    /// into across the executors (a Parquet file splits by row groups).
    pub partitions: usize,
    /// How long to wait for the scheduler to have an executor.
    pub ready_within: Duration,
    /// How long a job may go without progress (no task of it finished or
    /// running on an executor that answers) before the client gives up on
    /// it; a job that progresses may run as long as it needs.
    pub stall_limit: Duration,
    /// Whether the job's progress is told on stderr while it runs.
    pub show_progress: bool,
}

/// The default of [`ClusterOptions::stall_limit`].
pub const DEFAULT_STALL_LIMIT: Duration = Duration::from_secs(60);

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            partitions: 16,
            ready_within: Duration::from_secs(10),
            stall_limit: DEFAULT_STALL_LIMIT,
            show_progress: true,
        }
    }
}

/// A client's handle on a cluster: its scheduler's address, the token it
/// presents, and how to run work there. It holds no connection; each call
/// makes its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    scheduler: Address,
    token: Token,
    options: ClusterOptions,
}

/// How long one connection attempt or answer may take.
const NETWORK_WAIT: Duration = Duration::from_secs(5);
/// How long a running job may have no executor alive before the client
/// gives up on it, beyond the scheduler's own [`scheduler::EXECUTOR_TIMEOUT`]:
/// an executor that lives but was slow to ask for work (a loaded machine)
/// asks again within 5 s and is alive again, and one restarted at once
/// registers within this time.
pub const NO_EXECUTOR_GRACE: Duration = Duration::from_secs(10);
/// A job's progress is told once it has run this long (quick jobs say
/// nothing), then whenever it changes, at most every [`TELL_EVERY`], and
/// every [`STILL_EVERY`] while it does not.
const SHOW_PROGRESS_AFTER: Duration = Duration::from_secs(3);
const TELL_EVERY: Duration = Duration::from_secs(3);
const STILL_EVERY: Duration = Duration::from_secs(15);
/// What a client says when its job has no executor left.
const NO_EXECUTOR_LEFT: &str = "the cluster has no executor left (the last one stopped answering the scheduler); the job is lost: start an executor and run the command again";
/// Ballista's words when it fails a job for the same reason.
const BALLISTA_NO_EXECUTOR: &str = "all executors were lost";

impl Cluster {
    pub fn new(scheduler: Address, token: Token, options: ClusterOptions) -> Self {
        Cluster {
            scheduler,
            token,
            options,
        }
    }

    /// The cluster a [`ClusterSpec`] names (a source's `Engine::Cluster`):
    /// its address parsed, its token read from the file the spec names or
    /// else the one [`TOKEN_FILE_VAR`] names (none is refused: a cluster
    /// is not used without one), and the spec's timeout for a job without
    /// progress and, within [`ClusterOptions::ready_within`], for an
    /// executor.
    pub fn of(spec: &anonlab::session::ClusterSpec) -> Result<Cluster> {
        let address: Address = spec.address.parse()?;
        let from_env = std::env::var_os(TOKEN_FILE_VAR).filter(|v| !v.is_empty());
        let Some(path) = spec
            .token_file
            .clone()
            .or(from_env.map(std::path::PathBuf::from))
        else {
            return Err(Error::invalid(
                Parameter::TokenFile,
                format!("the cluster needs its token: name its token file (or set {TOKEN_FILE_VAR}), a file of mode 600 holding one line, the same for every process of the cluster (make one with `(umask 077; openssl rand -hex 32 > FILE)`)"),
            ));
        };
        let token = Token::from_file(&path)?;
        let defaults = ClusterOptions::default();
        Ok(Cluster::new(
            address,
            token,
            ClusterOptions {
                stall_limit: spec.timeout,
                ready_within: defaults.ready_within.min(spec.timeout),
                ..defaults
            },
        ))
    }

    pub fn scheduler(&self) -> &Address {
        &self.scheduler
    }

    /// Build the frequency table of `columns` of the file at `path`, read
    /// as `opts` says, on the cluster: the same table as
    /// [`crate::engine::frequency_table`] builds on this machine. The
    /// executors read the file at its absolute path.
    pub fn frequency_table(
        &self,
        path: &Path,
        opts: &CsvOptions,
        columns: &[String],
    ) -> Result<FrequencyTable> {
        let engine = format!(
            "the cluster at {} (every executor reads the file at {})",
            self.scheduler,
            std::path::absolute(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
        );
        // The file's own problems are told before any network wait.
        check_input(&engine, path, opts, columns)?;
        refuse_arrow_stream(&engine, path, opts)?;
        without_sigpipe(|| self.frequency_table_here(&engine, path, opts, columns))
    }

    fn frequency_table_here(
        &self,
        engine: &str,
        path: &Path,
        opts: &CsvOptions,
        columns: &[String],
    ) -> Result<FrequencyTable> {
        self.run(self.options.partitions, |ctx| async move {
            frequency_table_in(&ctx, engine, path, opts, columns).await
        })
    }

    /// Run `work` in a session on the cluster whose plans have
    /// `partitions` partitions, on a client runtime made for it, within
    /// the job timeout once the scheduler has an executor, with SIGPIPE
    /// blocked on its threads. What the layers above send to the cluster
    /// (the publishing pass's scan: `release::publish::publish_on`) goes
    /// through here, so this layer does not depend on theirs.
    pub fn in_session<T, F>(
        &self,
        partitions: usize,
        work: impl FnOnce(SessionContext) -> F + Send,
    ) -> Result<T>
    where
        T: Send,
        F: std::future::Future<Output = Result<T>>,
    {
        without_sigpipe(|| self.run(partitions, work))
    }

    /// Run `work` in a session on the cluster whose plans have
    /// `partitions` partitions, once the scheduler has an executor, while
    /// its jobs progress ([`Cluster::watch`]).
    fn run<T, F>(&self, partitions: usize, work: impl FnOnce(SessionContext) -> F) -> Result<T>
    where
        F: std::future::Future<Output = Result<T>>,
    {
        self.wait_ready()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("anonlab-cluster-client")
            .build()
            .map_err(|e| {
                self.scheduler
                    .error(format!("cannot start the client: {e}"))
            })?;
        // The session's jobs carry a name of their own, by which the
        // scheduler tells their progress.
        let job_name = format!(
            "anonlab-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let result = runtime.block_on(async {
            let ctx = self.context(partitions, &job_name).await?;
            tokio::select! {
                out = work(ctx) => out,
                stalled = self.watch(&job_name) => {
                    // What still runs of the job is of no use to anyone.
                    let (scheduler, token, name) =
                        (self.scheduler.clone(), self.token.clone(), job_name.clone());
                    let _ = tokio::task::spawn_blocking(move || cancel(&scheduler, &token, &name))
                        .await;
                    Err(stalled)
                }
            }
        });
        // Tasks the client left (connections closing) get a moment, not
        // an unbounded wait.
        runtime.shutdown_timeout(Duration::from_secs(2));
        result.map_err(|e| self.refusal(e))
    }

    /// Follow the jobs named `job_name` on the scheduler, once a second,
    /// telling their progress on stderr (when asked to, and once a job
    /// has run a few seconds); return the error to end the work with when
    /// they stop progressing: for [`ClusterOptions::stall_limit`] no task
    /// of them finished and none ran on an executor that still asks for
    /// work (a task that scans a whole file may run for long; a stopped
    /// or lost executor stops asking within seconds), or no executor left
    /// alive for [`NO_EXECUTOR_GRACE`]. Time when no job of the name runs
    /// (the client planning, or reading a result) is not counted. Never
    /// returns otherwise, nor when the scheduler has no `/progress` (an
    /// older anonlab's).
    async fn watch(&self, job_name: &str) -> Error {
        let started = Instant::now();
        let mut last: Option<scheduler::JobsProgress> = None;
        let mut progressed = Instant::now();
        let mut finished_at = Instant::now();
        let mut told = Instant::now();
        let mut told_what = None;
        let mut no_executor_since: Option<Instant> = None;
        let mut interval = tokio::time::interval(Duration::from_secs(1));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            let (scheduler, token, name) = (
                self.scheduler.clone(),
                self.token.clone(),
                job_name.to_string(),
            );
            let asked =
                tokio::task::spawn_blocking(move || progress_of(&scheduler, &token, &name)).await;
            let now = Instant::now();
            let p = match asked {
                Ok(Asked::Progress(p)) => p,
                // A scheduler that cannot tell: the job runs unwatched,
                // as clients did before, to Ballista's own end.
                Ok(Asked::NoRoute) => return std::future::pending().await,
                // No answer: the job's own status requests tell a lost
                // scheduler; until then this is time without progress.
                _ => {
                    if now.duration_since(progressed) >= self.options.stall_limit {
                        return self.stalled();
                    }
                    continue;
                }
            };
            if p.jobs == 0 {
                // Nothing of ours runs there now.
                progressed = now;
                no_executor_since = None;
                last = Some(p);
                continue;
            }
            if p.ready {
                no_executor_since = None;
            } else {
                let since = *no_executor_since.get_or_insert(now);
                if now.duration_since(since) >= NO_EXECUTOR_GRACE {
                    return self.scheduler.error(NO_EXECUTOR_LEFT);
                }
            }
            let key = |p: &scheduler::JobsProgress| (p.jobs, p.stages_done, p.tasks_done);
            let finished = last.as_ref().map(key) != Some(key(&p));
            // A task that runs on an executor still asking for work is
            // progress too: one task may scan a whole file.
            if finished || p.working > 0 {
                progressed = now;
            }
            last = Some(p);
            let waited = now.duration_since(progressed);
            if waited >= self.options.stall_limit {
                return self.stalled();
            }
            if finished {
                finished_at = now;
            }
            let quiet = now.duration_since(finished_at);
            if self.options.show_progress
                && now.duration_since(started) >= SHOW_PROGRESS_AFTER
                && now.duration_since(told) >= TELL_EVERY
                && (told_what != Some(key(&p)) || now.duration_since(told) >= STILL_EVERY)
            {
                let still = if waited >= Duration::from_secs(5) {
                    format!(
                        "; nothing under way for {} s (the client gives up at {} s)",
                        waited.as_secs(),
                        self.options.stall_limit.as_secs()
                    )
                } else if quiet >= Duration::from_secs(5) {
                    format!(
                        "; {} running, none finished for {} s",
                        p.working,
                        quiet.as_secs()
                    )
                } else {
                    String::new()
                };
                eprintln!(
                    "cluster at {}: {} of {} tasks done (the stages planned so far: {} of {} done), {} s{still}",
                    self.scheduler,
                    p.tasks_done,
                    p.tasks,
                    p.stages_done,
                    p.stages,
                    now.duration_since(started).as_secs()
                );
                told = now;
                told_what = Some(key(&p));
            }
        }
    }

    /// The error of a job that made no progress for the client's limit.
    fn stalled(&self) -> Error {
        self.scheduler.error(format!(
            "the job made no progress for {} s (no task of it finished or ran on an executor that answers; the client's limit, --cluster-timeout); the client asked the scheduler to cancel it",
            self.options.stall_limit.as_secs()
        ))
    }

    /// A refusal of the cluster's that came back inside a job's error
    /// (nested, quoted), in its own words; any other error as it is.
    fn refusal(&self, e: Error) -> Error {
        let text = e.to_string();
        if let Some(refused) = root::refusal_in(&text) {
            return self.scheduler.error(format!(
                "the cluster refused the file: {refused} (it reads only under the data root its processes were given)"
            ));
        }
        if let Some(refused) = root::malformed_in(&text) {
            return self
                .scheduler
                .error(format!("the cluster refused the file: {refused}"));
        }
        if text.contains(auth::DATA_REFUSED) {
            return self.scheduler.error(auth::DATA_REFUSED);
        }
        if text.contains("Unauthenticated") || text.contains(auth::REFUSED) {
            return self.scheduler.error(auth::REFUSED);
        }
        if text.contains(NO_EXECUTOR_LEFT) || text.contains(BALLISTA_NO_EXECUTOR) {
            return self.scheduler.error(NO_EXECUTOR_LEFT);
        }
        if let Some(cause) = lost_connection_in(&text, &self.scheduler) {
            return self.scheduler.error(format!(
                "lost the connection to the cluster's scheduler at {} ({cause}); the job's result is lost: is the scheduler still running?",
                self.scheduler
            ));
        }
        e
    }

    /// A DataFusion session whose plans run on the cluster, its jobs
    /// named `job_name`.
    async fn context(&self, partitions: usize, job_name: &str) -> Result<SessionContext> {
        let config = SessionConfig::new_with_ballista()
            .with_ballista_job_name(job_name)
            .with_target_partitions(partitions.max(1))
            .with_batch_size(8192)
            // The channels to the scheduler and to the executors' data
            // ports present the token.
            .with_ballista_override_create_grpc_client_endpoint(self.token.endpoint_override());
        let state = SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .build();
        SessionContext::remote_with_state(&format!("df://{}", self.scheduler), state)
            .await
            .map_err(|e| {
                self.scheduler
                    .error(crate::engine::without_debug(&e.to_string()))
            })
    }

    /// Wait until the scheduler has an executor, asking its `/readyz`.
    fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + self.options.ready_within;
        loop {
            match readyz(&self.scheduler, &self.token)? {
                200 => return Ok(()),
                401 => return Err(self.scheduler.error(auth::REFUSED)),
                503 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
                503 => {
                    return Err(self.scheduler.error(format!(
                        "the scheduler has no executor (none registered within {} s); start one with `anonlab cluster executor --scheduler {} --token-file FILE --data-root DIR`",
                        self.options.ready_within.as_secs(),
                        self.scheduler
                    )))
                }
                status => return Err(not_a_scheduler(&self.scheduler, status)),
            }
        }
    }
}

/// The words of a connection lost in an error's text, when the client
/// lost its connection to the scheduler: the client talks only to the
/// scheduler while a job runs (it polls the job's status), so a
/// connection that breaks or is refused then is the scheduler's — tonic
/// and hyper say it as "h2 protocol error", "transport error", or the
/// operating system's refusal. A job the scheduler reports failed
/// ("Job … failed", an executor's own connections among its causes) had
/// its scheduler, and is none of these; nor is a connection Ballista says
/// it made to another address (an executor's, fetching the result).
fn lost_connection_in(text: &str, scheduler: &Address) -> Option<&'static str> {
    const LOST: [(&str, &str); 6] = [
        ("h2 protocol error", "the connection broke"),
        ("broken pipe", "the connection broke"),
        ("connection reset", "the connection was reset"),
        ("connection refused", "nothing answers there any more"),
        ("transport error", "the connection broke"),
        ("error trying to connect", "nothing answers there any more"),
    ];
    let lower = text.to_lowercase();
    if lower.contains("job failed due to") || lower.contains("failed due to stage") {
        return None;
    }
    let elsewhere = text.split("scheduler or executor at ").skip(1).any(|rest| {
        !rest
            .trim_start_matches("http://")
            .starts_with(&scheduler.to_string())
    });
    if elsewhere {
        return None;
    }
    LOST.iter()
        .find(|(words, _)| lower.contains(words))
        .map(|&(_, cause)| cause)
}

/// The HTTP status of the scheduler's `/readyz` (200: an executor is
/// there; 503: none yet; 401: `token` is not the cluster's). Plain
/// HTTP/1.1 on the scheduler's one port.
fn readyz(scheduler: &Address, token: &Token) -> Result<u16> {
    ask_readyz(connect(scheduler)?, scheduler, token)
}

/// [`readyz`] on a connection made.
pub(crate) fn ask_readyz(stream: TcpStream, scheduler: &Address, token: &Token) -> Result<u16> {
    get(stream, scheduler, token, "/readyz", 0).map(|(status, _)| status)
}

/// What the scheduler answers about a client's jobs.
enum Asked {
    Progress(scheduler::JobsProgress),
    /// It has no `/progress` (a scheduler of an older anonlab).
    NoRoute,
    /// No answer, or not one that reads as progress.
    Nothing,
}

/// The progress of the jobs named `name` on the scheduler (its
/// `/progress/NAME`).
fn progress_of(scheduler: &Address, token: &Token, name: &str) -> Asked {
    let Ok(stream) = connect(scheduler) else {
        return Asked::Nothing;
    };
    match get(stream, scheduler, token, &format!("/progress/{name}"), 256) {
        Ok((200, body)) => String::from_utf8_lossy(&body)
            .lines()
            .find_map(|l| l.parse().ok())
            .map_or(Asked::Nothing, Asked::Progress),
        Ok((404, _)) => Asked::NoRoute,
        _ => Asked::Nothing,
    }
}

/// Ask the scheduler to cancel the jobs named `name` (its
/// `POST /cancel/NAME`); whether it answered.
fn cancel(scheduler: &Address, token: &Token, name: &str) -> bool {
    connect(scheduler)
        .and_then(|stream| {
            request(
                stream,
                scheduler,
                token,
                "POST",
                &format!("/cancel/{name}"),
                0,
            )
        })
        .is_ok_and(|(status, _)| status == 200)
}

/// `GET path` on the scheduler's one port ([`request`]).
fn get(
    stream: TcpStream,
    scheduler: &Address,
    token: &Token,
    path: &str,
    body: usize,
) -> Result<(u16, Vec<u8>)> {
    request(stream, scheduler, token, "GET", path, body)
}

/// `METHOD path` (no body) over plain HTTP/1.1 on the scheduler's one
/// port: the status, and at most `body` bytes of what follows the
/// headers.
fn request(
    mut stream: TcpStream,
    scheduler: &Address,
    token: &Token,
    method: &str,
    path: &str,
    body: usize,
) -> Result<(u16, Vec<u8>)> {
    let not_scheduler = |e: std::io::Error| {
        scheduler.error(format!(
            "does not answer as a Ballista scheduler ({e}); is `anonlab cluster scheduler` running there?"
        ))
    };
    stream
        .set_read_timeout(Some(NETWORK_WAIT))
        .map_err(not_scheduler)?;
    stream
        .set_write_timeout(Some(NETWORK_WAIT))
        .map_err(not_scheduler)?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {scheduler}\r\nAuthorization: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        token.bearer()
    )
    .map_err(not_scheduler)?;
    // The status line and headers (a few hundred bytes), and the body
    // asked for: no more is read.
    let limit = 1024 + body;
    let mut answer = Vec::with_capacity(limit);
    let mut chunk = [0u8; 512];
    loop {
        let enough = if body == 0 {
            answer.len() >= 12
        } else {
            answer.len() >= limit
        };
        if enough {
            break;
        }
        match stream.read(&mut chunk).map_err(not_scheduler)? {
            0 => break,
            n => answer.extend_from_slice(&chunk[..n.min(limit - answer.len())]),
        }
    }
    let got = answer.len();
    let head = &answer[..];
    let line = String::from_utf8_lossy(&head[..got.min(64)]);
    let status = line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse::<u16>().ok());
    let status = status.ok_or_else(|| {
        scheduler.error(format!(
            "does not answer as a Ballista scheduler (no HTTP answer on {path}); is `anonlab cluster scheduler` running there?"
        ))
    })?;
    let rest = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(Vec::new(), |at| answer[at + 4..].to_vec());
    Ok((status, rest))
}

/// The error of a server at `address` that answers `/readyz` with
/// `status`, which no Ballista scheduler does.
pub(crate) fn not_a_scheduler(address: &Address, status: u16) -> Error {
    address.error(format!(
        "answers, but not as a Ballista scheduler (HTTP status {status} on /readyz)"
    ))
}

/// A TCP connection to `address`, each of its resolved addresses tried
/// for at most [`NETWORK_WAIT`].
pub(crate) fn connect(address: &Address) -> Result<TcpStream> {
    let mut last = None;
    for a in address.resolve()? {
        match TcpStream::connect_timeout(&a, NETWORK_WAIT) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    let e = last.map_or_else(|| "no address".to_string(), |e| e.to_string());
    Err(address.error(format!("nothing answers there ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> Token {
        Token::new(b"0123456789abcdef0123456789abcdef").unwrap()
    }

    /// What tonic, hyper and Ballista say when the scheduler goes away
    /// mid-job is worded as a lost scheduler (issue 36, item 10); a job
    /// the scheduler failed, or a file's own problem, is not.
    #[test]
    fn a_lost_scheduler_is_named() {
        let cluster = Cluster::new(
            "127.0.0.1:50050".parse().unwrap(),
            token(),
            ClusterOptions::default(),
        );
        let file = |msg: &str| Error::input("d.csv", None, None, msg.to_string());
        for text in [
            "the cluster at 127.0.0.1:50050 cannot read the file: External error: status: Internal, message: \"h2 protocol error: error reading a body from connection\", details: [], metadata",
            "the cluster at 127.0.0.1:50050 cannot read the file: External error: status: Unavailable, message: \"error trying to connect: tcp connect error: Connection refused (os error 111)\"",
            "the cluster at 127.0.0.1:50050 cannot read the file: External error: transport error",
        ] {
            let m = cluster.refusal(file(text)).to_string();
            assert!(
                m.starts_with("cluster at 127.0.0.1:50050: lost the connection to the cluster's scheduler at 127.0.0.1:50050 ("),
                "{m}"
            );
            assert!(!m.contains("cannot read the file"), "{m}");
        }
        for text in [
            "the cluster at 127.0.0.1:50050 cannot read the file: Execution error: Job Qx1 failed: Job failed due to stage 1 failed: Task failed due to runtime execution error: Connection refused",
            "the cluster at 127.0.0.1:50050 cannot read the file: not a Parquet file",
            "the cluster at 127.0.0.1:50050 cannot read the file: Execution error: Error connecting to Ballista scheduler or executor at 127.0.0.1:50051: transport error",
        ] {
            let m = cluster.refusal(file(text)).to_string();
            assert_eq!(m, format!("d.csv: {text}"));
        }
    }

    /// A job failed by Ballista for want of executors, or by the client's
    /// own watch, says the cluster has none left; a reader's refusal on
    /// an executor comes back in the reader's words.
    #[test]
    fn a_cluster_without_executors_and_a_refused_file_are_named() {
        let cluster = Cluster::new(
            "127.0.0.1:50050".parse().unwrap(),
            token(),
            ClusterOptions::default(),
        );
        let file = |msg: &str| Error::input("d.csv", None, None, msg.to_string());
        let m = cluster
            .refusal(file("Execution error: Job QX failed: all executors were lost and no executor re-registered within 12s; no executors remain to run the tasks for this job"))
            .to_string();
        assert_eq!(m, format!("cluster at 127.0.0.1:50050: {NO_EXECUTOR_LEFT}"));
        let m = cluster
            .refusal(file("Execution error: Job QX failed: DataFusion error: Object Store error: Generic { store: \"data root\", source: \"the cluster's check of what it reads refused the file: /d/p.parquet, column 'c0': past the end\" }"))
            .to_string();
        assert_eq!(
            m,
            "cluster at 127.0.0.1:50050: the cluster refused the file: /d/p.parquet, column 'c0': past the end"
        );
    }

    /// The scheduler's progress line reads back as it was written; other
    /// text is no progress.
    #[test]
    fn progress_lines_read_back() {
        let p = scheduler::JobsProgress {
            ready: true,
            executors: 2,
            jobs: 1,
            stages: 3,
            stages_done: 1,
            tasks: 32,
            tasks_done: 17,
            working: 4,
        };
        assert_eq!(p.to_string().parse(), Ok(p));
        assert_eq!(p.to_string(), "anonlab-progress 1 2 1 1 3 17 32 4");
        for bad in [
            "",
            "anonlab-progress 1 2",
            "progress 1 2 1 1 3 17 32",
            "anonlab-progress x 2 1 1 3 17 32",
        ] {
            assert!(bad.parse::<scheduler::JobsProgress>().is_err(), "{bad}");
        }
    }

    #[test]
    fn addresses_are_read_as_host_and_port() {
        let a: Address = "127.0.0.1:50050".parse().unwrap();
        assert_eq!((a.host(), a.port()), ("127.0.0.1", 50050));
        let a: Address = "node-7.example:9".parse().unwrap();
        assert_eq!((a.host(), a.port()), ("node-7.example", 9));
        let a: Address = "[::1]:50050".parse().unwrap();
        assert_eq!((a.host(), a.port()), ("::1", 50050));
        assert_eq!(a.to_string(), "[::1]:50050");
    }

    #[test]
    fn a_bad_address_says_what_is_wrong() {
        for (text, why) in [
            ("127.0.0.1", "no :PORT"),
            (":50050", "no host"),
            ("host:0", "from 1 to 65535"),
            ("host:70000", "from 1 to 65535"),
            ("host:port", "from 1 to 65535"),
            ("df://host:50050", "without a scheme"),
            ("::1:50050", "in brackets"),
            ("[::1:50050", "lacks its ]"),
            ("[nope]:50050", "not an IPv6 address"),
            ("a b:1", "spaces"),
        ] {
            let e = text.parse::<Address>().unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
            assert!(e.contains("HOST:PORT"), "{text}: {e}");
        }
    }

    #[test]
    fn an_unreachable_scheduler_is_named() {
        // A port just released: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Cluster::new(
            Address::new("127.0.0.1", port),
            token(),
            ClusterOptions::default(),
        );
        let e = cluster.wait_ready().unwrap_err().to_string();
        assert!(e.contains(&format!("cluster at 127.0.0.1:{port}")), "{e}");
        assert!(e.contains("nothing answers there"), "{e}");
    }

    #[test]
    fn something_else_than_a_scheduler_is_told_apart() {
        // A server that answers with a line that is not HTTP.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let _ = s.write_all(b"SSH-2.0-OpenSSH_9.6\r\n");
        });
        let e = readyz(&Address::new("127.0.0.1", port), &token())
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not answer as a Ballista scheduler"), "{e}");
        server.join().unwrap();
    }
}
