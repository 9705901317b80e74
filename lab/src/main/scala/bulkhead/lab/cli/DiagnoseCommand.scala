package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.load.LoadDriver
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.report.{RouteRates, ThreadTable}
import bulkhead.lab.run.ProcessRun
import bulkhead.lab.sample.MetricsScrape
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * `lab diagnose --pid PID --url URL`: the seeds' method (load the service, sample its threads, read them per pool)
 * for any JVM, started by anyone: loads URL with wrk while sampling PID, then names the pool or resource that caps it.
 * `--jmx HOST:PORT` samples a JVM through its JMX agent instead (in a container, on another host), and given again,
 * the replicas of one service together (a fleet: a resource full on each caps it at their sum); `--no-load` only
 * observes the service under its own traffic. The load is the user's requests (`--method`, `--header`, `--body`,
 * https with `--insecure`, or `--targets` with several routes: each route's rate is printed), on any host; `--metrics`
 * adds the service's own meters to each sample, beside the dump.
 */
object DiagnoseCommand extends LabCommand:
  val name = "diagnose"
  val summary = "load any JVM's URL with wrk while sampling its threads; name what caps it (or --no-load: observe)"

  final case class Options(jvm: JvmFlags = JvmFlags(), url: String = "",
      connections: Int = CommonFlags.DefaultConnections, threads: Int = CommonFlags.DefaultThreads,
      duration: FiniteDuration = CommonFlags.DefaultDuration, every: FiniteDuration = CommonFlags.DefaultEvery,
      noLoad: Boolean = false, rateMetric: Option[String] = None, out: Option[Path] = None,
      requests: RequestFlags = RequestFlags(), metrics: Seq[String] = Nil)

  /** A request without an answer by then is counted as a timeout. */
  val RequestTimeout: FiniteDuration = 10.seconds

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab diagnose"),
      head(summary),
      CommonFlags.jvm(b)(_.jvm, (o, j) => o.copy(jvm = j)),
      CommonFlags.url(b, "what wrk loads; not with --no-load")((o, u) => o.copy(url = u)),
      CommonFlags.requests(b)(_.requests, (o, r) => o.copy(requests = r)),
      CommonFlags.metrics(b)((o, u) => o.copy(metrics = o.metrics :+ u)),
      CommonFlags.connections(b, "wrk's connections (clients)")((o, n) => o.copy(connections = n)),
      CommonFlags.threads(b)((o, n) => o.copy(threads = n)),
      CommonFlags.duration(b, "how long to load (or observe)")((o, d) => o.copy(duration = d)),
      CommonFlags.every(b)((o, d) => o.copy(every = d)),
      opt[Unit]("no-load").text("observe under the service's own traffic; no wrk").action((_, o) => o.copy(noLoad = true)),
      opt[String]("rate-metric").valueName("<url>#<counter>")
        .text("with --no-load: a Prometheus counter of answered requests, e.g. http://127.0.0.1:9090/metrics#http_requests_total")
        .validate(v => if v.contains('#') then success else failure(s"--rate-metric must be URL#counter, was '$v'"))
        .action((v, o) => o.copy(rateMetric = Some(v))),
      CommonFlags.out(b, "diagnose-<pid>")((o, d) => o.copy(out = Some(d))),
      checkConfig(o =>
        o.jvm.fleetProblem.map(failure).getOrElse(
          if !o.noLoad && o.url.isEmpty && o.requests.targets.isEmpty then
            failure("--url is required (or --targets, or --no-load to observe without load)")
          else if o.noLoad && (o.url.nonEmpty || o.requests.any) then
            failure("--no-load observes: no --url, --targets or request flags")
          else if o.noLoad && o.jvm.jmx.size > 1 then failure("a fleet (--jmx given again) is diagnosed under a load")
          else if o.metrics.nonEmpty && o.metrics.size != o.jvm.jvms.size then
            failure(s"give one --metrics per JVM sampled, in the order of --jmx: ${o.metrics.size} for " +
              s"${o.jvm.jvms.size}")
          else if o.noLoad then success
          else o.requests.requests(o.url).fold(failure, _ => success))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    // Refused before anything starts: a JVM that cannot be measured, a metrics endpoint that does not answer.
    o.jvm.jvms.flatMap(_.refused).headOption.orElse(scrapes(o).map(_.check()).collectFirst { case Left(e) =>
      s"--metrics: $e" }) match
      case Some(err) =>
        System.err.println(s"bulkhead lab diagnose: $err")
        2
      case None =>
        val dir = o.out.getOrElse(Paths.results(s"diagnose-${o.jvm.jvm.key}"))
        run(o, dir, println) match
          case Left(err) =>
            System.err.println(s"bulkhead lab diagnose: $err")
            1
          case Right(record) =>
            println(ThreadTable.render(record.samples.map(_.pools)))
            if record.load.routes.nonEmpty then println(RouteRates.render(record.load, record.info.expectedClass))
            println(Diagnosis(record).line(record.info.name))
            println(s"result: ${dir.resolve(RecordJson.FileName)}")
            0
  }

  /** The meters' endpoints, scraped over TLS as the load is (`--insecure` takes any certificate for both). */
  private def scrapes(o: Options): Seq[MetricsScrape] = o.metrics.map(MetricsScrape(_, o.requests.insecure))

  /** Loads (or observes) and samples the JVM, or every replica; the run, written as `result.json` into `dir`. */
  def run(o: Options, dir: Path, say: String => Unit): Either[String, RunRecord] =
    if o.noLoad then ProcessRun.onAll(o.jvm.jvms, scrapes(o), o.every, say)(_.observed(o.duration, o.rateMetric, dir))
    else o.requests.requests(o.url).flatMap { requests =>
      ProcessRun.onAll(o.jvm.jvms, scrapes(o), o.every, say) { run =>
        val driver = LoadDriver.closedLoop(requests, o.threads, o.connections, o.duration, RequestTimeout)
        say(s"bulkhead lab diagnose: ${driver.describe(requests)} while sampling " +
          s"${o.jvm.jvms.map(_.label).mkString(", ")} every ${o.every.toMillis} ms")
        run.loadedFleet(driver, requests, dir)
      }
    }
