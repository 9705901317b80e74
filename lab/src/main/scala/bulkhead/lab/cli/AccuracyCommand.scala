package bulkhead.lab.cli

import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.report.{AccuracyReport, SuiteReport}
import bulkhead.lab.run.SuiteRun
import bulkhead.lab.scenario.Scenario
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab accuracy`: the diagnosis cases (`lab/scenarios/diagnosis/`, one per capping resource of bulkhead's, and
 * `lab/scenarios/zoo/`, services of other frameworks; none giving the work time) run with `--verify`; prints expected
 * vs named resource, predicted cap vs the case's, the kind of fix, and the score.
 */
object AccuracyCommand extends LabCommand:
  val name = "accuracy"
  val summary = "the diagnosis cases with --verify: resource named, cap predicted vs measured, and the score"

  final case class Options(paths: Seq[String] = Nil, out: Option[Path] = None, verify: Boolean = true)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab accuracy"),
      head(summary),
      arg[String]("[FILE|DIR...]").unbounded().optional()
        .text("cases (default lab/scenarios/diagnosis and lab/scenarios/zoo)")
        .action((p, o) => o.copy(paths = o.paths :+ p)),
      opt[Unit]("no-verify").text("skip the re-runs with each verdict's fix").action((_, o) => o.copy(verify = false)),
      CommonFlags.out(b, "accuracy")((o, d) => o.copy(out = Some(d))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val paths = if o.paths.nonEmpty then o.paths
      else Seq("lab/scenarios/diagnosis", "lab/scenarios/zoo").map(d => Paths.root.resolve(d).toString)
    val scenarios = Scenario.files(paths).flatMap { files =>
      val read = files.map(f => Scenario.load(f))
      read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(s) => s })
    }
    scenarios match
      case Left(err) =>
        System.err.println(s"bulkhead lab accuracy: $err")
        2
      case Right(list) if list.exists(_.expectedResource.isEmpty) =>
        System.err.println("bulkhead lab accuracy: every case needs expect.resource; missing in " +
          list.filter(_.expectedResource.isEmpty).map(_.source).mkString(", "))
        2
      case Right(list) =>
        val dir = o.out.getOrElse(Paths.results("accuracy"))
        val launch = Launch.fromSystem()
        val env = Environment.read(launch)
        println(s"bulkhead lab accuracy: ${list.size} cases${if o.verify then ", each verified" else ""}; results in $dir")
        val outcome = SuiteRun(launch, Files.createDirectories(dir), println).run(list, o.verify)
        val command = s"./bulkhead lab accuracy ${args.mkString(" ")}".trim
        SuiteReport(s"bulkhead diagnosis accuracy", command, env, outcome.records, outcome.failures).write(dir)
        val accuracy = AccuracyReport(outcome.records)
        Files.writeString(dir.resolve("accuracy.md"), accuracy.markdown)
        println()
        println(accuracy.table)
        println(accuracy.score)
        println(s"\nreport: ${dir.resolve("README.md")}, ${dir.resolve("accuracy.md")}")
        if outcome.failures.isEmpty then 0 else 1
  }
