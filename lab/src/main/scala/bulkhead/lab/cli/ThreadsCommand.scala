package bulkhead.lab.cli

import bulkhead.lab.report.ThreadTable
import bulkhead.lab.run.ProcessRun
import scopt.OParser

import scala.concurrent.duration.*

/**
 * `lab threads --pid PID`: the seeds' jstackSeries for any JVM: N thread dumps, one table of threads per pool over
 * time. `lab threads --jmx HOST:PORT` takes them through the JVM's JMX agent.
 */
object ThreadsCommand extends LabCommand:
  val name = "threads"
  val summary = "threads per pool and state over time for any JVM (the seeds' jstackSeries)"

  /** Dumps taken unless `--count` says otherwise. */
  val DefaultCount = 4

  final case class Options(jvm: JvmFlags = JvmFlags(), every: FiniteDuration = CommonFlags.DefaultEvery,
      count: Int = DefaultCount)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab threads"),
      head(summary),
      CommonFlags.jvm(b)(_.jvm, (o, j) => o.copy(jvm = j)),
      CommonFlags.every(b, "time between dumps")((o, d) => o.copy(every = d)),
      opt[Int]("count").valueName("<n>").text(s"number of dumps (default $DefaultCount)")
        .validate(n => if n >= 1 && n <= 1000 then success else failure(s"--count must be 1..1000, was $n"))
        .action((n, o) => o.copy(count = n)),
      checkConfig(o => o.jvm.problem.fold(success)(failure)),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    o.jvm.jvm.refused match
      case Some(err) =>
        System.err.println(s"bulkhead lab threads: $err")
        2
      case None =>
        ProcessRun.on(o.jvm.jvm, o.every, _ => (), o.jvm.allowRiskyDumps)(_.series(o.count)) match
          case Left(err) =>
            System.err.println(s"bulkhead lab threads: $err")
            1
          case Right(samples) =>
            println(ThreadTable.render(samples.map(_.pools)))
            0
  }
