package bulkhead.lab.load

/** Socket errors wrk counted. */
final case class SocketErrors(connect: Long, read: Long, write: Long, timeout: Long):
  def total: Long = connect + read + write + timeout

/** What one wrk run reported. Latencies in milliseconds; percentiles present when wrk ran with --latency. */
final case class WrkResult(
    threads: Int,
    connections: Int,
    requests: Long,
    durationSeconds: Double,
    requestsPerSecond: Double,
    latencyAvgMs: Double,
    latencyMaxMs: Double,
    percentilesMs: Map[Int, Double],
    errors: SocketErrors,
    non2xx: Long):
  def p50: Option[Double] = percentilesMs.get(50)
  def p99: Option[Double] = percentilesMs.get(99)
