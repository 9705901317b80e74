package bulkhead.lab.faults

import bulkhead.lab.process.{Children, Launch, SeedRedis, Served, Stack}
import bulkhead.lab.report.Environment
import bulkhead.lab.run.Progress
import bulkhead.stub.Latency

import java.nio.file.Path
import scala.concurrent.duration.*
import scala.util.control.NonFatal

/** The faults run in one SOAP mode of the service (`non-blocking`, `blocking`, `virtual`); empty `faults` = all. */
final case class ModePlan(mode: String, faults: Set[String] = Set.empty):
  def cases(only: Set[String]): Seq[FaultCase] =
    FaultCase.all.filter(c => (faults.isEmpty || faults(c.name)) && (only.isEmpty || only(c.name)))

/**
 * The configuration of a faults suite run. The service runs with the settings `./bulkhead serve` ships (read from its
 * build, see [[ServiceDefaults]]); the suite sets only what a lab must: where the stub and Redis are, the SOAP mode,
 * and how long each phase lasts. The overload ramp alone runs a service with `rampMaxInFlight` (0.5x..3x of the
 * shipped 4,000 at the third party's latency would be 2,000..12,000 users on this machine's 2 cores).
 */
final case class FaultSuiteSettings(phases: Phases, rampStep: FiniteDuration, modes: Seq[ModePlan],
    steadyUsers: Int = 100, rampMaxInFlight: Int = 100, stubLatencyMs: Int = 500, customers: Int = 1000,
    only: Set[String] = Set.empty, warmUp: FiniteDuration = 10.seconds, rampWarmUp: FiniteDuration = 20.seconds):
  def runs: Seq[(ModePlan, Seq[FaultCase])] = modes.map(m => m -> m.cases(only)).filter(_._2.nonEmpty)
  def stubLatency: Latency.Fixed = Latency.Fixed(stubLatencyMs)

object FaultSuiteSettings:
  val Modes: Seq[String] = Seq("non-blocking", "blocking", "virtual")
  /** The faults that hold a SOAP call's thread (its whole timeout) in the blocking and virtual clients. */
  val ThreadHolding: Set[String] = Set("no-answer", "trickle")

  /**
   * Every fault in non-blocking mode; in blocking mode the faults that hold its threads, in virtual mode the trickle
   * (whose body the JDK client's own timeout does not cover): the plan of the CI's ~7 minutes. `--soap-modes` runs
   * every fault in each mode.
   */
  val CiPlan: Seq[ModePlan] =
    Seq(ModePlan("non-blocking"), ModePlan("blocking", ThreadHolding), ModePlan("virtual", Set("trickle")))

  /**
   * The lab's shortened hold times (what the suite profile may shorten; no setting of the service): 2 s of load
   * before a fault, the fault held 3 s (4.5 s, past the shipped 3 s SOAP timeout, for the faults that fail only
   * there), 5.5 s after it (recovery is checked within 5 s).
   */
  val Short: FaultSuiteSettings = FaultSuiteSettings(Phases(2.seconds, 3.seconds, 4500.millis, 5500.millis),
    3.seconds, CiPlan, warmUp = 8.seconds, rampWarmUp = 10.seconds)
  val Full: FaultSuiteSettings = FaultSuiteSettings(Phases(6.seconds, 10.seconds, 12.seconds, 10.seconds),
    8.seconds, CiPlan, warmUp = 10.seconds, rampWarmUp = 20.seconds)

/**
 * `./bulkhead lab faults`: the fault matrix under load in each SOAP mode, then the overload ramp, on a real
 * redis-server, the real stub and the service, each in its own process on loopback. Returns the report.
 */
object FaultSuite:
  def run(s: FaultSuiteSettings, launch: Launch, work: Path, command: String, progress: String => Unit)
      : FaultReport =
    val stack = Stack(launch, work)
    val env = Environment.read(launch)
    val shipped = ServiceDefaults.read(launch.serviceClasspath)
    require(s.stubLatencyMs * 10 > shipped.soapTimeout.toMillis * 11 / 10,
      s"latency-x10 (${s.stubLatencyMs * 10} ms) must be clearly past the SOAP timeout (${shipped.soapTimeout}): " +
        "calls that race the timeout answer or not by chance")
    require(s.phases.holdPastTimeout >= shipped.soapTimeout + 1500.millis, s"faults that fail at the SOAP timeout " +
      s"(${shipped.soapTimeout}) must be held past it, long enough for the breaker to see their failures")
    val setup = Seq(
      s"the service with the settings `./bulkhead serve` ships: ${shipped.describe}; the suite sets only the stub's " +
        "and Redis's addresses and the SOAP mode",
      s"${s.steadyUsers} steady keep-alive users on /customers/{id} (ids 1..${s.customers})",
      s"stub latency fixed ${s.stubLatencyMs} ms",
      s"phases: ${s.phases.baseline.toMillis / 1000.0} s before, ${s.phases.hold.toMillis / 1000.0} s held " +
        s"(${s.phases.holdPastTimeout.toMillis / 1000.0} s for faults that fail at the SOAP timeout), " +
        s"${s.phases.recovery.toMillis / 1000.0} s after",
      "users wait Retry-After (at most 5 s) after a 503; new clients in the connection faults want an answer within " +
        "5 s",
      s"modes: ${s.runs.map((m, cs) => s"${m.mode} (${if cs.size == FaultCase.all.size then "every fault"
        else cs.map(_.name).mkString(", ")})").mkString("; ")}",
      s"overload ramp (non-blocking): max-in-flight ${s.rampMaxInFlight} instead of ${shipped.maxInFlight}, " +
        s"${s.rampStep.toSeconds} s per step (at ${s.stubLatencyMs} ms a limit of ${s.rampMaxInFlight} in flight is " +
        s"${s.rampMaxInFlight * 1000 / s.stubLatencyMs} req/s, under what this machine's CPU serves with the lab and " +
        "the stub beside it)")
    var failures = Vector.empty[String]
    var outcomes = Vector.empty[FaultOutcome]
    var suiteChecks = Vector.empty[(String, Check)]
    var redis = stack.redis()
    try
      SeedRedis.load(s"redis://127.0.0.1:${redis.port}", s.customers)
      val stub = stack.stub(Seq("--latency", s.stubLatency.describe, "--customers", s.customers.toString))
      def serviceFlags(mode: String) = Seq("--soap-endpoint", stub.url("/soap"), "--redis-uri",
        s"redis://127.0.0.1:${redis.port}", "--soap-mode", mode)
      // Steps: per mode a start and warm-up, then each fault (its phases and a few seconds to inject and clear; the
      // connection faults open and close 16,000 connections), then the ramp (a fresh service).
      def estimate(f: FaultCase) = s.phases.total(f).toSeconds + (if f.name.contains("connection-exhaustion") ||
        f.name == "slowloris" then 30.0 else 3.0)
      val estimates = s.runs.flatMap((_, cases) => (8.0 + s.warmUp.toSeconds) +: cases.map(estimate)) :+
        (8.0 + s.rampWarmUp.toSeconds + OverloadRamp.Factors.size * s.rampStep.toSeconds)
      val steps = Progress(estimates)
      var step = 0
      def next(): String =
        val header = steps.start(step)
        step += 1
        header
      for (plan, cases) <- s.runs do
        progress(s"${next()} ${plan.mode}: start and warm-up, then ${cases.size} faults")
        var service: Option[Served] = None
        try
          service = Some(stack.service(serviceFlags(plan.mode), heap = "-Xmx1g"))
          val runner = FaultRunner(stack, redis, stub, service.get, s.steadyUsers, shipped.maxConnections,
            s.customers, s.stubLatency, progress)
          runner.warmUp(s.warmUp)
          val records = cases.flatMap { fault =>
            progress(s"${next()} ${plan.mode} ${fault.name}")
            try
              val record = runner.run(fault, s.phases)
              Some(fault -> record)
            catch
              case NonFatal(e) =>
                failures :+= s"${plan.mode} ${fault.name}: ${e.getMessage}"
                progress(s"  did not run: ${e.getMessage}")
                None
          }
          val baseline = records.headOption.map(_._2.before)
          records.foreach { (fault, record) =>
            val checks = FaultVerdict.checks(record, fault.expect, baseline.get)
            checks.filterNot(_.passed).foreach(c =>
              progress(s"  ${plan.mode} ${fault.name}: FAIL ${c.name}: ${c.detail}"))
            outcomes :+= FaultOutcome(plan.mode, fault, record, checks)
          }
          redis = runner.redis
          val wide = FaultVerdict.suiteChecks(records.map(_._2))
          wide.foreach(c =>
            progress(s"  ${plan.mode} suite: ${if c.passed then "pass" else "FAIL"} ${c.name}: ${c.detail}"))
          suiteChecks ++= wide.map(plan.mode -> _)
        catch
          case NonFatal(e) =>
            failures :+= s"${plan.mode}: ${e.getMessage}"
            progress(s"  ${plan.mode} did not run: ${e.getMessage}")
        finally service.foreach(_.child.stop())
      // A mode that did not start skipped its faults' steps: the ramp is the last step.
      progress(s"${steps.start(estimates.size - 1)} overload ramp: ${OverloadRamp.Factors.mkString("x, ")}x of " +
        s"max-in-flight ${s.rampMaxInFlight}")
      val rampService = stack.service(
        serviceFlags("non-blocking") ++ Seq("--max-in-flight", s.rampMaxInFlight.toString), heap = "-Xmx1g")
      // A fresh JVM spends its first ~30 s compiling (C1+C2 took ~7.6 s of CPU in 30 s here): warm it longer.
      FaultRunner.warmUp(rampService, s.rampMaxInFlight, n => s"/customers/${n % s.customers + 1}", s.rampWarmUp)
      val ramp = OverloadRamp.run(rampService, s.rampMaxInFlight, s.customers, s.rampStep, progress)
      rampService.child.stop()
      val rampChecks = OverloadRamp.checks(ramp, s.stubLatencyMs)
      rampChecks.foreach(c => progress(s"  ${if c.passed then "pass" else "FAIL"} ${c.name}: ${c.detail}"))
      progress(s"  ramp ${steps.finish()}; the faults suite took ${Progress.duration(steps.elapsed)}")
      FaultReport(command, env, setup, outcomes, suiteChecks, ramp, rampChecks, failures)
    finally Children.stopAll()
