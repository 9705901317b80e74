package bulkhead.lab.report

/**
 * One line of a chart: (x, y) points, its label, and how it is drawn. `axis` is `y` (the chart's unit) or `y2` (a
 * second unit on the right, e.g. queued tasks beside a pool's threads); `filled` shades the area under the line.
 */
final case class Series(label: String, points: Seq[(Double, Double)], color: String, dashed: Boolean = false,
    axis: String = "y", filled: Boolean = false):
  def nonEmpty: Boolean = points.nonEmpty

/**
 * A chart of the HTML report, drawn by the page's script. `kind` is [[Chart.Time]] (seconds after the load started,
 * on the axis every time chart of a scenario shares), [[Chart.Percentile]] (x in nines: 1 = 90 %, 2 = 99 %) or
 * [[Chart.Rate]] (x the arrival rate a capacity curve's step offered, req/s).
 */
final case class Chart(id: String, title: String, kind: String, unit: String, unit2: Option[String],
    series: Seq[Series]):
  /** The x values of every line, merged: the page draws lines over one x array, with gaps where a line has no point. */
  def xs: Seq[Double] = series.flatMap(_.points.map(_._1)).distinct.sorted
  /** Each line's y at [[xs]], None where the line has no point there. */
  def aligned: Seq[Seq[Option[Double]]] =
    val x = xs
    series.map { s =>
      val at = s.points.toMap
      x.map(at.get)
    }
  def points: Int = series.map(_.points.size).sum

object Chart:
  val Time = "time"
  val Percentile = "percentile"
  /** x is an arrival rate offered (req/s): a capacity curve's steps. */
  val Rate = "rate"

  /** A chart of the lines that have points; None when none has (the report then says what was not recorded). */
  def of(id: String, title: String, kind: String, unit: String, series: Seq[Series],
      unit2: Option[String] = None): Option[Chart] =
    val drawn = series.filter(_.nonEmpty)
    Option.when(drawn.nonEmpty)(Chart(id, title, kind, unit, unit2.filter(_ => drawn.exists(_.axis == "y2")), drawn))
