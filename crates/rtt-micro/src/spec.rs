//! One micro run, resolved from its sizes and checked against this machine before anything is
//! allocated: its operation count, the tasks it keeps alive at once, std's thread cap (above it:
//! not run, with the reason) and the memory check.

use std::time::Duration;

use clap::ValueEnum;
use rtt_core::{log::MicroParams, machine};

use crate::{
    bench::{Bench, DEFAULT_EVENT_SIZE, EventType, Sizes},
    primitives::Primitives,
};

/// Bytes per event in a queue, as a conservative figure: an `int` is 8 bytes; an owned string
/// (`string`, `string_copy`) 24 bytes of handle plus its heap block (`size` rounded up to the
/// allocator's 16); a `shared` or `shared_arc` one a fat pointer.
fn event_bytes(event_type: EventType, size: u64) -> u64 {
    match event_type {
        EventType::Int => 8,
        EventType::String | EventType::StringCopy => 24 + size.div_ceil(16) * 16,
        EventType::Shared | EventType::SharedArc => 16,
    }
}

/// A channel or notification besides its tasks: its shared state and queue header.
const PRIMITIVE_BYTES: u64 = 256;

/// The share of `MemAvailable` a run may plan to use.
const MEMORY_SHARE: f64 = 0.8;

/// One micro run, resolved.
#[derive(Clone, Debug)]
pub struct MicroSpec {
    pub bench: Bench,
    pub params: MicroParams,
    /// Operations in one repeat.
    pub ops: u64,
    /// The most tasks (std: threads) alive at once, by the benchmark's design.
    pub peak_tasks: u64,
    pub repeat: u32,
    pub timeout: Duration,
    /// Why the benchmark is not run at these sizes; `None` when it runs.
    pub not_run: Option<String>,
}

impl MicroSpec {
    pub fn hold(&self) -> Duration {
        Duration::from_millis(self.params.hold_ms.unwrap_or(0))
    }

    pub fn event_type(&self) -> EventType {
        let named = self.params.event_type.as_deref();
        EventType::value_variants()
            .iter()
            .copied()
            .find(|kind| Some(kind.as_str()) == named)
            .unwrap_or(EventType::Int)
    }

    /// The bytes of each string event (`--event-size`).
    pub fn event_size(&self) -> usize {
        let size = self.params.event_size.unwrap_or(DEFAULT_EVENT_SIZE);
        usize::try_from(size).unwrap_or(usize::MAX)
    }
}

/// What one repeat of a benchmark asks of the machine at its sizes.
struct Footprint {
    ops: u64,
    /// The most tasks alive at once.
    peak_tasks: u64,
    /// Memory besides the tasks' own: the primitives and their queues.
    extra_bytes: u64,
    /// The option the memory grows with, and its value.
    driver: &'static str,
    units: u64,
}

fn footprint(bench: Bench, sizes: &Sizes, params: &MicroParams) -> Footprint {
    let size = |value: Option<u64>| value.unwrap_or_default();
    let grows = |ops, peak_tasks, extra_bytes, driver, units| Footprint {
        ops,
        peak_tasks,
        extra_bytes,
        driver,
        units,
    };
    match bench {
        Bench::SpawnMany | Bench::PingPong | Bench::ChainedSpawn => {
            let tasks = size(params.tasks);
            let peak = match bench {
                Bench::SpawnMany => tasks,
                Bench::PingPong => 2 * tasks,
                _ => 2, // a link exits once it has spawned the next
            };
            grows(tasks, peak, PRIMITIVE_BYTES * tasks, "--tasks", tasks)
        }
        Bench::YieldMany => {
            let tasks = size(params.tasks);
            grows(tasks * size(params.yields), tasks, 0, "--tasks", tasks)
        }
        Bench::Notify | Bench::Oneshot => {
            let instances = size(params.instances);
            let extra = PRIMITIVE_BYTES * instances;
            grows(instances, 2 * instances, extra, "--instances", instances)
        }
        Bench::Channel => {
            let workers = size(params.workers);
            let event_type = sizes.event_type.unwrap_or(EventType::Int);
            let event_size = sizes.event_size.unwrap_or(DEFAULT_EVENT_SIZE);
            let queued = size(params.queue).saturating_mul(event_bytes(event_type, event_size));
            let extra = queued
                .saturating_add(PRIMITIVE_BYTES)
                .saturating_mul(workers);
            let ops = workers * size(params.events);
            grows(ops, 2 * workers, extra, "--workers", workers)
        }
    }
}

/// Resolves and checks the sizes of `bench`; the error is one line naming the option to change.
pub fn resolve<R: Primitives>(
    bench: Bench,
    sizes: &Sizes,
    repeat: u32,
    timeout: Duration,
) -> Result<MicroSpec, String> {
    let params = sizes.params(bench);
    let needs = footprint(bench, sizes, &params);
    let mut spec = MicroSpec {
        bench,
        params,
        ops: needs.ops,
        peak_tasks: needs.peak_tasks,
        repeat,
        timeout,
        not_run: None,
    };
    if let Some(cap) = R::TASK_CAP.filter(|&cap| needs.peak_tasks > cap) {
        spec.not_run = Some(format!(
            "{} runs each task on its own OS thread: {} threads at once is above its cap \
             of {cap}",
            R::FRAMEWORK,
            needs.peak_tasks
        ));
        return Ok(spec);
    }
    check_memory::<R>(bench, &needs)?;
    Ok(spec)
}

/// Refuses a run whose tasks and primitives would take more than MEMORY_SHARE of `MemAvailable`.
fn check_memory<R: Primitives>(bench: Bench, needs: &Footprint) -> Result<(), String> {
    let needed = needs
        .peak_tasks
        .saturating_mul(R::TASK_BYTES)
        .saturating_add(needs.extra_bytes);
    let Some(available) = machine::mem_available_bytes() else {
        return Ok(());
    };
    let allowed = (available as f64 * MEMORY_SHARE) as u64;
    if needed <= allowed {
        return Ok(());
    }
    let (driver, units) = (needs.driver, needs.units);
    let per_unit = needed.div_ceil(units).max(1);
    Err(format!(
        "{driver} {units}: --bench {} would need about {} ({} B per task, {per_unit} B \
         per unit of {driver}), more than {:.0} % of the {} available (MemAvailable); \
         use at most {driver} {}",
        bench.as_str(),
        gigabytes(needed),
        R::TASK_BYTES,
        MEMORY_SHARE * 100.0,
        gigabytes(available),
        allowed / per_unit,
    ))
}

fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}
