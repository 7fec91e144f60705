//! A Ballista executor in this process: it asks a scheduler for tasks,
//! runs them with DataFusion, and serves their results and shuffle files
//! to clients and other executors (its data port, Arrow Flight).
//!
//! Choices made here, and why:
//! - Ballista's pull scheduling: the executor asks the scheduler for work
//!   over a channel that presents the cluster's token, and has no task
//!   port. Ballista's push scheduling would have it serve one, which
//!   Ballista starts itself with no way to check a credential there.
//! - The data port is bound before Ballista starts, so a port in use is
//!   told at once and port 0 can stand for a free port: Ballista
//!   advertises the port it is given to the scheduler, so it must be given
//!   a real one. Its socket is handed to Ballista through its Flight
//!   server hook and served by anonlab, every call checked for the token.
//!   The executor is ready once that port serves and the scheduler has
//!   answered its first request for work.
//! - Tasks read files through a store confined to the data root (`root`),
//!   as the user who started the executor.
//! - Stopping drops Ballista's executor (its runtime and running tasks)
//!   and then tells the scheduler, which moves the executor's tasks
//!   elsewhere at once instead of after its heartbeat timeout (12 s,
//!   `scheduler::EXECUTOR_TIMEOUT`). The
//!   scheduler is told only after the runtime is gone: a heartbeat after
//!   the notice would register the executor again.
//! - Surviving its scheduler: the executor asks it for work twenty times a
//!   second while idle (at least every 5 s while busy), each request
//!   carrying the executor's description, which registers it with a
//!   scheduler that does not know it. So a scheduler restarted on the
//!   same address has the executors registered again within a second,
//!   with nothing done here (tonic's channel connects again). The push
//!   scheduling these executors once used registered only at start, and
//!   a restarted scheduler never saw them again.
//! - The work directory (shuffle and result files, spills) is a fresh
//!   directory made inside the one asked for and removed at the end, so
//!   nothing of the user's is ever deleted.

use std::future::Future;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_flight::flight_service_server::FlightServiceServer;
use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::error::BallistaError;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::ExecutorStoppedParams;
use ballista_core::utils::create_grpc_server;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_executor::flight_service::BallistaFlightService;
use ballista_executor::health::ExecutorHealth;
use ballista_executor::ArrowFlightServerProvider;
use datafusion::prelude::SessionConfig;
use tonic::service::interceptor::InterceptedService;

use super::auth::Token;
use super::root::DataRoot;
use super::scheduler::{bind_error, listen};
use super::{ask_readyz, bind_ip, connect, ip_text, not_a_scheduler, without_sigpipe, Address};
use anonlab::error::{Error, Parameter, Result};

/// How an executor starts.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutorOptions {
    /// The scheduler to register with.
    pub scheduler: Address,
    /// The host or IP address to bind to; when it is a specific address
    /// the scheduler and clients are told it, otherwise the scheduler
    /// takes the address it sees the executor connect from.
    pub bind: String,
    /// The data port (Arrow Flight); 0 takes a free one.
    pub port: u16,
    /// The cluster's token: presented to the scheduler and the other
    /// executors, asked of whoever calls the data port.
    pub token: Token,
    /// The directory under which tasks may read files.
    pub data_root: DataRoot,
    /// Where the work directory is made (the system's temporary
    /// directory when `None`).
    pub work_dir: Option<PathBuf>,
    /// Tasks run at once; 0 for one per core.
    pub vcores: usize,
    /// The memory its tasks may hold before they spill, shared among its
    /// vcores; `None` for Ballista's default, 70 % of the machine's (or
    /// the container's) memory.
    pub memory_limit: Option<u64>,
    /// How long to keep trying to reach the scheduler.
    pub connect_within: Duration,
    /// How long starting may take, registration included.
    pub start_within: Duration,
}

/// Ballista's data port for an executor.
pub const DEFAULT_EXECUTOR_PORT: u16 = 50051;

impl ExecutorOptions {
    pub fn new(scheduler: Address, token: Token, data_root: DataRoot) -> Self {
        ExecutorOptions {
            scheduler,
            bind: "127.0.0.1".into(),
            port: DEFAULT_EXECUTOR_PORT,
            token,
            data_root,
            work_dir: None,
            vcores: 0,
            memory_limit: None,
            connect_within: Duration::from_secs(10),
            start_within: Duration::from_secs(60),
        }
    }
}

/// What a started executor tells its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorReady {
    pub data: SocketAddr,
    pub work_dir: PathBuf,
    pub executor_id: String,
}

/// An executor whose port is bound and whose scheduler answers (and takes
/// its token), not yet registered.
#[derive(Debug)]
pub struct Executor {
    opts: ExecutorOptions,
    ip: IpAddr,
    /// The scheduler's address as Ballista connects to it.
    scheduler: SocketAddr,
    data: TcpListener,
    data_address: SocketAddr,
    work_dir: tempfile::TempDir,
}

impl Executor {
    /// Bind the port, make the work directory and reach the scheduler
    /// (trying again for `connect_within`), which must take the token:
    /// every problem of the setup is told here, before Ballista starts.
    pub fn bind(opts: ExecutorOptions) -> Result<Executor> {
        let ip = bind_ip(&opts.bind)?;
        let (data, data_address) = listen(SocketAddr::new(ip, opts.port))?;
        let parent = opts.work_dir.clone().unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&parent).map_err(|e| Error::Write(parent.clone(), e))?;
        let work_dir = tempfile::Builder::new()
            .prefix("anonlab-executor-")
            .tempdir_in(&parent)
            .map_err(|e| Error::Write(parent.clone(), e))?;
        if work_dir.path().to_str().is_none() {
            return Err(Error::invalid(
                Parameter::WorkDir,
                format!(
                    "the work directory {} is not a UTF-8 path, which Ballista needs",
                    work_dir.path().display()
                ),
            ));
        }
        let scheduler = reach(&opts.scheduler, &opts.token, opts.connect_within)?;
        Ok(Executor {
            opts,
            ip,
            scheduler,
            data,
            data_address,
            work_dir,
        })
    }

    /// The data port's address (results and shuffle files).
    pub fn data_address(&self) -> SocketAddr {
        self.data_address
    }

    pub fn work_dir(&self) -> &Path {
        self.work_dir.path()
    }

    /// Register with the scheduler and run its tasks until `stop`
    /// completes; `on_ready` is called once registered and serving. Then
    /// tell the scheduler, and remove the work directory.
    pub fn run(
        self,
        on_ready: impl FnOnce(&ExecutorReady) + Send,
        stop: impl Future<Output = ()> + Send,
    ) -> Result<()> {
        without_sigpipe(move || self.run_here(on_ready, stop))
    }

    fn run_here(
        self,
        on_ready: impl FnOnce(&ExecutorReady),
        stop: impl Future<Output = ()>,
    ) -> Result<()> {
        let scheduler = &self.opts.scheduler;
        let fail = |e: &dyn std::fmt::Display| scheduler.error(e.to_string());
        let work = self
            .work_dir
            .path()
            .to_str()
            .map(str::to_string)
            .ok_or_else(|| fail(&"the work directory is not a UTF-8 path"))?;
        let (ready_tx, ready_rx) = futures::channel::oneshot::channel::<()>();
        let health = ExecutorHealth::new();
        let token = &self.opts.token;
        let endpoint = token.endpoint_override();
        let config = ExecutorProcessConfig {
            bind_host: ip_text(self.ip),
            external_host: (!self.ip.is_unspecified()).then(|| self.ip.to_string()),
            port: self.data_address.port(),
            // No task port: pull scheduling (the module's notes).
            grpc_port: 0,
            scheduler_host: ip_text(self.scheduler.ip()),
            scheduler_port: self.scheduler.port(),
            vcores: self.opts.vcores,
            task_scheduling_policy: TaskSchedulingPolicy::PullStaged,
            work_dir: Some(work.clone()),
            memory_pool_size: self.opts.memory_limit,
            override_arrow_flight_service: Some(flight_server(self.data, ready_tx, token.clone())),
            // The channel to the scheduler, and the tasks' channels to
            // other executors' data ports, present the token.
            override_create_grpc_client_endpoint: Some(endpoint.clone()),
            override_config_producer: Some(Arc::new(move || {
                SessionConfig::new_with_ballista()
                    .with_ballista_override_create_grpc_client_endpoint(endpoint.clone())
            })),
            override_runtime_producer: Some(self.opts.data_root.runtime_producer(work.clone())),
            health: health.clone(),
            ..Default::default()
        };
        let executor_id = config.executor_id.clone();
        let ready = ExecutorReady {
            data: self.data_address,
            work_dir: self.work_dir.path().to_path_buf(),
            executor_id: executor_id.clone(),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("anonlab-executor")
            .build()
            .map_err(|e| fail(&e))?;
        let start_within = self.opts.start_within;
        let mut registered = false;
        let ended = runtime.block_on(async {
            let ballista = start_executor_process(Arc::new(config));
            tokio::pin!(ballista);
            tokio::pin!(stop);
            let started = tokio::time::sleep(start_within);
            tokio::pin!(started);
            // The data port serves, and the scheduler has answered a
            // request for work.
            let serving = async move {
                let served = ready_rx.await.is_ok();
                while served && !health.is_ready() {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                served
            };
            tokio::pin!(serving);
            let mut waiting = true;
            let mut on_ready = Some(on_ready);
            loop {
                tokio::select! {
                    r = &mut ballista => {
                        // Ballista stops by itself on SIGINT and SIGTERM,
                        // which may be what completes `stop` a moment later.
                        let asked = tokio::time::timeout(Duration::from_millis(500), &mut stop).await;
                        return match (r, asked) {
                            (Ok(()), Ok(())) => Ended::Stopped,
                            (r, _) => Ended::Ballista(r),
                        };
                    }
                    served = &mut serving, if waiting => {
                        waiting = false;
                        if served {
                            registered = true;
                            if let Some(f) = on_ready.take() {
                                f(&ready);
                            }
                        }
                    }
                    () = &mut started, if on_ready.is_some() => return Ended::NotStarted,
                    () = &mut stop => return Ended::Stopped,
                }
            }
        });
        // Ballista's tasks (heartbeats among them) end with the runtime,
        // before the scheduler is told.
        runtime.shutdown_timeout(Duration::from_secs(2));
        let result = match ended {
            Ended::Stopped => Ok(()),
            Ended::Ballista(Ok(())) => Err(fail(
                &"the executor's services stopped (see the messages above)",
            )),
            Ended::Ballista(Err(e)) => Err(ballista_error(scheduler, self.data_address, e)),
            Ended::NotStarted => Err(fail(&format!(
                "the executor did not register with the scheduler within {} s",
                start_within.as_secs()
            ))),
        };
        if registered {
            tell_stopped(self.scheduler, &executor_id, &self.opts.token);
        }
        drop(self.work_dir);
        result
    }
}

/// How the executor's run ended.
enum Ended {
    Ballista(std::result::Result<(), BallistaError>),
    Stopped,
    NotStarted,
}

/// Ballista's error in words about this setup.
fn ballista_error(scheduler: &Address, data: SocketAddr, e: BallistaError) -> Error {
    match e {
        BallistaError::GrpcConnectionError(m) => scheduler.error(format!(
            "the executor cannot connect to the scheduler ({m})"
        )),
        BallistaError::IoError(io) if io.kind() == std::io::ErrorKind::AddrInUse => {
            bind_error(data, io)
        }
        e => scheduler.error(format!("the executor failed: {e}")),
    }
}

/// The scheduler's socket address, reached by TCP and asked whether it
/// is a Ballista scheduler that takes `token` (its `/readyz` answers 200
/// or 503, not 401); tried again every quarter second while nothing
/// answers, until `within` has passed, so an executor started with its
/// scheduler waits for it.
fn reach(scheduler: &Address, token: &Token, within: Duration) -> Result<SocketAddr> {
    let deadline = Instant::now() + within;
    let stream = loop {
        match connect(scheduler) {
            Ok(stream) => break stream,
            Err(Error::Cluster { address, msg }) if Instant::now() >= deadline => {
                return Err(Error::Cluster {
                    address,
                    msg: format!(
                        "no scheduler to register with: {msg}, for {} s",
                        within.as_secs()
                    ),
                })
            }
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(250)),
        }
    };
    let at = stream
        .peer_addr()
        .map_err(|e| scheduler.error(e.to_string()))?;
    match ask_readyz(stream, scheduler, token)? {
        200 | 503 => Ok(at),
        401 => Err(scheduler.error(super::auth::REFUSED)),
        status => Err(not_a_scheduler(scheduler, status)),
    }
}

/// Ballista's Flight server, on the data port bound before it started,
/// every call refused unless it presents `token`; `ready` is sent when
/// Ballista asks for it, which it does once it has started.
fn flight_server(
    listener: TcpListener,
    ready: futures::channel::oneshot::Sender<()>,
    token: Token,
) -> Arc<ArrowFlightServerProvider> {
    let listener = Mutex::new(Some(listener));
    let ready = Mutex::new(Some(ready));
    Arc::new(move |work_dir, address, mut shutdown, grpc| {
        let listener = listener.lock().ok().and_then(|mut l| l.take());
        let ready = ready.lock().ok().and_then(|mut r| r.take());
        let token = token.clone();
        tokio::spawn(async move {
            let listener = listener.ok_or_else(|| {
                BallistaError::General(format!("the data port {address} was asked for twice"))
            })?;
            listener.set_nonblocking(true)?;
            let incoming = tonic::transport::server::TcpIncoming::from(
                tokio::net::TcpListener::from_std(listener)?,
            )
            .with_nodelay(Some(true));
            if let Some(ready) = ready {
                let _ = ready.send(());
            }
            // Ballista's own limits for Flight messages (16 MiB).
            let size = 16 * 1024 * 1024;
            let flight = FlightServiceServer::new(BallistaFlightService::new(work_dir))
                .max_decoding_message_size(size)
                .max_encoding_message_size(size);
            create_grpc_server(&grpc)
                .add_service(InterceptedService::new(flight, token.interceptor()))
                .serve_with_incoming_shutdown(incoming, shutdown.recv())
                .await
                .map_err(BallistaError::TonicError)
        })
    })
}

/// Tell the scheduler that the executor `id` stopped, so that it moves
/// its tasks elsewhere now. Bounded; a scheduler already gone is no error.
fn tell_stopped(scheduler: SocketAddr, id: &str, token: &Token) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let url = format!("http://{}:{}", ip_text(scheduler.ip()), scheduler.port());
    let told = runtime.block_on(async {
        let endpoint = tonic::transport::Endpoint::from_shared(url)
            .map_err(|e| e.to_string())?
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(3));
        let endpoint = token.on(endpoint).map_err(|e| e.to_string())?;
        let channel = endpoint.connect().await.map_err(|e| e.to_string())?;
        SchedulerGrpcClient::new(channel)
            .executor_stopped(ExecutorStoppedParams {
                executor_id: id.to_string(),
                reason: "stopped by anonlab".into(),
            })
            .await
            .map_err(|e| e.to_string())
    });
    if let Err(e) = told {
        log::warn!("could not tell the scheduler at {scheduler} that executor {id} stopped: {e}");
    }
}
