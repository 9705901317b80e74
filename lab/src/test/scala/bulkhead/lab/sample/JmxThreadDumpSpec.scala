package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.lang.management.ManagementFactory
import java.util.concurrent.locks.ReentrantLock

/**
 * `ThreadMXBean` dumps read as jstack dumps are, on threads of this JVM that stand still: one sleeping inside a
 * monitor with another BLOCKED entering it, one sleeping holding a ReentrantLock with another parked on it.
 */
class JmxThreadDumpSpec extends AnyFlatSpec with Matchers:
  private val ledger = Object()
  private val vault = ReentrantLock()

  private def sleeper(name: String)(body: => Unit): Thread =
    val t = Thread(() => try body catch case _: InterruptedException => (), name)
    t.setDaemon(true)
    t.start()
    t

  private def untilState(t: Thread, state: Thread.State): Unit =
    val deadline = System.nanoTime() + 10_000_000_000L
    while t.getState != state && System.nanoTime() < deadline do Thread.sleep(5)
    t.getState shouldBe state

  /** The four threads standing still, a dump of this JVM, and the threads stopped after. */
  private def withStillThreads(test: ThreadDump => Unit): Unit =
    val holder = sleeper("ledger-holder")(ledger.synchronized(Thread.sleep(60_000)))
    untilState(holder, Thread.State.TIMED_WAITING)
    val blocked = sleeper("ledger-waiter")(ledger.synchronized(()))
    val owner = sleeper("vault-owner") { vault.lock(); try Thread.sleep(60_000) finally vault.unlock() }
    untilState(owner, Thread.State.TIMED_WAITING)
    val parked = sleeper("vault-waiter") { vault.lock(); vault.unlock() }
    try
      untilState(blocked, Thread.State.BLOCKED)
      untilState(parked, Thread.State.WAITING)
      val mx = ManagementFactory.getThreadMXBean
      test(JmxThreadDump.of(mx.dumpAllThreads(true, true).toSeq))
    finally
      // Ended before the next test dumps this JVM: a waiter still leaving its monitor would count there.
      Seq(holder, owner, blocked, parked).foreach(_.interrupt())
      Seq(holder, owner, blocked, parked).foreach(_.join(10_000))

  private def named(dump: ThreadDump, name: String) = dump.threads.find(_.name == name).getOrElse(fail(s"no $name"))

  "JmxThreadDump" should "record a BLOCKED thread's monitor as jstack's `waiting to lock`, and its owner's as locked" in
    withStillThreads { dump =>
      val waiter = named(dump, "ledger-waiter")
      val holder = named(dump, "ledger-holder")
      waiter.state shouldBe "BLOCKED"
      waiter.waitingOn shouldBe None
      waiter.blockedOn.get should fullyMatch regex """0x[0-9a-f]+ \(java\.lang\.Object\)"""
      holder.lockedMonitors shouldBe waiter.blockedOn.toSeq
      waiter.waiting.kind shouldBe WaitKind.Monitor
      holder.waiting.kind shouldBe WaitKind.Sleeping
    }

  it should "record a parked thread's synchronizer with its identity, and its owner's owned synchronizer" in
    withStillThreads { dump =>
      val waiter = named(dump, "vault-waiter")
      val owner = named(dump, "vault-owner")
      waiter.state shouldBe "WAITING"
      waiter.waitingOn shouldBe Some("java.util.concurrent.locks.ReentrantLock$NonfairSync")
      owner.ownedSynchronizers shouldBe Seq(s"${waiter.waitingOnIdentity.get} (java.util.concurrent.locks.ReentrantLock$$NonfairSync)")
      owner.holds should contain(waiter.waitingOnIdentity.get)
      waiter.waiting.kind shouldBe WaitKind.Parked
    }

  it should "print frames as jstack does: class.method(module@version/File.java:line)" in withStillThreads { dump =>
    val holder = named(dump, "ledger-holder")
    val version = Runtime.version().toString.takeWhile(c => c != '+' && c != '-')
    // sleep on JDK 17, sleepNanos0 on 25, as jstack prints them.
    holder.frames.head should fullyMatch regex s"""java\\.lang\\.Thread\\.sleep\\w*\\(java\\.base@$version/Native Method\\)"""
    holder.frames.exists(_.matches("""java\.lang\.Thread\.run\(java\.base@[^/]+/Thread\.java:\d+\)""")) shouldBe true
    holder.frames.exists(_.matches("""bulkhead\.lab\.sample\.JmxThreadDumpSpec\..+\(JmxThreadDumpSpec\.scala:\d+\)""")) shouldBe true
  }

  it should "give the wait graph each lock's owner as its holder, as it finds them in a jstack dump" in
    withStillThreads { dump =>
      // This spec's own locks, by their site: other specs of the same JVM may hold threads on other monitors.
      val resources = WaitGraph.of(dump).filter(_.site.contains("JmxThreadDumpSpec")).map(r => r.blocker -> r).toMap
      val monitor = resources("java.lang.Object")
      (monitor.kind, monitor.waiters, monitor.holderPools, monitor.holderWaits) shouldBe
        ("monitor", 1, Map("ledger-holder" -> 1), Map("sleep" -> 1))
      val lock = resources("java.util.concurrent.locks.ReentrantLock$NonfairSync")
      (lock.kind, lock.waiters, lock.holderPools) shouldBe ("parked", 1, Map("vault-owner" -> 1))
    }

  it should "skip threads that ended while dumped and the thread taking the dump, and name the deadlocked ones" in {
    val mx = ManagementFactory.getThreadMXBean
    val infos = mx.dumpAllThreads(false, false).toSeq
    val me = infos.find(_.getThreadName == Thread.currentThread().getName).get
    me.getStackTrace.map(f => s"${f.getClassName}.${f.getMethodName}") should contain(JmxThreadDump.DumpingFrame)
    val others = infos.filterNot(_ == me)
    val dump = JmxThreadDump.of(others :+ null, Set(others.head.getThreadId))
    dump.threads.size shouldBe others.size
    dump.deadlocks shouldBe Seq(others.head.getThreadName)
    JmxThreadDump.of(infos).threads.map(_.name) should not contain me.getThreadName
  }
