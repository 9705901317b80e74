package bulkhead.lab.cli

import bulkhead.lab.faults.{FaultCase, FaultSuite, FaultSuiteSettings, ModePlan, UndersizedPool}
import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.report.SuiteReport
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab faults`: the fault matrix under load, the overload ramp and the undersized pool, the service on its shipped
 * settings; exit 1 when a check fails. By default every fault in non-blocking mode and the thread-holding ones in
 * blocking and virtual mode;
 * `--soap-modes` runs every fault in each mode named.
 */
object FaultsCommand extends LabCommand:
  val name = "faults"
  val summary = "the fault matrix under load, the overload ramp and the undersized pool, on the service's shipped " +
    "settings (short: ~7 min)"

  final case class Options(full: Boolean = false, only: Set[String] = Set.empty, out: Option[Path] = None,
      modes: Option[Seq[String]] = None)

  /** What `--only` may name: each fault, and the undersized pool. */
  private val Steps: Seq[String] = FaultCase.all.map(_.name) :+ UndersizedPool.Name

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab faults"),
      head(summary),
      opt[Unit]("full").text("the long form of every phase").action((_, o) => o.copy(full = true)),
      opt[Seq[String]]("only").valueName("a,b").text(s"only these faults or steps: ${Steps.mkString(", ")} (the " +
          s"overload ramp runs with any fault; ${UndersizedPool.Name} alone runs only the undersized pool)")
        .validate(fs => fs.map(_.trim).find(n => n.nonEmpty && !Steps.contains(n)) match
          case Some(bad) => failure(s"unknown fault '$bad' in --only; faults and steps: ${Steps.mkString(", ")}")
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
      CommonFlags.out(b, "faults-short")((o, d) => o.copy(out = Some(d))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val base = if o.full then FaultSuiteSettings.Full else FaultSuiteSettings.Short
    val settings = base.copy(only = o.only, modes = o.modes.fold(base.modes)(_.map(ModePlan(_))))
    val dir = o.out.getOrElse(Paths.results(s"faults-${if o.full then "full" else "short"}"))
    val launch = Launch.fromSystem()
    println(s"bulkhead lab faults: results and report in $dir")
    val outcome =
      try Right(FaultSuite.run(settings, launch, Files.createDirectories(dir), println))
      catch case e: Exception => Left(Option(e.getMessage).getOrElse(e.getClass.getSimpleName))
    outcome match
      case Left(err) =>
        // E.g. redis-server, the stub or the service did not start: say which, no stack trace.
        System.err.println(s"bulkhead lab faults: could not run: $err")
        1
      case Right(run) =>
        val report = SuiteReport(s"bulkhead faults suite (${if o.full then "full" else "short"})",
          s"./bulkhead lab faults ${args.mkString(" ")}".trim, Environment.read(launch), run.records, run.failures)
        FaultChecksPrint(report, report.write(dir), run.failures)
  }
