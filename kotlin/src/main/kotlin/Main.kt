// kotlin-micro: the Kotlin reference of the suite's in-process benchmarks (docs/micro.md):
// coroutines on Dispatchers.Default, launch, yield, Channel and CompletableDeferred. It takes the
// options of the Rust *-micro binaries, plus --warmup and --warmup-s (the JVM's JIT needs more
// than one untimed iteration) and --event-size, and writes the same log, framework "kotlin". The
// timed repeats start after the JVM has started and after the warm-up; see docs/micro.md.
package rttsuite.micro

import java.io.File
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

const val NAME = "kotlin-micro"

/** Bad input: one line on stderr, exit 2. */
class UsageError(message: String) : Exception(message)

val BENCHES = listOf("spawn_many", "yield_many", "ping_pong", "chained_spawn", "notify", "oneshot", "channel")
val EVENT_TYPES = listOf("int", "string", "string_copy", "shared")

/** Each size option: the benchmarks that use it, its range. */
private class Size(val benches: Set<String>, val min: Long, val max: Long)

private val SIZES = mapOf(
    "tasks" to Size(setOf("spawn_many", "yield_many", "ping_pong", "chained_spawn"), 1, 1_000_000_000),
    "yields" to Size(setOf("yield_many"), 1, 1_000_000_000),
    "instances" to Size(setOf("notify", "oneshot"), 1, 1_000_000_000_000),
    "hold-ms" to Size(setOf("notify", "oneshot"), 0, 60_000),
    "workers" to Size(setOf("channel"), 1, 1_000_000_000),
    "events" to Size(setOf("channel"), 1, 1_000_000_000),
    "queue" to Size(setOf("channel"), 1, 16_777_216),
    "event-size" to Size(setOf("channel"), 1, 1_048_576),
)

/** The Rust binaries' other options: accepted by name, refused with a reason. */
private val REFUSED = mapOf(
    "flavor" to "Kotlin runs on Dispatchers.Default here; --threads sets its parallelism",
    "busy-poll" to "it applies to std-ping and std-pong only",
)

class Options(
    val bench: String,
    private val sizes: Map<String, Long>,
    val eventType: String?,
    val repeat: Int,
    val warmup: Int,
    val warmupS: Double,
    val timeoutS: Double,
    val threads: Int?,
    val out: String?,
    val json: Boolean,
) {
    fun size(name: String): Long = sizes[name] ?: when (name) {
        "tasks" -> when (bench) {
            "spawn_many" -> 10_000
            "yield_many" -> 200
            else -> 1_000
        }
        "yields" -> 1_000
        "instances" -> 10_000
        "hold-ms" -> 100
        "workers" -> 100
        "events" -> 10_000
        "queue" -> 256
        "event-size" -> 16
        else -> error(name)
    }

    private fun used(name: String): Long? = if (bench in SIZES.getValue(name).benches) size(name) else null

    val eventTypeOrDefault get() = if (bench == "channel") eventType ?: "int" else null

    /** The log's params: every size, null where it does not apply; `event_size` for string events. */
    fun params(): Map<String, Any?> = linkedMapOf(
        "tasks" to used("tasks"),
        "yields" to used("yields"),
        "instances" to used("instances"),
        "hold_ms" to used("hold-ms"),
        "workers" to used("workers"),
        "events" to used("events"),
        "queue" to used("queue"),
        "event_type" to eventTypeOrDefault,
        "event_size" to if (eventTypeOrDefault in listOf(null, "int")) null else size("event-size"),
    )

    fun ops(): Long = when (bench) {
        "yield_many" -> size("tasks") * size("yields")
        "notify", "oneshot" -> size("instances")
        "channel" -> size("workers") * size("events")
        else -> size("tasks")
    }
}

fun parseOptions(args: Array<String>): Options? {
    val given = linkedMapOf<String, String>()
    var json = false
    var version = false
    val valued = SIZES.keys + REFUSED.keys + setOf("bench", "event-type", "repeat", "warmup", "warmup-s", "timeout", "threads", "out")
    var i = 0
    while (i < args.size) {
        val arg = args[i++]
        if (!arg.startsWith("--")) throw UsageError("unexpected argument '$arg'")
        val name = arg.removePrefix("--").substringBefore('=')
        when {
            name == "json" && '=' !in arg -> json = true
            name == "version" && '=' !in arg -> version = true
            name == "help" && '=' !in arg -> {
                print(USAGE)
                return null
            }
            name in valued -> {
                given[name] = if ('=' in arg) arg.substringAfter('=') else {
                    if (i >= args.size) throw UsageError("a value is required for '--$name'")
                    args[i++]
                }
            }
            else -> throw UsageError("unexpected argument '--$name' (see --help)")
        }
    }
    if (version) {
        println("$NAME ${Versions.suite}")
        return null
    }
    for (name in given.keys) REFUSED[name]?.let { throw UsageError("--$name does not apply to $NAME: $it") }
    val bench = given["bench"] ?: throw UsageError("--bench is required: one of ${BENCHES.joinToString()}")
    if (bench !in BENCHES) {
        throw UsageError("invalid value '$bench' for '--bench': possible values: ${BENCHES.joinToString()}")
    }
    fun whole(name: String, min: Long, max: Long): Long? {
        val text = given[name] ?: return null
        val value = text.toLongOrNull()
        if (value == null || value < min || value > max) {
            throw UsageError("invalid value '$text' for '--$name': must be $min to $max")
        }
        return value
    }
    val sizes = SIZES.mapNotNull { (name, size) -> whole(name, size.min, size.max)?.let { name to it } }.toMap()
    val eventType = given["event-type"]
    if (eventType != null && eventType !in EVENT_TYPES) {
        throw UsageError("invalid value '$eventType' for '--event-type': possible values: ${EVENT_TYPES.joinToString()}")
    }
    (sizes.keys + listOfNotNull("event-type".takeIf { eventType != null })).firstOrNull { name ->
        bench !in (SIZES[name]?.benches ?: setOf("channel"))
    }?.let { throw UsageError("--$it does not apply to --bench $bench") }
    val timeoutText = given["timeout"] ?: "120"
    val timeout = timeoutText.toDoubleOrNull()
    if (timeout == null || timeout.isNaN() || timeout <= 0 || timeout > 86_400) {
        throw UsageError("invalid value '$timeoutText' for '--timeout': must be more than 0 and at most 86400 seconds")
    }
    val warmupText = given["warmup-s"] ?: "20"
    val warmupS = warmupText.toDoubleOrNull()
    if (warmupS == null || warmupS.isNaN() || warmupS < 0 || warmupS > 86_400) {
        throw UsageError("invalid value '$warmupText' for '--warmup-s': must be 0 to 86400 seconds")
    }
    return Options(
        bench = bench,
        sizes = sizes,
        eventType = eventType,
        repeat = (whole("repeat", 1, 10_000) ?: 10).toInt(),
        warmup = (whole("warmup", 0, 10_000) ?: 5).toInt(),
        warmupS = warmupS,
        timeoutS = timeout,
        threads = whole("threads", 1, 1024)?.toInt(),
        out = given["out"],
        json = json,
    )
}

val USAGE = """
    |Usage: $NAME --bench NAME [sizes] [--repeat K] [--warmup N] [--warmup-s S] [--timeout S] [--threads N] [--out STEM] [--json]
    |
    |The Kotlin reference of the suite's in-process benchmarks (docs/micro.md), on Dispatchers.Default.
    |  --bench NAME        ${BENCHES.joinToString()}
    |  --tasks N           spawn_many [10000], yield_many [200], ping_pong [1000], chained_spawn [1000]
    |  --yields N          yield_many: yields per task [1000]
    |  --instances N       notify, oneshot: holder and waiter pairs [10000]
    |  --hold-ms MS        notify, oneshot: each holder's sleep [100]
    |  --workers W         channel: workers, each with its own channel and producer [100]
    |  --events E          channel: events each producer sends [10000]
    |  --queue Q           channel: the capacity of each Channel [256]
    |  --event-type T      channel: ${EVENT_TYPES.joinToString()} [int]
    |  --event-size BYTES  channel: the bytes of a string event [16]
    |  --repeat K          timed repeats [10]
    |  --warmup N          untimed iterations before them, for the JIT, at least [5]
    |  --warmup-s S        past those, more while the JIT is busy, for at most S seconds (0: none) [20]
    |  --timeout S         seconds the whole run may last, warm-up included [120]
    |  --threads N         the parallelism of Dispatchers.Default [its default: the CPUs, at least 2]
    |  --out STEM          write the log to STEM.json
    |  --json              print the log on stdout
    |  --version           print the version and exit
    |""".trimMargin()

/** Bytes a coroutine and its Job hold on the heap (an estimate, as rtt-core's 1 KiB per async
 *  task), and a Channel or CompletableDeferred besides its buffer. */
private const val TASK_BYTES = 1024L
private const val PRIMITIVE_BYTES = 256L
private const val MEMORY_SHARE = 0.8

/** Refuses, before anything is allocated, sizes whose estimate exceeds 80 % of the smaller of
 *  MemAvailable and the JVM's maximum heap; says the largest size that would fit. */
fun checkMemory(o: Options) {
    val eventBytes = when (o.eventTypeOrDefault) {
        "int" -> 24L // a reference and a boxed Long
        "shared" -> 8L
        else -> 8L + 24 + 16 + o.size("event-size") // a reference, a String, its byte array
    }
    val (driver, units, perUnit) = when (o.bench) {
        "spawn_many" -> Triple("tasks", o.size("tasks"), TASK_BYTES + PRIMITIVE_BYTES)
        "ping_pong" -> Triple("tasks", o.size("tasks"), 2 * TASK_BYTES + 2 * PRIMITIVE_BYTES)
        "chained_spawn" -> Triple("tasks", 1L, 2 * TASK_BYTES)
        "yield_many" -> Triple("tasks", o.size("tasks"), TASK_BYTES)
        "notify", "oneshot" -> Triple("instances", o.size("instances"), 2 * TASK_BYTES + PRIMITIVE_BYTES)
        else -> Triple("workers", o.size("workers"), 2 * TASK_BYTES + PRIMITIVE_BYTES + o.size("queue") * eventBytes)
    }
    val heap = Runtime.getRuntime().maxMemory()
    val available = kilobytesField("/proc/meminfo", "MemAvailable:")
    val (limit, what) = if (available != null && available < heap) {
        Pair(available, "available (MemAvailable)")
    } else {
        Pair(heap, "the JVM may use (its maximum heap: -Xmx in KOTLIN_MICRO_JAVA_OPTS)")
    }
    val allowed = (limit * MEMORY_SHARE).toLong()
    val needed = units.toDouble() * perUnit
    if (needed > allowed) {
        throw UsageError(
            "--$driver $units: --bench ${o.bench} would need about %.1f GB ($perUnit B per unit of --$driver), "
                .format(needed / 1e9) +
                "more than 80 %% of the %.1f GB %s; use at most --$driver ${allowed / perUnit}"
                    .format(limit / 1e9, what),
        )
    }
}

/** What the benchmark thread tells the collector. */
private sealed interface Progress {
    class Repeat(val ns: Long) : Progress
    class Failed(val error: String) : Progress
    object Done : Progress
}

fun main(args: Array<String>) {
    val o = try {
        parseOptions(args)?.also { checkMemory(it) } ?: return
    } catch (e: UsageError) {
        System.err.println("$NAME: error: ${e.message}")
        exitProcess(2)
    }
    // Read by Dispatchers.Default when it is first used, which is below.
    o.threads?.let { System.setProperty("kotlinx.coroutines.scheduler.core.pool.size", it.toString()) }
    val threads = System.getProperty("kotlinx.coroutines.scheduler.core.pool.size")?.toIntOrNull()
        ?: Runtime.getRuntime().availableProcessors().coerceAtLeast(2)
    val file = o.out?.let { stem ->
        val f = File("$stem.json")
        f.absoluteFile.parentFile?.let { dir ->
            if (!dir.isDirectory && !dir.mkdirs()) fail("creating the log folder $dir")
        }
        runCatching { f.writeText("") }.onFailure { fail("creating $f (check --out): ${it.message}") }
        f
    }
    val log = MicroLog(o, threads)
    val deadline = System.nanoTime() + (o.timeoutS * 1e9).toLong()
    val updates = LinkedBlockingQueue<Progress>()
    val benchmark = Thread({ iterations(o, log, updates) }, "benchmark").apply { isDaemon = true }
    benchmark.start()
    while (true) {
        val update = updates.poll((deadline - System.nanoTime()).coerceAtLeast(0), TimeUnit.NANOSECONDS)
        when (update) {
            is Progress.Repeat -> log.timesNs += update.ns
            is Progress.Failed -> log.error = update.error
            is Progress.Done -> break
            null -> {
                log.error = "timeout: --timeout ${plain(o.timeoutS)} s passed with ${log.timesNs.size} of ${o.repeat} " +
                    "repeats finished"
                break
            }
        }
        if (log.error != null) break
    }
    val code = finish(log, o, file)
    System.out.flush()
    System.err.flush()
    // The benchmark's coroutines may be blocked for good: end here, whatever they wait on.
    Runtime.getRuntime().halt(code)
}

/** 120.0 → "120", 0.5 → "0.5": as the option was likely typed. */
private fun plain(x: Double): String = if (x == Math.floor(x) && x < 1e15) x.toLong().toString() else x.toString()

private fun fail(message: String): Nothing {
    System.err.println("$NAME: error: $message")
    exitProcess(1)
}

/** The JIT is quiet when it compiled for less than this share of a warm-up iteration's wall time
 *  (its compilation time, summed over its compiler threads, from the JVM's CompilationMXBean) in
 *  each of the last JIT_QUIET_RUNS iterations: one quiet iteration is often followed by a burst
 *  of recompilation (a deoptimised method compiled again). */
const val JIT_QUIET = 0.05
const val JIT_QUIET_RUNS = 2

/** The warm-up, then the timed repeats, each sent as it finishes; the loop itself is a coroutine on
 *  Dispatchers.Default, as the Rust benchmarks' own task is one of the runtime's. The warm-up is
 *  `--warmup` iterations, then more until the JIT is quiet, or `--warmup-s` seconds of warm-up
 *  have passed. */
private fun iterations(o: Options, log: MicroLog, updates: LinkedBlockingQueue<Progress>) {
    runBlocking {
        withContext(Dispatchers.Default) {
            val warmupEnd = System.nanoTime() + (o.warmupS * 1e9).toLong()
            var warmups = 0
            var quiet = 0 // warm-up iterations in a row in which the JIT was quiet
            fun jitBusy() = quiet < JIT_QUIET_RUNS
            while (warmups < o.warmup || (o.warmupS > 0 && jitBusy() && System.nanoTime() < warmupEnd)) {
                val before = JvmCounters.now()
                val ns = try {
                    once(o)
                } catch (e: CheckFailed) {
                    updates.put(Progress.Failed("warm-up ${warmups + 1}: ${e.message}"))
                    return@withContext
                }
                val jitMs = (JvmCounters.now() - before).jitMs
                val share = jitMs?.let { it * 1e6 / ns.coerceAtLeast(1) } ?: 0.0
                quiet = if (share <= JIT_QUIET) quiet + 1 else 0
                synchronized(log) {
                    log.warmupTimesNs += ns
                    log.jitShares += share
                }
                warmups++
            }
            log.jitBefore = JvmCounters.now()
            for (i in 1..o.repeat) {
                val ns = try {
                    once(o)
                } catch (e: CheckFailed) {
                    updates.put(Progress.Failed("repeat $i: ${e.message}"))
                    return@withContext
                }
                if (i == o.repeat) log.jitAfter = JvmCounters.now()
                updates.put(Progress.Repeat(ns.coerceAtLeast(1)))
            }
            updates.put(Progress.Done)
        }
    }
}

private suspend fun once(o: Options): Long = when (o.bench) {
    "spawn_many" -> spawnMany(o.size("tasks"))
    "yield_many" -> yieldMany(o.size("tasks"), o.size("yields"))
    "ping_pong" -> pingPong(o.size("tasks"))
    "chained_spawn" -> chainedSpawn(o.size("tasks"))
    "notify" -> notify(o.size("instances"), o.size("hold-ms"))
    "oneshot" -> oneshot(o.size("instances"), o.size("hold-ms"))
    else -> {
        val (workers, events, queue) = Triple(o.size("workers"), o.size("events"), o.size("queue").toInt())
        when (val kind = Events.of(o.eventTypeOrDefault!!, o.size("event-size").toInt())) {
            is Events.Ints -> channel(workers, events, queue, kind)
            is Events.Text -> channel(workers, events, queue, kind)
        }
    }
}

/** Writes and prints the log; the exit code. */
private fun finish(log: MicroLog, o: Options, file: File?): Int {
    if (log.error == null && log.timesNs.size != o.repeat) log.error = "the run ended before its repeats"
    val text = synchronized(log) { log.json() }
    if (file != null) {
        try {
            file.writeText(text)
        } catch (e: java.io.IOException) {
            System.err.println("$NAME: error: writing $file: ${e.message}")
            return 1
        }
    }
    if (o.json) print(text) else if (file == null) println(log.human())
    log.error?.let {
        System.err.println("$NAME: error: $it (the finished repeats are kept)")
        return 1
    }
    return 0
}
