package bulkhead.lab.load

import bulkhead.lab.scenario.Load
import org.apache.jmeter.reporters.Summariser
import org.apache.jmeter.reporters.gui.SummariserGui
import org.apache.jmeter.testelement.TestElement
import us.abstracta.jmeter.javadsl.JmeterDsl.*
import us.abstracta.jmeter.javadsl.core.engines.EmbeddedJmeterEngine
import us.abstracta.jmeter.javadsl.core.listeners.BaseListener

import java.nio.file.{Files, Path}
import java.time.Duration
import scala.jdk.CollectionConverters.*

/** One second of a ramp run: requests finished in it, their latencies, errors, and clients active (median). */
final case class SecondStats(second: Int, requests: Int, errors: Int, meanMs: Double, p99Ms: Double, clients: Int)

/** What a ramp run measured over its hold phase, and the whole run second by second. */
final case class RampResult(requests: Long, errors: Long, requestsPerSecond: Double, meanMs: Double, p50Ms: Double,
    p99Ms: Double, maxMs: Double, series: Seq[SecondStats])

/** JMeter's summariser (`summary + N in 10s = X/s Avg Min Max Err`), printed while the test plan runs. */
private final class SummaryListener extends BaseListener("summary", classOf[SummariserGui]):
  protected def buildTestElement(): TestElement = Summariser("summary")

/**
 * The ramp-up of seed 004 on JMeter's own engine (jmeter-java-dsl): clients are added in `rampSteps` steps over
 * `rampUp`, then held for `hold`. Each client loops on one URL (a closed loop, as JMeter threads are).
 */
object RampDriver:
  def run(load: Load.Ramp, url: String, dir: Path, summaryEverySeconds: Int = 10): RampResult =
    require(url.startsWith("http://127.") || url.startsWith("http://localhost"), s"load targets loopback only: $url")
    Files.createDirectories(dir)
    val steps = load.rampSteps.max(1)
    val group = (1 to steps).foldLeft(threadGroup()) { (g, i) =>
      g.rampTo(load.clients * i / steps, Duration.ZERO).holdFor(Duration.ofMillis(load.rampUp.toMillis / steps))
    }.holdFor(Duration.ofMillis(load.hold.toMillis))
    val jtl = dir.resolve("ramp.jtl")
    Files.deleteIfExists(jtl)
    testPlan(
      group.children(httpSampler(url)),
      jtlWriter(dir.toString, "ramp.jtl").withAllFields(false).withTimeStamp(true).withElapsedTime(true)
        .withSuccess(true).withActiveThreadCounts(true).withFieldNames(true),
      SummaryListener()).runIn(EmbeddedJmeterEngine().prop("summariser.interval", summaryEverySeconds.toString))
    read(jtl, load.rampUp.toMillis)

  /** Reads the JTL (CSV) JMeter wrote; figures are over the hold phase, the series over the whole run. */
  def read(jtl: Path, rampUpMillis: Long): RampResult =
    val lines = Files.readAllLines(jtl).asScala.toVector
    val header = lines.head.split(',').toVector
    val (ts, el, ok, all) = (header.indexOf("timeStamp"), header.indexOf("elapsed"), header.indexOf("success"),
      header.indexOf("allThreads"))
    final case class Row(end: Long, elapsed: Long, success: Boolean, clients: Int)
    val rows = lines.tail.map(_.split(',')).filter(_.length >= header.size).map { f =>
      Row(f(ts).toLong + f(el).toLong, f(el).toLong, f(ok).toBoolean, if all >= 0 then f(all).toInt else 0)
    }
    if rows.isEmpty then RampResult(0, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Nil)
    else
      val start = rows.map(r => r.end - r.elapsed).min
      val holdStart = start + rampUpMillis
      val hold = rows.filter(_.end >= holdStart)
      val holdSeconds = ((hold.map(_.end).maxOption.getOrElse(holdStart) - holdStart) / 1000.0).max(1e-3)
      val sorted = hold.map(_.elapsed.toDouble).sorted
      def pct(p: Double) = if sorted.isEmpty then Double.NaN else sorted(((sorted.size - 1) * p).round.toInt)
      val series = rows.groupBy(r => ((r.end - start) / 1000).toInt).toSeq.sortBy(_._1).map { (sec, rs) =>
        val e = rs.map(_.elapsed.toDouble).sorted
        SecondStats(sec, rs.size, rs.count(!_.success), e.sum / e.size, e(((e.size - 1) * 0.99).round.toInt),
          rs.map(_.clients).sorted.apply(rs.size / 2))
      }
      RampResult(hold.size, hold.count(!_.success), hold.size / holdSeconds,
        if sorted.isEmpty then Double.NaN else sorted.sum / sorted.size, pct(0.5), pct(0.99),
        sorted.lastOption.getOrElse(Double.NaN), series)
