package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, RequestLog, RequestOutcome}
import bulkhead.lab.model.{Latencies, LoadFigures}
import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import com.typesafe.config.{ConfigFactory, ConfigRenderOptions}

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * The service's platform threads (every thread of a thread dump; -1 when the dump failed), the same by pool, and heap
 * used after a full GC (NaN when it could not be read).
 */
final case class Resources(platformThreads: Int, heapMb: Double, pools: Map[String, Int] = Map.empty):
  def threadsRead: Boolean = platformThreads >= 0
  def heapRead: Boolean = !heapMb.isNaN

/** One second of a fault run: answers by outcome (by the second they ended in) and the service's gauges. */
final case class SecondRow(second: Int, outcomes: Map[RequestOutcome, Int], okP50Ms: Double, okP99Ms: Double,
    breaker: Option[Double], threads: Option[Int], heapMb: Option[Double], connections: Option[Double],
    inFlight: Option[Double], degraded: Option[Double], breakerOpenings: Option[Double] = None):
  def ok: Int = outcomes.collect { case (k, n) if k.ok => n }.sum

/**
 * What one fault run recorded, and all the verdict needs: phase times (seconds since the load started), counts per
 * user group and outcome, a per-second timeline, OK answers per 100 ms (for the recovery time), resources before and
 * after. `load`: the requests that ended before the load stopped, as every load driver reports them (None in records
 * written before they were). Written as JSON next to the report so the verdict can be re-checked on recorded data.
 */
final case class FaultRecord(fault: String, injectAt: Double, clearAt: Double, endAt: Double,
    totals: Map[(String, RequestOutcome), Int], seconds: Seq[SecondRow], okPerTenth: Seq[Int], before: Resources,
    after: Resources, missingRetryAfter: Int, usersEnded: Boolean, load: Option[LoadFigures] = None):
  /** Answers by status, over every user group. */
  def statuses: Map[Int, Int] = totals.toSeq.flatMap { case ((_, o), n) => o.status.map(_ -> n) }
    .groupMapReduce(_._1)(_._2)(_ + _)

  def toJson: String =
    def resources(r: Resources) =
      val pools = r.pools.toSeq.sorted.map((p, n) => s""""${p.replace("\"", "'")}":$n""").mkString("{", ",", "}")
      s"""{"platformThreads":${r.platformThreads},"heapMb":${num(r.heapMb)},"pools":$pools}"""
    def opt(d: Option[Double]) = d.map(v => if v.isNaN then "null" else v.toString).getOrElse("null")
    def num(d: Double) = if d.isNaN || d.isInfinite then "null" else d.toString
    val totalsJson = totals.toSeq.sortBy(_._1).map { case ((g, o), n) =>
      s"""{"group":"$g","outcome":"${o.label}","count":$n}""" }.mkString("[", ",", "]")
    val rows = seconds.map { r =>
      val outs = r.outcomes.toSeq.sorted.map((k, v) => s""""${k.label}":$v""").mkString("{", ",", "}")
      s"""{"second":${r.second},"outcomes":$outs,"okP50Ms":${num(r.okP50Ms)},"okP99Ms":${num(r.okP99Ms)},""" +
        s""""breaker":${opt(r.breaker)},"threads":${opt(r.threads.map(_.toDouble))},"heapMb":${opt(r.heapMb)},""" +
        s""""connections":${opt(r.connections)},"inFlight":${opt(r.inFlight)},"degraded":${opt(r.degraded)},""" +
        s""""breakerOpenings":${opt(r.breakerOpenings)}}"""
    }.mkString("[\n", ",\n", "\n]")
    val loadJson = load.fold("")(l => ",\n\"load\":" + writeToString(l)(using FaultRecord.loadCodec))
    s"""{"fault":"$fault","injectAt":$injectAt,"clearAt":$clearAt,"endAt":$endAt,
       |"before":${resources(before)},
       |"after":${resources(after)},
       |"missingRetryAfter":$missingRetryAfter,"usersEnded":$usersEnded,
       |"okPerTenth":${okPerTenth.mkString("[", ",", "]")},
       |"totals":$totalsJson,
       |"seconds":$rows$loadJson}
       |""".stripMargin

object FaultRecord:
  private[faults] val loadCodec: JsonValueCodec[LoadFigures] = JsonCodecMaker.make

  /** Aggregates a run's request log (of `users` steady users) and gauge samples. */
  def of(fault: String, injectAt: Double, clearAt: Double, endAt: Double, log: Seq[RequestLog.Entry], users: Int,
      gauges: Map[Int, SecondRow], before: Resources, after: Resources, usersEnded: Boolean): FaultRecord =
    val totals = log.groupMapReduce(e => (e.group, e.outcome))(_ => 1)(_ + _)
    val lastSecond = math.ceil(endAt).toInt
    val bySecond = log.groupBy(_.endSecond.toInt)
    val rows = (0 until lastSecond).map { s =>
      val entries = bySecond.getOrElse(s, Nil)
      val ok = Option(entries.filter(_.outcome.ok).map(_.latencyMs)).filter(_.nonEmpty).map(Latencies.ofMillis)
      val g = gauges.get(s)
      SecondRow(s, entries.groupMapReduce(_.outcome)(_ => 1)(_ + _), ok.fold(Double.NaN)(_.p50Ms),
        ok.fold(Double.NaN)(_.p99Ms), g.flatMap(_.breaker),
        g.flatMap(_.threads), g.flatMap(_.heapMb), g.flatMap(_.connections), g.flatMap(_.inFlight),
        g.flatMap(_.degraded), g.flatMap(_.breakerOpenings))
    }
    val tenths = Array.fill(lastSecond * 10 + 1)(0)
    log.filter(_.outcome.ok).foreach(e => tenths((e.endSecond * 10).toInt.min(tenths.length - 1)) += 1)
    val missing = log.count(e => e.outcome == RequestOutcome.Status(503) && e.retryAfter.isEmpty)
    val load = ClosedLoopUsers.figures(log, users, 0.0, endAt, s"$users closed-loop users on /customers, fault $fault")
    FaultRecord(fault, injectAt, clearAt, endAt, totals, rows, tenths.toSeq, before, after, missing, usersEnded,
      Some(load))

  def read(file: Path): FaultRecord =
    val c = ConfigFactory.parseString(Files.readString(file))
    def outcome(label: String) = RequestOutcome.parse(label).fold(e => throw IllegalArgumentException(s"$file: $e"),
      identity)
    def optD(o: com.typesafe.config.Config, k: String) = if o.getIsNull(k) then None else Some(o.getDouble(k))
    def res(k: String) =
      val pools =
        if c.hasPath(s"$k.pools") then
          val p = c.getConfig(s"$k.pools")
          p.root().keySet().asScala.map(name => name -> p.getInt(s"\"$name\"")).toMap
        else Map.empty[String, Int]
      Resources(c.getInt(s"$k.platformThreads"), optD(c, s"$k.heapMb").getOrElse(Double.NaN), pools)
    val totals = c.getConfigList("totals").asScala.map(t =>
      (t.getString("group"), outcome(t.getString("outcome"))) -> t.getInt("count")).toMap
    val rows = c.getConfigList("seconds").asScala.toSeq.map { r =>
      val outs = r.getConfig("outcomes")
      val byOutcome = outs.root().keySet().asScala.map(k => outcome(k) -> outs.getInt(s"\"$k\"")).toMap
      SecondRow(r.getInt("second"), byOutcome,
        optD(r, "okP50Ms").getOrElse(Double.NaN), optD(r, "okP99Ms").getOrElse(Double.NaN), optD(r, "breaker"),
        optD(r, "threads").map(_.toInt), optD(r, "heapMb"), optD(r, "connections"), optD(r, "inFlight"),
        optD(r, "degraded"), if r.hasPath("breakerOpenings") then optD(r, "breakerOpenings") else None)
    }
    FaultRecord(c.getString("fault"), c.getDouble("injectAt"), c.getDouble("clearAt"), c.getDouble("endAt"), totals,
      rows, c.getIntList("okPerTenth").asScala.map(_.toInt).toSeq, res("before"), res("after"),
      c.getInt("missingRetryAfter"), c.getBoolean("usersEnded"),
      Option.when(c.hasPath("load"))(readFromString(c.getValue("load").render(ConfigRenderOptions.concise()))(
        using loadCodec)))
