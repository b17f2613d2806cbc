//! What a process's CPU clock and `/proc` say of it at one moment, readable without any
//! permission: its CPU time (the clock), split user and kernel, and its page faults
//! (`/proc/PID/stat`), every thread that ever ran; and
//! per thread alive now its ns on a CPU (`schedstat`), its switches (`status`) and migrations
//! (`sched`, where the kernel keeps scheduler statistics), which go with the thread when it ends.

use std::{collections::BTreeMap, fs};

/// One reading of a process; each figure, or why it could not be read.
#[derive(Clone, Debug)]
pub struct ProcSample {
    /// The process's CPU-time clock: every thread's time on a CPU, those that ended included.
    pub cpu_ns: Result<u64, String>,
    pub user_ns: Result<u64, String>,
    pub kernel_ns: Result<u64, String>,
    pub page_faults: Result<u64, String>,
    /// Each thread alive at the reading, by id.
    pub threads: Result<BTreeMap<u32, ThreadFigures>, String>,
}

/// What `/proc` keeps of one thread.
#[derive(Clone, Debug)]
pub struct ThreadFigures {
    pub cpu_ns: Result<u64, String>,
    pub voluntary: Result<u64, String>,
    pub involuntary: Result<u64, String>,
    /// Voluntary and involuntary together.
    pub switches: Result<u64, String>,
    pub migrations: Result<u64, String>,
}

/// Reads process `pid` now, leaving thread `skip` (the counting thread itself) out.
pub fn sample(pid: u32, skip: Option<u32>) -> ProcSample {
    let (user_ns, kernel_ns, page_faults) = match process_stat(pid) {
        Ok((user, kernel, faults)) => (Ok(user), Ok(kernel), Ok(faults)),
        Err(why) => (Err(why.clone()), Err(why.clone()), Err(why)),
    };
    let threads = fs::read_dir(format!("/proc/{pid}/task"))
        .map_err(|e| format!("/proc/{pid}/task: {e}"))
        .map(|tasks| {
            tasks
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter(|tid| Some(*tid) != skip)
                .filter_map(|tid| {
                    let task = format!("/proc/{pid}/task/{tid}");
                    // A thread that ended since the listing is not there any more.
                    let cpu_ns = first_number(&format!("{task}/schedstat"));
                    cpu_ns.as_ref().ok()?;
                    let status = format!("{task}/status");
                    let voluntary = field(&status, "voluntary_ctxt_switches:");
                    let involuntary = field(&status, "nonvoluntary_ctxt_switches:");
                    let figures = ThreadFigures {
                        cpu_ns,
                        switches: voluntary.clone().and_then(|v| Ok(v + involuntary.clone()?)),
                        voluntary,
                        involuntary,
                        migrations: field(&format!("{task}/sched"), "se.nr_migrations"),
                    };
                    Some((tid, figures))
                })
                .collect()
        });
    ProcSample {
        cpu_ns: cpu_clock(pid),
        user_ns,
        kernel_ns,
        page_faults,
        threads,
    }
}

/// What the threads did between two readings, by `pick`: each thread's difference, a thread
/// that started in between counted from zero. `/proc` keeps nothing of a thread once it has
/// ended, so one that ended in between makes the sum unknown.
pub fn threads_delta(
    before: &ProcSample,
    after: &ProcSample,
    pick: fn(&ThreadFigures) -> &Result<u64, String>,
) -> Result<u64, String> {
    let (before, after) = match (&before.threads, &after.threads) {
        (Ok(b), Ok(a)) => (b, a),
        (Err(why), _) | (_, Err(why)) => return Err(why.clone()),
    };
    let ended = before.keys().filter(|tid| !after.contains_key(tid)).count();
    if ended > 0 {
        return Err(format!(
            "{ended} thread(s) ended inside the window, and /proc keeps no counts of an ended thread"
        ));
    }
    let mut total = 0;
    for (tid, figures) in after {
        let then = match before.get(tid) {
            Some(figures) => pick(figures).clone()?,
            None => 0,
        };
        total += pick(figures).clone()?.saturating_sub(then);
    }
    Ok(total)
}

/// Process `pid`'s CPU-time clock now (`clock_getcpuclockid`): the scheduler's own sum of its
/// threads' time on a CPU, in ns, kept past their end; readable for any process.
fn cpu_clock(pid: u32) -> Result<u64, String> {
    let pid = nix::unistd::Pid::from_raw(pid as i32);
    let clock = nix::time::clock_getcpuclockid(pid)
        .map_err(|e| format!("clock_getcpuclockid({pid}): {e}"))?;
    let now = clock
        .now()
        .map_err(|e| format!("clock_gettime(CPU clock of {pid}): {e}"))?;
    Ok(now.tv_sec() as u64 * 1_000_000_000 + now.tv_nsec() as u64)
}

/// The id of the calling thread, from `/proc/thread-self` (a link to `PID/task/TID`).
pub fn calling_thread() -> Option<u32> {
    let link = fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

/// (user ns, kernel ns, page faults) of the whole process from `/proc/PID/stat`: utime and stime
/// in clock ticks, minflt + majflt.
fn process_stat(pid: u32) -> Result<(u64, u64, u64), String> {
    let path = format!("/proc/{pid}/stat");
    let text = fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    // The command name may hold spaces and parentheses: the fields start after its last ')'.
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Field n of proc(5) is at n - 3 here: state (3) comes first.
    let at = |n: usize| -> Result<u64, String> {
        fields
            .get(n - 3)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| format!("{path}: no field {n}"))
    };
    let ns_per_tick = 1_000_000_000 / rustix::param::clock_ticks_per_second().max(1);
    Ok((
        at(14)? * ns_per_tick,
        at(15)? * ns_per_tick,
        at(10)? + at(12)?,
    ))
}

fn first_number(path: &str) -> Result<u64, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("{path}: no number"))
}

/// The number after `name` on its line of `path` (`status`'s `name:\t12`, `sched`'s `name : 12`).
fn field(path: &str, name: &str) -> Result<u64, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| {
            rest.trim_start_matches([' ', ':', '\t'])
                .trim()
                .parse()
                .ok()
        })
        .ok_or_else(|| format!("{path}: no {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_read_and_its_switches_grow_as_it_sleeps() {
        let pid = std::process::id();
        let before = sample(pid, None);
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let after = sample(pid, None);
        let voluntary = threads_delta(&before, &after, |t| &t.voluntary);
        assert!(
            voluntary.expect("status is readable") >= 5,
            "{before:?} {after:?}"
        );
        let cpu_ns = threads_delta(&before, &after, |t| &t.cpu_ns);
        assert!(cpu_ns.expect("schedstat is readable") > 0);
        assert!(calling_thread().is_some());
    }
}
