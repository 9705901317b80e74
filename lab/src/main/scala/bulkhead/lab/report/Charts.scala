package bulkhead.lab.report

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.record.RunRecord
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
  def write(r: RunRecord, dir: Path): Seq[Path] =
    val name = r.info.name
    val v = Diagnosis(r)
    val withMetrics = r.samples.filter(_.metrics.isDefined)
    val points = withMetrics.zip(withMetrics.drop(1)).collect { case (a, b) if b.second > a.second =>
      b.second -> (b.metrics.get.answered - a.metrics.get.answered) / (b.second - a.second) }
    val throughput = chart(s"$name: throughput", "seconds", "req/s")
    if points.nonEmpty then
      throughput.addSeries("answered (service's /metrics)", points.map(_._1).toArray, points.map(_._2).toArray)
        .setMarker(SeriesMarkers.CIRCLE)
    val load = r.load.seconds.filter(_.byClass.nonEmpty)
    if load.nonEmpty then
      throughput.addSeries(s"${r.info.expectedClass} (load generator)", load.map(_.second.toDouble).toArray,
        load.map(_.byClass.getOrElse(r.info.expectedClass, 0L).toDouble).toArray).setMarker(SeriesMarkers.NONE)
    val xs = (points.map(_._1) ++ load.map(_.second.toDouble))
    if xs.nonEmpty then
      throughput.addSeries(s"bound (${v.cap.name})", Array(xs.min, xs.max), Array(v.predicted, v.predicted))
        .setMarker(SeriesMarkers.NONE)
    else throughput.addSeries("no throughput series", Array(0.0), Array(0.0))

    val threads = chart(s"$name: busy threads per pool", "seconds", "threads")
    val pools = r.samples.flatMap(_.pools.map(_.pool)).distinct
      .filter(p => r.samples.exists(_.pools.exists(s => s.pool == p && s.busy > 0)))
      .sortBy(p => -r.samples.flatMap(_.pools.find(_.pool == p)).map(_.busy).max)
    pools.take(8).foreach { pool =>
      val ys = r.samples.map(t => t.pools.find(_.pool == pool).map(_.busy.toDouble).getOrElse(0.0)).toArray
      threads.addSeries(pool.stripPrefix("bulkhead-"), r.samples.map(_.second).toArray, ys).setMarker(SeriesMarkers.NONE)
    }
    if pools.isEmpty then threads.addSeries("none busy", Array(0.0), Array(0.0))

    val latency = chart(s"$name: latency", "percentile", "ms")
    val l = r.load.latency
    if l.count > 0 then
      val ps = Seq(50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0)
      latency.addSeries("measured", ps.toArray, ps.map(l.percentileMs).toArray)
    else latency.addSeries("no latency", Array(0.0), Array(0.0))
    Seq(save(throughput, dir.resolve(s"$name-throughput.png")), save(threads, dir.resolve(s"$name-threads.png")),
      save(latency, dir.resolve(s"$name-latency.png")))
