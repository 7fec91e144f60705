//! A Ballista scheduler in this process: the one port that clients send
//! jobs to and executors register with (gRPC, and `/readyz` over plain
//! HTTP). Its state (executors, jobs) is in memory and ends with it.
//!
//! anonlab serves that port itself, as Ballista's
//! `start_grpc_service_with_listener` does (Ballista's gRPC service and a
//! `/readyz` of the same meaning, on axum), with one difference: every
//! request, `/readyz` included, is checked for the cluster's token first
//! (`auth`), since Ballista's server takes no layer. Nothing else is
//! served: no REST API, no Flight proxy (Ballista's defaults here). Its
//! sessions read files through a store confined to the data root (`root`).
//!
//! Surviving a lost executor (issue 36): Ballista's defaults notice one
//! after 180 s without a heartbeat. Under pull scheduling an executor's
//! request for work is its heartbeat, sent at least every 5 s even when
//! every core is busy (Ballista's `HEARTBEAT_POLL_INTERVAL`); the
//! scheduler here takes an executor silent for [`EXECUTOR_TIMEOUT`] as
//! dead, looks every [`EXPIRE_EVERY`], moves its tasks to the others, and
//! fails a job left with no executor at all after the same time again.
//! Two more routes (token checked like the rest): `/progress/NAME` tells
//! a client how far its jobs (those named NAME) are, and whether tasks of
//! them run on executors that still ask for work: the client's wait is
//! bounded by time without progress, not by a job's whole length; and
//! `POST /cancel/NAME` cancels them, when the client gives up.

use std::future::{Future, IntoFuture};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_server::SchedulerGrpcServer;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{SchedulerConfig, TaskDistributionPolicy};
use ballista_scheduler::scheduler_process::create_scheduler;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::SessionConfig;
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

use super::auth::{Token, REFUSED};
use super::root::DataRoot;
use super::{bind_ip, without_sigpipe, Address};
use anonlab::error::{Error, Result};

/// An executor whose last heartbeat is older than this is dead: two
/// heartbeats and some missed (one every 5 s at most).
pub const EXECUTOR_TIMEOUT: Duration = Duration::from_secs(12);
/// How often the scheduler looks for dead executors.
pub const EXPIRE_EVERY: Duration = Duration::from_secs(2);

/// Where a scheduler listens, whom it serves and where it plans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerOptions {
    /// The host or IP address to bind to.
    pub bind: String,
    /// The port; 0 takes a free one.
    pub port: u16,
    /// The cluster's token, which every request must present.
    pub token: Token,
    /// The directory under which jobs may read files.
    pub data_root: DataRoot,
}

/// Ballista's port for a scheduler.
pub const DEFAULT_SCHEDULER_PORT: u16 = 50050;

impl SchedulerOptions {
    /// On loopback, Ballista's port.
    pub fn new(token: Token, data_root: DataRoot) -> Self {
        SchedulerOptions {
            bind: "127.0.0.1".into(),
            port: DEFAULT_SCHEDULER_PORT,
            token,
            data_root,
        }
    }
}

/// A scheduler whose port is bound, not yet serving.
#[derive(Debug)]
pub struct Scheduler {
    listener: TcpListener,
    address: SocketAddr,
    token: Token,
    data_root: DataRoot,
}

impl Scheduler {
    /// Bind the scheduler's port: a port in use or an address not of this
    /// machine is told here, before anything starts.
    pub fn bind(opts: &SchedulerOptions) -> Result<Scheduler> {
        let ip = bind_ip(&opts.bind)?;
        let (listener, address) = listen(SocketAddr::new(ip, opts.port))?;
        Ok(Scheduler {
            listener,
            address,
            token: opts.token.clone(),
            data_root: opts.data_root.clone(),
        })
    }

    /// The address it listens on (the port chosen when 0 was asked).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Serve until `stop` completes; `on_ready` is called once the
    /// scheduler takes jobs and executors.
    pub fn run(
        self,
        on_ready: impl FnOnce(SocketAddr) + Send,
        stop: impl Future<Output = ()> + Send,
    ) -> Result<()> {
        without_sigpipe(move || self.run_here(on_ready, stop))
    }

    fn run_here(
        self,
        on_ready: impl FnOnce(SocketAddr),
        stop: impl Future<Output = ()>,
    ) -> Result<()> {
        let here = Address::new(self.address.ip().to_string(), self.address.port());
        let fail = |e: &dyn std::fmt::Display| here.error(e.to_string());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("anonlab-scheduler")
            .build()
            .map_err(|e| fail(&e))?;
        let result = runtime.block_on(async {
            self.listener.set_nonblocking(true).map_err(|e| fail(&e))?;
            let listener =
                tokio::net::TcpListener::from_std(self.listener).map_err(|e| fail(&e))?;
            let endpoint = self.token.endpoint_override();
            let to_executors = endpoint.clone();
            let root = self.data_root.clone();
            let config = SchedulerConfig {
                bind_host: self.address.ip().to_string(),
                bind_port: self.address.port(),
                external_host: self.address.ip().to_string(),
                // The executors are started with the same policy
                // (executor.rs): they ask the scheduler for tasks, and
                // have no port that takes tasks.
                scheduling_policy: TaskSchedulingPolicy::PullStaged,
                task_distribution: TaskDistributionPolicy::RoundRobin,
                // A dead executor noticed within seconds (the module's
                // notes); Ballista wants the grace for a cluster left
                // with none no shorter than the timeout.
                executor_timeout_seconds: EXECUTOR_TIMEOUT.as_secs(),
                expire_dead_executor_interval_seconds: EXPIRE_EVERY.as_secs(),
                no_executors_grace_period_seconds: EXECUTOR_TIMEOUT.as_secs(),
                // Every channel the scheduler opens presents the token.
                override_create_grpc_client_endpoint: Some(endpoint),
                override_config_producer: Some(Arc::new(move || {
                    SessionConfig::new_with_ballista()
                        .with_ballista_override_create_grpc_client_endpoint(to_executors.clone())
                })),
                // Its sessions read files under the data root only.
                override_session_builder: Some(Arc::new(
                    move |config: SessionConfig| -> datafusion::error::Result<SessionState> {
                        let state = ballista_core::utils::default_session_builder(config)?;
                        Ok(SessionStateBuilder::new_from_existing(state)
                            .with_runtime_env(root.runtime(None)?)
                            .build())
                    },
                )),
                ..Default::default()
            };
            config.validate().map_err(|e| fail(&e))?;
            let cluster = BallistaCluster::new_from_config(&config)
                .await
                .map_err(|e| fail(&e))?;
            let (max_encoding, max_decoding) = (
                config.grpc_server_max_encoding_message_size as usize,
                config.grpc_server_max_decoding_message_size as usize,
            );
            let server =
                create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::new(config))
                    .await
                    .map_err(|e| fail(&e))?;
            let ready = server.clone();
            let progress = server.clone();
            let cancel = server.clone();
            let grpc = SchedulerGrpcServer::new(server)
                .max_encoding_message_size(max_encoding)
                .max_decoding_message_size(max_decoding);
            let app = tonic::service::Routes::new(grpc)
                .into_axum_router()
                .route(
                    "/readyz",
                    axum::routing::get(move || {
                        let status = if ready.is_ready() {
                            StatusCode::OK
                        } else {
                            StatusCode::SERVICE_UNAVAILABLE
                        };
                        async move { status }
                    }),
                )
                .route(
                    "/progress/{name}",
                    axum::routing::get(
                        move |axum::extract::Path(name): axum::extract::Path<String>| {
                            let server = progress.clone();
                            async move { jobs_progress(&server, &name).await.to_string() }
                        },
                    ),
                )
                .route(
                    "/cancel/{name}",
                    axum::routing::post(
                        move |axum::extract::Path(name): axum::extract::Path<String>| {
                            let server = cancel.clone();
                            async move { cancel_jobs(&server, &name).await.to_string() }
                        },
                    ),
                )
                .fallback(|| async { StatusCode::NOT_FOUND })
                .layer(axum::middleware::from_fn_with_state(
                    self.token.clone(),
                    authenticated,
                ))
                // Ballista's services read the peer's address (an
                // executor's, when it gives none).
                .into_make_service_with_connect_info::<SocketAddr>();
            on_ready(self.address);
            tokio::select! {
                served = axum::serve(listener, app).into_future() => match served {
                    Ok(()) => Err(here.error("the scheduler stopped serving")),
                    Err(e) => Err(fail(&e)),
                },
                () = stop => Ok(()),
            }
        });
        // The scheduler's event loops end with the runtime; none of them
        // holds anything that outlives the process.
        runtime.shutdown_timeout(Duration::from_secs(2));
        result
    }
}

/// How far the running jobs of one name are, and whether the scheduler
/// has an executor: what `/progress/NAME` answers, as one line of
/// numbers (`JobsProgress`'s `Display`, read back by `FromStr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct JobsProgress {
    /// Whether an executor is alive (has sent a heartbeat lately).
    pub ready: bool,
    /// Executors registered whose last heartbeat is within
    /// [`EXECUTOR_TIMEOUT`].
    pub executors: usize,
    /// Running jobs of that name.
    pub jobs: usize,
    pub stages: usize,
    pub stages_done: usize,
    /// Tasks of the jobs' stages resolved so far (one per partition; a
    /// stage waiting for its inputs is not cut into tasks yet).
    pub tasks: usize,
    /// Tasks finished: every success counts, a task run again after its
    /// executor was lost too, so the count only grows while work is done.
    pub tasks_done: usize,
    /// Tasks running on an executor that asked for work within
    /// [`WORKING_WITHIN`]: work under way, though no task finishes (one
    /// task may scan a whole file).
    pub working: usize,
}

/// A running task is under way while its executor has asked for work this
/// recently (a busy executor asks every 5 s at most; the heartbeat's time
/// is in whole seconds).
pub const WORKING_WITHIN: Duration = Duration::from_secs(7);

impl std::fmt::Display for JobsProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "anonlab-progress {} {} {} {} {} {} {} {}",
            u8::from(self.ready),
            self.executors,
            self.jobs,
            self.stages_done,
            self.stages,
            self.tasks_done,
            self.tasks,
            self.working
        )
    }
}

impl std::str::FromStr for JobsProgress {
    type Err = ();

    fn from_str(s: &str) -> std::result::Result<Self, ()> {
        let mut words = s.split_whitespace();
        if words.next() != Some("anonlab-progress") {
            return Err(());
        }
        let mut next = || -> std::result::Result<usize, ()> {
            words.next().and_then(|w| w.parse().ok()).ok_or(())
        };
        Ok(JobsProgress {
            ready: next()? == 1,
            executors: next()?,
            jobs: next()?,
            stages_done: next()?,
            stages: next()?,
            tasks_done: next()?,
            tasks: next()?,
            working: next()?,
        })
    }
}

/// The progress of the running jobs named `name` on `server`.
async fn jobs_progress(
    server: &ballista_scheduler::scheduler_server::SchedulerServer<
        LogicalPlanNode,
        PhysicalPlanNode,
    >,
    name: &str,
) -> JobsProgress {
    use ballista_core::serde::protobuf::task_status::Status;
    use ballista_scheduler::state::execution_stage::ExecutionStage;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    // Each executor's time since its last request for work.
    let silent: std::collections::HashMap<String, Duration> = server
        .state
        .executor_manager
        .get_executors_state()
        .await
        .map(|all| {
            all.into_iter()
                .filter_map(|(meta, beat, _)| Some((meta.id, now.saturating_sub(beat?))))
                .collect()
        })
        .unwrap_or_default();
    let mut p = JobsProgress {
        ready: server.is_ready(),
        executors: silent.values().filter(|&&s| s < EXECUTOR_TIMEOUT).count(),
        ..JobsProgress::default()
    };
    for job in server.state.task_manager.get_running_job_cache().values() {
        let graph = job.execution_graph.read().await;
        if graph.job_name() != name {
            continue;
        }
        p.jobs += 1;
        p.stages += graph.stage_count();
        p.stages_done += graph.completed_stages();
        p.working += graph
            .running_tasks()
            .iter()
            .filter(|t| {
                silent
                    .get(&t.executor_id)
                    .is_some_and(|&s| s < WORKING_WITHIN)
            })
            .count();
        for stage in graph.stages().values() {
            let partitions = match stage {
                // Cut into tasks once its inputs are known.
                ExecutionStage::UnResolved(_) => 0,
                ExecutionStage::Resolved(s) => s.partitions,
                ExecutionStage::Running(s) => s.partitions,
                ExecutionStage::Successful(s) => s.partitions,
                ExecutionStage::Failed(s) => s.partitions,
            };
            p.tasks += partitions;
            p.tasks_done += stage.task_infos().map_or(0, |infos| {
                infos
                    .iter()
                    .filter(|t| matches!(t.task_status, Status::Successful(_)))
                    .count()
            });
        }
    }
    p
}

/// Cancel the running jobs named `name` on `server` (a client that gave
/// up on them); how many were.
async fn cancel_jobs(
    server: &ballista_scheduler::scheduler_server::SchedulerServer<
        LogicalPlanNode,
        PhysicalPlanNode,
    >,
    name: &str,
) -> usize {
    let mut ids = Vec::new();
    for (id, job) in server.state.task_manager.get_running_job_cache().iter() {
        if job.execution_graph.read().await.job_name() == name {
            ids.push(id.clone());
        }
    }
    let mut cancelled = 0;
    for id in ids {
        match server.cancel_job(id.clone()).await {
            Ok(()) => cancelled += 1,
            Err(e) => log::warn!("could not cancel job {id}: {e}"),
        }
    }
    cancelled
}

/// A request that presents the token goes on; any other is answered
/// here: a gRPC call with the status `UNAUTHENTICATED`, an HTTP request
/// (`/readyz`) with 401. Neither says anything of the cluster.
async fn authenticated(State(token): State<Token>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let header = |name: &str| headers.get(name).map(|v| v.as_bytes());
    if token.presented_in(header("authorization"), header("user-agent")) {
        return next.run(request).await;
    }
    let grpc = header("content-type").is_some_and(|c| c.starts_with(b"application/grpc"));
    let peer = request
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map_or_else(|| "?".to_string(), |c| c.0.to_string());
    log::warn!(
        "refused {} from {peer}: no token, or not the cluster's",
        request.uri().path()
    );
    if grpc {
        tonic::Status::unauthenticated(REFUSED).into_http::<axum::body::Body>()
    } else {
        (StatusCode::UNAUTHORIZED, REFUSED).into_response()
    }
}

/// Bind `at`, naming the address in the message when it cannot be.
pub(super) fn listen(at: SocketAddr) -> Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(at).map_err(|e| bind_error(at, e))?;
    let address = listener.local_addr().map_err(|e| bind_error(at, e))?;
    Ok((listener, address))
}

/// Why `at` cannot be bound, in words a user acts on.
pub(super) fn bind_error(at: SocketAddr, e: std::io::Error) -> Error {
    let msg = match e.kind() {
        std::io::ErrorKind::AddrInUse => {
            "the port is in use (by another scheduler or executor?); choose another port, or 0 for a free one".to_string()
        }
        std::io::ErrorKind::AddrNotAvailable => {
            "the address is not one of this machine's".to_string()
        }
        std::io::ErrorKind::PermissionDenied => {
            "no permission to bind it (ports below 1024 need privileges)".to_string()
        }
        _ => format!("cannot bind it: {e}"),
    };
    Error::Cluster {
        address: at.to_string(),
        msg,
    }
}
