package bulkhead.lab.cli

import bulkhead.lab.ThreadTable
import bulkhead.lab.sample.ThreadSampler
import scopt.OParser

import scala.concurrent.duration.*

/** `lab threads PID`: the seeds' jstackSeries for any JVM: N thread dumps, one table of threads per pool over time. */
object ThreadsCommand extends LabCommand:
  val name = "threads"
  val summary = "threads per pool and state over time for any JVM (the seeds' jstackSeries)"

  final case class Options(pid: Long = -1, every: FiniteDuration = 30.seconds, count: Int = 4)

  private def duration(v: String): Option[FiniteDuration] =
    scala.util.Try(Duration(v.replaceAll("(\\d)(ms|s|m)$", "$1 $2"))).toOption.collect {
      case d: FiniteDuration if d > Duration.Zero => d }

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab threads"),
      head(summary),
      arg[Long]("PID").text("the JVM to sample")
        .validate(p => if p > 0 then success else failure(s"PID must be a process id, was $p"))
        .action((p, o) => o.copy(pid = p)),
      opt[String]("every").valueName("<30s>").text("time between dumps (default 30s)")
        .validate(v => if duration(v).isDefined then success else failure(s"bad --every '$v' (e.g. 30s, 500ms)"))
        .action((v, o) => o.copy(every = duration(v).get)),
      opt[Int]("count").valueName("<4>").text("number of dumps (default 4)")
        .validate(n => if n > 0 then success else failure(s"bad --count '$n' (a positive number)"))
        .action((n, o) => o.copy(count = n)),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val samples = (1 to o.count).map { i =>
      val s = ThreadSampler.sample(o.pid)
      if i < o.count then Thread.sleep(o.every.toMillis)
      s
    }
    samples.collectFirst { case Left(err) => err } match
      case Some(err) =>
        System.err.println(s"bulkhead lab threads: $err")
        1
      case None =>
        println(ThreadTable.render(samples.collect { case Right(s) => s }))
        0
  }
