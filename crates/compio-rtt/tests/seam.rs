//! The compio adapter keeps the seam's promises: panics reach the awaiter, detached tasks run
//! on, a receive given up at its deadline is cancelled and never swallows a later datagram.

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use compio_rtt::Compio;
use rtt_core::runtime::{RingEntriesKnob, Runtime, UdpIo};

fn run<F: Future + Send + 'static>(main: F) -> F::Output
where
    F::Output: Send + 'static,
{
    Compio::run(&RingEntriesKnob::default(), |_| main).expect("io_uring is available")
}

#[test]
fn a_panic_in_a_task_reaches_its_awaiter() {
    let caught = run(async {
        let task = Compio::spawn(async { panic!("decoy failed") });
        futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(task)).await
    });
    assert!(caught.is_err());
}

#[test]
fn a_detached_task_runs_on() {
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    run(async move {
        Compio::detach(Compio::spawn(async move {
            Compio::yield_now().await;
            flag.store(true, Ordering::Relaxed);
        }));
        Compio::sleep_until(Instant::now() + Duration::from_millis(20)).await;
    });
    assert!(ran.load(Ordering::Relaxed));
}

#[test]
fn a_receive_past_its_deadline_swallows_nothing_later() {
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    run(async move {
        let (a, b) = (
            Compio::bind_udp(loopback).await.expect("binds"),
            Compio::bind_udp(loopback).await.expect("binds"),
        );
        let (to_a, to_b) = (
            a.local_address().expect("bound"),
            b.local_address().expect("bound"),
        );
        a.connect(to_b).await.expect("connects");
        b.connect(to_a).await.expect("connects");
        let deadline = Instant::now() + Duration::from_millis(20);
        let (received, buf) = a.recv_until(vec![0; 100], deadline).await;
        assert!(matches!(received, Ok(None)), "{received:?}");
        assert_eq!(buf.len(), 100);
        let (sent, _) = b.send(b"later".to_vec(), 5).await;
        assert_eq!(sent.expect("sends"), 5);
        let deadline = Instant::now() + Duration::from_secs(1);
        let (received, buf) = a.recv_until(buf, deadline).await;
        assert_eq!(received.expect("receives"), Some(5));
        assert_eq!((&buf[..5], buf.len()), (&b"later"[..], 100));
    });
}
