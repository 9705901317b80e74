package bulkhead.lab

import bulkhead.lab.diagnose.LittlesLaw
import bulkhead.lab.load.{WarmUp, Wrk, WrkLoad}
import bulkhead.lab.process.{Children, Launch, Served, Stack, Target}
import bulkhead.lab.report.{BenchReport, Environment}
import bulkhead.lab.run.Progress
import bulkhead.lab.sample.{MetricsScrape, ProcessThreads}
import scopt.OParser

import java.nio.file.{Files, Path}
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*

/**
 * `./bulkhead bench work|enrichment`: configurations side by side in one run, interleaved over rounds, with the
 * median of each and its ratio to the Little's-law bound. Prints figures; writes them under docs/results/.
 */
object Bench:
  final case class Options(suite: String = "", duration: FiniteDuration = 30.seconds,
      warmup: FiniteDuration = 30.seconds, rounds: Int = 3, only: Seq[String] = Nil, out: Option[Path] = None,
      durationGiven: Boolean = false)

  /**
   * The seeds' wrk commands ran 30 s (`-d 30s`), seed 001's 10,000 connections 60 s. A fresh JVM compiles for about
   * 30 s on this machine (rounds spread 1.5-2x after 5 s of warm-up), hence 30 s of warm-up by default.
   */
  def defaultDuration(suite: String): FiniteDuration = if suite == "connections" then 60.seconds else 30.seconds

  // Before the parser, which reads it while the object initialises.
  val Suites: Seq[String] = Seq("work", "enrichment", "hello", "connections")

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead bench"),
      arg[String]("<suite>").text(Suites.mkString(" | ")).validate(s =>
        if Suites.contains(s) then success else failure(s"unknown suite '$s': ${Suites.mkString(" | ")}"))
        .action((s, o) => o.copy(suite = s)),
      opt[Int]("duration").valueName("<seconds>")
        .text("measured seconds per case (default 30 as the seeds' wrk -d 30s; connections 60 as seed 001)")
        .validate(d => if d >= 1 && d <= 3600 then success else failure(s"--duration must be 1..3600, was $d"))
        .action((d, o) => o.copy(duration = d.seconds, durationGiven = true)),
      opt[Int]("warmup").valueName("<seconds>").text("warm-up seconds per case (JIT), not measured (default 30)")
        .validate(d => if d >= 0 && d <= 600 then success else failure(s"--warmup must be 0..600, was $d"))
        .action((d, o) => o.copy(warmup = d.seconds)),
      opt[Int]("rounds").text("rounds, cases interleaved in each (default 3); medians are reported")
        .validate(r => if r >= 1 && r <= 20 then success else failure(s"--rounds must be 1..20, was $r"))
        .action((r, o) => o.copy(rounds = r)),
      opt[Seq[String]]("only").valueName("case,...").text("run only these cases").action((c, o) => o.copy(only = c)),
      opt[String]("out").valueName("<dir>").text("where to write results (default docs/results/<date>-bench-<suite>)")
        .action((d, o) => o.copy(out = Some(Path.of(d)))),
      help("help"))

  /** Issue 6: /hello at -c100 against the machine's ceiling (nginx) and an untuned Pekko HTTP server. */
  def helloCases: Seq[BenchCase] = Seq(
    BenchCase("bulkhead", Nil, "/hello", 100, 2, None, "pre-built response outside the routing tree"),
    BenchCase("pekko-minimal", Nil, "/hello", 100, 2, None, "Pekko HTTP 1.3 hello world, default settings",
      Target.PekkoMinimal),
    BenchCase("akka-http", Nil, "/hello", 100, 2, None, "Akka HTTP 10.2.10, the seeds' framework", Target.AkkaHttp),
    BenchCase("nginx", Nil, "/hello", 100, 2, None, "nginx, 1 worker: the ceiling of this machine", Target.Nginx))

  /**
   * Seed 001's command on 1 s of non-blocking work: 10,000 connections, each answered once a second. The heap is
   * what the issue's 600 MB of resident memory leaves: the JVM's own memory beside the heap measured ~190 MB (native
   * memory tracking at 10,000 connections: metaspace 46, G1's tables 63 at a 2 GB heap, code 25), and the heap held
   * 315 MB in use (50 MB of it young) at 10,000 connections under a 400 MB cap.
   */
  def connectionCases: Seq[BenchCase] = Seq(
    BenchCase("async-c10000", Nil, "/work/async?ms=1000", 10000, 6, Some(LittlesLaw.clients(10000, 1.0)),
      "wrk -t6 -c10000 (seed 001); a timer per request, no thread held", heap = "-Xmx400m"))

  def workCases: Seq[BenchCase] =
    val work = 0.1
    Seq(
      BenchCase("pool-200", Seq("--blocking-pool-size", "200"), "/work/pool?ms=100", 1000, 2,
        Some(LittlesLaw.bound(Seq(LittlesLaw.pool("blocking-pool", 200, work), LittlesLaw.clients(1000, work)))),
        "seed 000/001: a pool of 200 caps 100 ms work at 2,000 req/s"),
      BenchCase("pool-1000", Seq("--blocking-pool-size", "1000"), "/work/pool?ms=100", 1000, 2,
        Some(LittlesLaw.bound(Seq(LittlesLaw.pool("blocking-pool", 1000, work), LittlesLaw.clients(1000, work)))),
        "seed 000: one thread per connection"),
      BenchCase("async", Nil, "/work/async?ms=100", 1000, 2, Some(LittlesLaw.clients(1000, work)),
        "a timer, no thread held"),
      BenchCase("virtual", Nil, "/work/virtual?ms=100", 1000, 2, Some(LittlesLaw.clients(1000, work)),
        "blocking on virtual threads (JDK 21+)"),
      BenchCase("hello", Nil, "/hello", 100, 2, None, "seed 002: wrk -t2 -c100; CPU-bound, no Little's-law bound"))

  def enrichmentCases: Seq[BenchCase] =
    val soap = 1.0
    Seq(
      BenchCase("non-blocking-40", Seq("--soap-mode", "non-blocking"), "/customers/42", 40, 2,
        Some(LittlesLaw.clients(40, soap)), "Pekko HTTP client: no thread held during the 1 s call"),
      BenchCase("blocking-40", Seq("--soap-mode", "blocking"), "/customers/42", 40, 2,
        Some(LittlesLaw.bound(Seq(LittlesLaw.pool("soap work-queue", 25, soap), LittlesLaw.clients(40, soap)))),
        "seed 004: blocking client on a work queue of 5..25 threads"),
      BenchCase("virtual-40", Seq("--soap-mode", "virtual"), "/customers/42", 40, 2,
        Some(LittlesLaw.clients(40, soap)), "the same blocking client on virtual threads"),
      BenchCase("non-blocking-2000", Seq("--soap-mode", "non-blocking"), "/customers/42", 2000, 2,
        Some(LittlesLaw.clients(2000, soap)), "2,000 clients, 1 s third party"))

  def main(args: Array[String]): Unit =
    val parsed = OParser.parse(parser, args, Options()).getOrElse(sys.exit(2))
    val options = if parsed.durationGiven then parsed else parsed.copy(duration = defaultDuration(parsed.suite))
    val all = options.suite match
      case "work" => workCases
      case "enrichment" => enrichmentCases
      case "hello" => helloCases
      case _ => connectionCases
    val unknown = options.only.filterNot(n => all.exists(_.name == n))
    if unknown.nonEmpty then
      System.err.println(s"bulkhead bench: unknown case ${unknown.mkString(", ")}; cases: ${all.map(_.name).mkString(", ")}")
      sys.exit(2)
    val cases = if options.only.isEmpty then all else all.filter(c => options.only.contains(c.name))
    val stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"))
    val out = options.out.getOrElse(Path.of(sys.props.getOrElse("bulkhead.root", "."), "docs", "results",
      s"$stamp-bench-${options.suite}"))
    val launch = Launch.fromSystem()
    val env = Environment.read(launch)
    val per = options.warmup + options.duration + 8.seconds
    println(s"bulkhead bench ${options.suite}: ${cases.size} cases x ${options.rounds} rounds, " +
      s"about ${(per * cases.size * options.rounds).toMinutes + 1} min; results in $out")
    try
      val runs = runAll(options, cases, launch, out)
      val report = BenchReport(options.suite, env, cases, runs, options)
      Files.createDirectories(out)
      Files.writeString(out.resolve("README.md"), report.markdown)
      runs.foreach(r => Files.writeString(out.resolve(s"wrk-${r.benchCase.name}-round${r.round}.txt"), r.wrkOutput))
      println()
      println(report.table)
      println(report.ratios)
      println(s"\nwritten: ${out.resolve("README.md")}")
    catch
      case e: Exception =>
        System.err.println(s"bulkhead bench: ${e.getMessage}")
        Children.stopAll()
        sys.exit(1)
    Children.stopAll()

  private def runAll(options: Options, cases: Seq[BenchCase], launch: Launch, out: Path): Seq[BenchRun] =
    val logs = Files.createTempDirectory("bulkhead-bench")
    val stack = Stack(launch, logs)
    val enrichment = options.suite == "enrichment"
    val redis = if enrichment then Some(stack.redis()) else None
    val stub = if enrichment then Some(stack.stub(Seq("--latency", "fixed:1000"))) else None
    redis.foreach(r => SeedRedis.load(s"redis://127.0.0.1:${r.port}", 1000))
    val backing = redis.toSeq.flatMap(r => Seq("--redis-uri", s"redis://127.0.0.1:${r.port}")) ++
      stub.toSeq.flatMap(s => Seq("--soap-endpoint", s.url("/soap")))
    // A case: its service's start and stop (about 8 s here), its warm-up and its measurement.
    val steps = Progress(Seq.fill(options.rounds * cases.size)((options.warmup + options.duration).toSeconds + 8.0))
    try
      for
        round <- 1 to options.rounds
        (c, i) <- cases.zipWithIndex
      yield
        println(s"${steps.start((round - 1) * cases.size + i)} round $round/${options.rounds}, ${c.name}: " +
          s"wrk -t${c.threads} -c${c.connections} ${c.path} (${options.warmup.toSeconds}s warm-up + " +
          s"${options.duration.toSeconds}s)")
        val service =
          if c.target == Target.Bulkhead then stack.service(c.serviceArgs ++ backing, heap = c.heap)
          else stack.peer(c.target, c.serviceArgs)
        try measure(c, round, service, options)
        finally service.child.stop()
    finally
      stub.foreach(_.child.stop())
      redis.foreach(_.child.stop())

  private def measure(c: BenchCase, round: Int, service: Served, options: Options): BenchRun =
    val url = service.url(c.path)
    WarmUp.run(c.threads, c.connections, options.warmup, url, (i, n) => {
      print(s"\r    warm-up run $i/$n")
      Console.flush()
    })
    if options.warmup > Duration.Zero then print("\r" + " " * 40 + "\r")
    val sampling = AtomicBoolean(true)
    var maxThreads = 0
    var maxRss = 0.0
    var poolPeaks = Map.empty[String, Double]
    val sampler = Thread(() =>
      while sampling.get do
        ProcessThreads.read(service.child.pid).foreach { s =>
          maxThreads = maxThreads.max(s.threads)
          maxRss = maxRss.max(s.residentMb)
        }
        Stack.get(service.url("/metrics")).foreach { text =>
          val active = MetricsScrape.parse(text).pools("executor_active_threads") ++
            MetricsScrape.parse(text).pools("executor_active")
          poolPeaks = (poolPeaks.keySet ++ active.keySet).map(k =>
            k -> poolPeaks.getOrElse(k, 0.0).max(active.getOrElse(k, 0.0))).toMap
        }
        Thread.sleep(500)
    , "bench-sampler")
    sampler.setDaemon(true)
    sampler.start()
    val result = Wrk.run(WrkLoad(c.threads, c.connections, options.duration, 10.seconds, url))
    sampling.set(false)
    sampler.join(2000)
    result match
      case Left(err) => throw IllegalStateException(s"${c.name}: $err")
      case Right((r, text)) =>
        val ratio = c.bound.map(b => f" = ${r.requestsPerSecond / b.perSecond}%.3f of the bound").getOrElse("")
        println(f"    ${r.requestsPerSecond}%.1f req/s$ratio, p50 ${r.p50.getOrElse(Double.NaN)}%.1f ms, " +
          f"p99 ${r.p99.getOrElse(Double.NaN)}%.1f ms, errors ${r.errors.total}, non-2xx ${r.non2xx}, " +
          s"platform threads $maxThreads")
        BenchRun(c, round, r.requestsPerSecond, r.p50, r.p99, r.errors.total, r.non2xx, maxThreads, maxRss, poolPeaks,
          text)
