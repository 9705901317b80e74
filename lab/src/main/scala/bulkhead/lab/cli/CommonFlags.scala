package bulkhead.lab.cli

import bulkhead.lab.load.Request
import bulkhead.lab.sample.{JmxAddress, MetricsScrape}
import scopt.{OParser, OParserBuilder}

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The flags several lab commands take, each declared here once: its name, its unit, its one default, its check and
 * its error. A command adds one with a line, `CommonFlags.duration(b, "how long to load")((o, d) => o.copy(...))`,
 * giving only what the flag means for it; a new shared flag is one more declaration here.
 */
object CommonFlags:
  /** How long a load (or an observation) runs, unless a scenario or a benchmark case says otherwise. */
  val DefaultDuration: FiniteDuration = 20.seconds
  /** Time between two thread samples. */
  val DefaultEvery: FiniteDuration = 1.second
  /** The closed loop's clients (wrk's connections). */
  val DefaultConnections: Int = 50
  /** wrk's threads. */
  val DefaultThreads: Int = 2
  /** The longest `--duration` or `--every`. */
  val Longest: FiniteDuration = 1.hour
  /** The most connections any command opens (the seeds' largest run had 10,000). */
  val MostConnections: Int = 100_000

  /** `20s`, `500ms`, `2m`, `1h` or a bare number of seconds; above zero (or zero when `zero`), at most [[Longest]]. */
  def durationValue(v: String, zero: Boolean = false): Option[FiniteDuration] =
    scala.util.Try(Duration(v.trim.replaceAll("^(\\d+)$", "$1 s").replaceAll("(\\d)(ms|s|m|h)$", "$1 $2"))).toOption
      .collect { case d: FiniteDuration if (d > Duration.Zero || zero && d == Duration.Zero) && d <= Longest => d }

  /** `20s`, `500ms`, `2m`: a duration as the flags take it. */
  def text(d: FiniteDuration): String =
    if d.toMillis % 1000 != 0 then s"${d.toMillis}ms"
    else if d.toSeconds % 3600 == 0 && d.toSeconds > 0 then s"${d.toHours}h"
    else if d.toSeconds % 60 == 0 && d.toSeconds > 0 then s"${d.toMinutes}m"
    else s"${d.toSeconds}s"

  private def durationOf[O](b: OParserBuilder[O], flag: String, what: String, default: String, zero: Boolean)(
      set: (O, FiniteDuration) => O): OParser[String, O] =
    import b.*
    opt[String](flag).valueName("<duration>").text(s"$what: 20s, 2m, 500ms (default $default)")
      .validate(v => if durationValue(v, zero).isDefined then success
        else failure(s"--$flag must be a duration like 20s, 2m or 500ms${if zero then "" else " above zero"}, at " +
          s"most 1h; was '$v'"))
      .action((v, o) => set(o, durationValue(v, zero).get))

  /** `--duration`: how long the load (or the observation) runs; `default` when the command has its own source. */
  def duration[O](b: OParserBuilder[O], what: String, default: String = text(DefaultDuration))(
      set: (O, FiniteDuration) => O): OParser[String, O] = durationOf(b, "duration", what, default, zero = false)(set)

  /** `--every`: time between thread samples. */
  def every[O](b: OParserBuilder[O], what: String = "time between thread samples")(
      set: (O, FiniteDuration) => O): OParser[String, O] = durationOf(b, "every", what, text(DefaultEvery), zero = false)(set)

  /** A duration flag of one command, read and checked as `--duration` is (`--warmup 0` where zero is allowed). */
  def durationFlag[O](b: OParserBuilder[O], flag: String, what: String, default: String, zero: Boolean = false)(
      set: (O, FiniteDuration) => O): OParser[String, O] = durationOf(b, flag, what, default, zero)(set)

  /** `--connections`: the closed loop's clients. */
  def connections[O](b: OParserBuilder[O], what: String = "the closed loop's connections (clients)",
      default: String = DefaultConnections.toString)(set: (O, Int) => O): OParser[Int, O] =
    import b.*
    opt[Int]("connections").valueName("<n>").text(s"$what (default $default)")
      .validate(n => if n >= 1 && n <= MostConnections then success
        else failure(s"--connections must be 1..$MostConnections, was $n"))
      .action((n, o) => set(o, n))

  /** `--threads`: wrk's threads. */
  def threads[O](b: OParserBuilder[O], default: String = DefaultThreads.toString)(set: (O, Int) => O): OParser[Int, O] =
    import b.*
    opt[Int]("threads").valueName("<n>").text(s"wrk's threads (default $default)")
      .validate(n => if n >= 1 && n <= 64 then success else failure(s"--threads must be 1..64, was $n"))
      .action((n, o) => set(o, n))

  /** `--out`: the directory results are written into; `default` names the one under ./results/. */
  def out[O](b: OParserBuilder[O], default: String)(set: (O, Path) => O): OParser[String, O] =
    import b.*
    opt[String]("out").valueName("<dir>").text(s"where to write the results (default ./results/<date>-$default)")
      .action((d, o) => set(o, Path.of(d)))

  /** `--url`: what the load requests, on any host, over HTTP or HTTPS. */
  def url[O](b: OParserBuilder[O], what: String = "what the load requests")(set: (O, String) => O): OParser[String, O] =
    import b.*
    opt[String]("url").valueName("<url>").text(s"$what (http:// or https://, any host)")
      .validate(u => Request.url(u).fold(e => failure(s"--url: $e"), _ => success))
      .action((u, o) => set(o, u))

  /**
   * The user's requests beyond a GET of `--url` ([[RequestFlags]]): `--method`, `--header` (again for each),
   * `--body @FILE`, `--insecure`, and `--targets FILE` (vegeta's format, several routes). Each value is checked at
   * parse; the body and targets files are read by [[RequestFlags.requests]] in the command's `checkConfig`.
   */
  def requests[O](b: OParserBuilder[O])(get: O => RequestFlags, set: (O, RequestFlags) => O): OParser[?, O] =
    import b.*
    OParser.sequence(
      opt[String]("method").valueName("<METHOD>").text("the request's method (default GET, or POST with --body)")
        .validate(m => Request.method(m).fold(e => failure(s"--method: $e"), _ => success))
        .action((m, o) => set(o, get(o).copy(method = Some(m)))),
      opt[String]("header").valueName("<Name: value>").unbounded()
        .text("a header of every request (again for each: an Authorization, a Content-Type)")
        .validate(h => Request.header(h).fold(e => failure(s"--header: $e"), _ => success))
        .action((h, o) => set(o, get(o).copy(headers = get(o).headers :+ h))),
      opt[String]("body").valueName("@<file>").text("the request's body, read from the file")
        .validate(v => Request.body(v).fold(e => failure(s"--body: $e"), _ => success))
        .action((v, o) => set(o, get(o).copy(body = Some(v)))),
      opt[Unit]("insecure").text("take any certificate over https:// (a self-signed one); the meters' scrapes too")
        .action((_, o) => set(o, get(o).copy(insecure = true))),
      opt[String]("targets").valueName("<file>")
        .text("several routes in vegeta's targets format (METHOD URL, headers, @body), in place of --url; the load " +
          "shares its clients between them and the result gives each one's rate")
        .action((f, o) => set(o, get(o).copy(targets = Some(Path.of(f))))))

  /** `--metrics URL`: the service's Prometheus endpoint, scraped with each sample; again for each `--jmx` replica. */
  def metrics[O](b: OParserBuilder[O])(set: (O, String) => O): OParser[String, O] =
    import b.*
    opt[String]("metrics").valueName("<url>").unbounded()
      .text("the service's Prometheus meters (Spring Boot: http://HOST:PORT/actuator/prometheus), scraped with each " +
        "thread sample: a pool's size, use and queue beside the dump; one per --jmx, in order, for a fleet")
      .validate(u => MetricsScrape.url(u).fold(failure, _ => success))
      .action((u, o) => set(o, u))

  /**
   * `--pid PID`, `--jmx HOST:PORT` and `--jmx-credentials FILE`: the JVM to measure ([[JvmFlags]]), and the check
   * that one of them names it (run it in the command's `checkConfig`: [[JvmFlags.problem]]); `--allow-risky-dumps`:
   * how it may be sampled.
   */
  def jvm[O](b: OParserBuilder[O])(get: O => JvmFlags, set: (O, JvmFlags) => O): OParser[?, O] =
    import b.*
    OParser.sequence(
      opt[Long]("pid").valueName("<pid>").text("the JVM to sample, on this host (the attach API, as jcmd)")
        .validate(p => if p > 0 then success else failure(s"--pid must be a process id, was $p"))
        .action((p, o) => set(o, get(o).copy(pid = Some(p)))),
      opt[String]("jmx").valueName("<host:port>").unbounded()
        .text("or the JVM to sample through its JMX agent (in a container, on another host); again for each " +
          "replica of a fleet, sampled together")
        .validate(a => JmxAddress.parse(a).fold(e => failure(s"--jmx: $e"), _ => success))
        .action((a, o) => JmxAddress.parse(a).fold(_ => o, j => set(o, get(o).copy(jmx = get(o).jmx :+ j)))),
      opt[String]("jmx-credentials").valueName("<file>")
        .text("with --jmx: a file (mode 600) holding `user password` on one line, for an agent that authenticates")
        .action((f, o) => set(o, get(o).copy(jmxCredentials = Some(Path.of(f))))),
      opt[Unit]("allow-risky-dumps")
        .text("take the JSON thread dump (virtual threads' stacks) even on a JDK where it can crash the JVM while " +
          "virtual threads mount and unmount (JDK 25: JDK-8364343); without it the lab reads Thread.print and JFR " +
          "events there (docs/sampling.md)")
        .action((_, o) => set(o, get(o).copy(allowRiskyDumps = true))))
