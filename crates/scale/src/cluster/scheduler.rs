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
