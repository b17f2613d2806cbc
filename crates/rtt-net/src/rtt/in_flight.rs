//! The messages of one open-load connection in flight, between its sender and its receiver task:
//! a window the sender waits for room in, and a queue the receiver waits on, with no runtime's
//! primitives (a mutex and two wakers), so that every runtime runs the same open loop.

use std::{
    collections::VecDeque,
    future::poll_fn,
    sync::{Mutex, MutexGuard},
    task::{Poll, Waker},
    time::Instant,
};

/// A message sent and not yet answered.
#[derive(Clone, Copy, Debug)]
pub(super) struct Flight {
    pub seq: u64,
    pub due: Instant,
    pub sent_at: Instant,
    /// Due inside the measured window.
    pub measured: bool,
}

/// The messages of one connection in flight, oldest first, at most `window` of them: the sender
/// waits for room, the receiver for a message to wait for. Either end closes it when it stops.
pub(super) struct InFlight {
    window: usize,
    state: Mutex<FlightState>,
}

#[derive(Default)]
struct FlightState {
    flights: VecDeque<Flight>,
    closed: bool,
    sender: Option<Waker>,
    receiver: Option<Waker>,
}

impl InFlight {
    pub fn new(window: u32) -> Self {
        Self {
            window: window as usize,
            state: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, FlightState> {
        // A panic elsewhere is re-raised where its task is awaited; the queue itself stays valid.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until fewer than `window` messages are in flight: `Some(true)` if it had to wait,
    /// `None` once the receiver has stopped.
    pub async fn room(&self) -> Option<bool> {
        let mut waited = false;
        poll_fn(|cx| {
            let mut state = self.lock();
            if state.closed {
                Poll::Ready(None)
            } else if state.flights.len() < self.window {
                Poll::Ready(Some(waited))
            } else {
                waited = true;
                state.sender = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await
    }

    pub fn push(&self, flight: Flight) {
        let waker = {
            let mut state = self.lock();
            state.flights.push_back(flight);
            state.receiver.take()
        };
        waker.into_iter().for_each(Waker::wake);
    }

    /// The oldest message in flight, once there is one; `None` once the sender has stopped and
    /// every message it sent is answered or lost.
    pub async fn oldest(&self) -> Option<Flight> {
        poll_fn(|cx| {
            let mut state = self.lock();
            match state.flights.front() {
                Some(flight) => Poll::Ready(Some(*flight)),
                None if state.closed => Poll::Ready(None),
                None => {
                    state.receiver = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// Whether message `seq` is in flight.
    pub fn holds(&self, seq: u64) -> bool {
        let state = self.lock();
        let (Some(oldest), Some(newest)) = (state.flights.front(), state.flights.back()) else {
            return false;
        };
        (oldest.seq..=newest.seq).contains(&seq)
    }

    /// Takes the oldest message out: answered or lost.
    pub fn pop(&self) -> Option<Flight> {
        let (flight, waker) = {
            let mut state = self.lock();
            (state.flights.pop_front(), state.sender.take())
        };
        waker.into_iter().for_each(Waker::wake);
        flight
    }

    pub fn close(&self) {
        let wakers = {
            let mut state = self.lock();
            state.closed = true;
            [state.sender.take(), state.receiver.take()]
        };
        wakers.into_iter().flatten().for_each(Waker::wake);
    }
}
