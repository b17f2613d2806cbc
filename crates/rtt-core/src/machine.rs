//! Facts about the machine a run took place on, read from /proc at the start of the run so that
//! a log says where its numbers come from. Missing facts are recorded as null, never guessed.

use std::{fs, time::SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The machine facts recorded in every log; `null` when unknown.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Machine {
    /// The host name.
    pub host: Option<String>,
    /// The kernel release.
    pub kernel: Option<String>,
    /// The CPU model name.
    pub cpu_model: Option<String>,
    /// The CPUs this process may run on (e.g. `1` under `taskset -c 1`).
    pub cpus_allowed: Option<String>,
}

impl Machine {
    pub fn read() -> Self {
        let first_line = |path: &str| {
            fs::read_to_string(path)
                .ok()
                .and_then(|s| s.lines().next().map(|l| l.trim().to_owned()))
        };
        let field = |path: &str, key: &str| {
            let text = fs::read_to_string(path).ok()?;
            text.lines()
                .find(|line| line.starts_with(key))
                .and_then(|line| line.split_once(':'))
                .map(|(_, value)| value.trim().to_owned())
        };
        Self {
            host: first_line("/proc/sys/kernel/hostname"),
            kernel: first_line("/proc/sys/kernel/osrelease"),
            cpu_model: field("/proc/cpuinfo", "model name"),
            cpus_allowed: field("/proc/self/status", "Cpus_allowed_list"),
        }
    }
}

/// A field of `/proc/meminfo` or `/proc/self/status` given in kB, in bytes.
fn kilobytes_field(path: &str, key: &str) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    let line = text.lines().find(|line| line.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory the kernel says can be allocated without swapping (`MemAvailable`), in bytes.
pub fn mem_available_bytes() -> Option<u64> {
    kilobytes_field("/proc/meminfo", "MemAvailable:")
}

/// This process's peak resident set size so far, in bytes: `VmHWM`, the figure getrusage's
/// `ru_maxrss` reports on Linux (without the RSS of a program that exec'd this one, such as
/// `taskset`), read without unsafe code.
pub fn peak_rss_bytes() -> Option<u64> {
    kilobytes_field("/proc/self/status", "VmHWM:")
}

/// `time` as an RFC 3339 UTC timestamp with milliseconds, e.g. `2026-11-22T04:40:31.123Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let since_epoch = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since_epoch.as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since_epoch.subsec_millis()
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let at = |secs| rfc3339(SystemTime::UNIX_EPOCH + Duration::from_millis(secs));
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(1_795_322_431_123), "2026-11-22T04:40:31.123Z");
    }

    #[test]
    fn this_machine_has_a_kernel_and_cpus() {
        let machine = Machine::read();
        assert!(machine.kernel.is_some_and(|k| !k.is_empty()));
        assert!(machine.cpus_allowed.is_some());
        assert!(mem_available_bytes().is_some_and(|b| b > 0));
        assert!(peak_rss_bytes().is_some_and(|b| b > 0));
    }
}
