//! Notify vs oneshot at scale: `instances` holder tasks, like connections each holding a
//! notifier, sleep `hold` and then wake their own waiter, through a notification (`notify`) or by
//! dropping a oneshot sender (`oneshot`). The time is from before the first spawn until every
//! waiter has woken, less `hold`: spawning 2 × `instances` tasks, their timers, and the wake-ups.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use crate::{
    countdown::{Countdown, finished},
    primitives::Primitives,
};

/// Holders notify, then drop their handle on the notification.
pub async fn notify<R: Primitives>(instances: u64, hold: Duration) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(instances);
    let start = Instant::now();
    for _ in 0..instances {
        let holder = Arc::new(R::new_notify());
        let waiter = Arc::clone(&holder);
        let countdown = Arc::clone(&countdown);
        R::detach(R::spawn(async move {
            R::notified(&waiter).await;
            countdown.tick();
        }));
        R::detach(R::spawn(async move {
            R::sleep_until(Instant::now() + hold).await;
            R::notify(&holder);
        }));
    }
    finished(&countdown, done, "waiters").await?;
    Ok(start.elapsed().saturating_sub(hold))
}

/// Holders drop their oneshot sender unused: the waiter wakes to a closed channel.
pub async fn oneshot<R: Primitives>(instances: u64, hold: Duration) -> Result<Duration, String> {
    let (countdown, done) = Countdown::<R>::new(instances);
    let start = Instant::now();
    for _ in 0..instances {
        let (holder, waiter) = R::oneshot::<()>();
        let countdown = Arc::clone(&countdown);
        R::detach(R::spawn(async move {
            // Woken by the drop: `None`. A value would be a bug of the holder, not a wake-up.
            if R::recv_once(waiter).await.is_none() {
                countdown.tick();
            }
        }));
        R::detach(R::spawn(async move {
            R::sleep_until(Instant::now() + hold).await;
            drop(holder);
        }));
    }
    finished(&countdown, done, "waiters").await?;
    Ok(start.elapsed().saturating_sub(hold))
}
