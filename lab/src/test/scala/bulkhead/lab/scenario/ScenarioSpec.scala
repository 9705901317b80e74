package bulkhead.lab.scenario

import bulkhead.lab.model.{CapName, Resource, Target}
import bulkhead.lab.process.Launch
import bulkhead.lab.testkit.Scratch
import bulkhead.stub.{Fault, FaultPlan, Latency}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

class ScenarioSpec extends AnyFlatSpec with Matchers:
  private val scenarios = Path.of("scenarios").toAbsolutePath

  /** A scenario file holding `text`, read. */
  private def read(text: String): Either[String, Scenario] =
    val f = Scratch.file("scenario", ".conf")
    Files.writeString(f, text)
    Scenario.load(f)

  "The seed suite" should "hold one readable scenario per row of DESIGN.md's table (13)" in {
    val files = Scenario.files(Seq(scenarios.resolve("seeds").toString)).toOption.get
    val read = files.map(Scenario.load(_))
    read.collect { case Left(e) => e } shouldBe Nil
    read.flatMap(_.toOption).flatMap(_.seed.map(_.row)).sorted shouldBe (1 to 13)
  }

  it should "shorten durations and cap connections for the demo, keeping the seeds' own for --full" in {
    val file = scenarios.resolve("seeds/06-non-blocking-c10000.conf")
    val full = Scenario.load(file).toOption.get.load.asInstanceOf[Load.Wrk]
    val short = Scenario.load(file, short = true).toOption.get.load.asInstanceOf[Load.Wrk]
    (full.connections, full.duration) shouldBe (10000, 60.seconds)
    (short.connections, short.duration) shouldBe (2000, 20.seconds)
  }

  "A scenario file" should "be refused with the unknown key named" in {
    val f = Scratch.file("bad", ".conf")
    Files.writeString(f, "name = x\nload { path = \"/hello\", conections = 5 }\n")
    Scenario.load(f).left.toOption.get should include("unknown key load.conections")
  }

  it should "be refused with a bad driver or path named" in {
    val f = Scratch.file("bad", ".conf")
    Files.writeString(f, "load { driver = jmx }\n")
    Scenario.load(f).left.toOption.get should include("load.driver must be wrk, ramp or open, was 'jmx'")
    Files.writeString(f, "load { path = hello }\n")
    Scenario.load(f).left.toOption.get should include("load.path must start with /")
  }

  it should "give the Little's-law bound of its work time: clients, and the pool that holds each request" in {
    val f = Scratch.file("bound", ".conf")
    Files.writeString(f, "load { path = \"/work/pool\", connections = 100 }\nwork-seconds = 0.5\n" +
      "bound { pool = \"blocking-pool\", threads = 10 }\n")
    val pooled = Scenario.load(f).fold(e => fail(e), identity).bound.get
    pooled.perSecond shouldBe 20.0 +- 1e-9
    pooled.what should include("blocking-pool: 10 threads")
    Files.writeString(f, "load { path = \"/work/async\", connections = 100 }\nwork-seconds = 0.5\n")
    Scenario.load(f).fold(e => fail(e), identity).bound.get.perSecond shouldBe 200.0 +- 1e-9
    Files.writeString(f, "load { path = \"/hello\" }\n")
    Scenario.load(f).fold(e => fail(e), identity).bound shouldBe None
  }

  it should "refuse a bad heap or a pool bound without its threads or work time, naming them" in {
    val f = Scratch.file("bad", ".conf")
    Files.writeString(f, "service.heap = \"lots\"\n")
    Scenario.load(f).left.toOption.get should include("service.heap must be a size like 400m or 2g")
    Files.writeString(f, "work-seconds = 1\nbound.pool = \"p\"\n")
    Scenario.load(f).left.toOption.get should include("bound.pool and bound.threads go together")
    Files.writeString(f, "bound { pool = \"p\", threads = 3 }\n")
    Scenario.load(f).left.toOption.get should include("bound.pool needs work-seconds")
    Files.writeString(f, "service.heap = \"400m\"\n")
    Scenario.load(f).fold(e => fail(e), identity).heap shouldBe Some("400m")
  }

  it should "be refused with a bad target named, listing the servers it can be" in {
    val refused = read("target = undertow\n").left.toOption.get
    refused should include("unknown target 'undertow'")
    Target.All.foreach(t => refused should include(t.name))
    read("targets = [bulkhead, \"jetty \"]\n").left.toOption.get should include("unknown target 'jetty '")
    read("targets = [bulkhead, jetty]\n").map(_.targets) shouldBe Right(Seq(Target.Bulkhead, Target.Jetty))
  }

  it should "be refused with a bad stub.latency and the stub's own message, not when the stub starts" in {
    read("stub.latency = \"uniform:9:1\"\n").left.toOption.get should
      include(s"stub.latency: ${Latency.parse("uniform:9:1").left.toOption.get}")
    read("stub.latency = \"normal:1000:100\"\n").map(_.stubLatency) shouldBe Right(Some(Latency.Normal(1000, 100)))
  }

  it should "be refused with a stub or Redis for a peer, but give the zoo and the enrichment peer both" in {
    read("target = jetty\nstub.latency = \"fixed:100\"\n").left.toOption.get should include("peers serve /hello")
    read("target = jetty\nredis.customers = 10\n").left.toOption.get should include("peers serve /hello")
    read("target = zoo\nredis.customers = 10\n").map(_.redisCustomers) shouldBe Right(Some(10))
    read("targets = [zoo, jetty]\nstub.latency = \"fixed:100\"\n").left.toOption.get should include("peers serve")
    read("target = zoo\nstub.latency = \"fixed:100\"\n").map(s => (s.targets, s.stubLatency)) shouldBe
      Right((Seq(Target.Zoo), Some(Latency.Fixed(100))))
    read("targets = [bulkhead, vertx]\nstub.latency = \"fixed:100\"\nredis.customers = 10\n").map(s =>
      (s.targets, s.redisCustomers)) shouldBe Right((Seq(Target.Bulkhead, Target.Vertx), Some(10)))
    read("targets = [vertx, jetty]\nredis.customers = 10\n").left.toOption.get should include(
      "targets bulkhead, vertx or the zoo")
  }

  it should "ask for PostgreSQL for the zoo only" in {
    read("target = zoo\npostgres = true\n").map(_.postgres) shouldBe Right(true)
    read("target = zoo\n").map(_.postgres) shouldBe Right(false)
    read("target = jetty\npostgres = true\n").left.toOption.get should include("postgres = true needs target = zoo")
    read("postgres = true\n").left.toOption.get should include("postgres = true needs target = zoo")
    read("target = zoo\npostgres = maybe\n").left.toOption.get should include("postgres")
  }

  it should "be refused with a bad stub.faults and the stub's own message, naming the value" in {
    read("stub.faults = [\"meteor=0.5\"]\n").left.toOption.get should
      (include("stub.faults: ") and include("'meteor'") and include(Fault.values.map(_.key).mkString(", ")))
    read("stub.faults = [\"reset=2\"]\n").left.toOption.get should include("'reset=2'")
    read("stub.faults = [\"reset=0.5\", \"trickle=0.25\"]\n").map(_.stubFaults) shouldBe
      Right(FaultPlan(Map(Fault.Reset -> 0.5, Fault.Trickle -> 0.25)))
    read("name = x\n").map(_.stubFaults) shouldBe Right(FaultPlan.None)
  }

  it should "read expect.resource as the cap it names, refusing an unknown one with the valid names listed" in {
    read("expect.resource = \"pool blocking-pool\"\n").map(_.expectedResource) shouldBe
      Right(Some(CapName(Resource.Pool, Some("blocking-pool"))))
    read("expect.resource = \"soap-host-pool\"\n").map(_.expectedResource) shouldBe
      Right(Some(CapName(Resource.HostPool)))
    val unknown = read("expect.resource = \"disk\"\n").left.toOption.get
    unknown should include("expect.resource: unknown resource 'disk'")
    Resource.values.filterNot(_ == Resource.Pool).foreach(r => unknown should include(r.key))
    unknown should include("pool <name>")
    read("expect.resource = \"pool\"\n").left.toOption.get should include("names no pool")
    read("expect.resource = \"cpu 2\"\n").left.toOption.get should include("'cpu 2'")
  }

  it should "read the seed's id, refusing one that is not its three digits" in {
    read("seed { id = \"004\", row = 9, figure = \"19.9 req/s\" }\n").map(_.seed.map(_.id)) shouldBe Right(Some("004"))
    read("seed { id = \"004_16f4763590c33bbe.txt\", row = 9 }\n").left.toOption.get should
      include("seed.id must be the seed's three digits like 001, was '004_16f4763590c33bbe.txt'")
    read("seed { file = \"004_16f4763590c33bbe.txt\", row = 9 }\n").left.toOption.get should include("unknown key seed.file")
  }

  it should "say which file is missing" in {
    Scenario.files(Seq("no/such/dir")) shouldBe Left("no such scenario file or directory: no/such/dir")
  }

  "A cluster scenario" should "read cluster.nodes, and default to one service" in {
    val f = Scratch.file("cluster", ".conf")
    Files.writeString(f, "cluster.nodes = 3\n")
    Scenario.load(f).map(_.clusterNodes) shouldBe Right(3)
    Files.writeString(f, "name = x\n")
    Scenario.load(f).map(_.clusterNodes) shouldBe Right(1)
  }

  it should "be refused with a bad node count, a peer target or cluster flags of its own named" in {
    val f = Scratch.file("cluster", ".conf")
    Files.writeString(f, "cluster.nodes = 0\n")
    Scenario.load(f).left.toOption.get should include("cluster.nodes must be 1..9, was 0")
    Files.writeString(f, "cluster.nodes = 2\ntarget = akka-http\n")
    Scenario.load(f).left.toOption.get should include("target = bulkhead")
    Files.writeString(f, "cluster.nodes = 2\nservice.flags = [\"--seed-node\", \"127.0.0.1:2552\"]\n")
    Scenario.load(f).left.toOption.get should include("service.flags sets --seed-node")
  }

  "A scenario's warm-up" should "run at warmup-connections when given, and refuse a bad count by its name" in {
    val f = Scratch.file("warmup", ".conf")
    Files.writeString(f, "load.connections = 200\nwarmup-connections = 2000\n")
    Scenario.load(f).map(s => (s.load.concurrency, s.warmupConnections)) shouldBe Right((200, Some(2000)))
    Files.writeString(f, "load.connections = 200\n")
    Scenario.load(f).map(_.warmupConnections) shouldBe Right(None)
    Files.writeString(f, "warmup-connections = 0\n")
    Scenario.load(f).left.toOption.get should include("warmup-connections must be 1..20000, was 0")
  }

  it should "read a diagnosis case's expected cap and kind of fix, and the processors its JVM is told it has" in {
    val s = read("name = x\nexpect.resource = lock\nexpect.cap = 100\nexpect.fix = critical-section\nservice.cpus = 8\n")
      .toOption.get
    s.expectedResource.map(_.resource) shouldBe Some(Resource.Lock)
    s.expectedCap shouldBe Some(100.0)
    s.expectedFix.map(_.key) shouldBe Some("critical-section")
    s.cpus shouldBe Some(8)
    bulkhead.lab.run.ScenarioRunner.jvmOf(s) shouldBe Seq("-XX:ActiveProcessorCount=8")
  }

  it should "refuse an unknown kind of fix, a cap that is not positive and a processor count of 0, naming each" in {
    read("name = x\nexpect.fix = more-threads\n").left.toOption.get should include("unknown fix kind 'more-threads'")
    read("name = x\nexpect.cap = 0\n").left.toOption.get should include("expect.cap must be a positive rate")
    read("name = x\nservice.cpus = 0\n").left.toOption.get should include("service.cpus must be 1..1024, was 0")
  }

  "A wrk scenario" should "send Connection: close with every request when load.connection is close" in {
    val closing = read("load { path = \"/hello\", connections = 100, connection = close }\n").fold(e => fail(e), identity)
    closing.load shouldBe Load.Wrk(2, 100, 30.seconds, 10.seconds, closeEach = true)
    closing.load.describe("/hello") should include("-H 'Connection: close'")
    read("load { path = \"/hello\" }\n").toOption.get.load.asInstanceOf[Load.Wrk].closeEach shouldBe false
    read("load { connection = sometimes }\n").left.toOption.get should include(
      "load.connection must be keep-alive or close, was 'sometimes'")
    bulkhead.lab.load.WrkLoad(2, 100, 30.seconds, 10.seconds, "http://127.0.0.1:1/hello", closeEach = true).args
      .sliding(2).toSeq should contain(Seq("-H", "Connection: close"))
  }

  "An open-loop scenario" should "read its rate, its steps (a count up to the rate, or a list), duration and timeout" in {
    val one = read("load { driver = open, path = \"/hello\", rate = 50, duration = 3s, timeout = 2s }\n").toOption.get
    one.load shouldBe Load.Open(Some(50.0), None, 3.seconds, 2.seconds, 2, 100)
    val counted = read("load { driver = open, rate = 40, rate-steps = 4 }\n").toOption.get.load.asInstanceOf[Load.Open]
    counted.steps.map(_.upTo(counted.rate.get)) shouldBe Some(Seq(10.0, 20.0, 30.0, 40.0))
    val listed = read("load { driver = open, rate-steps = [5, 12.5, 30] }\n").toOption.get.load.asInstanceOf[Load.Open]
    listed.steps shouldBe Some(RateSteps.Rates(Seq(5.0, 12.5, 30.0)))
    listed.rate shouldBe Some(30.0)
  }

  it should "leave the top rate to lab capacity when it gives steps only, and keep the closed loop it reads the cap with" in {
    val o = read("load { driver = open, rate-steps = 6, duration = 5s, connections = 50, threads = 2 }\n").toOption.get
      .load.asInstanceOf[Load.Open]
    o.rate shouldBe None
    o.steps shouldBe Some(RateSteps.Count(6))
    Load.closedLoopOf(o) shouldBe Load.Wrk(2, 50, Load.MinClosedLoop, 10.seconds)
    // Refused before anything starts: the launch names no program that could run.
    bulkhead.lab.run.ScenarioRunner(Launch("none", Nil, "", "", Map.empty), Scratch.dir("open"), _ => ())
      .runTarget(read("name = o\nload { driver = open, rate-steps = 6 }\n").toOption.get, Target.Bulkhead,
        Scratch.dir("open")).left.toOption.get should include("runs under lab capacity only")
  }

  it should "be refused with a bad rate, steps, duration or timeout named" in {
    def refused(load: String) = read(s"load { $load }\n").left.toOption.get
    refused("driver = open, rate = 0") should include("load.rate must be above 0 and at most 100000.0 req/s, was 0.0")
    refused("driver = open, rate = 200000") should include("load.rate must be above 0")
    refused("driver = open, rate = 10, rate-steps = 0") should include("load.rate-steps must be a count of steps 1..50")
    refused("driver = open, rate = 10, rate-steps = 2.5") should include("was 2.5")
    refused("driver = open, rate-steps = [10, 5]") should include("load.rate-steps must rise from step to step")
    refused("driver = open, rate-steps = [10, -5]") should include("load.rate-steps must be rates above 0")
    refused("driver = open, rate-steps = []") should include("load.rate-steps must list 1..50 rates")
    refused("driver = open, rate-steps = [a, b]") should include("load.rate-steps must list rates in req/s")
    refused("driver = open, rate-steps = many") should include("load.rate-steps must be a count of steps or a list")
    refused("driver = open, rate = 10, rate-steps = [5, 10]") should include("exclude each other")
    refused("driver = open, rate = 10, duration = 0s") should include("load.duration must be positive")
    refused("driver = open, rate = 10, timeout = 0s") should include("load.timeout must be positive")
    refused("driver = wrk, rate = 10") should include("load.rate and load.rate-steps are an open loop's")
    refused("rate-steps = 3") should include("set load.driver = open")
    refused("driver = closed") should include("load.driver must be wrk, ramp or open, was 'closed'")
  }

  "The capacity cases" should "be open-loop scenarios of steps whose closed loop has more clients than the cap needs" in {
    val files = Scenario.files(Seq(scenarios.resolve("capacity").toString)).toOption.get
    files.size shouldBe 3
    files.map(Scenario.load(_)).foreach { r =>
      val s = r.fold(e => fail(e), identity)
      val o = s.load.asInstanceOf[Load.Open]
      (o.rate, o.steps, o.duration) shouldBe (None, Some(RateSteps.Count(6)), 5.seconds)
      o.connections should be >= 20
    }
  }
