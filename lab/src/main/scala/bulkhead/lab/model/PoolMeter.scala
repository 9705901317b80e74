package bulkhead.lab.model

/** One figure a service's meter published: the meter's name as scraped, and its value. */
final case class MeterFigure(meter: String, value: Double)

/**
 * A pool as the service's own meters describe it, read from what the meter names mean, not from a list of libraries:
 * Micrometer names a pool's meters `<family>_<unit>_<role>` in some order (`hikaricp_connections_active`,
 * `executor_pool_max_threads`, `tomcat_threads_busy_threads`, `jetty_threads_config_max`), and tells two pools of a
 * family apart by tags (`pool`, `name`). A family's meters of one set of tags are one pool: its `size` (a `max`), the
 * units `inUse` (`active`, `busy`, `used`, `open`, `leased`), the requests `waiting` for one (`pending`, `queued`,
 * `waiting`, `jobs`), the units `idle`, and `completed`: how many times a unit was taken and given back so far (a
 * `completed` counter, or the count of the timer of its use, `..._usage_seconds` or the family's own `..._seconds`),
 * with `busySeconds`, that timer's total, when it has one.
 *
 * @param family the name's words that are neither a unit nor a role (`hikaricp`, `executor`, `tomcat`)
 * @param id     the tags that tell it from the family's other pools (`pool -> HikariPool-1`), empty for a lone one
 * @param unit   what it holds: `connections`, `threads`, ...
 */
final case class PoolMeter(family: String, id: Map[String, String], unit: String, size: Option[MeterFigure],
    inUse: Option[MeterFigure], waiting: Option[MeterFigure], idle: Option[MeterFigure],
    completed: Option[MeterFigure], busySeconds: Option[MeterFigure] = None):
  /** How reports name it: its tags' values (`HikariPool-1`), else its family. */
  def label: String = if id.isEmpty then family else id.toSeq.sortBy(_._1).map(_._2).mkString(",")
  /** The units in use: the in-use meter, else the size less the idle ones. */
  def used: Option[Double] = inUse.map(_.value).orElse(for s <- size; i <- idle yield (s.value - i.value).max(0))

object PoolMeter:
  /** Words naming what a unit is. */
  val Units: Set[String] = Set("threads", "connections", "tasks", "permits", "calls", "sessions", "slots")
  private val SizeWords = Set("max")
  private val InUseWords = Set("active", "busy", "used", "open", "leased")
  private val WaitingWords = Set("pending", "queued", "waiting", "jobs")
  private val IdleWords = Set("idle", "available")
  private val CompletedWords = Set("completed")
  /** Words of a figure the lab does not read (a pool's floor, its current count, its queue's room, its timers). */
  private val OtherWords = Set("min", "core", "current", "size", "remaining", "live", "peak", "daemon", "states",
    "started", "timeout", "creation", "acquire", "idle", "total", "config", "pool", "count", "sum", "bucket", "seconds")
  /** A tag that splits one pool's figures (a state, a bucket, a request's attributes), not one pool from another. */
  private val NotIdentity = Set("le", "quantile", "state", "status", "outcome", "method", "uri", "exception", "error")

  private def words(name: String): Seq[String] = name.split('_').toSeq.filter(_.nonEmpty)

  /** A meter's role in a pool, by its words; None for a meter that is not a pool's figure. */
  private def role(name: String): Option[String] =
    val ws = words(name)
    if name.endsWith("_seconds_count") || name.endsWith("_seconds_sum") then
      // A timer of the pool's own use: `..._usage_seconds`, or the family's own timer (`executor_seconds`).
      val before = ws.takeWhile(_ != "seconds")
      Option.when(before.lastOption.contains("usage") || before.size == 1)(if name.endsWith("_count") then "timed"
        else "busySeconds")
    else if name.contains("_seconds") || name.endsWith("_bucket") then None
    else if ws.exists(CompletedWords) then Some("completed")
    else if ws.exists(SizeWords) then Some("size")
    else if ws.exists(InUseWords) then Some("inUse")
    else if ws.exists(WaitingWords) then Some("waiting")
    else if ws.exists(IdleWords) then Some("idle")
    else None

  /** The family of a meter's name: its words that are neither a unit nor a role. */
  private def familyOf(name: String): String =
    words(name).filterNot(w => Units(w) || SizeWords(w) || InUseWords(w) || WaitingWords(w) || IdleWords(w) ||
      CompletedWords(w) || OtherWords(w) || w == "usage").mkString("_")

  /**
   * The pools in a scrape's samples: every family with a size or an in-use figure, one pool per set of identity tags.
   * Families without either (the JVM's thread counts, request timers) are not pools.
   */
  def of(lines: Seq[MetricsReading.Line]): Seq[PoolMeter] =
    val figures = lines.filterNot(l => l.value.isNaN || l.value.isInfinite).flatMap { l =>
      role(l.name).map(r => Figure(familyOf(l.name), l.labels.filterNot((k, _) => NotIdentity(k)), r, l))
    }
    figures.groupBy(f => (f.family, f.id)).toSeq.flatMap { case ((family, id), fs) =>
      // One family may hold pools of several units (Tomcat's threads and connections): a pool per unit it holds; a
      // figure of tasks, or of no unit, is the thread pool's (an executor's queued and completed tasks).
      val holding = fs.flatMap(_.unit).filter(_ != "tasks").distinct.sorted
      val primary = if holding.contains("threads") then "threads" else holding.headOption.getOrElse("units")
      val byUnit = fs.groupBy(_.unit.filter(u => u != "tasks" && holding.contains(u)).getOrElse(primary))
      byUnit.toSeq.flatMap((unit, us) => pool(family, id, unit, us))
    }.sortBy(m => (m.family, m.label, m.unit))

  /** One meter's figure, read: the pool family, its identity tags, its role, the sample. */
  private final case class Figure(family: String, id: Map[String, String], role: String, line: MetricsReading.Line):
    def unit: Option[String] = words(line.name).find(Units)

  private def pool(family: String, id: Map[String, String], unit: String, fs: Seq[Figure]): Option[PoolMeter] =
    def one(r: String) = fs.find(_.role == r).map(f => MeterFigure(f.line.name, f.line.value))
    def sum(r: String) = Option(fs.filter(_.role == r)).filter(_.nonEmpty)
      .map(xs => MeterFigure(xs.head.line.name, xs.map(_.line.value).sum))
    Option.when(one("size").isDefined || one("inUse").isDefined)(PoolMeter(family, id, unit, one("size"), one("inUse"),
      sum("waiting"), one("idle"), sum("completed").orElse(sum("timed")), sum("busySeconds")))
