//! A Ballista scheduler in this process: the one port that clients send
//! jobs to and executors register with (gRPC, and `/readyz` over plain
//! HTTP). Its state (executors, jobs) is in memory and ends with it.

use std::future::Future;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use ballista_core::config::TaskSchedulingPolicy;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{SchedulerConfig, TaskDistributionPolicy};
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

use super::{bind_ip, without_sigpipe, Address};
use anonlab::error::{Error, Result};

/// Where a scheduler listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerOptions {
    /// The host or IP address to bind to.
    pub bind: String,
    /// The port; 0 takes a free one.
    pub port: u16,
}

/// Ballista's port for a scheduler.
pub const DEFAULT_SCHEDULER_PORT: u16 = 50050;

impl Default for SchedulerOptions {
    fn default() -> Self {
        SchedulerOptions {
            bind: "127.0.0.1".into(),
            port: DEFAULT_SCHEDULER_PORT,
        }
    }
}

/// A scheduler whose port is bound, not yet serving.
#[derive(Debug)]
pub struct Scheduler {
    listener: TcpListener,
    address: SocketAddr,
}

impl Scheduler {
    /// Bind the scheduler's port: a port in use or an address not of this
    /// machine is told here, before anything starts.
    pub fn bind(opts: &SchedulerOptions) -> Result<Scheduler> {
        let ip = bind_ip(&opts.bind)?;
        let (listener, address) = listen(SocketAddr::new(ip, opts.port))?;
        Ok(Scheduler { listener, address })
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
            let config = SchedulerConfig {
                bind_host: self.address.ip().to_string(),
                bind_port: self.address.port(),
                external_host: self.address.ip().to_string(),
                // The executors are started with the same policy
                // (executor.rs): the scheduler pushes tasks to them.
                scheduling_policy: TaskSchedulingPolicy::PushStaged,
                task_distribution: TaskDistributionPolicy::RoundRobin,
                ..Default::default()
            };
            config.validate().map_err(|e| fail(&e))?;
            let cluster = BallistaCluster::new_from_config(&config)
                .await
                .map_err(|e| fail(&e))?;
            let server =
                create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::new(config))
                    .await
                    .map_err(|e| fail(&e))?;
            on_ready(self.address);
            tokio::select! {
                served = start_grpc_service_with_listener(listener, server) => match served {
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
