package bulkhead.lab.record

/**
 * One step of the overload ramp: users as a multiple of the in-flight limit, the window measured (seconds since the
 * load started, after the step's transition), and what the users and the probes of /hello and /health got in it.
 * Latencies are None where no answer of that kind came; `otherStatuses` are answers neither 200 nor 503, by status.
 */
final case class OverloadStep(factor: Double, users: Int, from: Double, to: Double, okPerSecond: Double,
    shedPerSecond: Double, okP50Ms: Option[Double], okP99Ms: Option[Double], shedP50Ms: Option[Double],
    shedWithoutRetryAfter: Int, otherStatuses: Map[String, Int], unanswered: Int, helloMaxMs: Option[Double],
    healthMaxMs: Option[Double], probesFailed: Int)

/** The overload ramp of `lab faults`: the service's in-flight limit, the third party's latency, each step. */
final case class Overload(maxInFlight: Int, stubLatencyMs: Double, steps: Seq[OverloadStep])
