package bulkhead.lab.load

import bulkhead.lab.model.{Answers, Latencies, LoadFigures, LoadSecond, RouteFigures}
import bulkhead.lab.process.Children

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * An open loop on vegeta: requests sent at `rate` per second for `duration`, whether or not the earlier ones were
 * answered (a slow service gets more requests in flight, not fewer requests), each given up after `timeout`. Latency
 * is measured from each request's intended send time (its place in the schedule), not from when vegeta sent it, so a
 * generator that fell behind does not hide the wait (coordinated omission). Answers per second are the answers over
 * the time they came out in: a service that keeps up answers at the rate, one that does not answers at its own.
 */
final class VegetaDriver(rate: Double, duration: FiniteDuration, timeout: FiniteDuration) extends LoadDriver:
  require(rate > 0, s"an open loop needs a rate above 0, was $rate")
  private val pace = VegetaDriver.Pace.of(rate)

  /** An open loop has no clients: at most `rate x timeout` requests are in flight at once. */
  def concurrency: Int = math.ceil(pace.perSecond * timeout.toMillis / 1000.0).toInt.max(1)
  def measuredSeconds: Double = duration.toMillis / 1000.0
  override def openLoop: Boolean = true
  def describe(url: String): String = describe(Requests.get(url))
  override def describe(requests: Requests): String =
    f"vegeta attack -rate ${pace.flag} -duration ${measuredSeconds}%.0fs -timeout ${timeout.toMillis / 1000.0}%.0fs " +
      (if requests.insecure then "-insecure " else "") + f"${requests.describe} (open loop, ${pace.perSecond}%.1f req/s)"

  def run(url: String, dir: Path): Either[String, LoadFigures] = run(Requests.get(url), dir)

  /**
   * vegeta takes the requests as a targets file of its own format ([[TargetsFile.write]]) and sends to them in turn,
   * over HTTP/1.1 (a connection per request in flight, as wrk and the lab's client: HTTP/2 would multiplex them).
   */
  override def run(requests: Requests, dir: Path): Either[String, LoadFigures] =
    Files.createDirectories(dir)
    val targets = Files.writeString(dir.resolve("vegeta-targets.txt"), TargetsFile.write(requests, dir))
    val results = dir.resolve("vegeta.bin")
    val csv = dir.resolve(VegetaDriver.ResultsFile)
    for
      bin <- Vegeta.binary()
      _ <- Tls.check(requests)
      _ <- Children.runToCompletion(Seq(bin.toString, "attack", "-targets", targets.toString, "-rate", pace.flag,
        "-duration", s"${duration.toMillis}ms", "-timeout", s"${timeout.toMillis}ms", "-max-body", "0",
        "-http2=false") ++ (if requests.insecure then Seq("-insecure") else Nil) ++ Seq("-output", results.toString),
        duration + timeout + 30.seconds)
      _ <- Children.runToCompletion(Seq(bin.toString, "encode", "-to", "csv", "-output", csv.toString,
        results.toString), 2.minutes)
      figures <- VegetaDriver.read(Files.readString(csv), pace.perSecond, describe(requests),
        requests.targets.map(r => VegetaDriver.routeKey(r.method, r.url.toString) -> requests.route(r)).toMap)
    yield
      // The CSV holds every result; the binary form is the same again.
      Files.deleteIfExists(results)
      figures

object VegetaDriver:
  /** vegeta's results as `vegeta encode -to csv` writes them: the raw output kept beside the figures. */
  val ResultsFile = "vegeta.csv"

  /**
   * A rate as vegeta's `-rate` takes it (`freq/period`, whole numbers): `50/1s`, or `4775/100s` for 47.75 req/s;
   * `perSecond` is the rate vegeta paces, which the intended send times follow.
   */
  final case class Pace(freq: Long, periodSeconds: Int):
    def flag: String = s"$freq/${periodSeconds}s"
    def perSecond: Double = freq.toDouble / periodSeconds

  object Pace:
    def of(rate: Double): Pace =
      if rate == math.rint(rate) then Pace(rate.toLong, 1) else Pace(math.round(rate * 100).max(1), 100)

  /**
   * One result of vegeta's CSV: when it was sent (ns since the epoch), its status (0: no answer), latency, error, and
   * its target's method and URL.
   */
  final case class Result(sentNanos: Long, code: Int, latencyNanos: Long, error: String, seq: Long,
      method: String = "", url: String = ""):
    def endNanos: Long = sentNanos + latencyNanos
    def answered: Boolean = code > 0

  /** How a result names its target: `POST http://host/path`. */
  def routeKey(method: String, url: String): String = s"$method $url"

  /**
   * Reads vegeta's CSV results of an attack at `perSecond` into the lab's figures. Request `seq` was due at
   * `t0 + seq / perSecond`, where `t0` is the schedule's start: vegeta sends on time or late, never early, so `t0` is
   * the earliest of `sent - seq / perSecond`. `routes` names each target's results (by [[routeKey]]); with two routes
   * or more, each one's answers are kept.
   */
  def read(csv: String, perSecond: Double, description: String,
      routes: Map[String, String] = Map.empty): Either[String, LoadFigures] =
    val lines = csv.linesIterator.filter(_.nonEmpty).toVector
    val parsed = lines.map(parseLine)
    parsed.collectFirst { case Left(e) => e }.toLeft(parsed.collect { case Right(r) => r }).flatMap { results =>
      if results.isEmpty then Left("vegeta sent no request (its results are empty)")
      else Right(figures(results, perSecond, description, routes))
    }

  private def figures(results: Seq[Result], perSecond: Double, description: String,
      routes: Map[String, String]): LoadFigures =
    val interval = 1e9 / perSecond
    val t0 = results.map(r => r.sentNanos - r.seq * interval).min
    def due(r: Result) = t0 + r.seq * interval
    /** Latency from the intended send time, in ms. */
    def fromDue(r: Result) = (r.endNanos - due(r)) / 1e6
    val answered = results.filter(_.answered)
    val none = results.filterNot(_.answered).map(r => r -> noAnswer(r.error))
    def count(kind: String) = none.count(_._2 == kind).toLong
    val byClass = answered.groupMapReduce(r => Answers.classOf(r.code))(_ => 1L)(_ + _)
    val answers = Answers(byClass, count("connect"), count("read"), count("write"), count("timeout"))
    // Answers over the time they came out in (the first answer to the last), and never over less than the schedule
    // took (a late first answer would shorten that span): a service that keeps up answers at the rate sent.
    val scheduled = (results.map(_.seq).max - results.map(_.seq).min) * interval
    val ends = answered.map(_.endNanos)
    val answering = if ends.nonEmpty then (ends.max - ends.min).toDouble else 0.0
    val seconds = (scheduled.max(answering) + interval) / 1e9
    val second = (nanos: Double) => ((nanos - t0) / 1e9).toInt
    val bySecond = results.groupBy(r => second(r.endNanos.toDouble))
    val lastSecond = bySecond.keys.max
    val perSecondRows = (0 to lastSecond).map { s =>
      val rs = bySecond.getOrElse(s, Nil)
      val ok = rs.filter(_.answered)
      val l = Option.when(ok.nonEmpty)(Latencies.ofMillis(ok.map(fromDue)))
      val end = t0 + (s + 1) * 1e9
      val inFlight = results.count(r => r.sentNanos <= end && r.endNanos > end)
      LoadSecond(s, ok.groupMapReduce(r => Answers.classOf(r.code))(_ => 1L)(_ + _), inFlight, l.map(_.p50Ms),
        l.map(_.p99Ms), Some(rs.count(!_.answered).toLong))
    }
    val byRoute = if routes.values.toSeq.distinct.size < 2 then Nil else
      results.groupBy(r => routes.getOrElse(routeKey(r.method, r.url), routeKey(r.method, r.url))).toSeq.sortBy(_._1)
        .map((route, rs) => RouteFigures(route, rs.filter(_.answered).groupMapReduce(r => Answers.classOf(r.code))(_ =>
          1L)(_ + _), Some(rs.count(!_.answered).toLong)))
    LoadFigures("vegeta", description, peakInFlight(results), seconds, answers,
      Latencies.ofMillis(answered.map(fromDue)), perSecondRows, byRoute)

  /** The most requests in flight at once (sent, not yet answered or given up). */
  def peakInFlight(results: Seq[Result]): Int =
    val events = results.flatMap(r => Seq(r.sentNanos -> 1, r.endNanos -> -1)).sortBy((t, d) => (t, d))
    events.scanLeft(0)(_ + _._2).max

  /**
   * Why a request got no answer, from Go's error text: `timeout` (vegeta's `-timeout`: "Client.Timeout exceeded"),
   * `connect` ("dial tcp ...: connection refused"), `write` (a broken pipe), else `read` (reset, EOF).
   */
  def noAnswer(error: String): String =
    if error.contains("Timeout") || error.contains("timeout") || error.contains("deadline exceeded") then "timeout"
    else if error.contains("dial ") || error.contains("connect:") then "connect"
    else if error.contains("broken pipe") || error.contains("write:") then "write"
    else "read"

  /**
   * One CSV record as vegeta writes it (RFC 4180, no header): timestamp (ns), code, latency (ns), bytes out, bytes in,
   * error, body (base64), attack, seq, method, URL, headers (base64).
   */
  def parseLine(line: String): Either[String, Result] =
    val fields = csvFields(line)
    def long(i: Int) = fields.lift(i).flatMap(_.toLongOption)
    (for
      sent <- long(0)
      code <- long(1)
      latency <- long(2)
      seq <- long(8)
    yield Result(sent, code.toInt, latency, fields(5), seq, fields.lift(9).getOrElse(""), fields.lift(10).getOrElse("")))
      .toRight(s"not a vegeta CSV result (12 fields: timestamp, code, latency, ..., seq, ...): ${line.take(200)}")

  private def csvFields(line: String): Vector[String] =
    val fields = Vector.newBuilder[String]
    val field = StringBuilder()
    var quoted = false
    var i = 0
    while i < line.length do
      val c = line.charAt(i)
      if quoted then
        if c == '"' && i + 1 < line.length && line.charAt(i + 1) == '"' then
          field += '"'
          i += 1
        else if c == '"' then quoted = false
        else field += c
      else if c == '"' then quoted = true
      else if c == ',' then
        fields += field.result()
        field.clear()
      else field += c
      i += 1
    fields += field.result()
    fields.result()
