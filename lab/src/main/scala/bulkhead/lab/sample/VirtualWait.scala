package bulkhead.lab.sample

import jdk.jfr.consumer.{RecordedEvent, RecordedObject}

import scala.jdk.CollectionConverters.*

/**
 * One wait of one virtual thread as a JFR event recorded it: from `startNanos` to `endNanos` (epoch nanoseconds), the
 * thread, its frames (top first, as a dump prints them) and what it waited on. JFR commits a wait's event when the
 * wait ends, so a wait is seen once it is over: a sample is completed from the waits that cover its instant.
 */
final case class VirtualWait(kind: WaitKind, threadId: Long, name: String, startNanos: Long, endNanos: Long,
    frames: Seq[String], blocker: Option[String] = None, identity: Option[String] = None):
  def covers(atNanos: Long): Boolean = startNanos <= atNanos && atNanos < endNanos

  /** The thread as a dump would show it in this wait, so that it is read as a dumped one is ([[PoolSample.of]]). */
  def thread: DumpedThread =
    def withTop(frame: String) = if frames.headOption.exists(_.startsWith(frame.takeWhile(_ != '('))) then frames
      else frame +: frames
    kind match
      case WaitKind.Sleeping =>
        DumpedThread(name, "TIMED_WAITING", withTop("java.lang.Thread.sleep(JFR)"), None, Nil, None, virtual = true)
      case WaitKind.Socket =>
        DumpedThread(name, "RUNNABLE", withTop("sun.nio.ch.NioSocketImpl.read(JFR)"), None, Nil, None, virtual = true)
      case WaitKind.Monitor =>
        DumpedThread(name, "BLOCKED", frames, None, Nil,
          Some(s"${identity.getOrElse("0x0")} (${blocker.getOrElse("java.lang.Object")})"), virtual = true)
      case _ =>
        DumpedThread(name, "WAITING", withTop("jdk.internal.misc.Unsafe.park(JFR)"), blocker, Nil, None,
          virtual = true, waitingOnIdentity = identity)

object VirtualWait:
  /** The events the safe source streams, each with the kind of wait it records. */
  val Events: Map[String, WaitKind] = Map(
    "jdk.ThreadSleep" -> WaitKind.Sleeping,
    "jdk.ThreadPark" -> WaitKind.Parked,
    "jdk.JavaMonitorEnter" -> WaitKind.Monitor,
    "jdk.VirtualThreadPinned" -> WaitKind.Parked,
    "jdk.SocketRead" -> WaitKind.Socket)
  /** A virtual thread's start and end, which count the virtual threads alive at an instant. */
  val Start = "jdk.VirtualThreadStart"
  val End = "jdk.VirtualThreadEnd"
  private val VirtualRun = "java.lang.VirtualThread.run("
  /** Waits shorter than this are not recorded: the events' cost grows with their number. */
  val ThresholdMs = 10

  /** The wait an event records, when it is a virtual thread's wait of the streamed kinds. */
  def of(e: RecordedEvent): Option[VirtualWait] =
    val thread = Option(e.getThread)
    val stack = frames(e)
    // An event whose thread did not resolve is a virtual thread's when its stack starts where they all start.
    val virtual = thread.fold(stack.exists(_.startsWith(VirtualRun)))(isVirtual)
    for kind <- Events.get(e.getEventType.getName) if virtual yield
      val start = nanos(e.getStartTime)
      val blocker = Seq("parkedClass", "monitorClass").find(e.hasField).flatMap(f =>
        Option(e.getClass(f)).map(_.getName))
      val identity = e.getEventType.getField("address") match
        case f if f != null && f.getTypeName == "long" => Some(s"0x${java.lang.Long.toHexString(e.getLong("address"))}")
        case _ => None
      VirtualWait(kind, thread.fold(-1L)(_.getJavaThreadId), thread.flatMap(t => Option(t.getJavaName)).getOrElse(""),
        start, start + e.getDuration.toNanos, stack, blocker, identity)

  /** A virtual thread's start (`Some(true)`) or end (`Some(false)`), with its id. */
  def lifetime(e: RecordedEvent): Option[(Long, Boolean, Long)] =
    val name = e.getEventType.getName
    Option.when(name == Start || name == End)(
      (e.getLong("javaThreadId"), name == Start, nanos(e.getStartTime)))

  /** Frames as a dump prints them (`class.method(line 12)`), top first. */
  def frames(e: RecordedEvent): Seq[String] =
    Option(e.getStackTrace).fold(Seq.empty[String])(_.getFrames.asScala.toSeq.map { f =>
      val m = f.getMethod
      val at = if f.getLineNumber >= 0 then s"line ${f.getLineNumber}" else "JFR"
      s"${m.getType.getName}.${m.getName}($at)"
    })

  /** Virtual (JDK 21+ records it; read as a field so that this compiles for JDK 17). */
  private def isVirtual(thread: RecordedObject): Boolean = thread.hasField("virtual") && thread.getBoolean("virtual")

  private def nanos(i: java.time.Instant): Long = i.getEpochSecond * 1_000_000_000L + i.getNano
