package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.process.Launch
import bulkhead.lab.record.RecordJson
import bulkhead.lab.report.{ClusterBenchReport, Environment}
import bulkhead.lab.run.ScenarioRunner
import bulkhead.lab.scenario.Scenario
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab cluster-bench` (also `./bulkhead bench cluster`): the scenarios of `lab/scenarios/bench/cluster` (the blocking
 * SOAP mode on 1, 2 and 3 nodes) run one after another; a line per case with its ratio to the bound, a README.md and
 * each case's result.json under docs/results/<date>-bench-cluster/. Exit 1 when a case did not run.
 */
object ClusterBenchCommand extends LabCommand:
  val name = "cluster-bench"
  val summary = "the blocking SOAP mode on 1, 2 and 3 cluster nodes side by side (./bulkhead bench cluster)"

  final case class Options(paths: Seq[String] = Nil, out: Option[Path] = None)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead bench cluster"),
      head(summary),
      arg[String]("[FILE|DIR...]").unbounded().optional().text("cases (default lab/scenarios/bench/cluster)")
        .action((p, o) => o.copy(paths = o.paths :+ p)),
      opt[String]("out").valueName("<dir>").text("where to write (default docs/results/<date>-bench-cluster)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val paths = if o.paths.nonEmpty then o.paths else Seq(Paths.root.resolve("lab/scenarios/bench/cluster").toString)
    val cases = Scenario.files(paths).flatMap { files =>
      val read = files.map(f => Scenario.load(f).flatMap(s => ClusterBenchReport.bound(s).map(s -> _)))
      read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(c) => c })
    }
    cases match
      case Left(err) =>
        System.err.println(s"bulkhead bench cluster: $err")
        2
      case Right(list) =>
        val dir = Files.createDirectories(o.out.getOrElse(Paths.results("bench-cluster")))
        val launch = Launch.fromSystem()
        val env = Environment.read(launch)
        println(s"bulkhead bench cluster: ${list.size} cases; results in $dir")
        val runner = ScenarioRunner(launch, dir, println)
        var loadAverages = Vector.empty[String]
        val runs = list.zipWithIndex.map { case ((s, bound), i) =>
          loadAverages :+= s"${s.name} ${Environment.loadAverage()}"
          println(s"[${i + 1}/${list.size}] ${s.name} on ${s.clusterNodes} node(s): ${s.load.describe(s.path)}; " +
            f"bound ${bound.perSecond}%.0f req/s (${bound.what}); load average ${Environment.loadAverage()}")
          val run = runner.run(s)
          run.fold(e => println(s"  => did not run: $e"), r => println("  " + Diagnosis(r).line(r.info.name)))
          run.map(r => (s, bound, r))
        }
        val report = ClusterBenchReport(s"./bulkhead bench cluster ${args.mkString(" ")}".trim, env,
          runs.collect { case Right(c) => c }, runs.collect { case Left(e) => e }, loadAverages)
        Files.writeString(dir.resolve("README.md"), report.markdown)
        println()
        println(report.table)
        println()
        report.lines.foreach(println)
        report.failures.foreach(f => println(s"did not run: $f"))
        println(s"\nwritten: ${dir.resolve("README.md")} and each case's ${RecordJson.FileName}")
        if report.failures.isEmpty then 0 else 1
  }
