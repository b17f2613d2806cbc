//! Open load (`--load open`): on each connection a sender task sends on schedule whether or not
//! the echoes are in (up to a window of messages in flight), and a receiver task matches the
//! echoes to them. Each reply gets two times: from its actual send (`rtt_ns`) and from when its
//! message was due (`latency_ns`). A closed loop sends nothing while it waits for a late echo,
//! so it never measures the messages that should have gone meanwhile (coordinated omission);
//! here they are sent, late or held back, and their wait counts.

use std::{net::SocketAddr, sync::Arc, time::Instant};

use anyhow::anyhow;

use rtt_core::runtime::{Runtime, TcpIo, TcpRead, UdpIo};

use super::{
    in_flight::{Flight, InFlight},
    link::{
        Answer, check_tcp_echo, read_http_echo, stalled_past_end, tcp_read_error, udp_echo_seq,
        udp_error,
    },
    sender::{Message, TcpTransmit, UdpTransmit, send_on_schedule},
    timeline::{Connection, Outcome, Timeline, of_warmup},
};
use crate::{
    http::client::{EchoRequest, ResponseReader},
    recorder::Recorder,
    wire::{self, MAX_UDP_PAYLOAD, Protocol},
};

/// One TCP connection under open load: the receiver in a task of its own, the sender in this one.
pub(super) async fn tcp<R: Runtime>(
    stream: R::TcpStream,
    part: Connection,
    window: u32,
) -> Outcome {
    let (address, size, timeline) = (part.target, part.payload, part.timeline);
    let receive = move |reader, in_flight| receive_tcp(reader, in_flight, timeline, size, address);
    let message = Message::raw(size);
    over_stream::<R, _, _>(stream, part, window, message, Protocol::Tcp, receive).await
}

/// One HTTP connection under open load: TCP's two tasks, each message a request. HTTP/1.1
/// without pipelining has one request in flight per connection, so the window is 1: a request
/// due while the previous response is out waits, and its latency counts from when it was due.
pub(super) async fn http<R: Runtime>(
    stream: R::TcpStream,
    part: Connection,
    window: u32,
) -> Outcome {
    let (address, timeline) = (part.target, part.timeline);
    let request = EchoRequest::new(address, &wire::message(part.payload));
    let message = Message {
        seq_at: request.body_at,
        bytes: request.bytes,
    };
    let receive = move |reader, in_flight| receive_http(reader, in_flight, timeline, address);
    over_stream::<R, _, _>(stream, part, window, message, Protocol::Http, receive).await
}

/// A stream split in two: `receive` reads the replies in a task of its own, while this one
/// sends `message` on schedule; each bounded by the run's guard.
async fn over_stream<R: Runtime, F, Fut>(
    stream: R::TcpStream,
    part: Connection,
    window: u32,
    message: Message,
    over: Protocol,
    receive: F,
) -> Outcome
where
    F: FnOnce(<R::TcpStream as TcpIo>::ReadHalf, Arc<InFlight>) -> Fut,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    let (address, pacer, timeline) = (part.target, part.pacer, part.timeline);
    let (reader, writer) = match stream.into_split() {
        Ok(halves) => halves,
        Err(e) => {
            return (
                Recorder::new(),
                Err(anyhow!(e).context("splitting the stream")),
            );
        }
    };
    let in_flight = Arc::new(InFlight::new(window));
    let receiver = R::spawn(guarded::<R, _>(
        receive(reader, in_flight.clone()),
        in_flight.clone(),
        timeline,
        address,
        over,
    ));
    let mut transmit = TcpTransmit {
        writer,
        address,
        over,
    };
    let sender =
        send_on_schedule::<R, _>(&mut transmit, in_flight.clone(), pacer, timeline, message);
    let sent = guarded::<R, _>(sender, in_flight, timeline, address, over).await;
    // The writing half is closed only once every reply is in: dropped, it would half-close the
    // stream, and an HTTP server may then drop the request it is answering.
    let received = receiver.await;
    drop(transmit);
    merge(sent, received)
}

/// One UDP socket under open load: both tasks share it.
pub(super) async fn udp<R: Runtime>(
    socket: R::UdpSocket,
    part: Connection,
    window: u32,
) -> Outcome {
    let (address, timeline) = (part.target, part.timeline);
    let socket = Arc::new(socket);
    let in_flight = Arc::new(InFlight::new(window));
    let receiver = R::spawn(receive_udp(socket.clone(), in_flight.clone(), part));
    let mut transmit = UdpTransmit { socket, address };
    let message = Message::raw(part.payload);
    let sent = send_on_schedule::<R, _>(&mut transmit, in_flight, part.pacer, timeline, message);
    merge(sent.await, receiver.await)
}

/// The receiver's samples with the sender's counts; the first error of the two.
fn merge((sent, sending): Outcome, (mut received, receiving): Outcome) -> Outcome {
    received.add_counts(&sent);
    (received, sending.and(receiving))
}

/// A TCP task bounded by the run's guard (UDP's waits each have a deadline); either end of a
/// connection that stops closes its messages in flight, so the other end stops too.
async fn guarded<R: Runtime, F>(
    task: F,
    in_flight: Arc<InFlight>,
    timeline: Timeline,
    address: SocketAddr,
    over: Protocol,
) -> Outcome
where
    F: Future<Output = Outcome> + Send,
{
    let outcome = R::until(timeline.deadline, task)
        .await
        .unwrap_or_else(|| (Recorder::new(), Err(stalled_past_end(address, over))));
    in_flight.close();
    outcome
}

/// Reads the echoes of a TCP connection, in the order sent, until the sender has stopped and
/// every message is answered.
async fn receive_tcp<Rd: TcpRead>(
    mut reader: Rd,
    in_flight: Arc<InFlight>,
    timeline: Timeline,
    size: usize,
    address: SocketAddr,
) -> Outcome {
    let mut recorder = timeline.recorder();
    let mut echo = vec![0; size];
    while let Some(flight) = in_flight.oldest().await {
        let read;
        (read, echo) = reader.read_exact(echo).await;
        let at = Instant::now();
        let answered = read
            .map_err(|e| tcp_read_error(e, address, Protocol::Tcp))
            .and_then(|()| check_tcp_echo(&echo, flight.seq, address, Protocol::Tcp));
        if let Err(error) = answered {
            return (recorder, Err(error));
        }
        in_flight.pop();
        record(&mut recorder, flight, at, timeline);
    }
    (recorder, Ok(()))
}

/// Reads the responses of an HTTP connection, one per request, in the order sent, until the
/// sender has stopped and every request is answered; a refusal is tallied, not recorded.
async fn receive_http<Rd: TcpRead>(
    mut reader: Rd,
    in_flight: Arc<InFlight>,
    timeline: Timeline,
    address: SocketAddr,
) -> Outcome {
    let mut recorder = timeline.recorder();
    let mut responses = ResponseReader::default();
    while let Some(flight) = in_flight.oldest().await {
        match read_http_echo(&mut responses, &mut reader, flight.seq, address).await {
            Ok((answer, at)) => {
                in_flight.pop();
                if answer == Answer::Echoed {
                    record(&mut recorder, flight, at, timeline);
                }
            }
            Err(error) => {
                recorder.http = responses.tally;
                return (recorder, Err(error));
            }
        }
    }
    recorder.http = responses.tally;
    (recorder, Ok(()))
}

/// Receives the echoes of a UDP socket: the oldest message's reply must come within the
/// timeout of its send, or it is lost; a reply to a later message means the ones before it are
/// lost; anything else (a late reply to a lost message, a stray datagram) is set aside.
async fn receive_udp<U: UdpIo>(
    socket: Arc<U>,
    in_flight: Arc<InFlight>,
    part: Connection,
) -> Outcome {
    let (timeline, size, address) = (part.timeline, part.payload, part.target);
    let mut recorder = timeline.recorder();
    // Any datagram fits, so a reply of the wrong size is seen as such.
    let mut echo = vec![0; MAX_UDP_PAYLOAD + 1];
    let mut first_measured = None; // the warm-up's sequences are below it
    while let Some(flight) = in_flight.oldest().await {
        let received;
        let deadline = timeline.reply_deadline(flight.sent_at, part.udp_timeout);
        if flight.measured {
            first_measured.get_or_insert(flight.seq);
        }
        (received, echo) = socket.recv_until(echo, deadline).await;
        let at = Instant::now();
        match received {
            Ok(None) => {
                in_flight.pop();
                recorder.lost += u64::from(flight.measured);
            }
            Ok(Some(len)) => match udp_echo_seq(&echo[..len], size) {
                Some(seq) if in_flight.holds(seq) => {
                    while let Some(earlier) = in_flight.pop() {
                        if earlier.seq == seq {
                            record(&mut recorder, earlier, at, timeline);
                            break;
                        }
                        recorder.lost += u64::from(earlier.measured);
                    }
                }
                seq if of_warmup(seq, first_measured) => {}
                _ => recorder.out_of_order += u64::from(flight.measured),
            },
            Err(e) => {
                in_flight.close();
                return (recorder, Err(udp_error(e, address, "receiving from")));
            }
        }
    }
    (recorder, Ok(()))
}

/// Records the reply to `flight` that came in `at`, if it was due in the measured window.
fn record(recorder: &mut Recorder, flight: Flight, at: Instant, timeline: Timeline) {
    if flight.measured {
        recorder.record_with_latency(
            flight.seq,
            flight.sent_at - timeline.measure_start,
            at - flight.sent_at,
            at - flight.due,
        );
    }
}
