package bulkhead.lab.capacity

import bulkhead.lab.load.{LoadDriver, VegetaDriver, WrkDriver}
import bulkhead.lab.record.{CapacityStep, RecordJson, RunInfo, RunRecord}
import bulkhead.lab.run.Measurement
import bulkhead.lab.sample.ServiceSampler
import bulkhead.lab.scenario.Load

import java.nio.file.Path
import java.time.Instant
import scala.concurrent.duration.*

/**
 * A JVM the lab did not start (`--pid PID --url URL`): the closed loop is wrk at `connections`, the steps vegeta's
 * open loop on the same URL, each while the lab samples the process through the attach API, as `lab diagnose` does.
 */
final class ProcessCapacity(pid: Long, url: String, connections: Int, threads: Int, every: FiniteDuration,
    plan: CapacityPlan, say: String => Unit) extends CapacityTarget:
  def name: String = s"pid-$pid"

  def closedLoop(dir: Path): Either[String, RunRecord] =
    val wrk = WrkDriver(threads.min(connections), connections, plan.stepDuration.max(Load.MinClosedLoop), plan.timeout)
    measure(wrk, dir, CapacityStep(name, 0, None), s"$name-closed-loop")

  def step(index: Int, rate: Double, dir: Path): Either[String, RunRecord] =
    measure(VegetaDriver(rate, plan.stepDuration, plan.timeout), dir, CapacityStep(name, index, Some(rate)),
      f"$name-step-$index%02d")

  private def measure(driver: LoadDriver, dir: Path, step: CapacityStep, runName: String): Either[String, RunRecord] =
    val sampler = ServiceSampler(pid, None)
    val started = Instant.now()
    Measurement.run(driver, url, dir, sampler, every, say).flatMap {
      case m if m.samples.forall(_.pools.isEmpty) =>
        Left(s"no thread dump of pid $pid: ${sampler.lastDumpError.getOrElse("is it a JVM of this user?")}")
      case m =>
        val f = m.figures
        val clients = if driver.openLoop then f.clients else driver.concurrency
        val info = RunInfo(runName, s"pid $pid: ${driver.describe(url)}", s"pid $pid", url, f.description, clients,
          Nil, None, None, None, None, "2xx", None, s"pid $pid",
          sys.env.getOrElse("BULKHEAD_JDK", Runtime.version().toString), Runtime.getRuntime.availableProcessors(),
          started.toString, capacityStep = Some(step))
        val record = RunRecord(info, f, m.samples, 0, driver.totalSeconds, Seq(f.throughput()), Nil,
          Some(m.beforeLoad), Some(m.afterLoad))
        RecordJson.write(record, dir)
        Right(record)
    }
