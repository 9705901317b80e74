package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.load.WrkDriver
import bulkhead.lab.model.MetricsReading
import bulkhead.lab.record.{RecordJson, RunInfo, RunRecord}
import bulkhead.lab.report.ThreadTable
import bulkhead.lab.run.{Measurement, PauseBudget}
import bulkhead.lab.sample.{JmxAddress, JmxConnection, JmxCredentials, JmxSampler, ProcessSampler, ServiceSampler}
import bulkhead.lab.process.Stack
import scopt.OParser

import java.nio.file.{Files, Path}
import java.time.Instant
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

  final case class Options(pid: Long = -1, url: String = "", connections: Int = 50, threads: Int = 2,
      duration: FiniteDuration = 20.seconds, every: FiniteDuration = 1.second, noLoad: Boolean = false,
      rateMetric: Option[String] = None, out: Option[Path] = None, jmx: Option[JmxAddress] = None,
      jmxCredentials: Option[Path] = None, allowRiskyDumps: Boolean = false)

  private def seconds(v: String): Option[FiniteDuration] = CommonFlags.duration(v)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab diagnose"),
      head(summary),
      opt[Long]("pid").valueName("<pid>").text("the JVM to sample, on this host (attach API, as jcmd)")
        .validate(p => if p > 0 then success else failure(s"--pid must be a process id, was $p"))
        .action((p, o) => o.copy(pid = p)),
      CommonFlags.jmx(b)((o, a) => o.copy(jmx = Some(a)), (o, f) => o.copy(jmxCredentials = Some(f))),
      opt[String]("url").valueName("<url>").text("what wrk loads (127.0.0.1 only); not with --no-load")
        .validate(u => if u.startsWith("http://127.") || u.startsWith("http://localhost") then success
          else failure(s"--url must be on loopback (http://127.0.0.1:...), was '$u'"))
        .action((u, o) => o.copy(url = u)),
      opt[Int]("connections").valueName("<n>").text("wrk connections (clients), default 50")
        .validate(n => if n >= 1 && n <= 20000 then success else failure(s"--connections must be 1..20000, was $n"))
        .action((n, o) => o.copy(connections = n)),
      opt[Int]("threads").valueName("<n>").text("wrk threads, default 2")
        .validate(n => if n >= 1 && n <= 64 then success else failure(s"--threads must be 1..64, was $n"))
        .action((n, o) => o.copy(threads = n)),
      opt[String]("duration").valueName("<20s>").text("how long to load (or observe), default 20s")
        .validate(v => if seconds(v).isDefined then success else failure(s"--duration must be like 20s or 2m, was '$v'"))
        .action((v, o) => o.copy(duration = seconds(v).get)),
      opt[String]("every").valueName("<1s>").text("time between thread samples, default 1s")
        .validate(v => if seconds(v).isDefined then success else failure(s"--every must be like 1s or 500ms, was '$v'"))
        .action((v, o) => o.copy(every = seconds(v).get)),
      opt[Unit]("no-load").text("observe under the service's own traffic; no wrk").action((_, o) => o.copy(noLoad = true)),
      opt[Unit]("allow-risky-dumps").text("take the JSON thread dump (virtual threads' stacks) even on a JDK where it " +
          "can crash the JVM while virtual threads mount and unmount (JDK 25: JDK-8364343); without it the lab reads " +
          "Thread.print and JFR events there (docs/sampling.md)")
        .action((_, o) => o.copy(allowRiskyDumps = true)),
      opt[String]("rate-metric").valueName("<url>#<counter>")
        .text("with --no-load: a Prometheus counter of answered requests, e.g. http://127.0.0.1:9090/metrics#http_requests_total")
        .validate(v => if v.contains('#') then success else failure(s"--rate-metric must be URL#counter, was '$v'"))
        .action((v, o) => o.copy(rateMetric = Some(v))),
      opt[String]("out").valueName("<dir>").text("where to write result.json (default results/<date>-diagnose-<pid>)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      checkConfig(o =>
        if o.pid > 0 == o.jmx.isDefined then failure("give the JVM to sample: --pid PID or --jmx HOST:PORT (one of them)")
        else if o.jmxCredentials.isDefined && o.jmx.isEmpty then failure("--jmx-credentials goes with --jmx")
        else if !o.noLoad && o.url.isEmpty then failure("--url is required (or --no-load to observe without load)")
        else if o.noLoad && o.url.nonEmpty then failure("--url and --no-load exclude each other")
        else success),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val refused =
      if o.jmx.isEmpty && !Files.isDirectory(Path.of(s"/proc/${o.pid}")) then Some(s"no process ${o.pid}")
      else o.jmxCredentials.flatMap(f => JmxCredentials.read(f).left.toOption)
    refused match
      case Some(err) =>
        System.err.println(s"bulkhead lab diagnose: $err")
        2
      case None =>
        val dir = o.out.getOrElse(Paths.results(s"diagnose-${Sampled.key(o)}"))
        run(o, dir, println) match
          case Left(err) =>
            System.err.println(s"bulkhead lab diagnose: $err")
            1
          case Right(record) =>
            println(ThreadTable.render(record.samples.map(_.pools)))
            record.sampling.foreach(s => println(s"sampled: ${s.describe}"))
            record.death match
              case Some(d) =>
                println(s"=> ${record.info.name}: the target ${d.sentence}; nothing measured after it is reported")
                println(s"result: ${dir.resolve(RecordJson.FileName)}")
                1
              case None =>
                println(Diagnosis(record).line(record.info.name))
                println(s"result: ${dir.resolve(RecordJson.FileName)}")
                0
  }

  /**
   * The JVM sampled: by pid on this host, or over JMX (then its JDK and cores are its own, read through the
   * connection). `label` names it in the run (`pid 4242`, `jmx 127.0.0.1:9010`).
   */
  private final case class Sampled(sampler: ProcessSampler, label: String, jdk: String, cores: Int,
      close: () => Unit = () => ())

  private object Sampled:
    /** `4242`, or `jmx-127.0.0.1-9010`: what names its results directory. */
    def key(o: Options): String = o.jmx.fold(o.pid.toString)(a => s"jmx-${a.host}-${a.port}".replaceAll("[^A-Za-z0-9.-]", "-"))
    /** The run's name: `pid-4242`, or `jmx-127.0.0.1-9010`. */
    def name(o: Options): String = if o.jmx.isDefined then key(o) else s"pid-${o.pid}"

    def open(o: Options): Either[String, Sampled] = o.jmx match
      case None => Right(Sampled(ServiceSampler(o.pid, None, allowRiskyDumps = o.allowRiskyDumps), s"pid ${o.pid}",
        sys.env.getOrElse("BULKHEAD_JDK", Runtime.version().toString), Runtime.getRuntime.availableProcessors()))
      case Some(address) =>
        for
          credentials <- o.jmxCredentials.fold(Right(None))(f => JmxCredentials.read(f).map(Some(_)))
          connection <- JmxConnection.open(address, credentials)
        yield
          val sampler = JmxSampler(connection)
          Sampled(sampler, s"jmx $address", connection.jdk,
            sampler.cores.getOrElse(Runtime.getRuntime.availableProcessors()), () => connection.close())

  /** Loads (or observes) and samples the process; the run, written as `result.json` into `dir`. */
  def run(o: Options, dir: Path, say: String => Unit): Either[String, RunRecord] =
    Sampled.open(o).flatMap(s => try measure(o, s, dir, say) finally s.close())

  private def measure(o: Options, sampled: Sampled, dir: Path, say: String => Unit): Either[String, RunRecord] =
    Files.createDirectories(dir)
    val sampler = sampled.sampler
    val started = Instant.now()
    // A first sample, before any load, tells which dump the JVM can take safely: the header says it.
    sampler.sample(0.0)
    say(s"bulkhead lab diagnose: sampling ${sampled.label} every ${o.every.toMillis} ms (longer when its pauses " +
      s"would pass ${(PauseBudget.Share * 100).round} % of the time) from " +
      sampler.source.fold("a thread dump")(_.describe))
    val measured =
      if o.noLoad then Right(observe(o, sampled))
      else
        val driver = WrkDriver(o.threads, o.connections, o.duration, 10.seconds)
        say(s"bulkhead lab diagnose: ${driver.describe(o.url)}")
        Measurement.run(driver, o.url, dir, sampler, o.every, say)
    measured.flatMap {
      case m if m.death.isEmpty && m.samples.forall(_.pools.isEmpty) =>
        val why = if o.jmx.isDefined then "" else "is it a JVM of this user?"
        Left(s"no thread dump of ${sampled.label}: ${sampler.lastDumpError.getOrElse(why)}")
      case m =>
        val (figures, samples) = (m.figures, m.samples)
        val label = sampled.label
        val info = RunInfo(Sampled.name(o), label, label, o.url, figures.description,
          figures.clients, Nil, None, None, None, None, "2xx", None, label, sampled.jdk, sampled.cores,
          started.toString)
        val record = RunRecord(info, figures, samples, 0, figures.durationSeconds, Seq(figures.throughput()), Nil,
          Some(m.beforeLoad), Some(m.afterLoad), sampling = m.sampling, death = m.death)
        RecordJson.write(record, dir)
        Right(record)
    }

  /** Samples for the duration without load; the answers are the counter's increase, when one is given. */
  private def observe(o: Options, sampled: Sampled): Measurement.Outcome =
    def count(): Option[Double] = o.rateMetric.flatMap { spec =>
      val (url, counter) = spec.splitAt(spec.lastIndexOf('#'))
      Stack.get(url, 5.seconds).toOption.map(t => MetricsReading.lines(t).filter(_.name == counter.drop(1)).map(_.value).sum)
    }
    println(s"bulkhead lab diagnose: observing ${sampled.label} for ${o.duration.toSeconds} s (no load)")
    Measurement.observe(sampled.sampler, o.every, o.duration, () => count(),
      s"observed ${o.duration.toSeconds} s" + o.rateMetric.fold("")(m => s", rate from $m"))
