package bulkhead.lab

import bulkhead.lab.faults.{FaultCase, FaultSuite, FaultSuiteSettings, ModePlan}
import bulkhead.lab.process.{Children, Launch}
import bulkhead.lab.report.{Environment, SuiteReport}
import bulkhead.lab.run.{ScenarioResult, ScenarioRunner}
import bulkhead.lab.sample.{PoolSample, ThreadDump, ThreadSampler}
import bulkhead.lab.scenario.Scenario

import java.nio.file.{Files, Path}
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter
import scala.concurrent.duration.*
import scala.util.Try

/** `./bulkhead lab run|threads|analyze|bench` and `./bulkhead demo`. */
object LabMain:
  private val Usage =
    s"""usage:
      |  ./bulkhead lab run FILE|DIR... [--short] [--out DIR]   run scenarios, write a report under docs/results/
      |  ./bulkhead lab threads PID [--every 30s] [--count 4]   threads per pool and state over time (jstackSeries)
      |  ./bulkhead lab analyze DUMPFILE                        a thread dump read per pool, with waits, locks, deadlocks
      |  ./bulkhead lab bench work|enrichment [options]         side-by-side benchmarks (--help)
      |  ./bulkhead lab faults [--full] [--only a,b] [--soap-modes a,b] [--out DIR]
      |                                                         the fault matrix under load and the overload ramp, the
      |                                                         service on its shipped settings (short: ~6 min: every
      |                                                         fault non-blocking, ${FaultSuiteSettings.ThreadHolding.toSeq.sorted.mkString(" and ")} blocking and
      |                                                         virtual; --soap-modes: every fault in each mode named,
      |                                                         of ${FaultSuiteSettings.Modes.mkString(", ")};
      |                                                         faults: ${FaultCase.all.map(_.name).mkString(", ")})
      |  ./bulkhead demo [--full]                               the seed suite (short; --full: the seeds' durations)""".stripMargin

  def main(args: Array[String]): Unit =
    val code = args.toList match
      case "demo" :: rest => demo(rest)
      case "run" :: rest => run(rest)
      case "faults" :: rest => faults(rest)
      case "threads" :: rest => threads(rest)
      case "analyze" :: rest => analyze(rest)
      case "bench" :: rest =>
        Bench.main(rest.toArray)
        0
      case ("help" | "--help" | "-h") :: _ =>
        println(Usage)
        0
      case other =>
        System.err.println(s"bulkhead lab: unknown command '${other.mkString(" ")}'\n$Usage")
        2
    Children.stopAll()
    sys.exit(code)

  private def root: Path = Path.of(sys.props.getOrElse("bulkhead.root", "."))

  private def demo(args: List[String]): Int =
    val full = args.contains("--full")
    args.filterNot(_ == "--full").headOption match
      case Some(bad) =>
        System.err.println(s"bulkhead demo: unknown option '$bad' (only --full)")
        2
      case None =>
        val dirs = Seq("lab/scenarios/seeds", "lab/scenarios/beyond").map(d => root.resolve(d).toString)
        runSuite(dirs, short = !full, out = None, title = if full then "seed suite (full)" else "seed suite (short)",
          command = if full then "./bulkhead demo --full" else "./bulkhead demo")

  private def run(args: List[String]): Int =
    val short = args.contains("--short")
    val outIdx = args.indexOf("--out")
    val out = if outIdx >= 0 then args.lift(outIdx + 1).map(Path.of(_)) else None
    val files = args.zipWithIndex.filterNot((a, i) => a == "--short" || a == "--out" || (outIdx >= 0 && i == outIdx + 1))
      .map(_._1)
    files.find(_.startsWith("--")) match
      case Some(bad) =>
        System.err.println(s"bulkhead lab run: unknown option '$bad'\n$Usage")
        2
      case None if files.isEmpty =>
        System.err.println(s"bulkhead lab run: name at least one scenario file or directory\n$Usage")
        2
      case None => runSuite(files, short, out, "scenarios", s"./bulkhead lab run ${args.mkString(" ")}")

  private def runSuite(paths: Seq[String], short: Boolean, out: Option[Path], title: String, command: String): Int =
    val scenarios = Scenario.files(paths).flatMap { files =>
      val read = files.map(f => Scenario.load(f, short))
      read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(s) => s })
    }
    scenarios match
      case Left(err) =>
        System.err.println(s"bulkhead lab: $err")
        2
      case Right(list) =>
        val stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"))
        val dir = out.getOrElse(root.resolve("docs/results").resolve(s"$stamp-${title.replaceAll("[^a-z0-9]+", "-")
          .stripSuffix("-")}"))
        val launch = Launch.fromSystem()
        val env = Environment.read(launch)
        val runner = ScenarioRunner(launch, Files.createTempDirectory("bulkhead-lab"), println)
        val started = System.nanoTime()
        println(s"bulkhead lab: ${list.size} scenarios; report in $dir")
        val outcomes = list.zipWithIndex.flatMap { (s, i) =>
          val elapsed = (System.nanoTime() - started) / 1e9
          println(f"[${i + 1}/${list.size}, ${elapsed / 60}%.1f min] ${s.name} on ${s.targets.mkString(", ")}: " +
            s.load.describe(s.path))
          val rs = runner.runAll(s)
          rs.foreach {
            case Right(res) =>
              println(f"  => ${res.scenario.name}: ${res.figures.requestsPerSecond}%.1f req/s, bound ${res.bound}%.1f " +
                s"(${res.diagnosis.cap}); ${res.diagnosis.explanation}")
            case Left(err) => println(s"  => did not run: $err")
          }
          rs
        }
        val results: Seq[ScenarioResult] = outcomes.collect { case Right(r) => r }
        val failures = outcomes.collect { case Left(e) => e }
        val report = SuiteReport(s"bulkhead $title", command, env, results, failures)
        val file = report.write(dir)
        println()
        println(report.table)
        println(s"\nreport: $file and ${dir.resolve("report.html")}")
        if failures.isEmpty then 0 else 1

  private def faults(args: List[String]): Int =
    def flag(name: String) = args.indexOf(name) match
      case -1 => None
      case i => Some(args.lift(i + 1).getOrElse(""))
    val known = Set("--full", "--only", "--out", "--soap-modes")
    val values = Set("--only", "--out", "--soap-modes").flatMap(f => args.indexOf(f) match
      case -1 => None
      case i => Some(i + 1))
    val unknownArg = args.zipWithIndex.collectFirst { case (a, i) if !known(a) && !values(i) => a }
    val only = flag("--only").map(_.split(',').map(_.trim).filter(_.nonEmpty).toSet).getOrElse(Set.empty)
    val badFault = only.find(n => !FaultCase.all.exists(_.name == n))
    val modes = flag("--soap-modes").map(_.split(',').map(_.trim).filter(_.nonEmpty).toSeq)
    val badMode = modes.flatMap(_.find(m => !FaultSuiteSettings.Modes.contains(m)))
      .orElse(modes.filter(_.isEmpty).map(_ => ""))
    (unknownArg, badFault, badMode) match
      case (Some(bad), _, _) =>
        System.err.println(s"bulkhead lab faults: unknown option '$bad'\n$Usage")
        2
      case (_, Some(bad), _) =>
        System.err.println(s"bulkhead lab faults: unknown fault '$bad' in --only; faults: " +
          FaultCase.all.map(_.name).mkString(", "))
        2
      case (_, _, Some(bad)) =>
        System.err.println(s"bulkhead lab faults: unknown SOAP mode '$bad' in --soap-modes; modes: " +
          FaultSuiteSettings.Modes.mkString(", "))
        2
      case _ =>
        val full = args.contains("--full")
        val base = if full then FaultSuiteSettings.Full else FaultSuiteSettings.Short
        val settings = base.copy(only = only, modes = modes.fold(base.modes)(_.distinct.map(ModePlan(_))))
        val stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"))
        val dir = flag("--out").filter(_.nonEmpty).map(Path.of(_))
          .getOrElse(root.resolve("docs/results").resolve(s"$stamp-faults-${if full then "full" else "short"}"))
        val outcome =
          try Right(FaultSuite.run(settings, Launch.fromSystem(), Files.createTempDirectory("bulkhead-faults"),
            s"./bulkhead lab faults ${args.mkString(" ")}".trim, println))
          catch case e: Exception => Left(Option(e.getMessage).getOrElse(e.getClass.getSimpleName))
        outcome match
          case Left(err) =>
            // E.g. redis-server, the stub or the service did not start: say which, no stack trace.
            System.err.println(s"bulkhead lab faults: could not run: $err")
            return 1
          case Right(_) =>
        val report = outcome.toOption.get
        val file = report.write(dir)
        println()
        println(report.matrix)
        println()
        println(report.rampTable)
        println(s"\n${if report.passed then "every check passed" else "SOME CHECKS FAILED"}; report: $file")
        if report.passed then 0 else 1

  /** The seeds' jstackSeries: N thread dumps of any JVM, one table of threads per pool and state over time. */
  private def threads(args: List[String]): Int =
    def flag(name: String) = args.indexOf(name) match
      case -1 => None
      case i => args.lift(i + 1)
    val pid = args.headOption.flatMap(_.toLongOption)
    val every = flag("--every").map(v => Try(Duration(v.replaceAll("(\\d)s$", "$1 s"))).toOption.collect {
      case d: FiniteDuration if d > Duration.Zero => d })
    val count = flag("--count").map(_.toIntOption.filter(_ > 0))
    (pid, every, count) match
      case (None, _, _) =>
        System.err.println(s"bulkhead lab threads: expected a PID, got '${args.headOption.getOrElse("")}'")
        2
      case (_, Some(None), _) =>
        System.err.println(s"bulkhead lab threads: bad --every '${flag("--every").get}' (e.g. 30s, 500ms)")
        2
      case (_, _, Some(None)) =>
        System.err.println(s"bulkhead lab threads: bad --count '${flag("--count").get}' (a positive number)")
        2
      case (Some(p), e, c) =>
        val interval = e.flatten.getOrElse(30.seconds)
        val n = c.flatten.getOrElse(4)
        val samples = (1 to n).map { i =>
          val s = ThreadSampler.sample(p)
          if i < n then Thread.sleep(interval.toMillis)
          s
        }
        samples.collectFirst { case Left(err) => err } match
          case Some(err) =>
            System.err.println(s"bulkhead lab threads: $err")
            1
          case None =>
            println(ThreadTable.render(samples.collect { case Right(s) => s }))
            0

  private def analyze(args: List[String]): Int = args match
    case file :: Nil if Files.isRegularFile(Path.of(file)) =>
      println(ThreadTable.analysis(ThreadDump.parse(Files.readString(Path.of(file)))))
      0
    case file :: Nil =>
      System.err.println(s"bulkhead lab analyze: no such file: $file")
      2
    case _ =>
      System.err.println("bulkhead lab analyze: expected one thread dump file (jcmd <pid> Thread.print > dump.txt)")
      2
