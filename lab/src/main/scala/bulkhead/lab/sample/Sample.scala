package bulkhead.lab.sample

/**
 * The service at one instant of a run: its pools from a thread dump, its process from /proc (platform threads,
 * resident memory, CPU seconds so far), the machine's CPU ticks so far, and its /metrics when it has them.
 */
final case class Sample(second: Double, pools: Seq[PoolSample], platformThreads: Option[Int],
    residentMb: Option[Double], cpuSeconds: Option[Double], machineBusyTicks: Option[Long],
    machineTotalTicks: Option[Long], metrics: Option[MetricsReading])
