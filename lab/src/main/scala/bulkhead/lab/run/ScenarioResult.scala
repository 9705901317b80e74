package bulkhead.lab.run

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.sample.PoolSample
import bulkhead.lab.scenario.Scenario

/** One sample of a run: seconds since the measured load started, live throughput, threads, pools. */
final case class TimePoint(second: Double, requestsPerSecond: Option[Double], platformThreads: Option[Int],
    residentMb: Option[Double], openConnections: Option[Double], pools: Seq[PoolSample])

/** What the load driver reported for the measured phase. */
final case class LoadFigures(requestsPerSecond: Double, meanMs: Double, p50Ms: Double, p99Ms: Double, maxMs: Double,
    requests: Long, errors: Long, connectErrors: Long, non2xx: Long, raw: String)

/** Everything one scenario run produced. */
final case class ScenarioResult(scenario: Scenario, figures: LoadFigures, timeline: Seq[TimePoint],
    diagnosis: Diagnosis, poolSizes: Map[String, Int], serviceCores: Double, machineBusy: Double, jdk: String,
    attempts: Seq[Double], serviceLog: String):
  /** The Little's-law bound the scenario is compared to: the diagnosis's predicted cap. */
  def bound: Double = diagnosis.predicted
  def ratio: Double = figures.requestsPerSecond / bound
