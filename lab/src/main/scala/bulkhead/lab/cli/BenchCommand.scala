package bulkhead.lab.cli

import bulkhead.lab.bench.{BenchRounds, BenchSuite}
import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.record.{CpuPerRequest, RecordJson}
import bulkhead.lab.report.{BenchReport, BenchRow, ProfileStages}
import bulkhead.lab.sample.AsyncProfiler
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
      connections: Option[Int] = None, threads: Option[Int] = None, reportOf: Option[Path] = None,
      profile: Boolean = false, servers: Seq[String] = Nil, settings: Seq[String] = Nil)

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
      CommonFlags.duration(b, "measured time of each case", "the case's: 30s as the seeds' wrk -d 30s; " +
        "connections 60s as seed 001")((o, d) => o.copy(duration = Some(d))),
      CommonFlags.durationFlag(b, "warmup", "warm-up of each case (JIT), not measured; up to twice that while the JIT " +
        "compiles", "30s", zero = true)((o, d) => o.copy(warmup = Some(d))),
      opt[Int]("rounds").text("rounds, cases interleaved in each (default 3); medians are reported")
        .validate(r => if r >= 1 && r <= 20 then success else failure(s"--rounds must be 1..20, was $r"))
        .action((r, o) => o.copy(rounds = r)),
      opt[Seq[String]]("only").valueName("case,...").text("run only these cases").action((c, o) => o.copy(only = c)),
      opt[Seq[String]]("servers").valueName("name,...")
        .text("run each case only on these of its servers (e.g. bulkhead,spray)").action((t, o) => o.copy(servers = t)),
      opt[String]("set").unbounded().valueName("key=value")
        .text("a service setting for every bulkhead run, as serve's --set (a candidate measured against a run without)")
        .validate(kv => if kv.contains('=') then success else failure(s"--set needs key=value, was '$kv'"))
        .action((kv, o) => o.copy(settings = o.settings :+ kv)),
      CommonFlags.connections(b, "every case at this many connections (e.g. bench ab at 1000)", "the case's")(
        (o, n) => o.copy(connections = Some(n))),
      CommonFlags.threads(b, "the case's (e.g. 6 as seed 001's -t6)")((o, n) => o.copy(threads = Some(n))),
      opt[Unit]("profile").text("async-profiler on each JVM server through its measured runs: flame.html and " +
          "collapsed.txt beside each result.json (the profiler's samples cost CPU: quote CPU figures from a run without it)")
        .action((_, o) => o.copy(profile = true)),
      CommonFlags.out(b, "bench-<suite>")((o, d) => o.copy(out = Some(d))),
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
        val named = all.flatMap(_.targets.map(_.name)).distinct
        val unknownServers = o.servers.filterNot(named.contains)
        if unknown.nonEmpty then
          System.err.println(s"bulkhead bench: unknown case ${unknown.mkString(", ")}; cases: ${all.map(_.name).mkString(", ")}")
          2
        else if unknownServers.nonEmpty then
          System.err.println(s"bulkhead bench: no case runs ${unknownServers.mkString(", ")}; servers: ${named.mkString(", ")}")
          2
        else
          val cases = all.filter(c => o.only.isEmpty || o.only.contains(c.name))
            .map(c => if o.servers.isEmpty then c else c.copy(targets = c.targets.filter(t => o.servers.contains(t.name))))
            .filter(_.targets.nonEmpty)
            .map(c => c.copy(serviceFlags = c.serviceFlags ++ o.settings.flatMap(kv => Seq("--set", kv))))
            .map(BenchSuite.adjust(_, o.duration, o.warmup, o.connections, o.threads))
          val out = o.out.getOrElse(Paths.results(s"bench-${suite.name}"))
          val launch = Launch.fromSystem()
          val env = Environment.read(launch)
          Environment.write(env, out)
          val runs = cases.map(_.targets.size).sum * o.rounds
          println(s"bulkhead bench ${suite.name}: ${cases.size} cases, $runs runs in ${o.rounds} round(s), about " +
            s"${(BenchRounds.estimateSeconds(cases, o.rounds) / 60).ceil.toInt} min; results in $out")
          val results = BenchRounds(ScenarioRunner(launch, out, println, o.profile), out, println).run(cases, o.rounds)
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
    val profiles = profileTables(dir)
    Files.writeString(file, report.markdown + profiles.fold("")(t => s"\n## CPU per request by stage (async-profiler)\n\n$t\n"))
    println()
    println(report.table)
    println()
    println(report.summary)
    profiles.foreach(t => println(s"\nCPU per request by stage (async-profiler):\n$t"))
    println(s"\nwritten: $file")

  /**
   * For a run with `--profile`: per case, each profiled round's CPU per request split by stage (one column per server
   * and round), from the collapsed stacks beside its result.json.
   */
  private def profileTables(dir: Path): Option[String] =
    import scala.jdk.CollectionConverters.*
    val files = scala.util.Using.resource(Files.walk(dir))(_.iterator.asScala
      .filter(_.getFileName.toString == AsyncProfiler.Collapsed).toVector.sortBy(_.toString))
    val columns = files.flatMap { f =>
      val round = f.getParent
      for
        file <- RecordJson.in(round)
        record <- RecordJson.read(file).toOption
        cpu <- CpuPerRequest.service(record)
        stages <- ProfileStages.read(f).toOption
      yield (dir.relativize(round.getParent.getParent).toString,
        s"${round.getParent.getFileName} ${round.getFileName.toString.stripPrefix("round-")}", cpu, stages)
    }
    Option.when(columns.nonEmpty)(columns.groupBy(_._1).toSeq.sortBy(_._1).map { (name, cs) =>
      s"### $name\n\n" + ProfileStages.table(cs.map(c => (c._2, c._3, c._4)))
    }.mkString("\n\n"))
