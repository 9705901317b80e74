package bulkhead.lab.diagnose

import bulkhead.lab.sample.PoolSample

/** What the lab saw during the measured part of a run: the input of a diagnosis. */
final case class Observation(
    requestsPerSecond: Double,
    meanLatencySeconds: Double,
    clients: Int,
    /** Seconds a request holds a thread of the pool that does its work (0 when the scenario does not say). */
    workSeconds: Double,
    /** Thread samples of the service, each a list of pools. */
    samples: Seq[Seq[PoolSample]],
    /** Configured size of each pool that can cap throughput, by its label (the end of its thread-name prefix). */
    poolSizes: Map[String, Int],
    /** The service's own CPU use in cores, and the machine's busy share (0..1) over the run. */
    serviceCores: Double,
    machineBusy: Double,
    cores: Int,
    openConnections: Option[Double],
    maxConnections: Option[Int],
    connectErrors: Long,
    /** The third party's latency in seconds, when the scenario has one. */
    thirdPartySeconds: Option[Double])
