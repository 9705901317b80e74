package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Resources found in recorded real dumps from what their threads wait on. */
class WaitGraphSpec extends AnyFlatSpec with Matchers:
  private def dump(name: String) = ThreadDump.parse(Fixtures.text(name))

  "WaitGraph" should "find a monitor's holder by the lock it owns, and that the holder queues on the other lock" in {
    val rs = WaitGraph.of(dump("threaddump-deadlock-jdk25.txt"))
    val transfers = rs.filter(_.blocker == "java.lang.Object")
    transfers.map(_.waiters).sum shouldBe 2
    transfers.foreach { r =>
      r.holders shouldBe 1
      // Each holder is blocked on the other lock: the chain goes on from here (a deadlock, here).
      r.holderWaits.keys.head should startWith("monitor java.lang.Object")
    }
  }

  it should "find no resource in a dump whose busy threads only sleep" in {
    WaitGraph.of(dump("threaddump-jetty-qtp20-c50-1-jdk25.txt")) shouldBe empty
  }

  /** Dumps of services of other frameworks (peers/zoo), each taken mid-run under wrk at its cap. */
  private def zoo(app: String) = WaitGraph.of(dump(s"threaddump-zoo-$app-jdk25.txt"))

  it should "find one holder of a synchronized section, sleeping, and 49 Undertow workers queued on it" in {
    val Seq(lock) = zoo("undertow-lock")
    (lock.kind, lock.blocker, lock.site) shouldBe ("monitor", "java.lang.Object", "bulkhead.zoo.UndertowLock.lambda$start$0")
    (lock.waiters, lock.holders, lock.holderWaits) shouldBe (49, 1, Map("sleep" -> 1))
    lock.waiterPools shouldBe Map("XNIO-1 task" -> 49)
  }

  it should "find a ReentrantLock's holder from the frame waiters and holder share (the dump's JSON has no owner)" in {
    val Seq(lock) = zoo("undertow-reentrant")
    lock.blocker shouldBe "java.util.concurrent.locks.ReentrantLock$NonfairSync"
    (lock.waiters, lock.holders) shouldBe (49, 1)
  }

  it should "find a semaphore's four holders past the acquire, all sleeping" in {
    val Seq(sem) = zoo("undertow-semaphore")
    sem.blocker shouldBe "java.util.concurrent.Semaphore$NonfairSync"
    (sem.waiters, sem.holders, sem.holderWaits) shouldBe (26, 4, Map("sleep" -> 4))
  }

  it should "find an HTTP client's connection pool: threads parked at the lease, holders in a socket read" in {
    val Seq(pool) = zoo("httpclient-pool")
    pool.site shouldBe "org.apache.hc.core5.concurrent.BasicFuture.get"
    (pool.waiters, pool.holders, pool.holderWaits) shouldBe (34, 5, Map("socket" -> 5))
    // Waiters and holders part where the client asks for a connection.
    pool.caller shouldBe Some("org.apache.hc.client5.http.impl.classic.ConnectExec.execute")
  }

  it should "find threads waiting on an asynchronous client's futures, their completer an idle event loop" in {
    val Seq(future) = zoo("async-client")
    (future.completion, future.waiters, future.holders) shouldBe (true, 30, 0)
    future.site shouldBe "org.apache.hc.core5.concurrent.BasicFuture.get"
    // The code that asked is the first frame outside the future's library; its I/O reactor runs that library.
    future.caller shouldBe Some("bulkhead.zoo.AsyncClientPool.call")
    future.completedBy shouldBe Map("httpclient-dispatch" -> 2)
  }

  it should "find the executor's threads that complete the futures the workers wait on, by the class that asked" in {
    val Seq(future) = zoo("future-pool")
    future.completion shouldBe true
    future.site shouldBe "bulkhead.zoo.FuturePool.call"
    (future.waiters, future.holders) shouldBe (30, 5)
    future.holderPools shouldBe Map("pool-1-thread" -> 5)
    future.holderWaits shouldBe Map("socket" -> 5)
  }

  it should "record a pool's own frames from the wait down to the caller, for the pool's library" in {
    val Seq(pool) = zoo("jedis-held")
    pool.completion shouldBe false
    (pool.waiters, pool.holders, pool.holderWaits) shouldBe (42, 8, Map("sleep" -> 8))
    pool.through.head shouldBe "org.apache.commons.pool2.impl.LinkedBlockingDeque.takeFirst"
    pool.through.last shouldBe "redis.clients.jedis.JedisPool.getResource"
    pool.caller shouldBe Some("bulkhead.zoo.JedisHeld.work")
  }

  it should "see an executor's own idle wait as idle, not as a resource (Undertow's worker queue)" in {
    Seq("undertow-lock", "undertow-semaphore", "httpclient-pool").flatMap(zoo).map(_.blocker) should
      not contain "org.jboss.threads.EnhancedQueueExecutor"
  }

  "PoolSample" should "tell an event loop blocked in a handler from a worker pool, by its selector frames" in {
    def pools(app: String) = PoolSample.of(dump(s"threaddump-zoo-$app-jdk25.txt")).filter(_.busy > 0)
    pools("vertx-blocked").filter(_.eventLoop).map(p => (p.pool, p.busy, p.waits)) shouldBe
      Seq(("vert.x-eventloop-thread", 2, Map("sleep" -> 2)))
    pools("undertow-io-blocked").filter(_.eventLoop).map(_.pool) shouldBe Seq("XNIO-1 I/O")
    pools("undertow-lock").find(_.pool == "XNIO-1 task").get.eventLoop shouldBe false
  }
