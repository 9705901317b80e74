package bulkhead.lab.cli

import bulkhead.lab.diagnose.{Prediction, VerdictJson}
import bulkhead.lab.load.LoadDriver
import bulkhead.lab.process.Environment
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.report.{SuiteReport, ThreadTable}
import bulkhead.lab.run.ProcessRun
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * `lab diagnose --pid PID --url URL`: the seeds' method (load the service, sample its threads, read them per pool)
 * for any JVM, started by anyone: loads URL with wrk while sampling PID, then names the pool or resource that caps it.
 * `--jmx HOST:PORT` samples a JVM through its JMX agent instead (in a container, on another host); `--no-load` only
 * observes the service under its own traffic. Writes `result.json`, `verdict.json` and `report.html`; with
 * `--expect DIR` (a run before the fix) the earlier prediction sits beside this measurement. Exit 0 with a verdict, 1
 * when the run failed, 2 on bad input (nothing started).
 */
object DiagnoseCommand extends LabCommand:
  val name = "diagnose"
  val summary = "load any JVM's URL (wrk, else the lab's own users) while sampling its threads; name what caps it"

  final case class Options(jvm: JvmFlags = JvmFlags(), url: String = "",
      connections: Int = CommonFlags.DefaultConnections, threads: Int = CommonFlags.DefaultThreads,
      duration: FiniteDuration = CommonFlags.DefaultDuration, every: FiniteDuration = CommonFlags.DefaultEvery,
      noLoad: Boolean = false, rateMetric: Option[String] = None, out: Option[Path] = None,
      expect: Option[Path] = None)

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
        o.jvm.problem.map(failure).getOrElse(
          if !o.noLoad && o.url.isEmpty then failure("--url is required (or --no-load to observe without load)")
          else if o.noLoad && o.url.nonEmpty then failure("--url and --no-load exclude each other")
          else success)),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val prediction = o.expect.map(Prediction.read) match
      case Some(Left(err)) => Left(err)
      case other => Right(other.flatMap(_.toOption))
    (o.jvm.jvm.refused.toLeft(()), prediction) match
      case (Left(err), _) => refuse(err)
      case (_, Left(err)) => refuse(err)
      case (_, Right(expected)) =>
        val dir = o.out.getOrElse(Paths.results(s"diagnose-${o.jvm.jvm.key}"))
        run(o, dir, println, expected) match
          case Left(err) =>
            System.err.println(s"bulkhead lab diagnose: $err")
            1
          case Right(record) =>
            val verdict = VerdictJson.of(record, expected)
            val report = SuiteReport(s"bulkhead diagnose: ${record.info.title}",
              s"bulkhead lab diagnose ${args.mkString(" ")}", Environment.ofMachine(record.info.jdk), Seq(record), Nil)
            report.write(dir)
            println(ThreadTable.render(record.samples.map(_.pools)))
            println(verdict.line)
            verdict.expectation.foreach(e => println(s"   expected: ${e.line}"))
            println(s"verdict: ${dir.resolve(VerdictJson.FileName)}; report: ${dir.resolve(SuiteReport.HtmlFile)}; " +
              s"result: ${dir.resolve(RecordJson.FileName)}")
            0
  }

  private def refuse(err: String): Int =
    System.err.println(s"bulkhead lab diagnose: $err")
    2

  /**
   * Loads (or observes) and samples the JVM; the run, written as `result.json` into `dir` with its `verdict.json`
   * (beside `expected`, the prediction of an earlier run, when given).
   */
  def run(o: Options, dir: Path, say: String => Unit, expected: Option[Prediction] = None): Either[String, RunRecord] =
    ProcessRun.on(o.jvm.jvm, o.every, say, expected) { run =>
      if o.noLoad then run.observed(o.duration, o.rateMetric, dir)
      else
        val driver = LoadDriver.closedLoop(o.threads, o.connections, o.duration, RequestTimeout, say)
        say(s"bulkhead lab diagnose: ${driver.describe(o.url)} while sampling ${o.jvm.jvm.label} every ${o.every.toMillis} ms")
        run.loaded(driver, o.url, dir)
    }
