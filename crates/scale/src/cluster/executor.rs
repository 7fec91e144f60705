//! A Ballista executor in this process: it registers with a scheduler,
//! takes the tasks the scheduler pushes to it (its task port), runs them
//! with DataFusion, and serves their results and shuffle files to clients
//! and other executors (its data port, Arrow Flight).
//!
//! Choices made here, and why:
//! - Both ports are bound before Ballista starts, so a port in use is told
//!   at once and port 0 can stand for a free port: Ballista advertises the
//!   ports it is given to the scheduler, so it must be given real ones.
//!   The data port's socket is handed to Ballista through its Flight
//!   server hook, which Ballista calls once registration has succeeded:
//!   that call is the moment the executor is ready.
//! - Stopping drops Ballista's executor (its runtime and running tasks)
//!   and then tells the scheduler, which moves the executor's tasks
//!   elsewhere at once instead of after its 180 s heartbeat timeout. The
//!   scheduler is told only after the runtime is gone: a heartbeat after
//!   the notice would register the executor again.
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
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::ExecutorStoppedParams;
use ballista_core::utils::create_grpc_server;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_executor::flight_service::BallistaFlightService;
use ballista_executor::ArrowFlightServerProvider;

use super::scheduler::{bind_error, listen};
use super::{ask_readyz, bind_ip, connect, ip_text, not_a_scheduler, without_sigpipe, Address};
use anonlab::error::{Error, Result};

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
    /// The task port (gRPC); `None` takes the data port + 1, or a free
    /// one when the data port is 0.
    pub task_port: Option<u16>,
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

/// Ballista's data port for an executor; its task port is the next one.
pub const DEFAULT_EXECUTOR_PORT: u16 = 50051;

impl ExecutorOptions {
    pub fn new(scheduler: Address) -> Self {
        ExecutorOptions {
            scheduler,
            bind: "127.0.0.1".into(),
            port: DEFAULT_EXECUTOR_PORT,
            task_port: None,
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
    pub tasks: SocketAddr,
    pub work_dir: PathBuf,
    pub executor_id: String,
}

/// An executor whose ports are bound and whose scheduler answers, not yet
/// registered.
#[derive(Debug)]
pub struct Executor {
    opts: ExecutorOptions,
    ip: IpAddr,
    /// The scheduler's address as Ballista connects to it.
    scheduler: SocketAddr,
    data: TcpListener,
    data_address: SocketAddr,
    tasks: SocketAddr,
    work_dir: tempfile::TempDir,
}

impl Executor {
    /// Bind the ports, make the work directory and reach the scheduler
    /// (trying again for `connect_within`): every problem of the setup is
    /// told here, before Ballista starts.
    pub fn bind(opts: ExecutorOptions) -> Result<Executor> {
        let ip = bind_ip(&opts.bind)?;
        let (data, data_address) = listen(SocketAddr::new(ip, opts.port))?;
        let task_port = match opts.task_port {
            Some(p) => p,
            None if opts.port == 0 => 0,
            None => opts.port.checked_add(1).ok_or_else(|| {
                Error::Parameter(
                    "the data port is 65535, so the task port (by default the next one) cannot be; give the task port explicitly".into(),
                )
            })?,
        };
        // Ballista binds the task port itself: find it free (or a free
        // one for 0) and release it for Ballista.
        let (probe, tasks) = listen(SocketAddr::new(ip, task_port))?;
        drop(probe);
        let parent = opts.work_dir.clone().unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&parent).map_err(|e| Error::Write(parent.clone(), e))?;
        let work_dir = tempfile::Builder::new()
            .prefix("anonlab-executor-")
            .tempdir_in(&parent)
            .map_err(|e| Error::Write(parent.clone(), e))?;
        if work_dir.path().to_str().is_none() {
            return Err(Error::Parameter(format!(
                "the work directory {} is not a UTF-8 path, which Ballista needs",
                work_dir.path().display()
            )));
        }
        let scheduler = reach(&opts.scheduler, opts.connect_within)?;
        Ok(Executor {
            opts,
            ip,
            scheduler,
            data,
            data_address,
            tasks,
            work_dir,
        })
    }

    /// The data port's address (results and shuffle files).
    pub fn data_address(&self) -> SocketAddr {
        self.data_address
    }

    /// The task port's address (the scheduler pushes tasks there).
    pub fn task_address(&self) -> SocketAddr {
        self.tasks
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
        let config = ExecutorProcessConfig {
            bind_host: ip_text(self.ip),
            external_host: (!self.ip.is_unspecified()).then(|| self.ip.to_string()),
            port: self.data_address.port(),
            grpc_port: self.tasks.port(),
            scheduler_host: ip_text(self.scheduler.ip()),
            scheduler_port: self.scheduler.port(),
            vcores: self.opts.vcores,
            task_scheduling_policy: TaskSchedulingPolicy::PushStaged,
            work_dir: Some(work.clone()),
            memory_pool_size: self.opts.memory_limit,
            override_arrow_flight_service: Some(flight_server(self.data, ready_tx)),
            ..Default::default()
        };
        let executor_id = config.executor_id.clone();
        let ready = ExecutorReady {
            data: self.data_address,
            tasks: self.tasks,
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
            let mut ready_rx = Some(ready_rx);
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
                    r = async { ready_rx.as_mut().expect("guarded").await }, if ready_rx.is_some() => {
                        ready_rx = None;
                        if r.is_ok() {
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
            Ended::Ballista(Err(e)) => Err(ballista_error(scheduler, self.tasks, e)),
            Ended::NotStarted => Err(fail(&format!(
                "the executor did not register with the scheduler within {} s",
                start_within.as_secs()
            ))),
        };
        if registered {
            tell_stopped(self.scheduler, &executor_id);
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
fn ballista_error(scheduler: &Address, tasks: SocketAddr, e: BallistaError) -> Error {
    match e {
        BallistaError::GrpcConnectionError(m) => scheduler.error(format!(
            "the executor cannot connect to the scheduler ({m})"
        )),
        BallistaError::IoError(io) if io.kind() == std::io::ErrorKind::AddrInUse => {
            bind_error(tasks, io)
        }
        e => scheduler.error(format!("the executor failed: {e}")),
    }
}

/// The scheduler's socket address, reached by TCP and asked whether it
/// is a Ballista scheduler (its `/readyz` answers 200 or 503); tried again
/// every quarter second while nothing answers, until `within` has passed,
/// so an executor started with its scheduler waits for it.
fn reach(scheduler: &Address, within: Duration) -> Result<SocketAddr> {
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
    match ask_readyz(stream, scheduler)? {
        200 | 503 => Ok(at),
        status => Err(not_a_scheduler(scheduler, status)),
    }
}

/// Ballista's Flight server, on the data port bound before it started;
/// `ready` is sent when Ballista asks for it, which it does once the
/// executor has registered.
fn flight_server(
    listener: TcpListener,
    ready: futures::channel::oneshot::Sender<()>,
) -> Arc<ArrowFlightServerProvider> {
    let listener = Mutex::new(Some(listener));
    let ready = Mutex::new(Some(ready));
    Arc::new(move |work_dir, address, mut shutdown, grpc| {
        let listener = listener.lock().ok().and_then(|mut l| l.take());
        let ready = ready.lock().ok().and_then(|mut r| r.take());
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
            create_grpc_server(&grpc)
                .add_service(
                    FlightServiceServer::new(BallistaFlightService::new(work_dir))
                        .max_decoding_message_size(size)
                        .max_encoding_message_size(size),
                )
                .serve_with_incoming_shutdown(incoming, shutdown.recv())
                .await
                .map_err(BallistaError::TonicError)
        })
    })
}

/// Tell the scheduler that the executor `id` stopped, so that it moves
/// its tasks elsewhere now. Bounded; a scheduler already gone is no error.
fn tell_stopped(scheduler: SocketAddr, id: &str) {
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
