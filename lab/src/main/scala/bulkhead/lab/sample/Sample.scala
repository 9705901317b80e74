package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading

/**
 * The service at one instant of a run: its pools from a thread dump, its process from /proc (platform threads,
 * resident memory, CPU seconds so far of the process and its children), the machine's CPU ticks so far, its /metrics
 * when it has them, the CPU seconds so far of the processes it depends on (the stub, redis-server), by name, and of
 * its JIT compiler threads (a JVM's; part of `cpuSeconds`), the resources its threads waited on ([[WaitGraph]]), and
 * its outbound TCP connections by remote address ([[OutboundConnections]]), the JVM's safepoints so far (its perf
 * counters, [[PerfCounters]]), the CPU seconds so far of the lab itself (the sampler's own cost, on a machine it
 * shares with the service), how long this sample's dump stopped the JVM ([[SamplePause]]), and the virtual threads
 * alive at its instant when JFR streamed their starts and ends ([[VirtualThreadWaits]]).
 */
final case class Sample(second: Double, pools: Seq[PoolSample], platformThreads: Option[Int],
    residentMb: Option[Double], cpuSeconds: Option[Double], machineBusyTicks: Option[Long],
    machineTotalTicks: Option[Long], metrics: Option[MetricsReading],
    dependencyCpuSeconds: Map[String, Double] = Map.empty, jitCpuSeconds: Option[Double] = None,
    resources: Seq[ResourceSample] = Nil, outbound: Map[String, Int] = Map.empty,
    safepoints: Option[Safepoints] = None, labCpuSeconds: Option[Double] = None, pause: Option[SamplePause] = None,
    virtualThreads: Option[Int] = None)
