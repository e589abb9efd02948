//! What confinement adds to starting a process: `sh -c true` through the runner, confined in
//! the sandbox an `exec:` worker or a verification command gets (read-only root, writable
//! worktree and temp, own PID and network namespaces), against the same command unconfined;
//! and a CLI worker's sandbox with the egress proxy bridged in by `socat`.
//!
//! `cargo bench -p switchyard-runner --bench confinement` (`CONFINEMENT_BENCH_ROUNDS`, default
//! 20). Prints the median, minimum and maximum of each and the median difference; the target is
//! at most 25 ms added for a worker or verification process (no proxy).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchyard_runner::process::{self, ProcessSpec};
use switchyard_runner::sandbox::proxy::{EgressProxy, Target};
use switchyard_runner::sandbox::{self, Network, Sandbox};

fn stats(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "{label:<34} median {:>7.2} ms   min {:>7.2} ms   max {:>7.2} ms   (n = {})",
        median.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        times.len()
    );
    median
}

async fn time_run(rounds: usize, dir: &Path, sandbox: Option<&Sandbox>) -> Vec<Duration> {
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut spec = ProcessSpec::new("sh")
            .arg("-c")
            .arg("true")
            .current_dir(dir)
            .drain(Duration::from_millis(0));
        if let Some(sandbox) = sandbox {
            spec = spec.confine(sandbox.clone());
        }
        let started = Instant::now();
        let done = process::run(spec).await.expect("runs");
        times.push(started.elapsed());
        assert!(
            done.exit.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    }
    times
}

fn main() {
    let rounds: usize = std::env::var("CONFINEMENT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let support = sandbox::probe().await;
        let Some(bwrap) = support.usable_bwrap().map(Path::to_path_buf) else {
            eprintln!(
                "bubblewrap is not usable here: {}",
                support.reason.unwrap_or_default()
            );
            std::process::exit(1);
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let worktree = dir.path().join("wt");
        let temp = dir.path().join("tmp");
        std::fs::create_dir_all(&worktree).expect("mkdir");
        std::fs::create_dir_all(&temp).expect("mkdir");
        let confined = Sandbox::new(bwrap, temp).write(&worktree);
        // Warm the page cache and the probe.
        time_run(3, &worktree, None).await;
        time_run(3, &worktree, Some(&confined)).await;
        // Alternate so drift on a shared machine hits both alike.
        let (mut plain, mut boxed) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            plain.extend(time_run(1, &worktree, None).await);
            boxed.extend(time_run(1, &worktree, Some(&confined)).await);
        }
        let plain = stats("unconfined sh -c true", plain);
        let boxed = stats("confined (bwrap, no network)", boxed);
        let added = boxed.saturating_sub(plain);
        println!(
            "confinement adds {:.2} ms per process start (median; target ≤ 25 ms)",
            added.as_secs_f64() * 1e3
        );
        if let Some(socat) = support.socat {
            let proxy = EgressProxy::start(
                &dir.path().join("net"),
                vec![Target::new("api.example.com", 443)],
                Arc::new(|_| {}),
            )
            .expect("proxy");
            let with_proxy = confined.clone().read(proxy.dir()).network(Network::Proxy {
                socat,
                bridges: proxy.bridges().to_vec(),
            });
            time_run(2, &worktree, Some(&with_proxy)).await;
            let proxied = stats(
                "confined + egress proxy bridge",
                time_run(rounds, &worktree, Some(&with_proxy)).await,
            );
            println!(
                "a CLI worker's sandbox with the proxy bridge adds {:.2} ms (once per attempt)",
                proxied.saturating_sub(plain).as_secs_f64() * 1e3
            );
        }
    });
}
