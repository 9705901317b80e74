package bulkhead.lab.sample

/** Samples of a Prometheus text scrape, by full sample name (with labels). */
final case class MetricsScrape(values: Map[String, Double]):
  def get(sample: String): Option[Double] = values.get(sample)
  /** Pool gauges of a service scrape, by pool label: e.g. active threads of every `executor_*` meter. */
  def pools(metric: String): Map[String, Double] =
    val Pattern = (java.util.regex.Pattern.quote(metric) + """\{name="([^"]+)"\}""").r
    values.collect { case (Pattern(pool), v) => pool -> v }

object MetricsScrape:
  def parse(text: String): MetricsScrape =
    MetricsScrape(text.linesIterator.filterNot(l => l.startsWith("#") || l.isBlank).flatMap { line =>
      val i = line.lastIndexOf(' ')
      if i <= 0 then None else line.drop(i + 1).toDoubleOption.map(line.take(i) -> _)
    }.toMap)
