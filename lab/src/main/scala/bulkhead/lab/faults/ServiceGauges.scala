package bulkhead.lab.faults

import bulkhead.lab.process.Stack
import bulkhead.lab.sample.{Attach, MetricsScrape, PoolNames, ProcessThreads, ThreadSampler}

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The service's gauges once a second while a fault runs (/metrics and /proc), and its resources around a run. */
final class ServiceGauges(pid: Long, metricsUrl: String):
  /** Breaker, threads, heap, connections, in-flight and degraded answers at each second since `t0Nanos`. */
  def sampleEverySecond(t0Nanos: Long): ServiceGauges.Sampling =
    val rows = ConcurrentHashMap[Int, SecondRow]()
    val running = AtomicBoolean(true)
    val thread = Thread(() =>
      while running.get do
        val second = ((System.nanoTime() - t0Nanos) / 1_000_000_000L).toInt
        val scrape = Stack.get(metricsUrl, 2.seconds).toOption.map(MetricsScrape.parse)
        val threads = ProcessThreads.read(pid).map(_.threads)
        def g(name: String) = scrape.flatMap(_.get(name))
        rows.put(second, SecondRow(second, Map.empty, Double.NaN, Double.NaN, g("soap_circuit_state"), threads,
          scrape.map(ServiceGauges.heapMb), g("http_server_connections_open"), g("enrichment_in_flight"),
          g("enrichment_loyalty_unavailable_total")))
        val next = t0Nanos + (second + 1) * 1_000_000_000L
        val wait = (next - System.nanoTime()) / 1_000_000L
        if wait > 0 then Thread.sleep(wait)
    , "lab-fault-gauges")
    thread.setDaemon(true)
    thread.start()
    ServiceGauges.Sampling(() =>
      running.set(false)
      thread.join(5000)
      rows.asScala.toMap)

  /**
   * Platform threads and heap used after a full GC: what must come back. Threads come from one thread dump (a /proc
   * count beside a dump taken a moment apart mixed two instants), without HotSpot's GC/JIT/VM threads and without the
   * fork-join dispatchers' workers, which those pools start and retire on demand (-15..+16 between faults while every
   * fixed pool kept its size).
   */
  def resources(): Resources =
    Attach.jcmd(pid, "GC.run")
    Thread.sleep(200)
    val heap = Stack.get(metricsUrl, 5.seconds).toOption.map(t => ServiceGauges.heapMb(MetricsScrape.parse(t)))
    val pools = ThreadSampler.sample(pid).orElse(ThreadSampler.sample(pid)).getOrElse(Nil)
    val own = pools.filterNot(p => ServiceGauges.onDemand(p.pool)).map(_.threads).sum
    Resources(if pools.isEmpty then -1 else own, heap.getOrElse(Double.NaN))

object ServiceGauges:
  /**
   * Pools whose size moves by itself: fork-join workers (Pekko's default and internal dispatchers, the JDK's common
   * pool and virtual-thread carriers, named ForkJoinPool-N-worker or, once seen carrying, virtual-carriers) and
   * HotSpot's own GC, JIT and VM threads.
   */
  def onDemand(pool: String): Boolean =
    pool.endsWith("default-dispatcher") || pool.endsWith("internal-dispatcher") || pool.startsWith("ForkJoinPool") ||
      pool == PoolNames.VirtualCarriers ||
      Seq("GC Thread", "G1 ", "C1 CompilerThre", "C2 CompilerThre", "VM ").exists(pool.startsWith)

  final class Sampling(val stop: () => Map[Int, SecondRow])

  def heapMb(s: MetricsScrape): Double =
    s.values.collect { case (k, v) if k.startsWith("jvm_memory_used_bytes{area=\"heap\"") => v }.sum / 1024 / 1024
