package bulkhead.lab.sample

/** What a thread does at one instant, read from its state, its frames and its lock lines. */
enum WaitKind(val key: String):
  /** Waiting for work: an executor's queue, accept, a selector. It holds nothing. */
  case Idle extends WaitKind("idle")
  /** On a core (or ready for one): computing, or in a non-blocking system call such as a socket write. */
  case Running extends WaitKind("cpu")
  /** Sleeping: the work itself takes time here, holding whatever the thread holds. */
  case Sleeping extends WaitKind("sleep")
  /** In a blocking socket read or connect: waiting for a remote peer. */
  case Socket extends WaitKind("socket")
  /** BLOCKED entering a monitor (`synchronized`) that another thread holds. */
  case Monitor extends WaitKind("monitor")
  /** Parked on a `java.util.concurrent` synchronizer, or waiting on a monitor's condition (`Object.wait`). */
  case Parked extends WaitKind("parked")

/**
 * What one thread waits on. `blocker` is the class of the object it waits on (a monitor's, a synchronizer's such as
 * `java.util.concurrent.Semaphore$NonfairSync`), `identity` that object's identity where the dump gives it, and `site`
 * the first frame outside the JDK below the wait: where the code asked for the resource
 * (`com.zaxxer.hikari.util.ConcurrentBag.borrow`, or the application's own method around a `synchronized` block).
 * Waits with the same kind, blocker and site are one resource.
 */
final case class ThreadWait(kind: WaitKind, blocker: Option[String] = None, identity: Option[String] = None,
    site: Option[String] = None):
  /** Holding nothing further inside the JVM: computing, sleeping or waiting for a remote peer. */
  def terminal: Boolean = kind == WaitKind.Running || kind == WaitKind.Sleeping || kind == WaitKind.Socket
  /** Queued on a resource inside the JVM (a monitor, a synchronizer, a condition). */
  def queued: Boolean = kind == WaitKind.Monitor || kind == WaitKind.Parked

object ThreadWait:
  /** Frames of a selector or an accept: a thread there waits for the network to bring work. */
  val NetworkIdleFrames: Seq[String] = EventLoops.SelectorFrames ++ Seq("ServerSocketChannelImpl.accept",
    "sun.nio.ch.Net.accept", "NioSocketImpl.accept", "java.net.ServerSocket.accept", "PlainSocketImpl.socketAccept")

  /** Frames of a blocking socket read or connect (platform and virtual threads, JDK 17 to 25). */
  val SocketFrames: Seq[String] = Seq("SocketDispatcher.read", "NioSocketImpl.read", "NioSocketImpl.park",
    "NioSocketImpl.timedRead", "NioSocketImpl.connect", "SocketInputStream.socketRead", "sun.nio.ch.Net.poll",
    "sun.nio.ch.Net.connect", "SocketChannelImpl.read", "SocketChannelImpl.connect",
    // The JDK HTTP client's blocking send parks for an exchange its selector thread carries out: a remote call.
    "jdk.internal.net.http.HttpClientImpl.send")

  private val SleepFrames = Seq("java.lang.Thread.sleep", "java.lang.VirtualThread.sleepNanos")

  /** Frames of the JDK's waiting machinery: the wait is named by the first frame below them. */
  private val Machinery = Seq("jdk.internal.misc.Unsafe.park", "sun.misc.Unsafe.park", "java.lang.VirtualThread.park",
    "java.lang.Object.wait", "java.util.concurrent.", "java.lang.VirtualThread.yield", "jdk.internal.vm.Continuation.")

  /**
   * A wait with this few frames of code outside the JDK below it is a thread's loop waiting for its next task
   * (`EnhancedQueueExecutor$ThreadBody.run`, an `AsyncAppender`'s worker): a task runs deeper than that.
   */
  val ShallowWait = 3

  /** `java.lang.Thread.sleep0(java.base@25/Native Method)` -> `java.lang.Thread.sleep0`. */
  def method(frame: String): String = frame.takeWhile(_ != '(')

  /** A frame of the JDK's own classes. */
  def jdk(method: String): Boolean =
    method.startsWith("java.") || method.startsWith("javax.") || method.startsWith("jdk.") ||
      method.startsWith("sun.") || method.startsWith("com.sun.")

  private def machinery(method: String) = Machinery.exists(method.startsWith)

  /** The first frame outside the JDK below the frames of a wait: where the code asked for what it waits on. */
  def siteOf(methods: Seq[String]): Option[String] = methods.dropWhile(jdk).headOption

  /** Waiting for its next task: the executor's idle wait, a selector, an accept, or a shallow wait of a thread loop. */
  def idle(t: DumpedThread): Boolean =
    val top = t.frames.take(12)
    top.exists(f => ThreadDump.IdleFrames.exists(f.contains)) || waitingInLoop(top) ||
      top.take(8).exists(f => NetworkIdleFrames.exists(f.contains)) || shallowWait(t)

  /**
   * Parked in a [[ThreadDump.LoopFrames]] loop itself, with no frame of a task between the wait and the loop: only the
   * JDK's frames and the loop's own class's above it. A copy of the fork-join pool (Scala 2.11's
   * `scala.concurrent.forkjoin.ForkJoinPool`, Akka's) parks from its own `scan` or `awaitWork`, outside the JDK.
   */
  private def waitingInLoop(top: Seq[String]): Boolean =
    val at = top.indexWhere(f => ThreadDump.LoopFrames.exists(f.contains))
    at >= 0 && {
      val loop = classOf(method(top(at)))
      top.take(at).forall(f => jdk(method(f)) || classOf(method(f)) == loop)
    }

  /** `scala.concurrent.forkjoin.ForkJoinPool.scan` -> `scala.concurrent.forkjoin.ForkJoinPool`. */
  def classOf(method: String): String = method.take(method.lastIndexOf('.').max(0))

  /** The class a frame's code is written in: `a.b.Outer$Inner$1.run`, `a.b.Outer.lambda$x$0` -> `a.b.Outer`. */
  def outerClassOf(method: String): String = classOf(method).takeWhile(_ != '$')

  /** `org.apache.hc.core5.concurrent.BasicFuture.get` -> `org.apache.hc.core5.concurrent`. */
  def packageOf(method: String): String =
    val cls = classOf(method)
    cls.take(cls.lastIndexOf('.').max(0))

  private def shallowWait(t: DumpedThread): Boolean =
    val methods = t.frames.map(method)
    val waiting = methods.headOption.exists(m => machinery(m) || m.startsWith("java.lang.Object.wait"))
    // A sleep is the work's own time (a virtual thread sleeps by parking), whatever the stack's depth.
    val sleeping = methods.take(4).exists(m => SleepFrames.exists(m.startsWith))
    // A thread loop waits from its own code (XNIO's ThreadBody.run parks, an AsyncAppender's worker takes from its
    // queue); a thread inside a JDK call that blocks (the JDK HTTP client's send) waits for that call, not for work.
    val fromOwnCode = methods.dropWhile(machinery).headOption.exists(m => !jdk(m))
    waiting && !sleeping && fromOwnCode && t.state != "BLOCKED" && {
      val below = methods.dropWhile(m => machinery(m) || jdk(m))
      below.count(m => !jdk(m)) <= ShallowWait && below.size <= ShallowWait + 3
    }

  /** What `t` waits on. */
  def of(t: DumpedThread): ThreadWait =
    val methods = t.frames.map(method)
    val top = methods.take(12)
    if idle(t) then ThreadWait(WaitKind.Idle)
    else if t.blockedOn.isDefined || t.state == "BLOCKED" then
      ThreadWait(WaitKind.Monitor, t.blockedOn.map(lockClassOf), t.blockedOn.map(identityOf),
        siteOf(methods.dropWhile(machinery)))
    else if top.exists(m => SocketFrames.exists(m.contains)) then ThreadWait(WaitKind.Socket, site = siteOf(methods))
    else if methods.take(3).exists(m => SleepFrames.exists(m.startsWith)) then
      ThreadWait(WaitKind.Sleeping, site = siteOf(methods))
    else if methods.headOption.exists(machinery) && t.state != "RUNNABLE" then
      ThreadWait(WaitKind.Parked, t.waitingOn, t.waitingOnIdentity, siteOf(methods.dropWhile(machinery)))
    else ThreadWait(WaitKind.Running, site = siteOf(methods))

  /** `0x000000070ff0b7c8 (java.lang.Object)` -> `java.lang.Object`, as [[ThreadDump]] records a lock. */
  def lockClassOf(lock: String): String =
    val open = lock.indexOf('(')
    if open < 0 then lock else lock.drop(open + 1).stripSuffix(")")

  /** `0x000000070ff0b7c8 (java.lang.Object)` -> `0x000000070ff0b7c8`. */
  def identityOf(lock: String): String = lock.takeWhile(_ != ' ')
