// The benchmarks of docs/micro.md in Kotlin coroutines: each returns the wall time of one
// iteration, from before the first launch to the moment the last coroutine has signalled, or
// throws a CheckFailed naming what did not finish. Spawns are detached (GlobalScope.launch), as
// the Rust runtimes' spawns are: each benchmark counts its own completion, no parent Job joins.
package rttsuite.micro

import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.yield

/** An iteration failed its completion check. */
class CheckFailed(message: String) : Exception(message)

/** What each benchmark measured, as the log's `primitive` names it. */
object Primitive {
    const val SPAWN = "kotlinx.coroutines.launch"
    const val YIELD = "kotlinx.coroutines.yield"
    const val ONESHOT = "kotlinx.coroutines.channels.Channel(1)"
    const val NOTIFY = "kotlinx.coroutines.CompletableDeferred"
    const val CHANNEL = "kotlinx.coroutines.channels.Channel"

    fun of(bench: String): String = when (bench) {
        "spawn_many", "chained_spawn" -> SPAWN
        "yield_many" -> "$SPAWN + $YIELD"
        "ping_pong" -> "$SPAWN + $ONESHOT"
        "notify" -> NOTIFY
        "oneshot" -> ONESHOT
        else -> CHANNEL
    }
}

/** Detached, on the dispatcher of every benchmark: tokio::spawn's analogue. */
private fun spawn(block: suspend () -> Unit) {
    GlobalScope.launch(Dispatchers.Default) { block() }
}

/** Counts tasks down; the one that reaches zero completes `done`. */
private class Countdown(tasks: Long) {
    private val left = AtomicLong(tasks)
    val done = CompletableDeferred<Unit>()

    fun tick() {
        if (left.decrementAndGet() == 0L) done.complete(Unit)
    }

    /** Waits for zero; a count below zero is a task that counted twice. */
    suspend fun finished(what: String) {
        done.await()
        val left = left.get()
        if (left != 0L) throw CheckFailed("$what: the count ended at $left, not 0")
    }
}

suspend fun spawnMany(tasks: Long): Long {
    val countdown = Countdown(tasks)
    val start = System.nanoTime()
    for (i in 0 until tasks) spawn { countdown.tick() }
    countdown.finished("spawned tasks")
    return System.nanoTime() - start
}

suspend fun yieldMany(tasks: Long, yields: Long): Long {
    val countdown = Countdown(tasks)
    val start = System.nanoTime()
    for (i in 0 until tasks) {
        spawn {
            for (y in 0 until yields) yield()
            countdown.tick()
        }
    }
    countdown.finished("yielding tasks")
    return System.nanoTime() - start
}

/** Each task spawns a partner, sends it a ping over a oneshot, and counts itself done once the
 *  partner's pong arrived over another. */
suspend fun pingPong(roundTrips: Long): Long {
    val countdown = Countdown(roundTrips)
    val start = System.nanoTime()
    for (i in 0 until roundTrips) {
        spawn {
            val ping = Channel<Unit>(1)
            val pong = Channel<Unit>(1)
            spawn {
                if (ping.receiveCatching().isSuccess) pong.trySend(Unit)
            }
            ping.trySend(Unit)
            if (pong.receiveCatching().isSuccess) countdown.tick()
        }
    }
    countdown.finished("round trips")
    return System.nanoTime() - start
}

suspend fun chainedSpawn(depth: Long): Long {
    val done = Channel<Long>(1)
    val start = System.nanoTime()
    link(1, depth, done)
    val links = done.receiveCatching().getOrNull()
    val elapsed = System.nanoTime() - start
    when (links) {
        depth -> return elapsed
        null -> throw CheckFailed("the chain broke before its end")
        else -> throw CheckFailed("the chain had $links links, not $depth")
    }
}

private fun link(n: Long, depth: Long, done: Channel<Long>) {
    spawn {
        if (n == depth) done.trySend(n) else link(n + 1, depth, done)
    }
}

/** Holders sleep `holdMs`, then complete their waiter's CompletableDeferred. */
suspend fun notify(instances: Long, holdMs: Long): Long {
    val countdown = Countdown(instances)
    val start = System.nanoTime()
    for (i in 0 until instances) {
        val notification = CompletableDeferred<Unit>()
        spawn {
            notification.await()
            countdown.tick()
        }
        spawn {
            delay(holdMs)
            notification.complete(Unit)
        }
    }
    countdown.finished("waiters")
    return (System.nanoTime() - start - holdMs * 1_000_000).coerceAtLeast(0)
}

/** Holders sleep `holdMs`, then close their oneshot unused: the waiter wakes to a closed channel. */
suspend fun oneshot(instances: Long, holdMs: Long): Long {
    val countdown = Countdown(instances)
    val start = System.nanoTime()
    for (i in 0 until instances) {
        val channel = Channel<Unit>(1)
        spawn {
            // Woken by the close: a value would be a bug of the holder, not a wake-up.
            if (channel.receiveCatching().isClosed) countdown.tick()
        }
        spawn {
            delay(holdMs)
            channel.close()
        }
    }
    countdown.finished("waiters")
    return (System.nanoTime() - start - holdMs * 1_000_000).coerceAtLeast(0)
}

/** What a channel event is: how a producer makes event i, what a worker adds to its checksum,
 *  and the checksum of events 0 to n − 1. */
sealed class Events<T>(val name: String) {
    abstract fun make(i: Long): T
    abstract fun check(event: T): Long
    abstract fun expected(n: Long): Long

    /** A 64-bit integer (boxed: a generic Channel holds objects; values past 127 are allocated). */
    object Ints : Events<Long>("int") {
        override fun make(i: Long) = i
        override fun check(event: Long) = event
        override fun expected(n: Long) = if (n % 2 == 0L) (n / 2) * (n - 1) else n * ((n - 1) / 2)
    }

    /** A string of `size` bytes. */
    abstract class Text(name: String, val size: Int) : Events<String>(name) {
        /** The text of every string event: "event-0123456789" repeated or cut to `size` bytes. */
        val original: String = EVENT_TEXT.repeat(size / EVENT_TEXT.length + 1).substring(0, size)
        override fun check(event: String) = event.length.toLong()
        override fun expected(n: Long) = n * size
    }

    /** A string built for each event: a new byte array of `size`, filled (String.repeat of one
     *  Latin-1 character allocates the array and fills it, with no second copy). */
    class Fresh(size: Int) : Text("string", size) {
        override fun make(i: Long): String = FILL.repeat(size)
    }

    /** A copy of the shared original for each event: one allocation and a copy of its bytes
     *  (a Latin-1 decode is a plain array copy), as Rust's to_owned and Go's strings.Clone. */
    class Copied(size: Int) : Text("string_copy", size) {
        private val bytes = original.toByteArray(Charsets.ISO_8859_1)
        override fun make(i: Long) = String(bytes, Charsets.ISO_8859_1)
    }

    /** The one original for every event: a reference, no allocation, no count (the GC traces it). */
    class Shared(size: Int) : Text("shared", size) {
        override fun make(i: Long) = original
    }

    companion object {
        const val EVENT_TEXT = "event-0123456789"
        private const val FILL = "e"

        fun of(type: String, size: Int): Events<*> = when (type) {
            "string" -> Fresh(size)
            "string_copy" -> Copied(size)
            "shared" -> Shared(size)
            else -> Ints
        }
    }
}

/** W workers each drain their own Channel(Q), fed by their own producer sending E events; every
 *  event is counted and checksummed on arrival. */
suspend fun <T> channel(workers: Long, events: Long, queue: Int, kind: Events<T>): Long {
    val countdown = Countdown(workers)
    val received = AtomicLong()
    val checksum = AtomicLong()
    val start = System.nanoTime()
    for (w in 0 until workers) {
        val channel = Channel<T>(queue)
        spawn {
            var n = 0L
            var sum = 0L
            for (event in channel) {
                n++
                sum += kind.check(event)
            }
            received.addAndGet(n)
            checksum.addAndGet(sum)
            countdown.tick()
        }
        spawn {
            for (i in 0 until events) channel.send(kind.make(i))
            channel.close()
        }
    }
    countdown.finished("workers")
    val elapsed = System.nanoTime() - start
    if (received.get() != workers * events) {
        throw CheckFailed("${received.get()} of ${workers * events} events received")
    }
    if (checksum.get() != kind.expected(events) * workers) {
        throw CheckFailed("the events received are not the events sent (checksum)")
    }
    return elapsed
}
