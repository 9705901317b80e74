package bulkhead.lab.cli

import bulkhead.lab.capacity.{CapacityPlan, CapacityRun, ProcessCapacity, ScenarioCapacity}
import bulkhead.lab.diagnose.CapacityCurve
import bulkhead.lab.load.Vegeta
import bulkhead.lab.model.Target
import bulkhead.lab.process.{Environment, Launch}
import bulkhead.lab.record.RunRecord
import bulkhead.lab.report.{CapacityReport, SuiteReport}
import bulkhead.lab.run.{ProcessRun, ScenarioRunner}
import bulkhead.lab.sample.MetricsScrape
import bulkhead.lab.scenario.{Load, RateSteps, Scenario}
import scopt.OParser

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * `lab capacity FILE|DIR... | --pid PID --url URL` (or `--jmx HOST:PORT`): steps the arrival rate with vegeta's open loop (by default 10
 * steps up to 1.5x the cap the closed loop's diagnosis names), records each step like any run, finds the knee and
 * prints it beside the Little's-law cap.
 */
object CapacityCommand extends LabCommand:
  val name = "capacity"
  val summary = "step an open loop's arrival rate up past the cap; the knee beside the Little's-law cap, per step"

  final case class Options(paths: Seq[String] = Nil, jvm: JvmFlags = JvmFlags(), url: String = "",
      steps: Option[Int] = None, maxRate: Option[Double] = None, duration: Option[FiniteDuration] = None,
      timeout: Option[FiniteDuration] = None, connections: Int = CommonFlags.DefaultConnections,
      threads: Int = CommonFlags.DefaultThreads, every: FiniteDuration = CommonFlags.DefaultEvery,
      out: Option[Path] = None, requests: RequestFlags = RequestFlags(), metrics: Seq[String] = Nil)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab capacity"),
      head(summary),
      arg[String]("FILE|DIR...").unbounded().optional()
        .text("scenario files (.conf) or directories of them; or --pid and --url")
        .action((p, o) => o.copy(paths = o.paths :+ p)),
      CommonFlags.jvm(b)(_.jvm, (o, j) => o.copy(jvm = j)),
      CommonFlags.url(b, "what the loads go to, with --pid or --jmx")((o, u) => o.copy(url = u)),
      CommonFlags.requests(b)(_.requests, (o, r) => o.copy(requests = r)),
      CommonFlags.metrics(b)((o, u) => o.copy(metrics = o.metrics :+ u)),
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
      CommonFlags.duration(b, "each step's length, and the closed loop's",
        s"the scenario's load.duration; ${CommonFlags.text(CommonFlags.DefaultDuration)} with --pid or --jmx")(
        (o, d) => o.copy(duration = Some(d))),
      CommonFlags.durationFlag(b, "timeout", "a request without an answer by then is given up",
        "the scenario's load.timeout, else 10s")((o, d) => o.copy(timeout = Some(d))),
      CommonFlags.connections(b, "with --pid or --jmx: the closed loop's wrk connections")(
        (o, n) => o.copy(connections = n)),
      CommonFlags.threads(b)((o, n) => o.copy(threads = n)),
      CommonFlags.every(b, "with --pid or --jmx: time between thread samples")((o, d) => o.copy(every = d)),
      CommonFlags.out(b, "capacity")((o, d) => o.copy(out = Some(d))),
      checkConfig(o =>
        if o.jvm.named && o.paths.nonEmpty then failure("scenario files and --pid or --jmx exclude each other")
        else if !o.jvm.named && (o.url.nonEmpty || o.requests.any || o.metrics.nonEmpty) then
          failure("--url, --targets, the request flags and --metrics go with --pid or --jmx (a scenario names its own)")
        else if !o.jvm.named && o.paths.isEmpty then failure("give scenario files, or --pid (or --jmx) and --url")
        else if o.jvm.named && o.jvm.problem.isDefined then failure(o.jvm.problem.get)
        else if o.jvm.named && o.url.isEmpty && o.requests.targets.isEmpty then
          failure("--pid or --jmx needs --url or --targets (what to load)")
        else if o.metrics.size > 1 then failure("--metrics is given once here (one JVM)")
        else if o.jvm.named then o.requests.requests(o.url).fold(failure, _ => success)
        else success),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val dir = o.out.getOrElse(Paths.results(if o.jvm.named then s"capacity-${o.jvm.jvm.key}" else "capacity"))
    val command = s"./bulkhead lab capacity ${args.mkString(" ")}"
    if o.jvm.named then process(o, dir, command)
    else if !Launch.inRepository then
      System.err.println("bulkhead lab capacity: scenario files start bulkhead's own service: in a clone, " +
        "./bulkhead lab capacity FILE; for your JVM, --pid PID (or --jmx HOST:PORT) and --url URL")
      2
    else scenarios(o, dir, command)
  }

  /** The open loop's generator, found before anything starts; without one, how to get it (exit 2, nothing started). */
  private def withVegeta(run: => Int): Int =
    Vegeta.binary() match
      case Left(err) =>
        System.err.println(s"bulkhead lab capacity: $err")
        2
      case Right(_) => run

  /** The plan for a scenario: the command line's choices over the scenario's own, over the defaults. */
  def planOf(o: Options, load: Option[Load]): CapacityPlan =
    val open = load.collect { case l: Load.Open => l }
    val steps = o.steps.map(RateSteps.Count(_)).orElse(open.flatMap(_.steps))
      .getOrElse(RateSteps.Count(CapacityPlan.DefaultSteps))
    val duration = o.duration.orElse(load.map(_.measured)).getOrElse(CommonFlags.DefaultDuration)
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

  private def process(o: Options, dir: Path, command: String): Int =
    val jvm = o.jvm.jvm
    val scrapes = o.metrics.map(MetricsScrape(_, o.requests.insecure))
    jvm.refused.orElse(scrapes.map(_.check()).collectFirst { case Left(e) => s"--metrics: $e" }) match
      case Some(err) =>
        System.err.println(s"bulkhead lab capacity: $err")
        2
      case None => withVegeta {
        val plan = planOf(o, None)
        // Checked at parse: the requests are read again here, the same files.
        val requests = o.requests.requests(o.url).fold(e => throw IllegalStateException(e), identity)
        println(s"bulkhead lab capacity: ${jvm.label} at ${requests.describe}: ${plan.steps.describe}, " +
          s"${plan.stepDuration.toSeconds} s each; runs and report in $dir")
        val outcome = ProcessRun.onAll(Seq(jvm), scrapes, o.every, println, o.jvm.allowRiskyDumps) { run =>
          CapacityRun(plan, println).run(ProcessCapacity(run, jvm.key, requests, o.connections, o.threads, plan,
            println),
            Files.createDirectories(dir))
        }
        val jdk = outcome.toOption.flatMap(c => (c.closedLoop.toSeq ++ c.steps).headOption).fold("?")(_.info.jdk)
        finish(Seq(outcome), dir, Environment.ofMachine(jdk), command)
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
