package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * Fixtures: one run of the service on JDK 25 under `wrk -t1 -c20 -d5s` on `/work/virtual?ms=200`, sampled mid-run
 * with `jcmd Thread.vthread_scheduler`, `Thread.dump_to_file -format=json` (twice, a second apart) and `Thread.print -l`.
 */
class JsonThreadDumpSpec extends AnyFlatSpec with Matchers:
  private val Connections = 20
  private val VirtualPool = "bulkhead-bulkhead.dispatch.virtual-pool"
  private val scheduler = JsonThreadDump.schedulerIdentity(Fixtures.text("vthread-scheduler-virtual200-c20-jdk25.txt"))
  private def json(n: Int): String = Fixtures.text(s"threaddump-virtual200-c20-$n-jdk25.json")
  private def parsed(text: String, withScheduler: Option[String] = scheduler): ThreadDump =
    JsonThreadDump.parse(text, withScheduler).fold(e => fail(e), identity)

  "JsonThreadDump" should "show the virtual threads of a run as one pool, each holding a request in Thread.sleep" in {
    Seq(1, 2).foreach { n =>
      val pool = PoolSample.of(parsed(json(n))).find(_.pool == VirtualPool).get
      (pool.threads, pool.busy) shouldBe (Connections, Connections)
      pool.states shouldBe Map("TIMED_WAITING" -> Connections)
      pool.commonBusyFrame.get should include("Thread.sleep")
    }
    parsed(json(1)).threads.filter(_.pool == VirtualPool).foreach(_.virtual shouldBe true)
  }

  it should "see the virtual threads that Thread.print of the same instant leaves out" in {
    val classic = ThreadDump.parse(Fixtures.text("threaddump-virtual200-c20-jdk25.txt"))
    classic.threads.count(_.name.contains("virtual-thread")) shouldBe 0
    parsed(json(1)).threads.count(_.name.contains("virtual-thread")) shouldBe Connections
  }

  it should "group platform threads into the same pools as Thread.print does" in {
    val fromJson = PoolSample.of(parsed(json(1))).map(p => p.pool -> p.threads).toMap
    val fromClassic = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-virtual200-c20-jdk25.txt")))
      .map(p => p.pool -> p.threads).toMap
    Seq("bulkhead-pekko.actor.default-dispatcher", "bulkhead-pekko.actor.internal-dispatcher",
      "bulkhead.redis.lettuce-nioEventLoop", "bulkhead.redis.lettuce-eventExecutorLoop", "main")
      .foreach(pool => withClue(pool)(fromJson(pool) shouldBe fromClassic(pool)))
  }

  it should "label the scheduler's carriers by the pool jcmd names, and leave them a plain fork-join pool without it" in {
    val size = """size = (\d+)""".r.findFirstMatchIn(Fixtures.text("vthread-scheduler-virtual200-c20-jdk25.txt")).get
      .group(1).toInt
    val labelled = PoolSample.of(parsed(json(1)))
    labelled.find(_.pool == PoolNames.VirtualCarriers).get.threads shouldBe size
    labelled.map(_.pool) should not contain "ForkJoinPool-3-worker"
    val plain = PoolSample.of(parsed(json(1), withScheduler = None))
    plain.map(_.pool) should not contain PoolNames.VirtualCarriers
    plain.find(_.pool == "ForkJoinPool-3-worker").get.threads shouldBe size
  }

  it should "read a JDK 21 dump, which has no state and no virtual flag, from the frames" in {
    val jdk21 = json(1).linesIterator.filterNot(l => l.contains("\"state\":") || l.contains("\"virtual\":"))
      .mkString("\n")
    val dump = parsed(jdk21)
    val pool = PoolSample.of(dump).find(_.pool == VirtualPool).get
    (pool.threads, pool.busy) shouldBe (Connections, Connections)
    pool.states shouldBe Map("TIMED_WAITING" -> Connections)
    dump.threads.filter(_.pool == VirtualPool).foreach(_.virtual shouldBe true)
    dump.threads.filterNot(_.pool == VirtualPool).foreach(_.virtual shouldBe false)
  }

  it should "write frames as Thread.print does, so one frame matcher serves both" in {
    JsonThreadDump.classicFrame("java.base/java.lang.Thread.sleep(Thread.java:540)") shouldBe
      "java.lang.Thread.sleep(java.base/Thread.java:540)"
    JsonThreadDump.classicFrame("bulkhead.service.Main$.main(Main.scala:41)") shouldBe
      "bulkhead.service.Main$.main(Main.scala:41)"
    // Thread.print also shows the JVM's hidden lambda frames, which the JSON dump leaves out.
    val classic = ThreadDump.parse(Fixtures.text("threaddump-virtual200-c20-jdk25.txt")).threads
      .find(_.name == "main").get.frames.map(PoolSample.frameName).filterNot(_.contains("$$Lambda"))
    parsed(json(1)).threads.find(_.name == "main").get.frames.map(PoolSample.frameName) shouldBe classic
  }

  it should "refuse text that is not a JSON thread dump, saying so" in {
    JsonThreadDump.parse(Fixtures.text("threaddump-pool4-jdk25.txt")).left.toOption.get should include("not a JSON thread dump")
    JsonThreadDump.parse("""{"threadDump": {"threadContainers": [{"threads": []}]}}""").isLeft shouldBe true
  }

  "schedulerIdentity" should "find the scheduler's identity in jcmd's answer, and nothing in another answer" in {
    scheduler.get should fullyMatch regex """java\.util\.concurrent\.ForkJoinPool@[0-9a-f]+"""
    JsonThreadDump.schedulerIdentity("12345:\nUnknown diagnostic command") shouldBe None
  }
