package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.load.WrkDriver
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.report.ThreadTable
import bulkhead.lab.run.ProcessRun
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * `lab diagnose --pid PID --url URL`: the seeds' method (load the service, sample its threads, read them per pool)
 * for any JVM, started by anyone: loads URL with wrk while sampling PID, then names the pool or resource that caps it.
 * `--jmx HOST:PORT` samples a JVM through its JMX agent instead (in a container, on another host); `--no-load` only
 * observes the service under its own traffic.
 */
object DiagnoseCommand extends LabCommand:
  val name = "diagnose"
  val summary = "load any JVM's URL with wrk while sampling its threads; name what caps it (or --no-load: observe)"

  final case class Options(jvm: JvmFlags = JvmFlags(), url: String = "",
      connections: Int = CommonFlags.DefaultConnections, threads: Int = CommonFlags.DefaultThreads,
      duration: FiniteDuration = CommonFlags.DefaultDuration, every: FiniteDuration = CommonFlags.DefaultEvery,
      noLoad: Boolean = false, rateMetric: Option[String] = None, out: Option[Path] = None)

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
        o.jvm.problem.map(failure).getOrElse(
          if !o.noLoad && o.url.isEmpty then failure("--url is required (or --no-load to observe without load)")
          else if o.noLoad && o.url.nonEmpty then failure("--url and --no-load exclude each other")
          else success)),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    o.jvm.jvm.refused match
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
            println(Diagnosis(record).line(record.info.name))
            println(s"result: ${dir.resolve(RecordJson.FileName)}")
            0
  }

  /** Loads (or observes) and samples the JVM; the run, written as `result.json` into `dir`. */
  def run(o: Options, dir: Path, say: String => Unit): Either[String, RunRecord] =
    ProcessRun.on(o.jvm.jvm, o.every, say) { run =>
      if o.noLoad then run.observed(o.duration, o.rateMetric, dir)
      else
        val driver = WrkDriver(o.threads.min(o.connections), o.connections, o.duration, RequestTimeout)
        say(s"bulkhead lab diagnose: ${driver.describe(o.url)} while sampling ${o.jvm.jvm.label} every ${o.every.toMillis} ms")
        run.loaded(driver, o.url, dir)
    }
