package bulkhead.lab.model

import org.HdrHistogram.Histogram

import java.nio.ByteBuffer
import java.util.Base64

/**
 * A latency distribution in HdrHistogram form (microseconds, 3 significant digits), kept with the figures it gives so
 * a result file is readable without decoding it. Every load driver reports latencies this way.
 */
final case class Latencies(count: Long, meanMs: Double, p50Ms: Double, p90Ms: Double, p99Ms: Double, p999Ms: Double,
    maxMs: Double, histogram: String):
  /** The distribution itself, decoded. */
  def decode: Histogram =
    if histogram.isEmpty then Latencies.newHistogram()
    else Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder.decode(histogram)), 0)

  /** Latency at a percentile (0..100), in ms. */
  def percentileMs(p: Double): Double = if count == 0 then 0.0 else decode.getValueAtPercentile(p) / 1000.0

object Latencies:
  /** Up to an hour, in microseconds. */
  private val HighestMicros = 3_600_000_000L

  def newHistogram(): Histogram = Histogram(1, HighestMicros, 3)

  val Empty: Latencies = of(newHistogram())

  def of(h: Histogram): Latencies =
    val n = h.getTotalCount
    def ms(v: Double) = if n == 0 then 0.0 else v / 1000.0
    val buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity)
    val size = h.encodeIntoCompressedByteBuffer(buffer)
    Latencies(n, ms(h.getMean), ms(h.getValueAtPercentile(50).toDouble), ms(h.getValueAtPercentile(90).toDouble),
      ms(h.getValueAtPercentile(99).toDouble), ms(h.getValueAtPercentile(99.9).toDouble), ms(h.getMaxValue.toDouble),
      Base64.getEncoder.encodeToString(java.util.Arrays.copyOf(buffer.array(), size)))

  /** A histogram of latencies in milliseconds. */
  def ofMillis(values: Iterable[Double]): Latencies =
    val h = newHistogram()
    values.foreach(v => h.recordValue(math.max(1L, (v * 1000).round).min(HighestMicros)))
    of(h)

  /**
   * A distribution given as its quantiles (wrk prints its own histogram only as percentiles): `quantiles` are
   * (percentile, microseconds) points that split `count` answers into equal shares, each recorded at its value.
   */
  def fromQuantiles(quantiles: Seq[(Double, Long)], count: Long, maxMicros: Long): Latencies =
    val h = newHistogram()
    val points = quantiles.sortBy(_._1)
    if count > 0 && points.nonEmpty then
      val k = points.size
      points.zipWithIndex.foreach { case ((_, v), i) =>
        val share = count * (i + 1) / k - count * i / k
        // The slowest answer is the maximum wrk printed: one of the last share is recorded there.
        val atMax = if i == k - 1 && maxMicros > v && share > 0 then 1L else 0L
        if share - atMax > 0 then h.recordValueWithCount(v.max(1L).min(HighestMicros), share - atMax)
        if atMax > 0 then h.recordValue(maxMicros.min(HighestMicros))
      }
    of(h)
