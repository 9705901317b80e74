package bulkhead.lab.record

import bulkhead.lab.model.LoadFigures
import bulkhead.lab.sample.{Sample, TargetDeath}

/** A warning or error line of the service's log (numbers and addresses masked) and how often it came. */
final case class LogLine(text: String, count: Int)

/**
 * The samples of one service node of a cluster run, by its cluster address (`host:port`), and its processes read just
 * before and after the load.
 */
final case class NodeSamples(node: String, samples: Seq[Sample], beforeLoad: Option[Sample] = None,
    afterLoad: Option[Sample] = None)

/**
 * Everything one run measured, as written to `result.json`: what ran, the load driver's figures, the samples of the
 * served process, the attempts before the measured one, and the service log's warnings. The diagnosis and the report
 * read only this.
 *
 * @param samples the served process's samples; on a cluster, the front's (the node loaded)
 * @param measuredFrom seconds after the load started at which the measured phase begins (a ramp's ramp-up)
 * @param beforeLoad the processes from /proc just before the load started (runs recorded without it have none)
 * @param afterLoad the same just after the load ended: with `beforeLoad`, the CPU the whole load cost
 * @param otherNodes on a cluster, every node but the front, sampled in the same rounds
 * @param fault a fault run's fault (`lab faults`, `lab cluster-faults`): what was injected when, and what came of it
 * @param overload the overload ramp's steps (`lab faults`)
 * @param goodput one SOAP mode's undersized pool above its cap (`lab faults`)
 * @param sampling what the sampling did to the sampled JVM: its source and why, its interval, its pauses
 * @param death the sampled process's end during the run: the run stopped there, and its figures are empty
 */
final case class RunRecord(info: RunInfo, load: LoadFigures, samples: Seq[Sample], measuredFrom: Double,
    measuredTo: Double, attempts: Seq[Double], log: Seq[LogLine], beforeLoad: Option[Sample] = None,
    afterLoad: Option[Sample] = None, otherNodes: Seq[NodeSamples] = Nil, fault: Option[FaultTimeline] = None,
    overload: Option[Overload] = None, goodput: Option[Goodput] = None, sampling: Option[SamplingRecord] = None,
    death: Option[TargetDeath] = None):
  def throughput: Double = load.throughput(info.expectedClass)

  /** The answers per second between the samples inside the load, where the driver counted them second by second. */
  def sampledRates: Option[SampledRates] =
    SampledRates.of(load.seconds, LoadWindow.between(samples, measuredFrom, measuredTo), info.expectedClass)

  /** A fault run second by second: its requests by outcome beside the sample of each second. */
  def faultSeconds: Seq[FaultSecond] = fault.fold(Nil)(FaultTimeline.seconds(_, samples))
  /** Samples of the measured phase that read the load, not its start or its end ([[LoadWindow]]). */
  def measuredSamples: Seq[Sample] = measured(samples)

  /** Each service node's samples of the measured phase, the front's first: one entry for one service. */
  def measuredByNode: Seq[NodeSamples] =
    NodeSamples(info.nodes.headOption.getOrElse(info.target), measuredSamples, beforeLoad, afterLoad) +:
      otherNodes.map(n => n.copy(samples = measured(n.samples)))

  private def measured(all: Seq[Sample]): Seq[Sample] = LoadWindow.samples(all, measuredFrom, measuredTo)
