package bulkhead.lab.cli

import bulkhead.lab.bench.{BenchRounds, BenchSuite}
import bulkhead.lab.process.Launch
import bulkhead.lab.record.RecordJson
import bulkhead.lab.report.{BenchReport, BenchRow, Environment}
import bulkhead.lab.run.ScenarioRunner
import scopt.OParser

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * `./bulkhead bench SUITE` (also `lab bench`): a suite's cases side by side, rounds interleaved, every round's
 * result.json under results/<date>-bench-<suite>/, and the table of medians rendered from those records.
 * `bench report DIR` renders the table of a benchmark's directory again.
 */
object BenchCommand extends LabCommand:
  val name = "bench"
  val summary = s"side-by-side benchmarks: ${BenchSuite.All.map(_.name).mkString(" | ")}; report DIR (bench --help)"

  final case class Options(suite: String = "", duration: Option[FiniteDuration] = None,
      warmup: Option[FiniteDuration] = None, rounds: Int = 3, only: Seq[String] = Nil, out: Option[Path] = None,
      connections: Option[Int] = None, threads: Option[Int] = None, reportOf: Option[Path] = None)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead bench"),
      head(BenchSuite.All.map(s => f"  ${s.name}%-12s ${s.summary}").mkString("suites:\n", "\n", "\n")),
      arg[String]("<suite>").text(s"${BenchSuite.All.map(_.name).mkString(" | ")} | report").validate(s =>
        if s == "report" || BenchSuite.named(s).isDefined then success
        else failure(s"unknown suite '$s': ${BenchSuite.All.map(_.name).mkString(" | ")}"))
        .action((s, o) => o.copy(suite = s)),
      arg[String]("<dir>").optional().text("with report: a directory written by bench")
        .action((d, o) => o.copy(reportOf = Some(Path.of(d)))),
      opt[Int]("duration").valueName("<seconds>")
        .text("measured seconds per case (default the case's: 30 as the seeds' wrk -d 30s; connections 60 as seed 001)")
        .validate(d => if d >= 1 && d <= 3600 then success else failure(s"--duration must be 1..3600, was $d"))
        .action((d, o) => o.copy(duration = Some(d.seconds))),
      opt[Int]("warmup").valueName("<seconds>")
        .text("warm-up seconds per case (JIT), not measured (default 30; up to twice that while the JIT compiles)")
        .validate(d => if d >= 0 && d <= 600 then success else failure(s"--warmup must be 0..600, was $d"))
        .action((d, o) => o.copy(warmup = Some(d.seconds))),
      opt[Int]("rounds").text("rounds, cases interleaved in each (default 3); medians are reported")
        .validate(r => if r >= 1 && r <= 20 then success else failure(s"--rounds must be 1..20, was $r"))
        .action((r, o) => o.copy(rounds = r)),
      opt[Seq[String]]("only").valueName("case,...").text("run only these cases").action((c, o) => o.copy(only = c)),
      opt[Int]("connections").valueName("<n>").text("every case at this many connections (e.g. bench ab at 1000)")
        .validate(c => if c >= 1 && c <= 100_000 then success else failure(s"--connections must be 1..100000, was $c"))
        .action((c, o) => o.copy(connections = Some(c))),
      opt[Int]("threads").valueName("<n>").text("wrk threads of every wrk case (e.g. 6 as seed 001's -t6)")
        .validate(t => if t >= 1 && t <= 64 then success else failure(s"--threads must be 1..64, was $t"))
        .action((t, o) => o.copy(threads = Some(t))),
      opt[String]("out").valueName("<dir>").text("where to write results (default results/<date>-bench-<suite>)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      help("help").text("print this help"),
      checkConfig(o =>
        if o.suite == "report" && o.reportOf.isEmpty then failure("bench report needs the directory to render")
        else if o.suite != "report" && o.reportOf.nonEmpty then failure(s"bench ${o.suite} takes no directory")
        else success))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    o.reportOf match
      case Some(dir) => render(dir)
      case None => run(o, BenchSuite.named(o.suite).get, s"./bulkhead bench ${args.mkString(" ")}")
  }

  private def run(o: Options, suite: BenchSuite, command: String): Int =
    suite.cases(Paths.root) match
      case Left(err) =>
        System.err.println(s"bulkhead bench: $err")
        2
      case Right(all) =>
        val unknown = o.only.filterNot(n => all.exists(_.name == n))
        if unknown.nonEmpty then
          System.err.println(s"bulkhead bench: unknown case ${unknown.mkString(", ")}; cases: ${all.map(_.name).mkString(", ")}")
          2
        else
          val cases = all.filter(c => o.only.isEmpty || o.only.contains(c.name))
            .map(BenchSuite.adjust(_, o.duration, o.warmup, o.connections, o.threads))
          val out = o.out.getOrElse(Paths.results(s"bench-${suite.name}"))
          val launch = Launch.fromSystem()
          val env = Environment.read(launch)
          Environment.write(env, out)
          val runs = cases.map(_.targets.size).sum * o.rounds
          println(s"bulkhead bench ${suite.name}: ${cases.size} cases, $runs runs in ${o.rounds} round(s), about " +
            s"${(BenchRounds.estimateSeconds(cases, o.rounds) / 60).ceil.toInt} min; results in $out")
          val results = BenchRounds(ScenarioRunner(launch, out, println), out, println).run(cases, o.rounds)
          val failures = results.collect { case Left(e) => e }
          // The table comes from the records as written, exactly what `bench report` renders again.
          val read = results.collect { case Right(file) => RecordJson.read(file) }
          val records = read.collect { case Right(r) => r }
          if records.isEmpty then
            System.err.println(s"bulkhead bench: no case ran (${failures.mkString("; ")})")
            1
          else
            val unread = read.collect { case Left(e) => e }
            write(BenchReport(suite.name, command, env, BenchRow.of(records), suite.reference, failures ++ unread), out)
            if failures.isEmpty && unread.isEmpty then 0 else 1

  private def render(dir: Path): Int =
    RecordJson.readAll(dir) match
      case Left(err) =>
        System.err.println(s"bulkhead bench report: $err")
        2
      case Right(records) =>
        val suite = records.flatMap(r => BenchSuite.of(r.info.source)).headOption
        val env = Environment.readFrom(dir).getOrElse(Environment("not recorded", 0, 0, "?", records.head.info.jdk,
          "?", "?", Nil))
        write(BenchReport(suite.fold(dir.getFileName.toString)(_.name), s"./bulkhead bench report $dir", env,
          BenchRow.of(records), suite.flatMap(_.reference)), dir)
        0

  private def write(report: BenchReport, dir: Path): Unit =
    Files.createDirectories(dir)
    val file = dir.resolve("README.md")
    Files.writeString(file, report.markdown)
    println()
    println(report.table)
    println()
    println(report.summary)
    println(s"\nwritten: $file")
