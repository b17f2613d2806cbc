//! The scheduler benchmarks, after tokio's `benches/rt_multi_threaded.rs`: `spawn_many`,
//! `yield_many`, `ping_pong`, `chained_spawn`. Each returns the wall time of one iteration, from
//! before the first spawn to the moment the last task has signalled; what is measured is the
//! runtime's spawn, wake-up and yield, nothing else.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use crate::{
    countdown::{Countdown, finished},
    primitives::Primitives,
};

/// One task spawns `tasks` tasks, each of which counts itself done.
pub async fn spawn_many<R: Primitives>(tasks: u64) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(tasks);
    let start = Instant::now();
    for _ in 0..tasks {
        let countdown = Arc::clone(&countdown);
        R::detach(R::spawn(async move { countdown.tick() }));
    }
    finished(&countdown, done, "spawned tasks").await?;
    Ok(start.elapsed())
}

/// `tasks` tasks each yield `yields` times to the scheduler, then count themselves done.
pub async fn yield_many<R: Primitives>(tasks: u64, yields: u64) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(tasks);
    let start = Instant::now();
    for _ in 0..tasks {
        let countdown = Arc::clone(&countdown);
        R::detach(R::spawn(async move {
            for _ in 0..yields {
                R::yield_now().await;
            }
            countdown.tick();
        }));
    }
    finished(&countdown, done, "yielding tasks").await?;
    Ok(start.elapsed())
}

/// `round_trips` tasks, spawned at once, each spawn a partner, send it a ping over a oneshot and
/// wait for its pong over another; a task counts itself done only once answered.
pub async fn ping_pong<R: Primitives>(round_trips: u64) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(round_trips);
    let start = Instant::now();
    for _ in 0..round_trips {
        let countdown = Arc::clone(&countdown);
        R::detach(R::spawn(async move {
            let (ping_tx, ping_rx) = R::oneshot::<()>();
            let (pong_tx, pong_rx) = R::oneshot::<()>();
            R::detach(R::spawn(async move {
                if R::recv_once(ping_rx).await.is_some() {
                    R::send_once(pong_tx, ());
                }
            }));
            R::send_once(ping_tx, ());
            if R::recv_once(pong_rx).await.is_some() {
                countdown.tick();
            }
        }));
    }
    finished(&countdown, done, "round trips").await?;
    Ok(start.elapsed())
}

/// Each task spawns the next, `depth` deep; the last sends how many links the chain had.
pub async fn chained_spawn<R: Primitives>(depth: u64) -> Result<Duration, String> {
    let (tx, rx) = R::oneshot::<u64>();
    let start = Instant::now();
    link::<R>(1, depth, tx);
    let links = R::recv_once(rx).await;
    let elapsed = start.elapsed();
    match links {
        Some(links) if links == depth => Ok(elapsed),
        Some(links) => Err(format!("the chain had {links} links, not {depth}")),
        None => Err("the chain broke before its end".to_owned()),
    }
}

/// Spawns link `n` of `depth`, which spawns the next or, the last, reports `n`.
fn link<R: Primitives>(n: u64, depth: u64, done: R::OnceTx<u64>) {
    R::detach(R::spawn(async move {
        if n == depth {
            R::send_once(done, n);
        } else {
            link::<R>(n + 1, depth, done);
        }
    }));
}
