package bulkhead.lab.sample

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.*

import scala.util.Try

/**
 * A dump in the JSON format of `jcmd <pid> Thread.dump_to_file -format=json FILE` (JDK 21+), read into the same
 * [[ThreadDump]] as `Thread.print`. It is the only dump that lists virtual threads: each thread container (an
 * executor, a fork-join pool, `<root>`) with its threads, their names and stacks. JDK 25 adds each thread's state,
 * park blocker, monitors and, for a mounted virtual thread, its carrier; JDK 21 gives names and stacks only, so
 * there the state is read from the top frames (sleeping, parked, waiting, else runnable). Busy or idle is always read
 * from the frames ([[DumpedThread.idle]]), as for a classic dump.
 */
object JsonThreadDump:
  /**
   * `scheduler`: the virtual-thread scheduler's identity (`java.util.concurrent.ForkJoinPool@1f32c88`, from
   * [[schedulerIdentity]]); its idle carriers park on it, which names their pool even when none carries.
   */
  def parse(json: String, scheduler: Option[String] = None): Either[String, ThreadDump] =
    Try(readFromString[Document](json)).toEither.left.map(e => s"not a JSON thread dump: ${e.getMessage}")
      .map { doc =>
        val all = doc.threadDump.threadContainers.flatMap(c => c.threads.map(c.container -> _))
        val carriers = all.flatMap(_._2.carrier).toSet
        ThreadDump(all.map((container, t) => thread(container, t, carriers, scheduler)), Nil)
      }

  /** The scheduler named by `jcmd <pid> Thread.vthread_scheduler` (JDK 24+): `ForkJoinPool@1f32c88[Running, ...]`. */
  def schedulerIdentity(output: String): Option[String] =
    """([\w.$]+@[0-9a-f]+)\[""".r.findFirstMatchIn(output).map(_.group(1))

  private def thread(container: String, t: JsonThread, carriers: Set[String], scheduler: Option[String]): DumpedThread =
    val frames = t.stack.map(classicFrame)
    val virtual = t.virtual.getOrElse(t.stack.lastOption.exists(_.contains("java.lang.VirtualThread.run(")))
    val parkedOn = t.parkBlocker.map(_.`object`)
    DumpedThread(t.name, t.state.getOrElse(stateFromFrames(frames)), frames,
      waitingOn = parkedOn.orElse(t.waitingOn).map(className),
      lockedMonitors = t.monitorsOwned.flatMap(_.locks).filter(_ != null).map(classicLock),
      blockedOn = t.blockedOn.map(classicLock),
      virtual = virtual, container = Some(container),
      carrying = carriers(t.tid) || (parkedOn.nonEmpty && parkedOn == scheduler),
      waitingOnIdentity = parkedOn.orElse(t.waitingOn).map(identity => identity.dropWhile(_ != '@').drop(1)))

  /**
   * `java.base/java.lang.Thread.sleep(Thread.java:540)` -> `java.lang.Thread.sleep(java.base/Thread.java:540)`: the
   * class loader and module move inside the parentheses, where `Thread.print` has them, so frame matching is one.
   */
  def classicFrame(frame: String): String =
    val paren = frame.indexOf('(')
    val head = if paren < 0 then frame else frame.take(paren)
    val slash = head.lastIndexOf('/')
    if slash < 0 || paren < 0 then frame
    else s"${head.drop(slash + 1)}(${head.take(slash + 1)}${frame.drop(paren + 1)}"

  /** JDK 21's JSON has no state: sleeping and parked threads are read from their top frames. */
  private def stateFromFrames(frames: Seq[String]): String =
    val top = frames.take(4)
    if top.exists(f => f.contains("Thread.sleep") || f.contains("VirtualThread.parkNanos")) then "TIMED_WAITING"
    else if top.exists(f => f.contains(".park") || f.contains("Object.wait")) then "WAITING"
    else "RUNNABLE"

  /** `java.lang.ref.ReferenceQueue$Lock@3523980` -> `java.lang.ref.ReferenceQueue$Lock`. */
  private def className(identity: String): String = identity.takeWhile(_ != '@')

  /** `java.lang.Object@5e0ef4b5` -> `5e0ef4b5 (java.lang.Object)`, as [[ThreadDump]] records a lock. */
  private def classicLock(identity: String): String =
    s"${identity.dropWhile(_ != '@').drop(1)} (${className(identity)})"

  private final case class Document(threadDump: Body)
  private final case class Body(threadContainers: Seq[Container] = Nil)
  private final case class Container(container: String, threads: Seq[JsonThread] = Nil)
  private final case class JsonThread(tid: String, name: String = "", state: Option[String] = None,
      virtual: Option[Boolean] = None, stack: Seq[String] = Nil, parkBlocker: Option[Blocker] = None,
      blockedOn: Option[String] = None, waitingOn: Option[String] = None, monitorsOwned: Seq[Monitors] = Nil,
      carrier: Option[String] = None)
  private final case class Blocker(`object`: String)
  private final case class Monitors(locks: Seq[String] = Nil)

  private given JsonValueCodec[Document] = JsonCodecMaker.make
