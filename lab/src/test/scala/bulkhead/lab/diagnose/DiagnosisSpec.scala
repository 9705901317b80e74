package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, MetricsReading, PoolGauge, Resource}
import bulkhead.lab.record.{LogLine, NodeSamples}
import bulkhead.lab.sample.{JsonThreadDump, PoolSample, ThreadDump}
import bulkhead.lab.testkit.{Fixtures, Records}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Diagnoses of runs around recorded real thread dumps: one per kind of cap, and the traps the lab must not fall in. */
class DiagnosisSpec extends AnyFlatSpec with Matchers:
  private val pool4 = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-pool4-jdk25.txt")))

  // 16 clients on a pool of 4 threads doing 100 ms: 40 req/s, and the queue makes the mean latency 400 ms.
  private val queueing = Records.run(clients = 16, seconds = 10, answers = Map("2xx" -> 400), meanMs = 400,
    pools = pool4, metrics = Records.poolMetrics("blocking-pool", size = 4, active = 4, rate = 40, queued = 12))

  "Diagnosis" should "take a saturated pool's hold time from its own counters, not from the queued latency" in {
    val v = Diagnosis(queueing)
    v.name shouldBe "pool blocking-pool"
    // 4 busy / 40 tasks per second = 0.1 s held; 4 threads / 0.1 s = 40 req/s (the mean latency would give 10).
    v.predicted shouldBe (40.0 +- 0.5)
    v.cap.why should include("hold 0.1 s")
  }

  it should "suggest one thread per client and predict the clients' bound without the queue" in {
    val v = Diagnosis(queueing)
    v.fix.map(_.flags) shouldBe Some(Seq("--blocking-pool-size", "16"))
    // Without the 12 queued requests (0.3 s at 40 req/s) a request takes its 0.1 s hold: 16 / 0.1 = 160 req/s.
    v.next.map(_.perSecond).get shouldBe (160.0 +- 1.0)
  }

  it should "name errors first when most answers are not 2xx, quoting the service's log" in {
    val failing = queueing.copy(load = queueing.load.copy(answers = queueing.load.answers.copy(
      byClass = Map("2xx" -> 99, "5xx" -> 649289))), log = Seq(LogLine("WARN Exceeded configured max-open-requests value of [N]", 1200)))
    val v = Diagnosis(failing)
    v.name shouldBe "errors"
    v.explanation should include("649,289 x 5xx")
    v.explanation should include("max-open-requests")
    v.measured shouldBe (9.9 +- 0.1)
  }

  it should "never give a bound below what was measured" in {
    // The pool's counter says 5 tasks/s while 40 req/s were answered: it is not what caps them.
    val other = Records.run(clients = 16, seconds = 10, answers = Map("2xx" -> 400), meanMs = 400, pools = pool4,
      metrics = Records.poolMetrics("blocking-pool", size = 4, active = 4, rate = 5))
    val v = Diagnosis(other)
    v.predicted should be >= 40.0 * 0.95
  }

  it should "name the CPU when threads compute and the machine is busy, with the service's CPU per request" in {
    val hello = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-hello-cpu-jdk25.txt")))
    hello.find(_.pool.endsWith("default-dispatcher")).get.blocked shouldBe 0
    val v = Diagnosis(Records.run(clients = 100, seconds = 10, answers = Map("2xx" -> 494783), meanMs = 2,
      pools = hello, busyShare = 0.98, serviceCores = 1.2))
    v.name shouldBe "cpu"
    v.cpuMicrosPerRequest.get shouldBe (1.2 / 49478.3 * 1e6 +- 0.5)
    v.predicted should be >= v.measured
  }

  it should "size a pool of a JVM without /metrics from its thread samples (Akka HTTP, seed 001's dispatcher)" in {
    val akka = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-akka-http-pool200-jdk17.txt")))
    val v = Diagnosis(Records.run(clients = 400, seconds = 10, answers = Map("2xx" -> 19000), meanMs = 210,
      pools = akka, target = "akka-http"))
    v.name shouldBe "pool akka-http-peer-my-blocking-dispatcher"
    v.explanation should include("of 200 threads busy")
    v.fix.map(_.flags) shouldBe Some(Nil)
    v.fix.get.sentence should include(">= 400")
  }

  it should "name max-connections when every slot is held and more clients wait (seed 003)" in {
    val full = (t: Int) => Some(MetricsReading(Nil, Map("2xx" -> 46619.0 * t), Some(1024), Some(1024), None, None,
      None, None, Map.empty))
    val v = Diagnosis(Records.run(clients = 1200, seconds = 10, answers = Map("2xx" -> 466197), meanMs = 20.4,
      metrics = full))
    v.name shouldBe "max-connections"
    v.fix.map(_.flags) shouldBe Some(Seq("--max-connections", "1200"))
  }

  it should "read max-connections over the connections it serves when those above it are answered 503" in {
    // 16 slots, 40 clients: 21 connections open, 5 of them being refused (503, closed); 124.6 OK answers a second.
    val over = (t: Int) => Some(MetricsReading(Nil, Map("2xx" -> 124.6 * t, "5xx" -> 300.0 * t), Some(21), Some(16),
      None, None, None, None, Map.empty))
    val v = Diagnosis(Records.run(clients = 40, seconds = 10, answers = Map("2xx" -> 1246, "5xx" -> 3000),
      meanMs = 94, metrics = over))
    v.name shouldBe "max-connections"
    v.predicted shouldBe (124.6 +- 0.5)
    v.fix.map(_.flags) shouldBe Some(Seq("--max-connections", "40"))
  }

  it should "name the third party when the clients wait on its measured latency (seed 004, 20 clients)" in {
    val soap = (t: Int) => Some(MetricsReading(Nil, Map("2xx" -> 19.7 * t), Some(21), Some(16384), Some(20),
      Some(19.7 * t), Some(19.7 * t * 1.0), Some(4096), Map.empty))
    val v = Diagnosis(Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 197), meanMs = 1017,
      metrics = soap))
    v.name shouldBe "third-party"
    v.predicted shouldBe (20.0 +- 0.01)
  }

  it should "name the SOAP host pool when calls queue for its connections, its hold without the queue" in {
    // 4 connections, 20 clients, a 200 ms third party: 17 answered calls/s (and 8/s refused before sending, which held
    // no connection); each call's whole time, 1.18 s, is mostly the wait for a connection.
    val soap = (t: Int) => Some(MetricsReading(Nil, Map("2xx" -> 17.0 * t), Some(21), Some(16384), Some(20),
      Some(25.0 * t), Some(17.0 * t * 1.18), Some(4), Map.empty, soapAnswered = Some(17.0 * t)))
    val v = Diagnosis(Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 170), meanMs = 1180,
      metrics = soap))
    v.name shouldBe "soap-host-pool"
    v.predicted shouldBe (17.0 +- 0.01)
    v.fix.map(_.flags) shouldBe Some(Seq("--set", "bulkhead.enrichment.soap.max-connections=20"))
    // Then the clients without the queue: Little's law's latency without the 16 queued calls, (20 - 16) / 17 per s =
    // 0.235 s, the calls' hold; 20 / 0.235 = 85 req/s.
    v.next.map(_.perSecond).get shouldBe (20 / (4 / 17.0) +- 0.5)
  }

  it should "name the host pool, not errors, when the service refused the calls above its cap itself" in {
    // 2 connections, 100 clients, a 200 ms third party: 10 answered calls/s, and 600 a second refused at once by the
    // service's admission (503, never sent): the service kept serving its cap.
    val soap = (t: Int) => Some(MetricsReading(Nil, Map("2xx" -> 10.0 * t, "5xx" -> 600.0 * t), Some(100),
      Some(16384), Some(2), Some(610.0 * t), Some(10.0 * t * 0.2), Some(2), Map.empty, soapAnswered = Some(10.0 * t),
      soapRefused = Some(600.0 * t)))
    val v = Diagnosis(Records.run(clients = 100, seconds = 10, answers = Map("2xx" -> 100, "5xx" -> 6000),
      meanMs = 160, metrics = soap))
    v.name shouldBe "soap-host-pool"
    v.errors shouldBe None
    v.predicted shouldBe (10.0 +- 0.1)
    v.cap.why should include("above its cap the service refused the rest")
    v.fix.map(_.kind) shouldBe Some(FixKind.ConnectionPoolSize)
    // The same 5xx without the service's own refusals (failures of unknown cause) are named first.
    val unexplained = (t: Int) => soap(t).map(_.copy(soapRefused = Some(0.0)))
    Diagnosis(Records.run(clients = 100, seconds = 10, answers = Map("2xx" -> 100, "5xx" -> 6000), meanMs = 160,
      metrics = unexplained)).name shouldBe "errors"
  }

  it should "read the third party's latency without the work queue in front of it (blocking client)" in {
    // 5 threads each held 0.258 s by a call (its exchange), 20 clients: each call's whole time is ~1 s of queue.
    val soap = (t: Int) => Records.poolMetrics("work-queue", size = 5, active = 5, rate = 19.4, queued = 15)(t).map(_.copy(
      soapInFlight = Some(20), soapCalls = Some(19.4 * t), soapSeconds = Some(19.4 * t * 1.0),
      soapExchanges = Some(19.4 * t), soapExchangeSeconds = Some(19.4 * t * 0.258)))
    val v = Diagnosis(Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 194), meanMs = 1030,
      pools = fullWorkQueue, metrics = soap))
    v.name shouldBe "pool work-queue"
    // 20 clients over the third party's 0.258 s (or over the latency without the queue, the same), not over 1 s.
    v.next.map(_.perSecond).get shouldBe (20 / 0.258 +- 1.5)
  }

  it should "not name the CPU when what keeps the machine busy is not the service (a build beside the run)" in {
    // The machine 98 % busy, the service using 0.1 of its 2 cores for 150 answers a second of 105 ms each.
    val v = Diagnosis(Records.run(clients = 16, seconds = 10, answers = Map("2xx" -> 1500), meanMs = 105,
      busyShare = 0.98, serviceCores = 0.1))
    v.name shouldBe "load-generator"
  }

  it should "never read virtual threads as a full pool: each is a task's, there is no size to reach" in {
    // 20 connections on /work/virtual?ms=200, from a JSON dump: 20 virtual threads, all busy, 100 tasks/s.
    val dump = JsonThreadDump.parse(Fixtures.text("threaddump-virtual200-c20-1-jdk25.json")).fold(e => fail(e), identity)
    val virtual = (t: Int) => Some(MetricsReading(Seq(PoolGauge("virtual-pool", Some(20), None, Some(100.0 * t), None)),
      Map("2xx" -> 100.0 * t), None, None, None, None, None, None, Map.empty))
    val r = Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 1000), meanMs = 200,
      pools = PoolSample.of(dump), metrics = virtual)
    Diagnosis.resources(r).map(_.name).filter(_.contains("virtual")) shouldBe empty
    // Nothing is full, but each request holds a virtual thread asleep: the verdict names that, never the clients.
    val v = Diagnosis(r)
    v.name shouldBe "wait"
    v.cap.why should include("sleep")
    v.fix.map(_.kind) shouldBe Some(FixKind.MoreLoad)
  }

  it should "fall back to the load generator's closed loop when nothing is saturated" in {
    val v = Diagnosis(Records.run(clients = 16, seconds = 10, answers = Map("2xx" -> 1500), meanMs = 105))
    v.name shouldBe "load-generator"
    // Little's law on the run's own figures: 16 clients at 16 / 150 s each serve 150 req/s, whatever wrk's mean says.
    v.predicted shouldBe (150.0 +- 0.5)
    v.cap.why should include("Little's law on the measurement")
    v.cap.why should include("mostly idle")
    // The fix: more load, and the rate that would find the cap: the service's 0.2 cores for 150 req/s are 1,333 us a
    // request, so its 2 cores would serve 1,500 req/s.
    v.fix.map(_.kind) shouldBe Some(FixKind.MoreLoad)
    v.fix.get.sentence should include("the CPU at about 1500 req/s")
    v.fix.get.sentence should include("lab capacity --max-rate 1800")
  }

  /** Each node's SOAP work queue as a dump shows it when full: 5 threads waiting in the blocking HTTP call. */
  private val fullWorkQueue = Seq(PoolSample("bulkhead.soap.work-queue", 5, 5, Map("WAITING" -> 5),
    Map("jdk.internal.net.http.HttpClientImpl.send" -> 5), blocked = 5))

  /** A 2-node run: the front's record, and the second node's samples. */
  private def twoNodes(front: bulkhead.lab.record.RunRecord, second: Seq[bulkhead.lab.sample.Sample]) =
    front.copy(info = front.info.copy(nodes = Seq("127.0.0.1:2551", "127.0.0.1:2552")),
      otherNodes = Seq(NodeSamples("127.0.0.1:2552", second)))

  "Diagnosis of a cluster" should "add up a work queue full on every node: 2 x 5 threads / 0.2 s = 50 req/s" in {
    val node = Records.poolMetrics("work-queue", size = 5, active = 5, rate = 25, queued = 5)
    val front = Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 500), meanMs = 400,
      pools = fullWorkQueue, metrics = node)
    val v = Diagnosis(twoNodes(front, front.samples))
    v.name shouldBe "pool work-queue"
    v.predicted shouldBe (50.0 +- 0.5)
    v.cap.why should include("5.0 of 5 threads busy on each of 2 nodes")
    v.cap.why should include("2 x 5 threads / 0.2 s = 50.0 req/s")
    // 20 clients over 2 nodes: 10 threads on each.
    v.fix.map(_.flags) shouldBe Some(Seq("--set", "bulkhead.enrichment.soap.work-queue.max=10", "--set",
      "bulkhead.enrichment.soap.work-queue.core=10"))
    v.next.map(_.perSecond).get shouldBe (100.0 +- 1.0)
  }

  it should "not add up a queue that is full on one node only" in {
    val front = Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 300), meanMs = 660,
      pools = fullWorkQueue, metrics = Records.poolMetrics("work-queue", size = 5, active = 5, rate = 25, queued = 5))
    val idle = Records.run(clients = 20, seconds = 10, answers = Map.empty, meanMs = 1,
      pools = fullWorkQueue.map(_.copy(busy = 0, blocked = 0)),
      metrics = Records.poolMetrics("work-queue", size = 5, active = 0, rate = 5))
    val v = Diagnosis(twoNodes(front, idle.samples))
    // The front's queue alone (25 req/s) is below the 30 req/s measured: it is not what caps the cluster.
    v.name should not be "pool work-queue"
    v.predicted should be >= 30.0 * 0.95
  }

  private def recorded(name: String) = bulkhead.lab.record.RecordJson.read(java.nio.file.Path.of(
    getClass.getResource(s"/fixtures/records/$name/result.json").toURI)).fold(e => fail(e), identity)

  "Diagnosis of a recorded run" should "find a default dispatcher whose 4 threads wait parked in the work it runs" in {
    // /work/default's threads wait in a cancellable sleep (parked, so the dump does not call them busy); the executor's
    // active count says 4 of 4 and 29 tasks wait: the pool, not the clients, caps.
    val v = Diagnosis(recorded("default-dispatcher-parked"))
    v.name shouldBe "pool default-dispatcher"
    v.ratio shouldBe (1.0 +- 0.1)
  }

  it should "name the CPU, not the default dispatcher, for /hello with the sockets' actors on that dispatcher" in {
    // Its fork-join pool counts threads active while they look for work: active 6 of 8 on the mean, full at moments,
    // its Little's-law cap a third above what flowed through it, while the machine was 100 % busy.
    val r = recorded("hello-tcp-on-default-dispatcher")
    val v = Diagnosis(r)
    v.resource shouldBe Resource.Cpu
    v.ratio shouldBe (1.0 +- 0.1)
    Diagnosis.resources(r).find(_.name == "pool default-dispatcher").map(_.perSecond / r.throughput).get should be > 1.2
  }

  it should "read the machine's CPU over the whole load when the window holds one sample (the demo's 10 s row 7)" in {
    val r = recorded("demo-row-7-one-sample")
    val v = Diagnosis(r)
    v.resource shouldBe Resource.Cpu
    v.ratio shouldBe (1.0 +- 0.1)
  }

  it should "find seed 004's 25-thread work queue beside a default dispatcher of one thread (the demo's row 13)" in {
    // The one thread serves /metrics too: its executor's active count is always 1 at a scrape, while the dumps see it
    // idle.
    val v = Diagnosis(recorded("demo-row-13-one-thread"))
    v.name shouldBe "pool work-queue"
    v.ratio shouldBe (1.0 +- 0.1)
  }

  it should "not name a default dispatcher whose gauge calls its threads active while every dump sees them idle" in {
    // The demo's row 4: 1,000 clients on a 1,000-thread blocking pool, the machine 80 % busy; the dispatcher's fork-join
    // pool counted 8 of 8 active (threads looking for work) and was named the cap at 8 / 1 ms.
    val r = recorded("demo-row-4-idle-dispatcher")
    val v = Diagnosis(r)
    Diagnosis.resources(r).map(_.name) should not contain "pool default-dispatcher"
    // The blocking pool held 961 of its 1,000 threads while the load ran (its last dump, 798, read the clients leaving,
    // and is not in the window): full, and what it let through is its bound, Little's law on its own occupancy.
    withClue(v.line("row 4")) {
      v.name shouldBe "pool blocking-pool"
      v.ratio should (be >= 0.95 and be <= 1.05)
    }
  }

  it should "say the load went unsampled, not that the service was idle, when no sample fell inside it" in {
    // Row 4 on bulkhead, --short: the first dump of ~1,050 threads paused the JVM 280 ms and the pause budget put the
    // next sample 28 s later, past the 20 s load: the one sample, at second 0, saw no request yet.
    val r = recorded("row-4-unsampled")
    r.samples.map(_.second).max should be < 0.5
    val v = Diagnosis(r)
    withClue(v.line("row 4")) {
      v.name shouldBe "load-generator"
      v.cap.why should include("no sample fell inside the load (0.0 to 20.0 s; samples at: 0.0 s)")
      v.cap.why should not include "mostly idle"
      v.fix.map(_.sentence).get should include("no sample fell inside the load")
    }
  }

  it should "say how many clients' requests were outside the threads it names, when the load reached them in part" in {
    // Row 4 on Akka HTTP 10.2: 1,000 clients, 856 requests asleep in its blocking dispatcher of 1,000 on the mean,
    // 91 errors and a p99 of 5 s: the other clients were connecting or queued in the kernel, not in its threads.
    val v = Diagnosis(recorded("row-4-akka-outside"))
    withClue(v.line("row 4")) {
      v.name shouldBe "wait"
      v.cap.why should include regex """; 1\d\d of the 1000 clients' requests were outside these threads"""
    }
    // A run whose clients are all in the threads says nothing of the kind.
    Diagnosis(recorded("row-4-unsampled")).cap.why should not include "outside these threads"
  }

  it should "measure a run between its samples, where its occupancy was read, and say why the whole run's mean differs" in {
    // Row 4 on bulkhead sampled at the pause budget's pace: 994 of 1,000 threads busy in the three samples inside the
    // load, the executor's counter 9,316 tasks/s between them, wrk's 8,800 req/s over 20 s with 1,000 connections
    // opening at its start: against that mean the full pool's bound read 0.94.
    val r = recorded("row-4-edges")
    r.throughput / Diagnosis(r).predicted should be < 0.95
    val v = Diagnosis(r)
    withClue(v.line("row 4")) {
      v.name shouldBe "pool blocking-pool"
      v.ratio shouldBe 1.0 +- 0.05
      v.measured should be > r.throughput * 1.05
      v.cap.why should include regex """measured between the samples inside the load \(\d+\.\d to \d+\.\d s\): 9\d\d\d\.\d """ +
        """req/s, where the whole run's 8800.3 req/s over its 20 s also count its edges"""
      v.cap.why should not include "while the requests took longer around it"
    }
  }

  it should "read a pool full once the clients have arrived, within 5 % of its bound" in {
    // The demo's row 4 on Akka HTTP: its 1,000 clients taken in over ~4 s. Read from the start, its blocking
    // dispatcher was 876.6 of 1,000 busy on the mean and its bound 14 % above the measurement.
    val v = Diagnosis(recorded("row-4-akka-arriving"))
    withClue(v.line("row 4")) {
      v.name shouldBe "pool akka-http-peer-my-blocking-dispatcher"
      v.ratio shouldBe 1.0 +- 0.05
    }
  }

  it should "say a CPU bound above the measurement counts every core busy where some were idle" in {
    // nginx with one worker beside wrk: the machine 91 % busy.
    val v = Diagnosis(recorded("demo-row-7-nginx"))
    withClue(v.line("row 7")) {
      v.name shouldBe "cpu"
      v.cap.why should include regex """the cores were 9\d% busy on the mean, and the bound counts them all busy"""
      v.cap.why should not include "while the requests took longer around it"
    }
  }

  it should "find the 4-thread pool behind 400 ms of queued latency (real run)" in {
    val r = recorded("pool-4-queueing")
    r.load.latency.meanMs should be > 300.0
    val v = Diagnosis(r)
    v.name shouldBe "pool blocking-pool"
    v.ratio shouldBe (1.0 +- 0.1)
    v.fix.map(_.flags) shouldBe Some(Seq("--blocking-pool-size", "16"))
  }

  it should "name the errors of a run whose SOAP host pool refused calls (real run, every answer 5xx)" in {
    val r = recorded("errors-host-pool")
    val v = Diagnosis(r)
    v.name shouldBe "errors"
    v.measured shouldBe 0.0
    v.explanation should include("did not get 2xx")
  }

  it should "follow the zoo's futures and pool to the resource that caps them, its bound what it let through" in {
    // Real runs of the zoo's new cases (lab run, 15 s sampled every second): each saturated resource's bound within
    // 5 % of the measurement, and the fix of its kind.
    Seq(("zoo-async-client", "connection-pool", FixKind.ConnectionPoolSize),
      ("zoo-future-pool", "pool pool-1-thread", FixKind.PoolSize),
      ("zoo-jedis-held", "object-pool", FixKind.ReleaseSooner)).foreach { (name, cap, kind) =>
      val v = Diagnosis(recorded(name))
      withClue(v.line(name)) {
        v.name shouldBe cap
        v.ratio should (be >= 0.95 and be <= 1.05)
        v.fix.map(_.kind) shouldBe Some(kind)
        v.chain.head should startWith("XNIO-1 task: ")
      }
    }
  }

  it should "name the CPU of a hashing service whose threads queue for a core on a machine other work keeps busy" in {
    // The zoo's password-hashing case run while other jobs loaded the machine (load average 22 on 2 cores): the
    // service got 0.43 of its cores, but its 32 workers were sampled computing, far more than the cores.
    val r = recorded("zoo-password-hashing")
    val v = Diagnosis(r)
    v.name shouldBe "cpu"
    v.ratio should (be >= 0.95 and be <= 1.05)
    v.fix.map(_.kind) shouldBe Some(FixKind.CheaperWork)
    v.fix.get.sentence should startWith("cheaper work where the CPU goes: bulkhead.zoo.PasswordHashing.hash")
    // The lock its writers queue on, held by threads waiting for a core, is the CPU's symptom, not a cap.
    Diagnosis.resources(r).map(_.name) should not contain "lock"
  }

  "Diagnosis of a recorded 2-node run" should "read the work queue on both nodes as one of twice one node's cap" in {
    // Diagnosis case 10 (5 threads per node, third party 200 ms, 20 clients) run here while other work kept the
    // machine's 2 cores busy: the SOAP calls took longer than 200 ms, and the verdict names the CPU.
    val r = recorded("cluster")
    r.info.nodes should have size 2
    r.otherNodes.map(_.node) shouldBe r.info.nodes.tail
    val queue = Diagnosis.resources(r).find(_.name == "pool work-queue").get
    queue.why should include("threads busy on each of 2 nodes")
    queue.why should include("2 x 5 threads")
    queue.perSecond should be >= r.throughput
    // The front's samples alone: one node's queue.
    val front = r.copy(info = r.info.copy(nodes = Nil), otherNodes = Nil)
    val one = Diagnosis.resources(front).find(_.name == "pool work-queue").get
    one.why should not include "nodes"
    queue.perSecond / one.perSecond shouldBe (2.0 +- 0.3)
    Diagnosis(r).predicted should be <= queue.perSecond
  }

  /** Verdicts on services of other frameworks (peers/zoo), from dumps recorded mid-run under wrk at their caps. */
  "Diagnosis of a service it has never seen" should "name a synchronized section, not the pool queued on it, and shorten it" in {
    val v = Diagnosis(Records.ofDump("threaddump-zoo-undertow-lock-jdk25.txt", clients = 50, perSecond = 97))
    v.name shouldBe "lock"
    v.predicted shouldBe (97.0 +- 1.0)
    v.fix.map(_.kind) shouldBe Some(FixKind.CriticalSection)
    v.fix.get.sentence should include("bulkhead.zoo.UndertowLock.lambda$start$0")
    v.fix.get.sentence should not include ">="
    // The chain from the pool that serves the requests down to what the holder does.
    v.chain.head should startWith("XNIO-1 task: 50.0 of 51 threads busy, 49.0 of them waiting on it")
    v.chain.mkString(" -> ") should include("holders sleep")
    Diagnosis.resources(Records.ofDump("threaddump-zoo-undertow-lock-jdk25.txt", 50, 97)).map(_.name) should
      not contain "pool XNIO-1 task"
  }

  it should "name a ReentrantLock the same way" in {
    val v = Diagnosis(Records.ofDump("threaddump-zoo-undertow-reentrant-jdk25.txt", clients = 50, perSecond = 96))
    (v.name, v.fix.map(_.kind)) shouldBe ("lock", Some(FixKind.CriticalSection))
  }

  it should "name a semaphore of 4 permits and size it for the clients" in {
    val v = Diagnosis(Records.ofDump("threaddump-zoo-undertow-semaphore-jdk25.txt", clients = 30, perSecond = 39.4))
    v.name shouldBe "semaphore"
    // 4 holders / 39.4 per second = 0.10 s; 4 / 0.10 s = 39.4 req/s.
    v.predicted shouldBe (39.4 +- 0.5)
    v.fix.map(_.kind) shouldBe Some(FixKind.LimitSize)
    v.next.map(_.perSecond).get should be > 39.4 * 2
  }

  it should "name an HTTP client's connection pool, its size and the dependency behind it" in {
    val v = Diagnosis(Records.ofDump("threaddump-zoo-httpclient-pool-jdk25.json".replace(".json", ".txt"),
      clients = 40, perSecond = 37.5, outbound = Map("127.0.0.1:32997" -> 5)))
    v.name shouldBe "connection-pool"
    v.predicted shouldBe (37.5 +- 0.5)
    v.fix.map(_.kind) shouldBe Some(FixKind.ConnectionPoolSize)
    v.fix.get.sentence should include("PoolingHttpClientConnectionManager")
    v.fix.get.sentence should include("127.0.0.1:32997")
    v.chain.mkString(" -> ") should include("socket read (a remote call to 127.0.0.1:32997 x5)")
  }

  it should "tell a blocked Vert.x event loop to move the blocking call off it, never to add loops" in {
    val v = Diagnosis(Records.ofDump("threaddump-zoo-vertx-blocked-jdk25.txt", clients = 20, perSecond = 38.6))
    v.name shouldBe "event-loop vert.x-eventloop-thread"
    v.predicted shouldBe (38.6 +- 0.5)
    v.fix.map(_.kind) shouldBe Some(FixKind.MoveOffEventLoop)
    v.fix.get.sentence should include("executeBlocking")
    v.fix.get.sentence should include("bulkhead.zoo.VertxBlocked$Loop.handle")
  }

  it should "tell a blocked Undertow I/O thread to dispatch to the worker pool" in {
    val v = Diagnosis(Records.ofDump("threaddump-zoo-undertow-io-blocked-jdk25.txt", clients = 30, perSecond = 96.6))
    v.name shouldBe "event-loop XNIO-1 I/O"
    v.fix.get.sentence should include("exchange.dispatch")
  }

  it should "follow a future to the asynchronous client's connections: 5 calls at once, the rest waiting inside it" in {
    // Apache HttpAsyncClient 5, 5 connections per route, the stub at 200 ms, 30 clients: the workers wait on the
    // client's futures, which its I/O reactor completes without a busy thread; 5 connections to the stub are open.
    val v = Diagnosis(Records.ofDump("threaddump-zoo-async-client-jdk25.txt", clients = 30, perSecond = 21.9,
      outbound = Map("127.0.0.1:36491" -> 5)))
    v.name shouldBe "connection-pool"
    // 5 connections / 21.9 calls a second = 0.228 s each; 5 / 0.228 s = 21.9 req/s: the bound is what it let through.
    v.predicted shouldBe (21.9 +- 0.2)
    v.chain.head should startWith("XNIO-1 task: 30.0 of 60 threads busy, 30.0 of them waiting on it")
    val chain = v.chain.mkString(" -> ")
    chain should include("wait on a completion at org.apache.hc.core5.concurrent.BasicFuture.get")
    chain should include("asked in bulkhead.zoo.AsyncClientPool.call")
    chain should include("completed by httpclient-dispatch")
    chain should include("a remote call of 0.228 s each, 5 at once")
    v.fix.map(_.kind) shouldBe Some(FixKind.ConnectionPoolSize)
    v.fix.get.sentence should include("connections per host >= 30")
    v.fix.get.sentence should include("PoolingAsyncClientConnectionManager")
  }

  it should "say what the requests wait on when it cannot see who completes it, never the load generator" in {
    // The same dump without the process's connections (an offline dump): a completion no thread of the JVM runs.
    val v = Diagnosis(Records.ofDump("threaddump-zoo-async-client-jdk25.txt", clients = 30, perSecond = 21.9))
    v.name shouldBe "wait"
    v.cap.why should include("BasicFuture.get")
    v.cap.why should include("30.0 at once")
    v.fix.map(_.kind) shouldBe Some(FixKind.MoreLoad)
  }

  it should "follow a future to the executor whose threads complete it, and size that executor" in {
    // A fixed executor of 5 threads (the JDK's own names) makes each 200 ms call; 30 workers wait on its futures.
    val v = Diagnosis(Records.ofDump("threaddump-zoo-future-pool-jdk25.txt", clients = 30, perSecond = 19.5,
      outbound = Map("127.0.0.1:36491" -> 5)))
    v.name shouldBe "pool pool-1-thread"
    v.predicted shouldBe (19.5 +- 0.2)
    v.chain.head should startWith("XNIO-1 task: 30.0 of 57 threads busy, 30.0 of them waiting on it")
    v.chain(1) should include("wait on a completion at bulkhead.zoo.FuturePool.call")
    v.chain(2) should startWith("completed by the threads of pool-1-thread (5.0 busy running the task in " +
      "bulkhead.zoo.FuturePool.send), they wait in a socket read")
    v.fix.map(_.kind) shouldBe Some(FixKind.PoolSize)
    v.fix.get.sentence should include("pool-1-thread >= 30")
    Diagnosis.resources(Records.ofDump("threaddump-zoo-future-pool-jdk25.txt", 30, 19.5)).map(_.name) should
      not contain "pool XNIO-1 task"
  }

  it should "name a pool of a library it has no name for by the frames that lend, and release it before the sleep" in {
    // Jedis's pool (Apache Commons Pool 2, 8 objects), each held across 50 ms of sleep with the connection borrowed.
    val v = Diagnosis(Records.ofDump("threaddump-zoo-jedis-held-jdk25.txt", clients = 50, perSecond = 149.2,
      outbound = Map("127.0.0.1:6379" -> 8)))
    v.name shouldBe "object-pool"
    v.predicted shouldBe (149.2 +- 1.0)
    val chain = v.chain.mkString(" -> ")
    chain should include("an object pool of org.apache.commons.pool2 (GenericObjectPool.borrowObject), taken through " +
      "redis.clients.jedis (JedisPool.getResource) in bulkhead.zoo.JedisHeld.work")
    chain should include("the holders sleep with the object borrowed")
    v.fix.map(_.kind) shouldBe Some(FixKind.ReleaseSooner)
    v.fix.get.sentence should startWith("release the object before that work: the holders sleep in " +
      "bulkhead.zoo.JedisHeld.work")
    v.fix.get.sentence should include(">= 50 objects (JedisPoolConfig.setMaxTotal")
    v.name should not be "limit"
  }

  it should "tell a blocked default dispatcher of any Pekko or Akka service to move the call, never to add threads" in {
    // bulkhead's /work/default on JDK 17, read as a service the lab did not write: 2 dispatcher threads sleeping.
    val pools = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-default2-jdk17.txt")))
    val v = Diagnosis(Records.run(clients = 32, seconds = 10, answers = Map("2xx" -> 200), meanMs = 1600,
      pools = pools, target = "akka-http"))
    v.name shouldBe "pool bulkhead-pekko.actor.default-dispatcher"
    v.fix.map(_.kind) shouldBe Some(FixKind.MoveOffEventLoop)
    v.fix.get.sentence should include("to a dedicated dispatcher: a thread-pool-executor with fixed-pool-size 32")
    v.fix.get.sentence should include("bulkhead.service.work.WorkRunner.sleepOn")
    v.fix.get.sentence should not include "parallelism or pool size"
  }

  it should "name where the CPU goes, that more threads will not help, and what more cores or cheaper work give" in {
    // Password hashing (PBKDF2, 10,000 rounds) on 32 Undertow workers under wrk -c40, every worker in the hash;
    // 29.1 req/s on a machine shared with other jobs, the service using 1.9 of its 2 cores.
    val hashing = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-zoo-password-hashing-jdk25.txt")))
    val v = Diagnosis(Records.run(clients = 40, seconds = 10, answers = Map("2xx" -> 291), meanMs = 1375,
      pools = hashing, busyShare = 0.99, serviceCores = 1.9, target = "zoo"))
    v.name shouldBe "cpu"
    v.fix.map(_.kind) shouldBe Some(FixKind.CheaperWork)
    val fix = v.fix.get.sentence
    // Every running thread was sampled in the hash: the hottest frame at half its cost halves the service's CPU.
    fix should include("cheaper work where the CPU goes: bulkhead.zoo.PasswordHashing.hash 100%")
    fix should include("more threads will not help (32.0 threads run on 2 busy cores")
    // 1.9 cores / 29.1 answers a second = 65,292 us per request: 4 cores of its own would serve 4 x 15.3 req/s.
    fix should include("with 4 cores of its own the service's 65292 us per request would serve 4 x 15.3 = 61.3 req/s")
    fix should include("if bulkhead.zoo.PasswordHashing.hash cost half")
    v.next shouldBe None
  }
