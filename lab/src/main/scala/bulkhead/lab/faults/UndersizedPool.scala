package bulkhead.lab.faults

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{Dependencies, Served, Stack}
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.sample.ServiceSampler
import bulkhead.stub.Latency

import java.nio.file.Path
import java.util.concurrent.Executors
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.util.Try

/**
 * The undersized pool of `lab faults`: in each SOAP mode a service whose client runs `slots` calls at once (the host
 * pool's connections, the work queue's threads, the virtual threads' permits), every other setting as shipped,
 * `users` closed-loop users on /customers/{id} and the third party at `stubLatencyMs` (set on the suite's stub for the
 * step, and set back after). The cap is slots / latency; above it the service must serve the cap and refuse the rest.
 * `warmUp` is not counted, `window` after it is: three services just started side by side on 2 cores refused in up
 * to 4.3 s (JIT, the samplers' first dumps) in their first 6 s, and in about 1 s from then on.
 */
final case class UndersizedPool(slots: Int = 8, users: Int = 100, stubLatencyMs: Int = 1000,
    warmUp: FiniteDuration = 8.seconds, window: FiniteDuration = 12.seconds):
  require(users > 2 * slots, s"the undersized pool needs users well above its $slots slots, was $users")
  def stubLatency: Latency.Fixed = Latency.Fixed(stubLatencyMs)
  /** The step: the services started side by side, the load, the services stopped. */
  def estimateSeconds: Double = 12.0 + (warmUp + window).toSeconds

  /** The service's flags for `mode` with this pool's slots: every mode's knob of calls at once. */
  def flags(mode: String): Seq[String] =
    val keys = mode match
      case "blocking" => Seq("work-queue.core", "work-queue.max")
      case _ => Seq("max-connections")
    Seq("--soap-mode", mode) ++ keys.flatMap(k => Seq("--set", s"bulkhead.enrichment.soap.$k=$slots"))

object UndersizedPool:
  /** The step's name, for `--only`, and its directory. */
  val Name = "undersized-pool"

  /**
   * The modes side by side: their services wait on the third party far more than they compute (the users get the cap
   * and a 503 a second each), so together they take the time of one. Each has its own users and request log and is
   * written as `<dir>/<mode>/result.json`; the third party's peak is read over all of them at once. The stub's latency
   * is set back to `suiteLatency` after.
   */
  def run(u: UndersizedPool, modes: Seq[String], customers: Int, suiteLatency: Latency, shipped: ServiceDefaults,
      deps: Dependencies, stack: Stack, heap: String, dir: Path, progress: String => Unit): Seq[RunRecord] =
    val stub = deps.stub.getOrElse(throw IllegalStateException("the undersized pool needs the stub"))
    val pool = Executors.newFixedThreadPool(modes.size, r =>
      val t = Thread(r, "lab-undersized")
      t.setDaemon(true)
      t)
    given ExecutionContext = ExecutionContext.fromExecutor(pool)
    def all[A](fs: Seq[Future[A]]): Seq[Try[A]] =
      fs.map(f => Await.ready(f, Duration.Inf).value.get)
    val started = all(modes.map(m => Future(m -> stack.service(u.flags(m) ++ deps.serviceFlags, heap = heap,
      name = s"service-undersized-$m"))))
    val services = started.flatMap(_.toOption)
    try
      started.collectFirst { case scala.util.Failure(e) => throw e }
      val settings = s"the settings `./bulkhead serve` ships (${shipped.describe}) but the SOAP client's calls at " +
        s"once: ${u.slots} (non-blocking and virtual: soap.max-connections ${u.slots}; blocking: soap.work-queue " +
        s"core and max ${u.slots}); the stub at ${u.stubLatencyMs} ms for this step; the ${services.size} modes side by " +
        "side on the same stub and Redis"
      Stack.post(stub.url(s"/admin/latency?value=${u.stubLatency.describe}")).left.foreach(e =>
        throw IllegalStateException(s"could not set the stub's latency: $e"))
      try
        // Over the counted window, as every goodput figure: the polling starts as the drivers do.
        val peak = ThirdPartyPeak.start(stub.url("/metrics"), countFrom = u.warmUp)
        val measured = all(services.zipWithIndex.map { case ((mode, served), i) =>
          val driver = GoodputDriver(mode, u.slots, u.users, customers, u.warmUp, u.window,
            u.stubLatencyMs, shipped.soapTimeout)
          val info = FaultRun.info(s"$Name-$mode", s"the undersized pool, $mode: ${u.slots} slots, ${u.users} users",
            served.url("/customers"), driver, u.flags(mode), u.stubLatency, customers, heap, settings,
            FaultSuite.Source)
          val sampler = ServiceSampler(served.child.pid, Some(served.url("/metrics")), dependencies = deps.pids)
          // One progress line a second is enough: the first mode's, named.
          val lines: String => Unit = if i == 0 then l => progress(s"  $mode:${l.stripPrefix(" ")}") else _ => ()
          Future(driver -> FaultRun.measure(info, driver, Seq(sampler), Seq(served.child.log), dir.resolve(mode),
            lines)(identity))
        })
        val thirdPartyPeak = peak.stop()
        val records = measured.map(_.get).map { (driver, record) =>
          val openings = services.find(_._1 == driver.mode).flatMap((_, s) => Stack.get(s.url("/metrics")).toOption)
            .flatMap(t => MetricsReading.parse(t).circuitOpenings)
          val done = record.copy(goodput = Some(driver.goodput(thirdPartyPeak, u.slots * services.size,
            services.size, openings, peak.peakSecond)))
          RecordJson.write(done, dir.resolve(driver.mode))
          done
        }
        records
      finally Stack.post(stub.url(s"/admin/latency?value=${suiteLatency.describe}"))
    finally
      services.foreach((_, s: Served) => s.child.stop())
      pool.shutdown()
