package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{Children, Stack}

import scala.concurrent.duration.*

/**
 * What a service holds once a load is over: its platform threads (every thread of one thread dump), the same by pool,
 * and heap used after a full GC. None where the reading failed: a dump that failed, or a heap read without a full GC.
 */
final case class Retained(platformThreads: Option[Int], heapMb: Option[Double], pools: Map[String, Int] = Map.empty)

object Retained:
  /**
   * Threads from one thread dump, not from /proc: a /proc count beside a dump taken a moment apart mixed two instants.
   * By pool, so that a check that fails names the pool that grew. The heap from `metricsUrl` (bulkhead's /metrics)
   * right after a full GC.
   */
  def read(pid: Long, metricsUrl: String): Retained =
    val heap = heapAfterGc(pid, metricsUrl)
    ThreadSampler.sample(pid).orElse(ThreadSampler.sample(pid)) match
      case Right(pools) if pools.nonEmpty =>
        Retained(Some(pools.map(_.threads).sum), heap, pools.map(p => p.pool -> p.threads).toMap)
      case _ => Retained(None, heap)

  /**
   * The heap used right after a full GC, from `metricsUrl` (bulkhead's /metrics): one stop of the service, no thread
   * dump (what a reading in the middle of a fault needs, where every pause of the service counts). The GC runs
   * inside `pause`, for a caller that keeps the time the service was stopped apart.
   */
  def heapAfterGc(pid: Long, metricsUrl: String, pause: (() => Boolean) => Boolean = _()): Option[Double] =
    // Without the full GC the heap figure is allocation noise, not what is retained: no reading then.
    val collected = pause(() => Attach.jcmd(pid, "GC.run")
      .orElse(Children.runToCompletion(Seq(ThreadSampler.jcmd, pid.toString, "GC.run"), 30.seconds)).isRight)
    Thread.sleep(200)
    Stack.get(metricsUrl, 5.seconds).toOption.filter(_ => collected).flatMap(t => MetricsReading.parse(t).heapUsedMb)
