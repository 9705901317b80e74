package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** What each thread of a recorded real dump waits on. */
class ThreadWaitSpec extends AnyFlatSpec with Matchers:
  private def dump(name: String) = ThreadDump.parse(Fixtures.text(name))
  private val jetty = dump("threaddump-jetty-qtp20-c50-1-jdk25.txt")
  private val deadlock = dump("threaddump-deadlock-jdk25.txt")

  "ThreadWait" should "read a thread waiting for connections in accept as idle, not busy" in {
    val acceptor = jetty.threads.find(_.name.contains("acceptor")).get
    acceptor.state shouldBe "RUNNABLE"
    acceptor.waiting.kind shouldBe WaitKind.Idle
  }

  it should "read a worker sleeping in its handler as sleeping, at the handler's frame" in {
    val worker = jetty.threads.find(_.name.endsWith("-30")).get
    worker.waiting shouldBe ThreadWait(WaitKind.Sleeping, site = Some("bulkhead.peers.jetty.SleepHandler.handle"))
  }

  it should "read a thread blocked on a monitor with the lock's class, identity and the frame that asks for it" in {
    val t = deadlock.threads.find(_.name == "transfer-worker-1").get
    t.waiting.kind shouldBe WaitKind.Monitor
    t.waiting.blocker shouldBe Some("java.lang.Object")
    t.waiting.identity shouldBe Some("0x000000069ebd6e80")
    t.waiting.site.get should startWith("Deadlock")
  }

  it should "read the JVM's reference handler and finalizer, and a selector, as idle" in {
    deadlock.threads.find(_.name == "Finalizer").get.waiting.kind shouldBe WaitKind.Idle
    jetty.threads.filter(_.frames.exists(_.contains("EPoll.wait"))).map(_.waiting.kind).distinct shouldBe
      Seq(WaitKind.Idle)
  }

  it should "read a task that blocks at once on a fork-join pool or a Timer as waiting, its idle neighbours as idle" in {
    // JDK 25: two fork-join workers sleep in a task executed straight on the pool, a third waits for work; a Timer's
    // thread sleeps in its task, another Timer's waits for one. The stacks are as short as idle workers'.
    val shallow = dump("threaddump-shallow-tasks-jdk25.txt")
    def named(name: String) = shallow.threads.filter(_.name == name).map(_.waiting)
    val sleeping = ThreadWait(WaitKind.Sleeping, site = Some("ShallowTasks.sleep"))
    shallow.threads.filter(_.name.startsWith("shallow-fj-")).map(_.waiting).sorted(using
      Ordering.by[ThreadWait, String](_.kind.toString)) shouldBe Seq(ThreadWait(WaitKind.Idle), sleeping, sleeping)
    named("shallow-timer") shouldBe Seq(sleeping)
    named("idle-timer").map(_.kind) shouldBe Seq(WaitKind.Idle)
  }

  it should "read the idle workers of a fork-join pool's own copy (Scala 2.11's, under Spray) as idle" in {
    // Spray's dispatcher runs Scala 2.11's scala.concurrent.forkjoin.ForkJoinPool: its idle workers park from the
    // pool's own scan, outside the JDK; a resource read from them would name a cap that is no wait at all.
    val spray = dump("threaddump-spray-hello-c100-jdk25.txt")
    val parked = spray.threads.filter(_.frames.headOption.exists(_.contains("Unsafe.park")))
      .filter(_.frames.exists(_.contains("scala.concurrent.forkjoin.ForkJoinPool.scan")))
    parked.size should be >= 4
    parked.map(_.waiting.kind).distinct shouldBe Seq(WaitKind.Idle)
    WaitGraph.of(spray).map(_.site) should not contain "scala.concurrent.forkjoin.ForkJoinPool.scan"
  }

  it should "read an executor's idle worker as idle in every recorded dump" in {
    val tomcat = dump("threaddump-tomcat-exec20-after-jdk25.txt")
    val idleTpe = tomcat.threads.filter(_.frames.exists(_.contains("ThreadPoolExecutor.getTask")))
    idleTpe should not be empty
    idleTpe.map(_.waiting.kind).distinct shouldBe Seq(WaitKind.Idle)
  }

  it should "not read a thread queued on a connection pool's hand-off queue as idle: the queue is deep in a request" in {
    // A HikariCP borrow parks in SynchronousQueue.poll under the application's request, not under an executor's loop.
    val borrow = DumpedThread("http-nio-8080-exec-7", "TIMED_WAITING", Seq(
      "jdk.internal.misc.Unsafe.park(java.base@25/Native Method)",
      "java.util.concurrent.locks.LockSupport.parkNanos(java.base@25/LockSupport.java:271)",
      "java.util.concurrent.LinkedTransferQueue.awaitMatch(java.base@25/LinkedTransferQueue.java:669)",
      "java.util.concurrent.SynchronousQueue.poll(java.base@25/SynchronousQueue.java:219)",
      "com.zaxxer.hikari.util.ConcurrentBag.borrow(ConcurrentBag.java:159)",
      "com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:163)",
      "com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:100)",
      "com.acme.Orders.find(Orders.java:42)",
      "com.acme.OrdersController.get(OrdersController.java:17)",
      "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:140)",
      "org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)",
      "java.lang.Thread.run(java.base@25/Thread.java:1474)"),
      Some("java.util.concurrent.SynchronousQueue$Transferer"), Nil, None,
      waitingOnIdentity = Some("0x00000006a1b2c3d4"))
    borrow.waiting shouldBe ThreadWait(WaitKind.Parked, Some("java.util.concurrent.SynchronousQueue$Transferer"),
      Some("0x00000006a1b2c3d4"), Some("com.zaxxer.hikari.util.ConcurrentBag.borrow"))
  }

  it should "read a sleeping virtual thread as sleeping, not as a thread loop's shallow wait" in {
    val json = JsonThreadDump.parse(Fixtures.text("threaddump-virtual200-c20-1-jdk25.json")).toOption.get
    val sleepers = json.threads.filter(t => t.virtual && t.frames.exists(_.contains("Thread.sleep")))
    sleepers should not be empty
    sleepers.map(_.waiting.kind).distinct shouldBe Seq(WaitKind.Sleeping)
  }

  it should "read a thread in the JDK HTTP client's blocking send as in a remote call, not idle (bulkhead's blocking SOAP client)" in {
    val workQueue = dump("threaddump-blocking-soap-jdk25.txt").threads.filter(_.name.startsWith("bulkhead.soap.work-queue"))
    workQueue should have size 6
    workQueue.map(_.waiting).distinct shouldBe Seq(ThreadWait(WaitKind.Socket,
      site = Some("bulkhead.service.soap.BlockingSoapClient.send")))
  }

