package bulkhead.lab.cli

import bulkhead.lab.report.ThreadTable
import bulkhead.lab.sample.{JmxAddress, JmxConnection, JmxCredentials, PoolSample, ThreadSampler}
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * `lab threads PID`: the seeds' jstackSeries for any JVM: N thread dumps, one table of threads per pool over time.
 * `lab threads --jmx HOST:PORT` takes them through the JVM's JMX agent.
 */
object ThreadsCommand extends LabCommand:
  val name = "threads"
  val summary = "threads per pool and state over time for any JVM (the seeds' jstackSeries)"

  final case class Options(pid: Long = -1, every: FiniteDuration = 30.seconds, count: Int = 4,
      jmx: Option[JmxAddress] = None, jmxCredentials: Option[Path] = None)

  private def duration(v: String): Option[FiniteDuration] =
    scala.util.Try(Duration(v.replaceAll("(\\d)(ms|s|m)$", "$1 $2"))).toOption.collect {
      case d: FiniteDuration if d > Duration.Zero => d }

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab threads"),
      head(summary),
      arg[Long]("PID").optional().text("the JVM to sample, on this host")
        .validate(p => if p > 0 then success else failure(s"PID must be a process id, was $p"))
        .action((p, o) => o.copy(pid = p)),
      CommonFlags.jmx(b)((o, a) => o.copy(jmx = Some(a)), (o, f) => o.copy(jmxCredentials = Some(f))),
      opt[String]("every").valueName("<30s>").text("time between dumps (default 30s)")
        .validate(v => if duration(v).isDefined then success else failure(s"bad --every '$v' (e.g. 30s, 500ms)"))
        .action((v, o) => o.copy(every = duration(v).get)),
      opt[Int]("count").valueName("<4>").text("number of dumps (default 4)")
        .validate(n => if n > 0 then success else failure(s"bad --count '$n' (a positive number)"))
        .action((n, o) => o.copy(count = n)),
      checkConfig(o =>
        if o.pid > 0 == o.jmx.isDefined then failure("give the JVM to sample: PID or --jmx HOST:PORT (one of them)")
        else if o.jmxCredentials.isDefined && o.jmx.isEmpty then failure("--jmx-credentials goes with --jmx")
        else success),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val credentials = o.jmxCredentials.fold(Right(None))(f => JmxCredentials.read(f).map(Some(_)))
    credentials match
      case Left(err) =>
        System.err.println(s"bulkhead lab threads: $err")
        2
      case Right(c) =>
        val samples = o.jmx match
          case None => series(o)(() => ThreadSampler.sample(o.pid))
          case Some(address) => JmxConnection.open(address, c) match
            case Left(err) => Seq(Left(err))
            case Right(connection) =>
              try series(o)(() => connection.dump().map(PoolSample.of(_)))
              finally connection.close()
        samples.collectFirst { case Left(err) => err } match
          case Some(err) =>
            System.err.println(s"bulkhead lab threads: $err")
            1
          case None =>
            println(ThreadTable.render(samples.collect { case Right(s) => s }))
            0
  }

  /** `count` samples, `every` apart, up to the first that fails. */
  private def series(o: Options)(sample: () => Either[String, Seq[PoolSample]]): Seq[Either[String, Seq[PoolSample]]] =
    val taken = Vector.newBuilder[Either[String, Seq[PoolSample]]]
    var i = 1
    var failed = false
    while i <= o.count && !failed do
      val s = sample()
      taken += s
      failed = s.isLeft
      if i < o.count && !failed then Thread.sleep(o.every.toMillis)
      i += 1
    taken.result()
