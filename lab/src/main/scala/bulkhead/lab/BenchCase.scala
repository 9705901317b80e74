package bulkhead.lab

import bulkhead.lab.diagnose.Bound

import scala.concurrent.duration.FiniteDuration

/** One configuration measured by a benchmark: the server (bulkhead or a peer), its flags, the load, the bound. */
final case class BenchCase(name: String, serviceArgs: Seq[String], path: String, connections: Int, threads: Int,
    bound: Option[Bound], note: String, target: String = bulkhead.lab.process.Target.Bulkhead,
    heap: String = BenchCase.DefaultHeap)

object BenchCase:
  /** The service's heap unless a case sets its own (the lab's default for the service). */
  val DefaultHeap = "-Xmx2g"

/** One measured run of a case. */
final case class BenchRun(benchCase: BenchCase, round: Int, requestsPerSecond: Double, p50Ms: Option[Double],
    p99Ms: Option[Double], socketErrors: Long, non2xx: Long, maxPlatformThreads: Int, maxResidentMb: Double,
    poolPeaks: Map[String, Double], wrkOutput: String)
