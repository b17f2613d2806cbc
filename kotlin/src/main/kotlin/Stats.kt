// The figures across repeats, as rtt-core's stats::median_interval and go/chanbench/stats.go
// compute them: the nearest-rank median and its distribution-free 95 % interval.
package rttsuite.micro

import kotlin.math.exp
import kotlin.math.ln
import kotlin.math.roundToLong

const val CONFIDENCE = 0.95

/** The 1-based ranks (k, n + 1 − k) of the 95 % interval of the median: the largest k with
 *  P(B ≤ k − 1) ≤ 2.5 %, B ~ Binomial(n, ½), summed in logarithms as rtt-core does; null for
 *  n < 6, too few for any such interval. */
fun medianIntervalRanks(n: Int): Pair<Int, Int>? {
    val tail = (1 - CONFIDENCE) / 2
    val lnHalfN = n * ln(0.5)
    var lnChoose = 0.0
    var cumulative = 0.0
    var k = 0
    for (j in 0 until n) {
        if (j > 0) lnChoose += ln((n - j + 1).toDouble() / j)
        cumulative += exp(lnChoose + lnHalfN)
        if (cumulative > tail + 1e-12) break
        k = j + 1
    }
    return if (k >= 1 && k <= n + 1 - k) Pair(k, n + 1 - k) else null
}

/** The p-th percentile of sorted data by nearest rank: rank ⌈p/100 · n⌉. */
fun nearestRank(sorted: List<Long>, p: Double): Long {
    val n = sorted.size.toLong()
    val parts = (p * 10_000).roundToLong()
    val rank = ((parts * n + 999_999) / 1_000_000).coerceIn(1, n)
    return sorted[(rank - 1).toInt()]
}

/** A median across repeats and its 95 % interval (nulls: none). */
data class MedianInterval(val median: Double?, val low: Double?, val high: Double?) {
    fun json() = linkedMapOf("median" to median, "low" to low, "high" to high)

    companion object {
        val NONE = MedianInterval(null, null, null)
    }
}

/** ns per operation and operations per second: both monotone in the time, so their order
 *  statistics are the times' own (the slowest repeat gives the lowest rate). */
fun figures(times: List<Long>, ops: Long): Pair<MedianInterval, MedianInterval> {
    if (times.isEmpty() || ops == 0L) return Pair(MedianInterval.NONE, MedianInterval.NONE)
    val sorted = times.sorted()
    val o = ops.toDouble()
    fun perOp(ns: Long) = ns / o
    fun rate(ns: Long) = o * 1e9 / ns
    val median = nearestRank(sorted, 50.0)
    val ranks = medianIntervalRanks(sorted.size)
        ?: return Pair(MedianInterval(perOp(median), null, null), MedianInterval(rate(median), null, null))
    val (low, high) = ranks
    return Pair(
        MedianInterval(perOp(median), perOp(sorted[low - 1]), perOp(sorted[high - 1])),
        MedianInterval(rate(median), rate(sorted[high - 1]), rate(sorted[low - 1])),
    )
}
