package bulkhead.lab.sample

import bulkhead.lab.report.ThreadTable
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Fixtures: real `jcmd Thread.print -l` dumps of the service under wrk, on JDK 25 and JDK 17, and a real deadlock. */
class ThreadDumpSpec extends AnyFlatSpec with Matchers:

  "ThreadDump" should "group the service's threads by pool and find the saturated blocking pool (JDK 25)" in {
    val pools = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-pool4-jdk25.txt")))
    val blocking = pools.find(_.pool == "bulkhead-bulkhead.dispatch.blocking-pool").get
    (blocking.threads, blocking.busy) shouldBe (4, 4)
    blocking.commonBusyFrame.get should include("Thread.sleep")
    blocking.states shouldBe Map("TIMED_WAITING" -> 4)
    val default = pools.find(_.pool == "bulkhead-pekko.actor.default-dispatcher").get
    default.busy should be < default.threads
  }

  it should "see the default dispatcher blocked in Thread.sleep by /work/default (JDK 17)" in {
    val pools = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-default2-jdk17.txt")))
    val default = pools.find(_.pool == "bulkhead-pekko.actor.default-dispatcher").get
    (default.threads, default.busy) shouldBe (2, 2)
    default.commonBusyFrame.get should include("Thread.sleep")
  }

  it should "report the JVM's deadlock with both threads and the lock owner" in {
    val dump = ThreadDump.parse(Fixtures.text("threaddump-deadlock-jdk25.txt"))
    dump.deadlocks shouldBe Seq("transfer-worker-1", "transfer-worker-2")
    dump.threads.count(_.name.startsWith("transfer-worker")) shouldBe 2
    val analysis = ThreadTable.analysis(dump)
    analysis should include("transfer-worker-1 waits for")
    analysis should include("held by transfer-worker-2")
    analysis should include("DEADLOCK between")
  }

  it should "say what threads queue on, with the holders found in the same dump (a semaphore of 4)" in {
    val analysis = ThreadTable.analysis(ThreadDump.parse(Fixtures.text("threaddump-zoo-undertow-semaphore-jdk25.txt")))
    analysis should include("java.util.concurrent.Semaphore$NonfairSync at bulkhead.zoo.UndertowSemaphore.lambda$start$0: " +
      "26 waiting (26 of XNIO-1 task), 4 holding in bulkhead.zoo.UndertowSemaphore.lambda$start$0 (4 sleep)")
  }

  "poolOf" should "strip a thread's counter, keeping the pool's configuration path" in {
    ThreadDump.poolOf("bulkhead-bulkhead.dispatch.blocking-pool-12") shouldBe "bulkhead-bulkhead.dispatch.blocking-pool"
    ThreadDump.poolOf("bulkhead.soap.work-queue-3") shouldBe "bulkhead.soap.work-queue"
    ThreadDump.poolOf("main") shouldBe "main"
  }

  "ThreadTable" should "print threads per pool over samples, as the seeds' jstackSeries did" in {
    val s = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-pool4-jdk25.txt")))
    val table = ThreadTable.render(Seq(s, s))
    table.linesIterator.find(_.startsWith("bulkhead-bulkhead.dispatch.blocking-pool")).get should include("4/4 T4")
  }
