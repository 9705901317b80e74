package bulkhead.lab.sample

/**
 * Which threads are event loops: threads that, when idle, wait in a selector, and when busy should only run
 * non-blocking code. Found from the dump itself: the first frames outside the JDK below a selector's wait are the
 * loop's own (`io.netty.channel.nio.NioEventLoop.run`, `org.xnio.nio.WorkerThread.run`); a busy thread that runs one
 * of them runs on an event loop. A loop saturated by blocking code may never be seen idle, so the loops of a few
 * well-known runtimes are known beforehand; they only add to what the dumps show.
 */
object EventLoops:
  /** Frames of a selector's wait (not an accept: an acceptor thread is no event loop). */
  val SelectorFrames: Seq[String] = Seq("sun.nio.ch.EPoll.wait", "EPollSelectorImpl.doSelect", "KQueue.poll",
    "SelectorImpl.select", "PollSelectorImpl.doSelect", "io.netty.channel.epoll.Native.epollWait")

  /** Loop frames of runtimes whose loops are commonly blocked by mistake (Netty, and Vert.x on it; XNIO: Undertow). */
  val Known: Set[String] = Set("io.netty.channel.nio.NioEventLoop.run", "io.netty.channel.epoll.EpollEventLoop.run",
    "io.netty.channel.kqueue.KQueueEventLoop.run", "io.netty.channel.SingleThreadIoEventLoop.run",
    "org.xnio.nio.WorkerThread.run")

  /** The loop's own frames below a selector wait: this many frames outside the JDK. */
  private val LoopDepth = 3

  /** Loop frames seen in a dump: those of its threads waiting in a selector. */
  def frames(threads: Seq[DumpedThread]): Set[String] =
    threads.filter(t => t.frames.take(8).exists(f => SelectorFrames.exists(f.contains)))
      .flatMap(t => t.frames.map(ThreadWait.method).dropWhile(ThreadWait.jdk).filterNot(ThreadWait.jdk).take(LoopDepth))
      .toSet

  /** True when `t` runs an event loop, by `loops` (frames seen so far) and the known ones. */
  def runsLoop(t: DumpedThread, loops: Set[String]): Boolean =
    t.frames.exists { f =>
      val m = ThreadWait.method(f)
      loops(m) || Known(m)
    }

  /**
   * The packages (their first three names: `io.vertx.core`, `io.netty.channel`) of the code `threads` run outside the JDK: what a
   * loop's fix names the framework's way from.
   */
  def packages(threads: Seq[DumpedThread]): Seq[String] =
    threads.flatMap(_.frames.map(ThreadWait.method).filterNot(ThreadWait.jdk).map(_.split('.').take(3).mkString(".")))
      .distinct.sorted

  /** The framework's way to move blocking work off its loops, by the packages (or frames) a blocked loop runs. */
  def offload(frames: Seq[String]): String =
    def runs(pkg: String) = frames.exists(f => f == pkg || f.startsWith(pkg + "."))
    if runs("io.vertx") then
      "Vert.x: vertx.executeBlocking(...) or a worker verticle (DeploymentOptions.setThreadingModel(WORKER))"
    else if runs("io.undertow") then
      "Undertow: exchange.dispatch(...) or a BlockingHandler, which run the handler on the worker pool"
    else if runs("io.netty") then
      "Netty: add the handler with its own EventExecutorGroup (pipeline.addLast(group, handler))"
    else if runs("org.apache.pekko") || runs("akka") then
      "Pekko/Akka: run the blocking Future on a dedicated dispatcher (a thread-pool-executor of fixed size)"
    else "a bounded worker pool (an ExecutorService of fixed size) that the loop hands the call to"
