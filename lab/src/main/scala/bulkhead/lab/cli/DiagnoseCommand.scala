package bulkhead.lab.cli

import bulkhead.lab.diagnose.{Prediction, VerdictJson}
import bulkhead.lab.load.LoadDriver
import bulkhead.lab.process.Environment
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.report.{RouteRates, SuiteReport, ThreadTable}
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
 * adds the service's own meters to each sample, beside the dump. Writes `result.json`, `verdict.json` and
 * `report.html`; with `--expect DIR` (a run before the fix) the earlier prediction sits beside this measurement. Exit
 * 0 with a verdict, 1 when the run failed, 2 on bad input (nothing started).
 */
object DiagnoseCommand extends LabCommand:
  val name = "diagnose"
  val summary = "load any JVM's URL (wrk, else the lab's own users) while sampling its threads; name what caps it"

  final case class Options(jvm: JvmFlags = JvmFlags(), url: String = "",
      connections: Int = CommonFlags.DefaultConnections, threads: Int = CommonFlags.DefaultThreads,
      duration: FiniteDuration = CommonFlags.DefaultDuration, every: FiniteDuration = CommonFlags.DefaultEvery,
      noLoad: Boolean = false, rateMetric: Option[String] = None, out: Option[Path] = None,
      requests: RequestFlags = RequestFlags(), metrics: Seq[String] = Nil, expect: Option[Path] = None)

  /** A request without an answer by then is counted as a timeout. */
  val RequestTimeout: FiniteDuration = 10.seconds

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab diagnose"),
      head(summary),
      CommonFlags.jvm(b)(_.jvm, (o, j) => o.copy(jvm = j)),
      CommonFlags.url(b, "what the load requests; not with --no-load")((o, u) => o.copy(url = u)),
      CommonFlags.requests(b)(_.requests, (o, r) => o.copy(requests = r)),
      CommonFlags.metrics(b)((o, u) => o.copy(metrics = o.metrics :+ u)),
      CommonFlags.connections(b, "the closed loop's connections (clients)")((o, n) => o.copy(connections = n)),
      CommonFlags.threads(b)((o, n) => o.copy(threads = n)),
      CommonFlags.duration(b, "how long to load (or observe)")((o, d) => o.copy(duration = d)),
      CommonFlags.every(b)((o, d) => o.copy(every = d)),
      opt[Unit]("no-load").text("observe under the service's own traffic; no load").action((_, o) => o.copy(noLoad = true)),
      opt[String]("rate-metric").valueName("<url>#<counter>")
        .text("with --no-load: a Prometheus counter of answered requests, e.g. http://127.0.0.1:9090/metrics#http_requests_total")
        .validate(v => if v.contains('#') then success else failure(s"--rate-metric must be URL#counter, was '$v'"))
        .action((v, o) => o.copy(rateMetric = Some(v))),
      CommonFlags.out(b, "diagnose-<pid>")((o, d) => o.copy(out = Some(d))),
      opt[String]("expect").valueName("<dir>")
        .text("a run of this lab diagnose before you applied its fix: its prediction beside this measurement, in " +
          "verdict.json (lab gate checks it)")
        .action((d, o) => o.copy(expect = Some(Path.of(d)))),
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
    val prediction = o.expect.map(Prediction.read) match
      case Some(Left(err)) => Left(err)
      case other => Right(other.flatMap(_.toOption))
    // Refused before anything starts: a JVM that cannot be measured, a metrics endpoint that does not answer.
    val refused = o.jvm.jvms.flatMap(_.refused).headOption.orElse(scrapes(o).map(_.check()).collectFirst {
      case Left(e) => s"--metrics: $e" })
    (refused.toLeft(()), prediction) match
      case (Left(err), _) => refuse(err)
      case (_, Left(err)) => refuse(err)
      case (_, Right(expected)) =>
        val dir = o.out.getOrElse(Paths.results(s"diagnose-${o.jvm.jvm.key}"))
        run(o, dir, println, expected) match
          case Left(err) =>
            System.err.println(s"bulkhead lab diagnose: $err")
            1
          case Right(record) =>
            lazy val verdict = VerdictJson.of(record, expected)
            val report = SuiteReport(s"bulkhead diagnose: ${record.info.title}",
              s"bulkhead lab diagnose ${args.mkString(" ")}", Environment.ofMachine(record.info.jdk), Seq(record), Nil)
            report.write(dir)
            println(ThreadTable.render(record.samples.map(_.pools)))
            if record.load.routes.nonEmpty then println(RouteRates.render(record.load, record.info.expectedClass))
            record.sampling.foreach(s => println(s"sampled: ${s.describe}"))
            record.death match
              case Some(d) =>
                println(s"=> ${record.info.name}: the target ${d.sentence}; nothing measured after it is reported")
                println(s"result: ${dir.resolve(RecordJson.FileName)}")
                1
              case None =>
                println(verdict.line)
                verdict.expectation.foreach(e => println(s"   expected: ${e.line}"))
                println(s"verdict: ${dir.resolve(VerdictJson.FileName)}; report: ${dir.resolve(SuiteReport.HtmlFile)}; " +
                  s"result: ${dir.resolve(RecordJson.FileName)}")
                0
  }

  private def refuse(err: String): Int =
    System.err.println(s"bulkhead lab diagnose: $err")
    2

  /** The meters' endpoints, scraped over TLS as the load is (`--insecure` takes any certificate for both). */
  private def scrapes(o: Options): Seq[MetricsScrape] = o.metrics.map(MetricsScrape(_, o.requests.insecure))

  /**
   * Loads (or observes) and samples the JVM, or every replica; the run, written as `result.json` into `dir` with its
   * `verdict.json` (beside `expected`, the prediction of an earlier run, when given).
   */
  def run(o: Options, dir: Path, say: String => Unit, expected: Option[Prediction] = None): Either[String, RunRecord] =
    def onJvms[A](body: ProcessRun => Either[String, A]) =
      ProcessRun.onAll(o.jvm.jvms, scrapes(o), o.every, say, o.jvm.allowRiskyDumps, expected)(body)
    if o.noLoad then onJvms(_.observed(o.duration, o.rateMetric, dir))
    else o.requests.requests(o.url).flatMap { requests =>
      onJvms { run =>
        val driver = LoadDriver.closedLoop(requests, o.threads, o.connections, o.duration, RequestTimeout, say)
        say(s"bulkhead lab diagnose: ${driver.describe(requests)} while sampling " +
          s"${o.jvm.jvms.map(_.label).mkString(", ")} every ${o.every.toMillis} ms")
        run.loadedFleet(driver, requests, dir)
      }
    }
