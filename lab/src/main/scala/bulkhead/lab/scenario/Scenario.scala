package bulkhead.lab.scenario

import bulkhead.lab.model.{Bound, CapName, FixKind, LittlesLaw, Target}
import bulkhead.stub.{FaultPlan, Latency}
import com.typesafe.config.{Config, ConfigException, ConfigFactory, ConfigValueType}

import java.nio.file.Path
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * What a seed reported for the experiment a scenario reproduces.
 *
 * @param id the seed's number, three digits (`001`)
 * @param row the experiment's row in DESIGN.md's table of the seeds
 */
final case class SeedFigure(id: String, row: Int, figure: String, requestsPerSecond: Option[Double])

object SeedFigure:
  /** A seed's number as the scenarios and the reports write it. */
  val IdPattern = "[0-9]{3}"

/**
 * The arrival rates `lab capacity` steps through (`load.rate-steps`): `n` equal steps up to a top rate (the last is
 * the top), or the rates themselves, in req/s.
 */
enum RateSteps:
  case Count(n: Int)
  case Rates(rates: Seq[Double])

  /** The rates of the steps, given the top rate (which a list of rates does not need). */
  def upTo(top: Double): Seq[Double] = this match
    case Count(n) => (1 to n).map(i => top * i / n)
    case Rates(rates) => rates

  def describe: String = this match
    case Count(n) => s"$n steps"
    case Rates(rates) => rates.map(r => f"$r%.1f").mkString("steps at ", ", ", " req/s")

/**
 * The load: wrk's closed loop, a JMeter-style ramp to a number of clients then a hold, or an open loop (vegeta):
 * requests sent at a rate whatever the answers do, as production traffic arrives.
 */
enum Load:
  /** `closeEach`: every request says `Connection: close`, so each answer ends its connection and wrk opens another. */
  case Wrk(threads: Int, connections: Int, duration: FiniteDuration, timeout: FiniteDuration,
      closeEach: Boolean = false)
  case Ramp(clients: Int, rampUp: FiniteDuration, rampSteps: Int, hold: FiniteDuration)
  /**
   * An open loop at `rate` req/s (None: `lab capacity` finds the top rate from the closed loop's cap) for `duration`;
   * `steps` are the rates `lab capacity` steps through. `threads` and `connections` are the closed loop (wrk) that
   * `lab capacity` runs first to read the cap, and the warm-up's.
   */
  case Open(rate: Option[Double], steps: Option[RateSteps], duration: FiniteDuration, timeout: FiniteDuration,
      threads: Int, connections: Int)

  def concurrency: Int = this match
    case w: Wrk => w.connections
    case r: Ramp => r.clients
    case o: Open => o.connections

  def measured: FiniteDuration = this match
    case w: Wrk => w.duration
    case r: Ramp => r.hold
    case o: Open => o.duration

  /** How long one run of the load lasts, from its start (a ramp's ramp-up and hold). */
  def seconds: Double = this match
    case r: Ramp => (r.rampUp + r.hold).toMillis / 1000.0
    case other => other.measured.toMillis / 1000.0

  def describe(path: String): String = this match
    case Wrk(t, c, d, to, close) =>
      val header = if close then " -H 'Connection: close'" else ""
      s"wrk -t$t -c$c -d${d.toSeconds}s --timeout ${to.toSeconds}s$header $path"
    case Ramp(c, up, steps, hold) =>
      s"ramp to $c clients in ${up.toSeconds}s ($steps steps), hold ${hold.toSeconds}s, $path"
    case Open(rate, steps, d, to, _, _) =>
      val at = rate.fold("the rate lab capacity finds")(r => f"$r%.1f req/s")
      val stepped = steps.fold("")(st => s", ${st.describe}")
      s"open loop at $at for ${d.toSeconds}s (timeout ${to.toSeconds}s)$stepped, $path"

object Load:
  /**
   * The shortest closed loop `lab capacity` reads a cap from: the diagnosis needs most of its samples saturated, and a
   * step of 5 s sampled every second has four.
   */
  val MinClosedLoop: FiniteDuration = 10.seconds

  /** The closed loop of an open scenario: wrk with its threads and connections, one step long (10 s at least). */
  def closedLoopOf(o: Open): Wrk =
    Wrk(o.threads.min(o.connections), o.connections, o.duration.max(MinClosedLoop), o.timeout)

/** A scenario of the lab: the service's configuration, its dependencies, the load, and what to compare with. */
final case class Scenario(
    name: String,
    title: String,
    seed: Option[SeedFigure],
    serviceFlags: Seq[String],
    minJdk: Int,
    /** The stub's latency (`stub.latency`, in the stub's own syntax: `fixed:1000`), read by the stub's parser. */
    stubLatency: Option[Latency],
    /** The stub's faults (`stub.faults`, `kind=rate` each), read by the stub's parser. */
    stubFaults: FaultPlan,
    redisCustomers: Option[Int],
    path: String,
    load: Load,
    warmup: FiniteDuration,
    sampleEvery: FiniteDuration,
    /** The seed's own work time, reported beside the measured hold time; the diagnosis never reads it. */
    workSeconds: Double,
    attempts: Int,
    source: Path,
    /** Servers loaded by this scenario, side by side. */
    targets: Seq[Target] = Seq(Target.Bulkhead),
    /** The status class that counts as throughput (`2xx` unless the scenario expects another). */
    expectedClass: String = "2xx",
    /** What the lab should name as the cap (diagnosis cases of `lab accuracy`), e.g. `pool blocking-pool`, `cpu`. */
    expectedResource: Option[CapName] = None,
    /** The case's cap by construction (`expect.cap`, req/s): Little's law on its known resource. */
    expectedCap: Option[Double] = None,
    /** The kind of fix the case expects (`expect.fix`, a [[FixKind]] key such as `critical-section`). */
    expectedFix: Option[FixKind] = None,
    /** Processors the served JVM is told it has (`service.cpus`, `lab run --cpus`): its pools sized as on N cores. */
    cpus: Option[Int] = None,
    /** The service's heap (`-Xmx`, e.g. `400m`); the lab's default otherwise. */
    heap: Option[String] = None,
    /** A benchmark case this one is set against, round by round (`compare-with`: the same load without its change). */
    compareWith: Option[String] = None,
    /** A pool that holds each request for `workSeconds` (name, threads): with the clients, the Little's-law bound. */
    boundPool: Option[(String, Int)] = None,
    /**
     * Service JVMs joined as one Pekko Cluster (`cluster.nodes`): 1 is one service without remoting; N starts N nodes
     * on loopback, loads the first (the front) and samples every one.
     */
    clusterNodes: Int = 1,
    /**
     * Connections of the warm-up (`warmup-connections`), the load's otherwise. More than the load's warms a slow case
     * faster (see [[bulkhead.lab.load.WarmUp.SettledShare]]).
     */
    warmupConnections: Option[Int] = None,
    /** A throwaway PostgreSQL server (`postgres = true`), passed to the zoo as --jdbc-url: hikari-pg and
     * spring-hikari query it. */
    postgres: Boolean = false):

  /**
   * The configuration's Little's-law bound, when the scenario states its work time: clients / work, and a pool's
   * threads / work when one holds each request. A benchmark reports its ratio to it; the diagnosis never reads it.
   */
  def bound: Option[Bound] =
    Option.when(workSeconds > 0)(LittlesLaw.bound(LittlesLaw.clients(load.concurrency, workSeconds) +:
      boundPool.toSeq.map((name, threads) => LittlesLaw.pool(name, threads, workSeconds))))

object Scenario:
  /** Every key a scenario file may have; anything else is a mistake and is refused with its name. */
  val Keys: Set[String] = Set(
    "name", "title", "seed.id", "seed.row", "seed.figure", "seed.requests-per-second",
    "service.flags", "service.min-jdk", "stub.latency", "stub.faults", "redis.customers",
    "load.path", "load.driver", "load.connection", "load.threads", "load.connections", "load.duration", "load.timeout",
    "load.clients", "load.ramp-up", "load.ramp-steps", "load.hold", "load.rate", "load.rate-steps", "warmup",
    "sampling.every", "work-seconds", "attempts", "target", "targets", "expect.resource", "expect.cap", "expect.fix",
    "service.cpus", "expect.status-class", "service.heap", "bound.pool", "bound.threads", "cluster.nodes",
    "warmup-connections", "postgres", "compare-with")

  /** The highest arrival rate an open loop may ask for (req/s): far above what one machine's generator sends. */
  val MaxRate = 100000.0

  /** The most steps of `load.rate-steps`. */
  val MaxRateSteps = 50

  /** Processors a scenario may tell the served JVM it has (`service.cpus`). */
  val MaxCpus = 1024

  /** Nodes of one cluster on this machine: each is a JVM of its own, sharing the cores with the load. */
  val MaxClusterNodes = 9

  /** The service's flags that place a node in a cluster: the lab gives them to each node of `cluster.nodes`. */
  val ClusterFlags: Set[String] = Set("--cluster-port", "--cluster-host", "--seed-node")

  /** Reads a scenario file; `short` shortens the load for the demo (the seeds' own durations otherwise). */
  def load(file: Path, short: Boolean = false): Either[String, Scenario] =
    try
      val c = ConfigFactory.parseFile(file.toFile).resolve()
      if c.isEmpty then Left(s"$file: empty or missing scenario")
      else
        val unknown = c.entrySet().asScala.map(_.getKey).filterNot(Keys).toSeq.sorted
        if unknown.nonEmpty then Left(s"$file: unknown key ${unknown.mkString(", ")}; known: ${Keys.toSeq.sorted.mkString(", ")}")
        else read(c, file, short)
    catch case e: ConfigException => Left(s"$file: ${e.getMessage}")

  private def read(c: Config, file: Path, short: Boolean): Either[String, Scenario] =
    def dur(k: String, default: FiniteDuration) =
      if c.hasPath(k) then c.getDuration(k).toMillis.millis else default
    def int(k: String, default: Int) = if c.hasPath(k) then c.getInt(k) else default
    def opt(k: String) = if c.hasPath(k) then Some(c.getString(k)) else None
    def list(k: String) = if c.hasPath(k) then c.getStringList(k).asScala.toSeq else Nil
    val driver = opt("load.driver").getOrElse("wrk")
    val named = (if c.hasPath("targets") then list("targets") else Seq(opt("target").getOrElse(Target.Bulkhead.name)))
      .map(Target.parse)
    val targets = named.collect { case Right(t) => t }
    val stubLatency = opt("stub.latency").map(Latency.parse)
    val stubFaults = FaultPlan.parse(list("stub.faults"))
    val expectedResource = opt("expect.resource").map(CapName.parse)
    val expectedFix = opt("expect.fix").map(FixKind.parse)
    val load: Either[String, Load] = driver match
      case "wrk" =>
        val connections = int("load.connections", 100)
        val full: Load.Wrk = Load.Wrk(int("load.threads", 2), connections, dur("load.duration", 30.seconds),
          dur("load.timeout", 10.seconds), opt("load.connection").contains("close"))
        // The demo keeps the seeds' connection counts up to 2,000 (enough to pass max-connections = 1024).
        // Attempts interleaved over several servers multiply the time: 10 s each in the short form.
        val cap = if int("attempts", 1) > 1 then 10.seconds else 20.seconds
        Right(if short then full.copy(duration = full.duration.min(cap),
          connections = full.connections.min(2000)) else full)
      case "ramp" =>
        val full: Load.Ramp = Load.Ramp(int("load.clients", 20), dur("load.ramp-up", 10.seconds), int("load.ramp-steps", 4),
          dur("load.hold", 60.seconds))
        Right(if short then full.copy(rampUp = full.rampUp.min(4.seconds), hold = full.hold.min(20.seconds)) else full)
      case "open" =>
        openLoad(c).map { full =>
          if short then full.copy(duration = full.duration.min(20.seconds)) else full
        }.left.map(e => s"$file: $e")
      case other => Left(s"$file: load.driver must be wrk, ramp or open, was '$other'")
    load.flatMap { l =>
      val seed = opt("seed.id").map(id => SeedFigure(id, int("seed.row", 0), opt("seed.figure").getOrElse(""),
        if c.hasPath("seed.requests-per-second") then Some(c.getDouble("seed.requests-per-second")) else None))
      val path = opt("load.path").getOrElse("/hello")
      val checks = Seq(
        Option.when(!path.startsWith("/"))(s"load.path must start with /, was '$path'"),
        Option.when(l.concurrency < 1)("load.connections / load.clients must be at least 1"),
        Option.when(int("load.threads", 2) < 1)("load.threads must be at least 1"),
        opt("load.connection").filterNot(Set("keep-alive", "close")).map(v =>
          s"load.connection must be keep-alive or close, was '$v'"),
        Option.when(driver != "wrk" && c.hasPath("load.connection"))("load.connection is wrk's: set load.driver = wrk"),
        Option.when(driver != "open" && (c.hasPath("load.rate") || c.hasPath("load.rate-steps")))(
          "load.rate and load.rate-steps are an open loop's: set load.driver = open"),
        Option.when(c.hasPath("work-seconds") && c.getDouble("work-seconds") <= 0)("work-seconds must be positive"),
        Option.when(int("attempts", 1) < 1 || int("attempts", 1) > 10)("attempts must be 1..10"),
        named.collectFirst { case Left(e) => e },
        Option.when(targets.isEmpty)("targets must name at least one server"),
        stubLatency.flatMap(_.left.toOption).map(e => s"stub.latency: $e"),
        stubFaults.left.toOption.map(e => s"stub.faults: $e"),
        expectedResource.flatMap(_.left.toOption).map(e => s"expect.resource: $e"),
        expectedFix.flatMap(_.left.toOption).map(e => s"expect.fix: $e"),
        Option.when(c.hasPath("sampling.every") && c.getDuration("sampling.every").toMillis != 0 &&
          c.getDuration("sampling.every").toMillis < 100)(
          s"sampling.every must be 0 (sampling off) or at least 100ms, was ${c.getString("sampling.every")}"),
        Option.when(c.hasPath("service.cpus") && (int("service.cpus", 1) < 1 || int("service.cpus", 1) > MaxCpus))(
          s"service.cpus must be 1..$MaxCpus, was ${int("service.cpus", 1)}"),
        Option.when(c.hasPath("expect.cap") && c.getDouble("expect.cap") <= 0)(
          s"expect.cap must be a positive rate in req/s, was ${c.getDouble("expect.cap")}"),
        seed.map(_.id).filterNot(_.matches(SeedFigure.IdPattern)).map(id =>
          s"seed.id must be the seed's three digits like 001, was '$id'"),
        opt("expect.status-class").filterNot(_.matches("[1-5]xx")).map(c =>
          s"expect.status-class must be one of 1xx..5xx, was '$c'"),
        // The zoo's client apps call the stub or Redis, as the enrichment pipeline's peers do; no other peer does.
        Option.when(targets.exists(t => !t.enrichment && t != Target.Zoo && (c.hasPath("redis.customers") ||
            c.hasPath("stub.latency"))))(
          s"peers serve /hello and /work only: a scenario with a stub or Redis targets " +
            s"${Target.All.filter(_.enrichment).mkString(", ")} or the zoo"),
        Option.when(c.hasPath("postgres") && c.getBoolean("postgres") && targets != Seq(Target.Zoo))(
          "postgres = true needs target = zoo (only its hikari-pg and spring-hikari read a database)"),
        opt("service.heap").filterNot(_.matches("[1-9][0-9]*[kmgKMG]")).map(h =>
          s"service.heap must be a size like 400m or 2g (the JVM's -Xmx), was '$h'"),
        Option.when(c.hasPath("bound.pool") != c.hasPath("bound.threads"))("bound.pool and bound.threads go together"),
        Option.when(c.hasPath("bound.threads") && int("bound.threads", 1) < 1)("bound.threads must be at least 1"),
        Option.when(c.hasPath("bound.pool") && !c.hasPath("work-seconds"))(
          "bound.pool needs work-seconds (the time a request holds a thread)"),
        Option.when(c.hasPath("warmup-connections") && (int("warmup-connections", 1) < 1 ||
          int("warmup-connections", 1) > 20000))(
          s"warmup-connections must be 1..20000, was ${int("warmup-connections", 1)}"),
        Option.when(int("cluster.nodes", 1) < 1 || int("cluster.nodes", 1) > MaxClusterNodes)(
          s"cluster.nodes must be 1..$MaxClusterNodes, was ${int("cluster.nodes", 1)}"),
        Option.when(int("cluster.nodes", 1) > 1 && targets != Seq(Target.Bulkhead))(
          "cluster.nodes above 1 needs target = bulkhead (only bulkhead joins a Pekko Cluster)"),
        list("service.flags").find(ClusterFlags.contains).filter(_ => int("cluster.nodes", 1) > 1).map(f =>
          s"service.flags sets $f, which the lab sets itself for cluster.nodes; remove it"))
      checks.flatten.headOption.map(e => Left(s"$file: $e")).getOrElse(Right(Scenario(
        name = opt("name").getOrElse(file.getFileName.toString.stripSuffix(".conf")),
        title = opt("title").getOrElse(""),
        seed = seed,
        serviceFlags = list("service.flags"),
        minJdk = int("service.min-jdk", 17),
        stubLatency = stubLatency.flatMap(_.toOption),
        stubFaults = stubFaults.getOrElse(FaultPlan.None),
        redisCustomers = if c.hasPath("redis.customers") then Some(c.getInt("redis.customers")) else None,
        path = path,
        load = l,
        warmup = if short then dur("warmup", 5.seconds).min(5.seconds) else dur("warmup", 5.seconds),
        // A thread dump stops the JVM at a safepoint: every 5 s is cheap; the seeds sampled every 30 s.
        sampleEvery = dur("sampling.every", 5.seconds),
        workSeconds = if c.hasPath("work-seconds") then c.getDouble("work-seconds") else 0.0,
        // Seed 002 ran each server 3 times in a row (JIT warm-up) and reported every attempt.
        attempts = int("attempts", 1),
        source = file,
        targets = targets,
        expectedClass = opt("expect.status-class").getOrElse("2xx"),
        expectedResource = expectedResource.flatMap(_.toOption),
        expectedCap = Option.when(c.hasPath("expect.cap"))(c.getDouble("expect.cap")),
        expectedFix = expectedFix.flatMap(_.toOption),
        cpus = Option.when(c.hasPath("service.cpus"))(int("service.cpus", 1)),
        heap = opt("service.heap"),
        compareWith = opt("compare-with"),
        boundPool = for p <- opt("bound.pool"); t <- Option.when(c.hasPath("bound.threads"))(c.getInt("bound.threads"))
          yield (p, t),
        clusterNodes = int("cluster.nodes", 1),
        warmupConnections = Option.when(c.hasPath("warmup-connections"))(int("warmup-connections", 1)),
        postgres = c.hasPath("postgres") && c.getBoolean("postgres"))))
    }

  /**
   * An open loop: `load.rate` (req/s, optional: `lab capacity` finds it), `load.rate-steps` (a count of equal steps up
   * to the rate, or a list of rates), `load.duration` (each step), `load.timeout`, and the closed loop's
   * `load.threads` and `load.connections`.
   */
  private def openLoad(c: Config): Either[String, Load.Open] =
    def seconds(k: String, default: FiniteDuration) = if c.hasPath(k) then c.getDuration(k).toMillis.millis else default
    def rateOk(r: Double) = r > 0 && r <= MaxRate
    val rate = Option.when(c.hasPath("load.rate"))(c.getDouble("load.rate"))
    val steps: Either[String, Option[RateSteps]] =
      if !c.hasPath("load.rate-steps") then Right(None)
      else
        val v = c.getValue("load.rate-steps")
        v.valueType match
          case ConfigValueType.NUMBER =>
            val n = v.unwrapped.asInstanceOf[Number].doubleValue
            if n != math.rint(n) || n < 1 || n > MaxRateSteps then
              Left(s"load.rate-steps must be a count of steps 1..$MaxRateSteps or a list of rates, was $n")
            else Right(Some(RateSteps.Count(n.toInt)))
          case ConfigValueType.LIST =>
            val rates = scala.util.Try(c.getDoubleList("load.rate-steps").asScala.map(_.doubleValue).toSeq)
            rates.toOption.toRight(s"load.rate-steps must list rates in req/s, was ${v.render}").flatMap { rs =>
              if rs.isEmpty || rs.size > MaxRateSteps then Left(s"load.rate-steps must list 1..$MaxRateSteps rates")
              else if !rs.forall(rateOk) then Left(s"load.rate-steps must be rates above 0 and at most $MaxRate req/s, " +
                s"was ${rs.mkString(", ")}")
              else if rs.zip(rs.drop(1)).exists((a, b) => b <= a) then
                Left(s"load.rate-steps must rise from step to step, was ${rs.mkString(", ")}")
              else if rate.isDefined then
                Left("load.rate and a list of load.rate-steps exclude each other: the list's last rate is the top")
              else Right(Some(RateSteps.Rates(rs)))
            }
          case other => Left(s"load.rate-steps must be a count of steps or a list of rates, was ${v.render}")
    val duration = seconds("load.duration", 30.seconds)
    val timeout = seconds("load.timeout", 10.seconds)
    Seq(
      rate.filterNot(rateOk).map(r => s"load.rate must be above 0 and at most $MaxRate req/s, was $r"),
      Option.when(duration <= Duration.Zero)("load.duration must be positive"),
      Option.when(timeout <= Duration.Zero)("load.timeout must be positive"),
      steps.left.toOption).flatten.headOption.toLeft(()).flatMap(_ => steps).map { st =>
      val top = rate.orElse(st.collect { case RateSteps.Rates(rs) => rs.last })
      def int(k: String, default: Int) = if c.hasPath(k) then c.getInt(k) else default
      val connections = int("load.connections", 100)
      Load.Open(top, st, duration, timeout, int("load.threads", 2).min(connections.max(1)), connections)
    }

  /** Files named on the command line: `.conf` files, or directories of them (sorted by name). */
  def files(args: Seq[String]): Either[String, Seq[Path]] =
    val paths = args.map(Path.of(_))
    paths.find(p => !java.nio.file.Files.exists(p)) match
      case Some(missing) => Left(s"no such scenario file or directory: $missing")
      case None =>
        Right(paths.flatMap { p =>
          if java.nio.file.Files.isDirectory(p) then
            java.nio.file.Files.list(p).iterator().asScala.filter(_.toString.endsWith(".conf")).toSeq.sortBy(_.toString)
          else Seq(p)
        })
