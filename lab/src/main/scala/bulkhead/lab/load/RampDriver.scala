package bulkhead.lab.load

import bulkhead.lab.model.{Answers, Latencies, LoadFigures, LoadSecond}
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

/** JMeter's summariser (`summary + N in 10s = X/s Avg Min Max Err`), printed while the test plan runs. */
private final class SummaryListener extends BaseListener("summary", classOf[SummariserGui]):
  protected def buildTestElement(): TestElement = Summariser("summary")

/**
 * The ramp-up of seed 004 on JMeter's own engine (jmeter-java-dsl): clients are added in `rampSteps` steps over
 * `rampUp`, then held for `hold`. Each client loops on one URL (a closed loop, as JMeter threads are). Figures are over
 * the hold; the seconds cover the whole run.
 */
final class RampLoadDriver(load: Load.Ramp, summaryEverySeconds: Int = 10) extends LoadDriver:
  def concurrency: Int = load.clients
  def measuredSeconds: Double = load.hold.toMillis / 1000.0
  override def measuredFrom: Double = load.rampUp.toMillis / 1000.0
  def describe(url: String): String =
    s"JMeter ramp to ${load.clients} clients in ${load.rampUp.toSeconds} s (${load.rampSteps} steps), hold " +
      s"${load.hold.toSeconds} s, $url"
  def run(url: String, dir: Path): Either[String, LoadFigures] =
    try Right(RampDriver.run(load, url, dir, summaryEverySeconds).copy(description = describe(url)))
    catch case e: Exception => Left(s"JMeter ramp failed: ${e.getMessage}")

object RampDriver:
  def run(load: Load.Ramp, url: String, dir: Path, summaryEverySeconds: Int = 10): LoadFigures =
    LoadDriver.requireLoopback(url)
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
        .withSuccess(true).withResponseCode(true).withActiveThreadCounts(true).withFieldNames(true),
      SummaryListener()).runIn(EmbeddedJmeterEngine().prop("summariser.interval", summaryEverySeconds.toString))
    read(jtl, load.rampUp.toMillis, load.clients)

  /**
   * Reads the JTL (CSV) JMeter wrote. A response code that is not a number (JMeter's "Non HTTP response code: ...")
   * is a request without an answer: a read error.
   */
  def read(jtl: Path, rampUpMillis: Long, clients: Int): LoadFigures =
    val lines = Files.readAllLines(jtl).asScala.toVector
    val header = lines.head.split(',').toVector
    val (ts, el, code, all) = (header.indexOf("timeStamp"), header.indexOf("elapsed"), header.indexOf("responseCode"),
      header.indexOf("allThreads"))
    final case class Row(end: Long, elapsed: Long, status: Option[Int], clients: Int)
    val rows = lines.tail.map(_.split(',')).filter(_.length >= header.size).map { f =>
      Row(f(ts).toLong + f(el).toLong, f(el).toLong, if code >= 0 then f(code).toIntOption else Some(200),
        if all >= 0 then f(all).toInt else 0)
    }
    if rows.isEmpty then
      LoadFigures("jmeter", "", clients, 0.0, Answers.Empty, Latencies.Empty, Nil)
    else
      val start = rows.map(r => r.end - r.elapsed).min
      val holdStart = start + rampUpMillis
      val hold = rows.filter(_.end >= holdStart)
      val holdSeconds = ((hold.map(_.end).maxOption.getOrElse(holdStart) - holdStart) / 1000.0).max(1e-3)
      def byClass(rs: Seq[Row]) = rs.flatMap(_.status).groupMapReduce(Answers.classOf)(_ => 1L)(_ + _)
      val seconds = rows.groupBy(r => ((r.end - start) / 1000).toInt).toSeq.sortBy(_._1).map { (sec, rs) =>
        val e = Latencies.ofMillis(rs.map(_.elapsed.toDouble))
        LoadSecond(sec, byClass(rs), rs.map(_.clients).sorted.apply(rs.size / 2), Some(e.p50Ms), Some(e.p99Ms),
          Some(rs.count(_.status.isEmpty).toLong))
      }
      LoadFigures("jmeter", "", clients, holdSeconds, Answers(byClass(hold), 0, hold.count(_.status.isEmpty), 0, 0),
        Latencies.ofMillis(hold.map(_.elapsed.toDouble)), seconds)
