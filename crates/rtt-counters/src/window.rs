//! Counting over a window that starts later: [`Counting::start`] opens the counters at once, a
//! thread of its own reads them when the window starts and when it ends (so nothing is read in
//! between, and its reads are not counted), and [`Counting::finish`] hands both ends' counts.

use std::{
    sync::mpsc::{self, Receiver, Sender},
    thread,
    time::{Duration, Instant},
};

use rtt_core::log::{Count, EndCounters, NOT_ASKED, RunCounters};

use crate::{
    CountingSpec,
    perf::{Key, PerfSet, Thread},
    procfs::{self, ProcSample, ThreadFigures},
};

/// How long [`Counting::finish`] waits past the window's end for the second read.
const LATE_READ: Duration = Duration::from_secs(1);

/// The counting of a run's two ends, from its start to its measured window's end.
pub struct Counting {
    /// The window's (start, end), once known, to the reading thread.
    window: Sender<(Instant, Instant)>,
    counts: Receiver<RunCounters>,
    end: Option<Instant>,
}

/// One end's counters, opened, or why it is not counted.
struct End {
    pid: Option<u32>,
    perf: Result<PerfSet, String>,
    /// The reading thread, left out of `/proc`'s per-thread sums of its own process.
    skip: Option<u32>,
}

/// One end at one moment.
struct Reading {
    at: Instant,
    perf: Vec<(Key, Result<u64, String>)>,
    proc: Result<ProcSample, String>,
}

impl Counting {
    /// Starts counting this process (the calling thread and every thread it starts from now on)
    /// and, given its PID, the pong's (each of its threads now, and those they start). The
    /// counters are opened here, before the run, so nothing is opened inside it.
    pub fn start(spec: CountingSpec) -> Self {
        let pong_pid = spec.pong_pid;
        let not_asked = || Err(NOT_ASKED.to_owned());
        let (ends_out, ends_in) = mpsc::channel::<(End, End)>();
        let (window, windows) = mpsc::channel();
        let (counts_out, counts) = mpsc::channel();
        let (tid_out, tid_in) = mpsc::channel();
        // The reading thread exists before this thread's counters are opened: it is not counted.
        thread::spawn(move || {
            let _ = tid_out.send(procfs::calling_thread());
            if let (Ok((ping, pong)), Ok((start, end))) = (ends_in.recv(), windows.recv()) {
                let _ = counts_out.send(count_over(ping, pong, start, end));
            }
        });
        let ping = End {
            pid: Some(std::process::id()),
            perf: match spec.kernel_events {
                true => Ok(PerfSet::open(&[Thread::Calling])),
                false => not_asked(),
            },
            skip: tid_in.recv().ok().flatten(),
        };
        let pong = End {
            pid: pong_pid,
            perf: match pong_pid {
                Some(_) if !spec.kernel_events => not_asked(),
                Some(pid) => threads_of(pid).map(|tids| PerfSet::open(&tids)),
                None => Err("not counted: the pong does not run on this host, or its PID was not given (--pong-pid)".into()),
            },
            skip: None,
        };
        let _ = ends_out.send((ping, pong));
        Self {
            window,
            counts,
            end: None,
        }
    }

    /// The measured window, from `start` to `end`: the counting thread reads at both.
    pub fn over(&mut self, start: Instant, end: Instant) {
        if self.window.send((start, end)).is_ok() {
            self.end = Some(end);
        }
    }

    /// Both ends' counts over the window: once it has ended when the run `completed` (waiting
    /// for the second read), else only if they are in already; `None` without a window.
    pub fn finish(self, completed: bool) -> Option<RunCounters> {
        let end = self.end?;
        match completed {
            true => {
                let wait = (end + LATE_READ).saturating_duration_since(Instant::now());
                self.counts.recv_timeout(wait).ok()
            }
            false => self.counts.try_recv().ok(),
        }
    }
}

/// The threads of process `pid` now, each by its id.
fn threads_of(pid: u32) -> Result<Vec<Thread>, String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map_err(|e| format!("not counted: the pong's threads (/proc/{pid}/task): {e}"))?;
    Ok(tasks
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .map(Thread::Id)
        .collect())
}

/// Sleeps to the window's `start`, reads both ends, sleeps to its `end`, reads them again.
fn count_over(mut ping: End, mut pong: End, start: Instant, end: Instant) -> RunCounters {
    thread::sleep(start.saturating_duration_since(Instant::now()));
    let before = [read(&mut ping), read(&mut pong)];
    thread::sleep(end.saturating_duration_since(Instant::now()));
    let after = [read(&mut ping), read(&mut pong)];
    let [ping_before, pong_before] = before;
    let [ping_after, pong_after] = after;
    RunCounters {
        ping: counts(&ping, ping_before, ping_after),
        pong: counts(&pong, pong_before, pong_after),
    }
}

fn read(end: &mut End) -> Reading {
    let perf = match &mut end.perf {
        Ok(set) => set.read(),
        Err(why) => Key::all().map(|key| (key, Err(why.clone()))).collect(),
    };
    let proc = match (end.pid, &end.perf) {
        (Some(pid), _) => Ok(procfs::sample(pid, end.skip)),
        (None, Err(why)) => Err(why.clone()),
        (None, Ok(_)) => Err("no PID".into()),
    };
    Reading {
        at: Instant::now(),
        perf,
        proc,
    }
}

/// An end's counts over the window: each reading's difference, from perf where it counted, else
/// from `/proc` where it has the figure.
fn counts(end: &End, before: Reading, after: Reading) -> EndCounters {
    let perf = |key: Key| -> (String, Result<u64, String>) {
        let at = |r: &Reading| {
            r.perf
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| Err("not opened".into()))
        };
        let source = format!(
            "perf_event_open {} (every thread, inherited)",
            key.event_name()
        );
        (source, delta(at(&before), at(&after)))
    };
    let proc_of = |r: &Reading| r.proc.clone();
    let (p0, p1) = (proc_of(&before), proc_of(&after));
    let process = |what: &str, pick: fn(&ProcSample) -> &Result<u64, String>| {
        let value = match (&p0, &p1) {
            (Ok(b), Ok(a)) => delta(pick(b).clone(), pick(a).clone()),
            (Err(why), _) | (_, Err(why)) => Err(why.clone()),
        };
        (what.to_owned(), value)
    };
    let threads = |what: &str, pick: fn(&ThreadFigures) -> &Result<u64, String>| {
        let value = match (&p0, &p1) {
            (Ok(b), Ok(a)) => procfs::threads_delta(b, a, pick),
            (Err(why), _) | (_, Err(why)) => Err(why.clone()),
        };
        (format!("/proc/PID/task/*/{what}"), value)
    };
    EndCounters {
        pid: end.pid,
        window_s: after.at.duration_since(before.at).as_secs_f64(),
        cpu_ns: first_of([
            process("the process's CPU-time clock (clock_getcpuclockid)", |s| {
                &s.cpu_ns
            }),
            threads("schedstat", |t| &t.cpu_ns),
        ]),
        user_ns: first_of([process("/proc/PID/stat utime (clock ticks)", |s| {
            &s.user_ns
        })]),
        kernel_ns: first_of([process("/proc/PID/stat stime (clock ticks)", |s| {
            &s.kernel_ns
        })]),
        switches: first_of([
            perf(Key::Switches),
            threads("status voluntary + nonvoluntary", |t| &t.switches),
        ]),
        voluntary_switches: first_of([threads("status voluntary_ctxt_switches", |t| &t.voluntary)]),
        involuntary_switches: first_of([threads("status nonvoluntary_ctxt_switches", |t| {
            &t.involuntary
        })]),
        migrations: first_of([threads("sched se.nr_migrations", |t| &t.migrations)]),
        page_faults: first_of([process("/proc/PID/stat minflt + majflt", |s| {
            &s.page_faults
        })]),
        syscalls: first_of([perf(Key::Syscalls)]),
        syscalls_by_name: crate::perf::SYSCALLS_BY_NAME
            .into_iter()
            .map(|name| (name.to_owned(), first_of([perf(Key::Syscall(name))])))
            .collect(),
        wakeups_made: first_of([perf(Key::Wakeups)]),
    }
}

fn delta(before: Result<u64, String>, after: Result<u64, String>) -> Result<u64, String> {
    Ok(after?.saturating_sub(before?))
}

/// The first source that counted; else the first one's source with every reason.
fn first_of<const N: usize>(sources: [(String, Result<u64, String>); N]) -> Count {
    if let Some((source, Ok(value))) = sources.iter().find(|(_, v)| v.is_ok()) {
        return Count::counted(*value, source.clone());
    }
    let reasons: Vec<String> = sources
        .iter()
        .filter_map(|(source, v)| v.as_ref().err().map(|why| format!("{source}: {why}")))
        .collect();
    Count::missing(sources[0].0.clone(), reasons.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_the_sleeps_inside_it_and_names_the_missing_pong() {
        let mut counting = Counting::start(CountingSpec {
            pong_pid: None,
            kernel_events: true,
        });
        let start = Instant::now() + Duration::from_millis(20);
        let end = start + Duration::from_millis(100);
        counting.over(start, end);
        while Instant::now() < end + Duration::from_millis(20) {
            thread::sleep(Duration::from_millis(1));
        }
        let counts = counting.finish(true).expect("counted");
        let ping = counts.ping;
        assert!((0.099..0.11).contains(&ping.window_s), "{}", ping.window_s);
        // About 1 ms a sleep: some 90 of them in the window, whatever counted them.
        let voluntary = ping
            .voluntary_switches
            .value
            .expect("/proc needs no permission");
        assert!((50..=110).contains(&voluntary), "{voluntary}");
        assert!(ping.cpu_ns.value.is_some_and(|ns| ns > 0));
        assert!(counts.pong.pid.is_none());
        let why = counts.pong.syscalls.unavailable.expect("a reason");
        assert!(why.contains("--pong-pid"), "{why}");
    }
}
