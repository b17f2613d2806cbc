// The suite's "micro" log (crates/rtt-core/src/log/micro.rs, MicroLog), field for field and in
// its order, plus a `jvm` object (the schema allows more fields): the JVM's versions, heap and
// GC, and the evidence that the timed repeats ran past the JIT's warm-up. A small JSON writer,
// so that the jar needs nothing but the Kotlin stdlib and kotlinx.coroutines.
package rttsuite.micro

import java.io.File
import java.lang.management.ManagementFactory
import java.time.Instant
import java.time.ZoneOffset
import java.time.format.DateTimeFormatter
import java.util.Properties

/** Versions stamped by the build (versions.properties, filtered by Maven). */
object Versions {
    private val props = Properties().also { p ->
        Versions::class.java.getResourceAsStream("/versions.properties")?.use { p.load(it) }
    }
    val kotlinBuild: String = props.getProperty("kotlin", "unknown")
    val coroutines: String = props.getProperty("coroutines", "unknown")

    /** "0.1.0 (git 1a2b3c4d5e)", as the Rust binaries write it: the version the launcher passes,
     *  the commit from the stamp `make` writes beside the binaries. */
    val suite: String by lazy {
        val version = System.getProperty("rttsuite.version") ?: "unknown"
        val commit = System.getProperty("rttsuite.commit-file")?.let { path ->
            runCatching { File(path).readText().trim() }.getOrNull()?.takeIf { it.isNotEmpty() }
        } ?: "unknown"
        "$version (git $commit)"
    }
}

/** The JIT and GC counters, read before and after the timed repeats. */
data class JvmCounters(val jitMs: Long?, val gcCount: Long, val gcMs: Long) {
    operator fun minus(o: JvmCounters) =
        JvmCounters(jitMs?.let { a -> o.jitMs?.let { a - it } }, gcCount - o.gcCount, gcMs - o.gcMs)

    companion object {
        fun now(): JvmCounters {
            val jit = ManagementFactory.getCompilationMXBean()
            val gcs = ManagementFactory.getGarbageCollectorMXBeans()
            return JvmCounters(
                jit?.takeIf { it.isCompilationTimeMonitoringSupported }?.totalCompilationTime,
                gcs.sumOf { it.collectionCount.coerceAtLeast(0) },
                gcs.sumOf { it.collectionTime.coerceAtLeast(0) },
            )
        }
    }
}

class MicroLog(val o: Options, val threads: Int) {
    val startedAt: String = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        .withZone(ZoneOffset.UTC).format(Instant.now())
    val ops: Long = o.ops()
    val primitive = Primitive.of(o.bench)
    val timesNs = mutableListOf<Long>()
    val warmupTimesNs = mutableListOf<Long>()
    val jitShares = mutableListOf<Double>() // the JIT's compilation time over each warm-up iteration's
    var error: String? = null
    var jitBefore: JvmCounters? = null // at the first timed repeat's start
    var jitAfter: JvmCounters? = null // at the last one's end

    fun human(): String {
        val what = "kotlin ${o.bench} ($primitive; $FLAVOR, $threads threads): $ops ops"
        val (perOp, rate) = figures(timesNs, ops)
        if (perOp.median == null) return "$what, no repeat finished"
        val interval = if (perOp.low != null) " (95 %% CI %.1f to %.1f)".format(perOp.low, perOp.high) else ""
        return "%s, median of %d repeats %.1f ns/op%s, %.3f M ops/s, first timed repeat %.2f × the median"
            .format(what, timesNs.size, perOp.median, interval, rate.median!! / 1e6, firstOverMedian())
    }

    private fun median(): Long? = if (timesNs.isEmpty()) null else nearestRank(timesNs.sorted(), 50.0)

    private fun firstOverMedian(): Double? = median()?.let { timesNs.first().toDouble() / it }

    /** The evidence that the timed repeats are past the JIT's warm-up, and the JVM as it ran. */
    private fun jvm(): Map<String, Any?> {
        val runtime = ManagementFactory.getRuntimeMXBean()
        val heap = ManagementFactory.getMemoryMXBean().heapMemoryUsage
        val timed = jitAfter?.let { a -> jitBefore?.let { a - it } }
        val median = median()
        return linkedMapOf(
            "java_version" to System.getProperty("java.runtime.version"),
            "vm" to "${System.getProperty("java.vm.name")} ${System.getProperty("java.vm.version")} " +
                "(${System.getProperty("java.vm.info")})",
            "kotlin_version" to KotlinVersion.CURRENT.toString(),
            "kotlin_build_version" to Versions.kotlinBuild,
            "coroutines_version" to Versions.coroutines,
            "gc" to ManagementFactory.getGarbageCollectorMXBeans().map { it.name },
            "heap_initial_bytes" to heap.init.takeIf { it >= 0 },
            "heap_max_bytes" to Runtime.getRuntime().maxMemory(),
            "jvm_args" to runtime.inputArguments.filterNot { it.startsWith("-Drttsuite.") },
            "available_processors" to Runtime.getRuntime().availableProcessors(),
            "warmup_min" to o.warmup,
            "warmup_max_s" to o.warmupS,
            "warmup_times_ns" to warmupTimesNs.toList(),
            "warmup_jit_shares" to jitShares.map { Math.round(it * 1e4) / 1e4 },
            "first_over_median" to firstOverMedian(),
            "spread" to median?.let { (timesNs.max() - timesNs.min()).toDouble() / it },
            "jit_ms_timed" to timed?.jitMs,
            "gc_count_timed" to timed?.gcCount,
            "gc_ms_timed" to timed?.gcMs,
        )
    }

    fun json(): String {
        val complete = error == null
        val (perOp, rate) = figures(timesNs, ops)
        val p = o.params()
        val log = linkedMapOf<String, Any?>(
            "kind" to "micro",
            "schema" to "rtt-log/1",
            "framework" to "kotlin",
            "framework_version" to Versions.coroutines,
            "flavor" to FLAVOR,
            "threads" to threads,
            "host" to firstLine("/proc/sys/kernel/hostname"),
            "kernel" to firstLine("/proc/sys/kernel/osrelease"),
            "cpu_model" to field("/proc/cpuinfo", "model name"),
            "cpus_allowed" to field("/proc/self/status", "Cpus_allowed_list"),
            "rustc" to null,
            "suite_version" to Versions.suite,
            "started_at" to startedAt,
            "complete" to complete,
            "error" to error,
            "bench" to o.bench,
            "primitive" to primitive,
            "params" to p,
            "ops" to ops,
            "repeat" to o.repeat,
            "warmup" to warmupTimesNs.size,
            "times_ns" to timesNs.toList(),
            "ns_per_op" to perOp.json(),
            "ops_per_s" to rate.json(),
            "peak_rss_bytes" to kilobytesField("/proc/self/status", "VmHWM:"),
            "not_run" to null,
            "jvm" to jvm(),
        )
        return StringBuilder().also { write(it, log, "") }.append('\n').toString()
    }

    companion object {
        const val FLAVOR = "Dispatchers.Default"
    }
}

/** Pretty-printed JSON, two spaces a level, as go-micro writes it. */
private fun write(out: StringBuilder, value: Any?, indent: String) {
    when (value) {
        null -> out.append("null")
        is Boolean, is Int, is Long -> out.append(value.toString())
        is Double -> out.append(if (value.isFinite()) value.toString() else "null")
        is String -> quote(out, value)
        is Map<*, *> -> {
            if (value.isEmpty()) {
                out.append("{}")
                return
            }
            out.append("{\n")
            value.entries.forEachIndexed { i, (k, v) ->
                out.append("$indent  ")
                quote(out, k.toString())
                out.append(": ")
                write(out, v, "$indent  ")
                out.append(if (i < value.size - 1) ",\n" else "\n")
            }
            out.append("$indent}")
        }
        is List<*> -> {
            if (value.isEmpty()) {
                out.append("[]")
                return
            }
            out.append("[\n")
            value.forEachIndexed { i, v ->
                out.append("$indent  ")
                write(out, v, "$indent  ")
                out.append(if (i < value.size - 1) ",\n" else "\n")
            }
            out.append("$indent]")
        }
        else -> quote(out, value.toString())
    }
}

private fun quote(out: StringBuilder, s: String) {
    out.append('"')
    for (c in s) {
        when {
            c == '"' -> out.append("\\\"")
            c == '\\' -> out.append("\\\\")
            c == '\n' -> out.append("\\n")
            c == '\t' -> out.append("\\t")
            c < ' ' -> out.append("\\u%04x".format(c.code))
            else -> out.append(c)
        }
    }
    out.append('"')
}

fun firstLine(path: String): String? =
    runCatching { File(path).readLines().firstOrNull()?.trim() }.getOrNull()

fun field(path: String, key: String): String? = runCatching {
    File(path).readLines().firstOrNull { it.startsWith(key) }?.substringAfter(':', "")?.trim()
}.getOrNull()

/** A "Key: N kB" line of /proc/meminfo or /proc/self/status, in bytes. */
fun kilobytesField(path: String, key: String): Long? = runCatching {
    File(path).readLines().firstOrNull { it.startsWith(key) }
        ?.split(Regex("\\s+"))?.getOrNull(1)?.toLong()?.times(1024)
}.getOrNull()
