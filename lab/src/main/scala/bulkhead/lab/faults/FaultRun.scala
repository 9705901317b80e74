package bulkhead.lab.faults

import bulkhead.lab.load.LoadDriver
import bulkhead.lab.model.{Bound, Target}
import bulkhead.lab.record.{RecordJson, RunInfo, RunRecord, ServiceLog}
import bulkhead.lab.run.Measurement
import bulkhead.lab.sample.ProcessSampler
import bulkhead.stub.Latency

import java.nio.file.Path
import java.time.Instant
import scala.concurrent.duration.*

/**
 * One run of the faults suite or of cluster-faults, measured as every run of the lab is ([[Measurement]]): its load
 * driver on the front's URL while every node is sampled, recorded as a [[RunRecord]] with what the caller adds (the
 * fault's timeline, the ramp's steps) and written as result.json in the run's own directory.
 */
object FaultRun:
  /** The breaker's state and the answers degraded move within a second: the verdict reads them each second. */
  val SampleEvery: FiniteDuration = 1.second

  /**
   * Runs `driver` while `samplers` (the front's first, then the other nodes' in the order of `info.nodes`) sample
   * every [[SampleEvery]]; the warnings the services' `logs` got meanwhile (read again at the end: a node started
   * again has a new one) go into the record, which `complete` finishes.
   */
  def measure(info: RunInfo, driver: LoadDriver, samplers: Seq[ProcessSampler], logs: => Seq[Path], dir: Path,
      progress: String => Unit)(complete: RunRecord => RunRecord): RunRecord =
    val ends = ServiceLog.ends(logs)
    val outcomes = Measurement.runNodes(driver, info.url, dir, samplers, SampleEvery, progress)
      .fold(e => throw IllegalStateException(e), identity)
    val record = complete(Measurement.record(info, driver, outcomes, info.nodes.drop(1), Nil,
      ServiceLog.readSince(logs.map(l => l -> ends.getOrElse(l, 0L)).toMap)))
    RecordJson.write(record, dir)
    record.death.foreach(d => throw IllegalStateException(s"the service ${d.sentence}"))
    record

  /**
   * What a run records about itself: `flags` are the service's flags the command set (not the addresses of Redis and
   * the stub), `settings` the service's settings in a sentence, `source` the command.
   */
  def info(name: String, title: String, url: String, driver: LoadDriver, flags: Seq[String], stubLatency: Latency,
      customers: Int, heap: String, settings: String, source: String, nodes: Seq[String] = Nil,
      bound: Option[Bound] = None): RunInfo =
    RunInfo(name, title, Target.Bulkhead.name, url, driver.describe(url), driver.concurrency, flags,
      Some(stubLatency.describe), Some(customers), None, None, "2xx", None, source, RunInfo.servedJdk,
      Runtime.getRuntime.availableProcessors(), Instant.now().toString, heap = Some(heap), nodes = nodes,
      declaredBound = bound, settings = Some(settings))
