package bulkhead.lab.sample

import java.lang.management.{LockInfo, ThreadInfo}

/**
 * A thread dump from `ThreadMXBean.dumpAllThreads(true, true)` (the JVM's own, or one reached over JMX) as the lab
 * reads a `jcmd <pid> Thread.print -l` dump: the same [[DumpedThread]]s, frames printed as jstack prints them
 * (`java.lang.Thread.sleep0(java.base@25.0.3/Native Method)`), locks as `<identity> (<class>)`. A lock's identity is
 * its identity hash in hex (a jstack dump shows an address): the same object has the same one throughout a dump,
 * which is all the wait graph needs. Platform threads only: the platform MXBean does not list virtual threads.
 */
object JmxThreadDump:
  /** The frame of the thread that takes the dump: over JMX, an RMI connection thread serving the lab's own call. */
  val DumpingFrame = "sun.management.ThreadImpl.dumpThreads0"

  /**
   * The dump of `infos`; `deadlocked`: thread ids. Null entries (threads that ended while dumped) are skipped, and so
   * is the thread taking the dump: the sampler's own call, not the service's work (a jcmd dump's `Attach Listener`
   * shows no frames either).
   */
  def of(infos: Seq[ThreadInfo], deadlocked: Set[Long] = Set.empty): ThreadDump =
    val live = infos.filter(t => t != null && !t.getStackTrace.exists(f => s"${f.getClassName}.${f.getMethodName}" ==
      DumpingFrame))
    ThreadDump(live.map(thread), live.filter(t => deadlocked(t.getThreadId)).map(_.getThreadName))

  def thread(info: ThreadInfo): DumpedThread =
    val frames = info.getStackTrace.toSeq.map(frame)
    val lock = Option(info.getLockInfo)
    val blocked = info.getThreadState == Thread.State.BLOCKED
    DumpedThread(info.getThreadName, info.getThreadState.name, frames,
      waitingOn = lock.filterNot(_ => blocked).map(_.getClassName),
      lockedMonitors = info.getLockedMonitors.toSeq.sortBy(_.getLockedStackDepth).map(text),
      blockedOn = lock.filter(_ => blocked).map(text),
      carrying = frames.exists(_.startsWith("java.lang.VirtualThread.runContinuation")),
      waitingOnIdentity = lock.filterNot(_ => blocked).map(identity),
      ownedSynchronizers = info.getLockedSynchronizers.toSeq.map(text))

  /** `0x1f32c88 (java.lang.Object)`: how [[ThreadDump]] records a lock, [[ThreadWait.identityOf]] and `classOf` read. */
  def text(lock: LockInfo): String = s"${identity(lock)} (${lock.getClassName})"

  def identity(lock: LockInfo): String = s"0x${Integer.toHexString(lock.getIdentityHashCode)}"

  /** A frame as jstack prints it: `class.method(module@version/File.java:line)`. */
  def frame(e: StackTraceElement): String =
    val module = Option(e.getModuleName).map(m => Option(e.getModuleVersion).fold(m)(v => s"$m@$v") + "/").getOrElse("")
    val where =
      if e.isNativeMethod then "Native Method"
      else Option(e.getFileName).fold("Unknown Source")(f => if e.getLineNumber >= 0 then s"$f:${e.getLineNumber}" else f)
    s"${e.getClassName}.${e.getMethodName}($module$where)"
