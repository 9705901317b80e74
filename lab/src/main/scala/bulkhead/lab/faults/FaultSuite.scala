package bulkhead.lab.faults

import bulkhead.lab.SeedRedis
import bulkhead.lab.process.{Children, Launch, Stack}
import bulkhead.lab.report.Environment
import bulkhead.lab.run.Progress

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.util.control.NonFatal

/** The configuration of a faults suite run. */
final case class FaultSuiteSettings(phases: Phases, rampStep: FiniteDuration, steadyUsers: Int = 100,
    maxConnections: Int = 200, maxInFlight: Int = 300, rampMaxInFlight: Int = 100, stubLatencyMs: Int = 500,
    customers: Int = 1000, breakerReset: FiniteDuration = 1.second, soapTimeout: FiniteDuration = 3.seconds,
    only: Set[String] = Set.empty,
    warmUp: FiniteDuration = 10.seconds, rampWarmUp: FiniteDuration = 20.seconds):
  require(stubLatencyMs * 10 > soapTimeout.toMillis * 3 / 2,
    s"latency-x10 (${stubLatencyMs * 10} ms) must be well past the SOAP timeout (${soapTimeout.toMillis} ms)")
  def cases: Seq[FaultCase] = FaultCase.all.filter(c => only.isEmpty || only.contains(c.name))

object FaultSuiteSettings:
  /**
   * Under 5 minutes here: the hold (6 s) past the SOAP timeout (3 s), recovery just past the 5 s bound. The timeout is
   * below latency-x10's 5 s (10 x 500 ms): at the service's default of 5 s, calls raced the timeout, some answered and
   * reset the breaker's count of consecutive failures, and the breaker opened or not by chance (seen in CI).
   */
  val Short: FaultSuiteSettings = FaultSuiteSettings(Phases(3.seconds, 6.seconds, 5500.millis), 4.seconds,
    warmUp = 8.seconds, rampWarmUp = 15.seconds)
  val Full: FaultSuiteSettings = FaultSuiteSettings(Phases(6.seconds, 12.seconds, 10.seconds), 8.seconds,
    warmUp = 10.seconds, rampWarmUp = 20.seconds)

/**
 * `./bulkhead lab faults`: the fault matrix under load, then the overload ramp, on a real redis-server, the real stub
 * and the service, each in its own process on loopback. Returns the report.
 */
object FaultSuite:
  def run(s: FaultSuiteSettings, launch: Launch, work: Path, command: String, progress: String => Unit)
      : FaultReport =
    val stack = Stack(launch, work)
    val env = Environment.read(launch)
    val setup = Seq(s"${s.steadyUsers} steady keep-alive users on /customers/{id} (ids 1..${s.customers})",
      s"stub latency fixed ${s.stubLatencyMs} ms", s"service max-connections ${s.maxConnections}, max-in-flight " +
        s"${s.maxInFlight}, SOAP timeout ${s.soapTimeout.toSeconds} s, circuit breaker 20 failures / reset " +
        s"${s.breakerReset.toSeconds} s",
      s"phases: ${s.phases.baseline.toMillis / 1000.0} s before, ${s.phases.hold.toMillis / 1000.0} s held, " +
        s"${s.phases.recovery.toMillis / 1000.0} s after", "users wait Retry-After (at most 5 s) after a 503",
      s"overload ramp: max-connections 16384, max-in-flight ${s.rampMaxInFlight}, ${s.rampStep.toSeconds} s per step " +
        "(at 500 ms a limit of 100 in flight is 200 req/s, under what this machine's CPU serves with the lab and " +
        "the stub beside it)")
    var failures = Vector.empty[String]
    val redis = stack.redis()
    try
      SeedRedis.load(s"redis://127.0.0.1:${redis.port}", s.customers)
      val stub = stack.stub(Seq("--latency", s"fixed:${s.stubLatencyMs}", "--customers", s.customers.toString))
      def serviceFlags(maxConnections: Int, maxInFlight: Int) = Seq("--max-connections", maxConnections.toString,
        "--max-in-flight", maxInFlight.toString, "--soap-endpoint", stub.url("/soap"), "--redis-uri",
        s"redis://127.0.0.1:${redis.port}", "--set",
        s"bulkhead.enrichment.soap.circuit-breaker.reset-timeout=${s.breakerReset.toMillis}ms", "--set",
        s"bulkhead.enrichment.soap.request-timeout=${s.soapTimeout.toMillis}ms")
      val service = stack.service(serviceFlags(s.maxConnections, s.maxInFlight), heap = "-Xmx1g")
      val runner = FaultRunner(stack, redis, stub, service, s.steadyUsers, s.maxConnections, s.customers,
        s"fixed:${s.stubLatencyMs}", progress)
      progress(s"faults suite: ${s.cases.size} faults x ${s.phases.total.toSeconds} s, then the overload ramp")
      // Steps: the warm-up, each fault (its phases and a few seconds to inject and clear), the ramp (a fresh service).
      val steps = Progress(s.warmUp.toSeconds.toDouble +: s.cases.map(_ => s.phases.total.toSeconds + 3.0) :+
        (8.0 + s.rampWarmUp.toSeconds + OverloadRamp.Factors.size * s.rampStep.toSeconds))
      progress(s"${steps.start(0)} warm-up")
      runner.warmUp(s.warmUp)
      val outcomes = s.cases.zipWithIndex.flatMap { (fault, i) =>
        progress(s"${steps.start(i + 1)} ${fault.name}")
        try
          val record = runner.run(fault, s.phases)
          val checks = FaultVerdict.checks(record, fault.expect)
          checks.foreach(c => progress(s"  ${if c.passed then "pass" else "FAIL"} ${c.name}: ${c.detail}"))
          Some(FaultOutcome(fault, record, checks))
        catch
          case NonFatal(e) =>
            failures :+= s"${fault.name}: ${e.getMessage}"
            progress(s"  did not run: ${e.getMessage}")
            None
      }
      service.child.stop()
      progress(s"${steps.start(s.cases.size + 1)} overload ramp: ${OverloadRamp.Factors.mkString("x, ")}x of " +
        s"max-in-flight ${s.rampMaxInFlight}")
      val rampService = stack.service(serviceFlags(16384, s.rampMaxInFlight), heap = "-Xmx1g")
      // A fresh JVM spends its first ~30 s compiling (C1+C2 took ~7.6 s of CPU in 30 s here): warm it longer.
      FaultRunner.warmUp(rampService, s.rampMaxInFlight, n => s"/customers/${n % s.customers + 1}", s.rampWarmUp)
      val ramp = OverloadRamp.run(rampService, s.rampMaxInFlight, s.customers, s.rampStep, progress)
      rampService.child.stop()
      val rampChecks = OverloadRamp.checks(ramp, s.stubLatencyMs)
      rampChecks.foreach(c => progress(s"  ${if c.passed then "pass" else "FAIL"} ${c.name}: ${c.detail}"))
      progress(s"  ramp ${steps.finish()}; the faults suite took ${Progress.duration(steps.elapsed)}")
      FaultReport(command, env, setup, outcomes, ramp, rampChecks, failures)
    finally Children.stopAll()
