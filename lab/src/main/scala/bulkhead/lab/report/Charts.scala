package bulkhead.lab.report

import bulkhead.lab.run.ScenarioResult
import org.knowm.xchart.{BitmapEncoder, XYChart, XYChartBuilder}
import org.knowm.xchart.BitmapEncoder.BitmapFormat
import org.knowm.xchart.style.markers.SeriesMarkers

import java.nio.file.Path

/** The plots of one scenario (XChart, PNG): throughput over time, threads per pool over time, latency percentiles. */
object Charts:
  private def chart(title: String, x: String, y: String): XYChart =
    val c = XYChartBuilder().width(640).height(300).title(title).xAxisTitle(x).yAxisTitle(y).build()
    c.getStyler.setLegendVisible(true)
    c.getStyler.setMarkerSize(4)
    c

  private def save(c: XYChart, file: Path): Path =
    BitmapEncoder.saveBitmap(c, file.toString.stripSuffix(".png"), BitmapFormat.PNG)
    file

  /** Writes the charts of a result into `dir` and returns their files. */
  def write(r: ScenarioResult, dir: Path): Seq[Path] =
    val name = r.scenario.name
    val points = r.timeline.filter(_.requestsPerSecond.isDefined)
    val throughput = chart(s"$name: throughput", "seconds", "req/s")
    if points.nonEmpty then
      throughput.addSeries("service (live, from /metrics)", points.map(_.second).toArray,
        points.map(_.requestsPerSecond.get).toArray).setMarker(SeriesMarkers.CIRCLE)
    val bound = r.bound
    if points.nonEmpty && bound > 0 && bound < 1e9 then
      throughput.addSeries(s"bound (${r.diagnosis.cap})", Array(points.head.second, points.last.second),
        Array(bound, bound)).setMarker(SeriesMarkers.NONE)
    if points.isEmpty then throughput.addSeries("no /metrics answer (starved)", Array(0.0), Array(0.0))

    val threads = chart(s"$name: busy threads per pool", "seconds", "threads")
    // The service's own pools (their names carry their configuration path), not the JVM's housekeeping threads.
    val pools = r.timeline.flatMap(_.pools.map(_.pool)).distinct.filter(_.contains("bulkhead"))
      .filter(p => r.timeline.exists(_.pools.exists(s => s.pool == p && s.busy > 0)))
    pools.take(8).foreach { pool =>
      val xs = r.timeline.map(_.second).toArray
      val ys = r.timeline.map(t => t.pools.find(_.pool == pool).map(_.busy.toDouble).getOrElse(0.0)).toArray
      threads.addSeries(pool.stripPrefix("bulkhead-"), xs, ys).setMarker(SeriesMarkers.NONE)
    }
    if pools.isEmpty then threads.addSeries("none busy", Array(0.0), Array(0.0))

    val latency = chart(s"$name: latency", "percentile", "ms")
    val f = r.figures
    val pts = Seq(50.0 -> f.p50Ms, 99.0 -> f.p99Ms, 100.0 -> f.maxMs).filterNot(_._2.isNaN)
    if pts.nonEmpty then latency.addSeries("measured", pts.map(_._1).toArray, pts.map(_._2).toArray)
    else latency.addSeries("no latency", Array(0.0), Array(0.0))
    Seq(save(throughput, dir.resolve(s"$name-throughput.png")), save(threads, dir.resolve(s"$name-threads.png")),
      save(latency, dir.resolve(s"$name-latency.png")))
