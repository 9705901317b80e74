package bulkhead.lab.cli

import bulkhead.lab.faults.{FaultCase, FaultSuite, FaultSuiteSettings, ModePlan}
import bulkhead.lab.process.Launch
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab faults`: the fault matrix under load and the overload ramp, the service on its shipped settings; exit 1 when a
 * check fails. By default every fault in non-blocking mode and the thread-holding ones in blocking and virtual mode;
 * `--soap-modes` runs every fault in each mode named.
 */
object FaultsCommand extends LabCommand:
  val name = "faults"
  val summary = s"the fault matrix under load and the overload ramp, on the service's shipped settings (short: ~7 min)"

  final case class Options(full: Boolean = false, only: Set[String] = Set.empty, out: Option[Path] = None,
      modes: Option[Seq[String]] = None)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab faults"),
      head(summary),
      opt[Unit]("full").text("the long form of every phase").action((_, o) => o.copy(full = true)),
      opt[Seq[String]]("only").valueName("a,b").text(s"only these faults: ${FaultCase.all.map(_.name).mkString(", ")}")
        .validate(fs => fs.find(n => !FaultCase.all.exists(_.name == n)) match
          case Some(bad) => failure(s"unknown fault '$bad' in --only; faults: ${FaultCase.all.map(_.name).mkString(", ")}")
          case None => success)
        .action((fs, o) => o.copy(only = fs.map(_.trim).filter(_.nonEmpty).toSet)),
      opt[Seq[String]]("soap-modes").valueName("a,b").text(s"every fault in each of these SOAP modes: " +
          s"${FaultSuiteSettings.Modes.mkString(", ")} (default: every fault non-blocking, " +
          s"${FaultSuiteSettings.ThreadHolding.toSeq.sorted.mkString(" and ")} blocking, trickle virtual)")
        .validate(ms => ms.map(_.trim).find(m => !FaultSuiteSettings.Modes.contains(m)) match
          case Some(bad) =>
            failure(s"unknown SOAP mode '$bad' in --soap-modes; modes: ${FaultSuiteSettings.Modes.mkString(", ")}")
          case None => success)
        .action((ms, o) => o.copy(modes = Some(ms.map(_.trim).filter(_.nonEmpty).distinct))),
      opt[String]("out").valueName("<dir>").text("report directory (default results/<date>-faults-short)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val base = if o.full then FaultSuiteSettings.Full else FaultSuiteSettings.Short
    val settings = base.copy(only = o.only, modes = o.modes.fold(base.modes)(_.map(ModePlan(_))))
    val dir = o.out.getOrElse(Paths.results(s"faults-${if o.full then "full" else "short"}"))
    val outcome =
      try Right(FaultSuite.run(settings, Launch.fromSystem(), Files.createTempDirectory("bulkhead-faults"),
        s"./bulkhead lab faults ${args.mkString(" ")}".trim, println))
      catch case e: Exception => Left(Option(e.getMessage).getOrElse(e.getClass.getSimpleName))
    outcome match
      case Left(err) =>
        // E.g. redis-server, the stub or the service did not start: say which, no stack trace.
        System.err.println(s"bulkhead lab faults: could not run: $err")
        1
      case Right(report) =>
        val file = report.write(dir)
        println()
        println(report.matrix)
        println()
        println(report.rampTable)
        println(s"\n${if report.passed then "every check passed" else "SOME CHECKS FAILED"}; report: $file")
        if report.passed then 0 else 1
  }
