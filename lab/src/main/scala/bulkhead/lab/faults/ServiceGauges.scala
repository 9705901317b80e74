package bulkhead.lab.faults

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{Children, Stack}
import bulkhead.lab.sample.{Attach, ProcessThreads, ThreadSampler}

import scala.concurrent.duration.*

/** The service's gauges once a second while a fault runs (/metrics and /proc), and its resources around a run. */
final class ServiceGauges(pid: Long, metricsUrl: String):
  /** Breaker, threads, heap, connections, in-flight and degraded answers at each second since `t0Nanos`. */
  def sampleEverySecond(t0Nanos: Long): EverySecond[SecondRow] =
    EverySecond.start("lab-fault-gauges", t0Nanos) { second =>
      val m = Stack.get(metricsUrl, 2.seconds).toOption.map(MetricsReading.parse)
      val threads = ProcessThreads.read(pid).map(_.threads)
      SecondRow(second, Map.empty, Double.NaN, Double.NaN, m.flatMap(_.circuitState), threads,
        m.flatMap(_.heapUsedMb), m.flatMap(_.connectionsOpen), m.flatMap(_.enrichmentInFlight),
        m.flatMap(_.loyaltyUnavailable), m.flatMap(_.circuitOpenings))
    }

  /**
   * Platform threads and heap used after a full GC: what must come back. Threads are every thread of one thread dump
   * (a /proc count beside a dump taken a moment apart mixed two instants), by pool so that a failed check names the
   * pool that grew. A dump or a heap reading that fails is recorded as such (-1, NaN), and fails the checks.
   */
  def resources(): Resources =
    // Without the full GC the heap figure is allocation noise, not what is retained: no reading then.
    val collected = Attach.jcmd(pid, "GC.run")
      .orElse(Children.runToCompletion(Seq(ThreadSampler.jcmd, pid.toString, "GC.run"), 30.seconds)).isRight
    Thread.sleep(200)
    val heap = Stack.get(metricsUrl, 5.seconds).toOption.filter(_ => collected)
      .flatMap(t => MetricsReading.parse(t).heapUsedMb)
    ThreadSampler.sample(pid).orElse(ThreadSampler.sample(pid)) match
      case Right(pools) if pools.nonEmpty =>
        Resources(pools.map(_.threads).sum, heap.getOrElse(Double.NaN), pools.map(p => p.pool -> p.threads).toMap)
      case _ => Resources(-1, heap.getOrElse(Double.NaN))
