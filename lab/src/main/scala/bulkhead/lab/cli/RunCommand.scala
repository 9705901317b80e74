package bulkhead.lab.cli

import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.report.SuiteReport
import bulkhead.lab.run.SuiteRun
import bulkhead.lab.scenario.Scenario
import scopt.OParser

import java.nio.file.{Files, Path}

/** `lab run FILE|DIR... [--short] [--verify] [--out DIR]` and `demo [--full]`: scenarios run, verdicts, report. */
object RunCommand extends LabCommand:
  val name = "run"
  val summary = "run scenario files; each run's result.json, the verdicts and a report under results/"

  final case class Options(paths: Seq[String] = Nil, short: Boolean = false, verify: Boolean = false,
      out: Option[Path] = None, cpus: Option[Int] = None)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab run"),
      head(summary),
      arg[String]("FILE|DIR...").unbounded().text("scenario files (.conf) or directories of them")
        .action((p, o) => o.copy(paths = o.paths :+ p)),
      opt[Unit]("short").text("shorten every load (the demo's form)").action((_, o) => o.copy(short = true)),
      opt[Unit]("verify").text("re-run each scenario with the setting its verdict names; predicted vs measured")
        .action((_, o) => o.copy(verify = true)),
      opt[Int]("cpus").valueName("<n>")
        .text("tell each served JVM it has n processors (-XX:ActiveProcessorCount): pools sized as on a machine of n cores")
        .validate(n => if n >= 1 && n <= Scenario.MaxCpus then success
          else failure(s"--cpus must be 1..${Scenario.MaxCpus}, was $n"))
        .action((n, o) => o.copy(cpus = Some(n))),
      CommonFlags.out(b, "scenarios")((o, d) => o.copy(out = Some(d))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    suite(o.paths, o.short, o.verify, o.out, "scenarios", s"./bulkhead lab run ${args.mkString(" ")}", o.cpus)
  }

  /** Loads the scenarios, runs them, writes the report; exit 1 when a scenario did not run. */
  def suite(paths: Seq[String], short: Boolean, verify: Boolean, out: Option[Path], title: String,
      command: String, cpus: Option[Int] = None): Int =
    val scenarios = Scenario.files(paths).flatMap { files =>
      val read = files.map(f => Scenario.load(f, short).map(s => cpus.fold(s)(n => s.copy(cpus = Some(n)))))
      read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(s) => s })
    }
    scenarios match
      case Left(err) =>
        System.err.println(s"bulkhead lab: $err")
        2
      case Right(list) =>
        val dir = out.getOrElse(Paths.results(title))
        val launch = Launch.fromSystem()
        val env = Environment.read(launch)
        println(s"bulkhead lab: ${list.size} scenarios; results and report in $dir")
        val outcome = SuiteRun(launch, Files.createDirectories(dir), println).run(list, verify)
        val report = SuiteReport(s"bulkhead $title", command, env, outcome.records, outcome.failures)
        val file = report.write(dir)
        println()
        println(report.table)
        println(s"\nreport: $file and ${dir.resolve("report.html")}")
        if outcome.failures.isEmpty then 0 else 1

/** `./bulkhead demo [--full]`: the seed suite and the scenarios beyond the seeds. */
object DemoCommand extends LabCommand:
  val name = "demo"
  val summary = "the seed suite (short; --full: the seeds' own durations and connection counts)"

  private val parser =
    val b = OParser.builder[Boolean]
    import b.*
    OParser.sequence(programName("bulkhead demo"), head(summary),
      opt[Unit]("full").text("the seeds' own durations").action((_, _) => true), help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, false) { full =>
    val dirs = Seq("lab/scenarios/seeds", "lab/scenarios/beyond").map(d => Paths.root.resolve(d).toString)
    RunCommand.suite(dirs, short = !full, verify = false, out = None,
      title = if full then "seed suite (full)" else "seed suite (short)",
      command = if full then "./bulkhead demo --full" else "./bulkhead demo")
  }
