package bulkhead.lab.cli

import bulkhead.lab.capacity.{CapacityPlan, CapacityRun, ProcessCapacity, ScenarioCapacity}
import bulkhead.lab.diagnose.CapacityCurve
import bulkhead.lab.load.Vegeta
import bulkhead.lab.model.Target
import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.record.RunRecord
import bulkhead.lab.report.{CapacityReport, SuiteReport}
import bulkhead.lab.run.ScenarioRunner
import bulkhead.lab.scenario.{Load, RateSteps, Scenario}
import scopt.OParser

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * `lab capacity FILE|DIR... | --pid PID --url URL`: steps the arrival rate with vegeta's open loop (by default 10
 * steps up to 1.5x the cap the closed loop's diagnosis names), records each step like any run, finds the knee and
 * prints it beside the Little's-law cap.
 */
object CapacityCommand extends LabCommand:
  val name = "capacity"
  val summary = "step an open loop's arrival rate up past the cap; the knee beside the Little's-law cap, per step"

  final case class Options(paths: Seq[String] = Nil, pid: Option[Long] = None, url: String = "",
      steps: Option[Int] = None, maxRate: Option[Double] = None, duration: Option[FiniteDuration] = None,
      timeout: Option[FiniteDuration] = None, connections: Int = 50, threads: Int = 2,
      every: FiniteDuration = 1.second, out: Option[Path] = None)

  private def seconds(v: String): Option[FiniteDuration] = CommonFlags.duration(v)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab capacity"),
      head(summary),
      arg[String]("FILE|DIR...").unbounded().optional()
        .text("scenario files (.conf) or directories of them; or --pid and --url")
        .action((p, o) => o.copy(paths = o.paths :+ p)),
      opt[Long]("pid").valueName("<pid>").text("a running JVM to sample (attach API), with --url")
        .validate(p => if p > 0 then success else failure(s"--pid must be a process id, was $p"))
        .action((p, o) => o.copy(pid = Some(p))),
      opt[String]("url").valueName("<url>").text("what the loads go to, with --pid (127.0.0.1 only)")
        .validate(u => if u.startsWith("http://127.") || u.startsWith("http://localhost") then success
          else failure(s"--url must be on loopback (http://127.0.0.1:...), was '$u'"))
        .action((u, o) => o.copy(url = u)),
      opt[Int]("steps").valueName("<n>")
        .text(s"steps of the arrival rate (default: the scenario's load.rate-steps, else ${CapacityPlan.DefaultSteps})")
        .validate(n => if n >= 1 && n <= Scenario.MaxRateSteps then success
          else failure(s"--steps must be 1..${Scenario.MaxRateSteps}, was $n"))
        .action((n, o) => o.copy(steps = Some(n))),
      opt[Double]("max-rate").valueName("<req/s>")
        .text("the top step; skips the closed loop (default: the scenario's load.rate, else " +
          s"${CapacityPlan.TopOverCap}x the closed loop's cap)")
        .validate(r => if r > 0 && r <= Scenario.MaxRate then success
          else failure(s"--max-rate must be above 0 and at most ${Scenario.MaxRate} req/s, was $r"))
        .action((r, o) => o.copy(maxRate = Some(r))),
      opt[String]("duration").valueName("<10s>")
        .text("each step's length, and the closed loop's (default: the scenario's load.duration; 10s with --pid)")
        .validate(v => if seconds(v).isDefined then success else failure(s"--duration must be like 5s or 1m, was '$v'"))
        .action((v, o) => o.copy(duration = seconds(v))),
      opt[String]("timeout").valueName("<10s>")
        .text("a request without an answer by then is given up (default: the scenario's load.timeout, else 10s)")
        .validate(v => if seconds(v).isDefined then success else failure(s"--timeout must be like 10s, was '$v'"))
        .action((v, o) => o.copy(timeout = seconds(v))),
      opt[Int]("connections").valueName("<n>").text("with --pid: the closed loop's wrk connections, default 50")
        .validate(n => if n >= 1 && n <= 20000 then success else failure(s"--connections must be 1..20000, was $n"))
        .action((n, o) => o.copy(connections = n)),
      opt[Int]("threads").valueName("<n>").text("with --pid: the closed loop's wrk threads, default 2")
        .validate(n => if n >= 1 && n <= 64 then success else failure(s"--threads must be 1..64, was $n"))
        .action((n, o) => o.copy(threads = n)),
      opt[String]("every").valueName("<1s>").text("with --pid: time between thread samples, default 1s")
        .validate(v => if seconds(v).isDefined then success else failure(s"--every must be like 1s or 500ms, was '$v'"))
        .action((v, o) => o.copy(every = seconds(v).get)),
      opt[String]("out").valueName("<dir>").text("where to write the runs (default results/<date>-capacity)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      checkConfig(o =>
        if o.pid.isDefined && o.paths.nonEmpty then failure("scenario files and --pid exclude each other")
        else if o.pid.isDefined && o.url.isEmpty then failure("--pid needs --url (what to load)")
        else if o.pid.isEmpty && o.url.nonEmpty then failure("--url goes with --pid (a scenario names its own path)")
        else if o.pid.isEmpty && o.paths.isEmpty then failure("give scenario files, or --pid and --url")
        else success),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val dir = o.out.getOrElse(Paths.results(o.pid.fold("capacity")(p => s"capacity-$p")))
    val command = s"./bulkhead lab capacity ${args.mkString(" ")}"
    o.pid.fold(scenarios(o, dir, command))(pid => process(o, pid, dir, command))
  }

  /** The generator, before anything starts: building it takes a minute once, better before a service than mid-curve. */
  private def withVegeta(run: => Int): Int =
    Vegeta.binary(println) match
      case Left(err) =>
        System.err.println(s"bulkhead lab capacity: $err")
        1
      case Right(_) => run

  /** The plan for a scenario: the command line's choices over the scenario's own, over the defaults. */
  def planOf(o: Options, load: Option[Load]): CapacityPlan =
    val open = load.collect { case l: Load.Open => l }
    val steps = o.steps.map(RateSteps.Count(_)).orElse(open.flatMap(_.steps))
      .getOrElse(RateSteps.Count(CapacityPlan.DefaultSteps))
    val duration = o.duration.orElse(load.map(_.measured)).getOrElse(10.seconds)
    val timeout = o.timeout.orElse(load.collect {
      case l: Load.Open => l.timeout
      case w: Load.Wrk => w.timeout
    }).getOrElse(10.seconds)
    CapacityPlan(steps, o.maxRate.orElse(open.flatMap(_.rate)), closedLoop = o.maxRate.isEmpty, duration, timeout)

  private def scenarios(o: Options, dir: Path, command: String): Int =
    val read = Scenario.files(o.paths).flatMap { files =>
      val all = files.map(Scenario.load(_))
      all.collectFirst { case Left(e) => e }.toLeft(all.collect { case Right(s) => s })
    }
    read match
      case Left(err) =>
        System.err.println(s"bulkhead lab capacity: $err")
        2
      case Right(list) =>
        list.find(s => s.clusterNodes > 1 || s.targets != Seq(Target.Bulkhead)) match
          case Some(s) =>
            System.err.println(s"bulkhead lab capacity: ${s.name}: a capacity curve runs on one bulkhead service " +
              "(no cluster.nodes, no other target); for another JVM, start it and give --pid and --url")
            2
          case None => withVegeta {
            val launch = Launch.fromSystem()
            val env = Environment.read(launch)
            println(s"bulkhead lab capacity: ${list.size} scenarios; runs and report in $dir")
            val runner = ScenarioRunner(launch, Files.createDirectories(dir), println)
            val outcomes = list.map { s =>
              val plan = planOf(o, Some(s.load))
              val top = plan.top.fold(s"${CapacityPlan.TopOverCap}x the closed loop's cap")(t => f"$t%.1f req/s")
              println(s"${s.name}: ${plan.steps.describe}, ${plan.stepDuration.toSeconds} s each, up to $top")
              runner.session(s, Target.Bulkhead, dir.resolve(s.name)) { session =>
                if s.warmup > Duration.Zero then session.warmUp(s)
                CapacityRun(plan, println).run(ScenarioCapacity(s, session, plan), dir.resolve(s.name))
              }.flatten
            }
            finish(outcomes, dir, env, command)
          }

  private def process(o: Options, pid: Long, dir: Path, command: String): Int =
    if !Files.isDirectory(Path.of(s"/proc/$pid")) then
      System.err.println(s"bulkhead lab capacity: no process $pid")
      2
    else withVegeta {
      val plan = planOf(o, None)
      println(s"bulkhead lab capacity: pid $pid at ${o.url}: ${plan.steps.describe}, " +
        s"${plan.stepDuration.toSeconds} s each; runs and report in $dir")
      val target = ProcessCapacity(pid, o.url, o.connections, o.threads, o.every, plan, println)
      val outcome = CapacityRun(plan, println).run(target, Files.createDirectories(dir))
      val env = Environment.read(Launch.fromSystem())
      finish(Seq(outcome), dir, env, command)
    }

  /** Prints each curve's knee and table, writes the report; exit 1 when a curve did not run. */
  private def finish(outcomes: Seq[Either[String, CapacityCurve]], dir: Path, env: Environment, command: String): Int =
    val curves = outcomes.collect { case Right(c) => c }
    val failures = outcomes.collect { case Left(e) => e }
    failures.foreach(e => System.err.println(s"bulkhead lab capacity: did not run: $e"))
    val records: Seq[RunRecord] = curves.flatMap(c => c.closedLoop.toSeq ++ c.steps)
    if records.nonEmpty then
      val report = SuiteReport("bulkhead capacity", command, env, records, failures)
      val file = report.write(dir)
      curves.foreach(c => println(s"\n${CapacityReport.table(c)}"))
      println(s"\nreport: $file and ${dir.resolve(SuiteReport.HtmlFile)}")
    if failures.isEmpty then 0 else 1
