package bulkhead.lab.sample

/**
 * Which pool a thread belongs to, for any JVM: its name without the per-thread counter and the decorations that
 * differ from thread to thread or run to run (identity hashes, connector descriptions), so that one pool is one short
 * label. Pools named after their configuration (Pekko and Akka dispatchers, bulkhead's pools) keep that path:
 * `bulkhead-pekko.actor.default-dispatcher-5` -> `bulkhead-pekko.actor.default-dispatcher`,
 * `nioEventLoopGroup-2-1` -> `nioEventLoopGroup-2` (the group number tells a Netty server's boss and worker groups
 * apart), `http-nio-8080-exec-7` -> `http-nio-8080-exec`, `ForkJoinPool-1-worker-3` -> `ForkJoinPool-1-worker`.
 *
 * Jetty lends threads of its QueuedThreadPool (`qtp<identity hash>-<n>`) to other roles: the acceptor renames its
 * thread (`qtp...-24-acceptor-0@6a1ccc70-ServerConnector@...{HTTP/1.1, (http/1.1)}{0.0.0.0:8080}`), while Jetty 12's
 * selector keeps the plain name and moves from thread to thread, so only the stack tells it (a thread inside
 * `ManagedSelector.select`). Those threads are labelled `qtp-acceptor` and `qtp-selector`, apart from the workers
 * (`qtp`), and [[family]] gives the pool they are all drawn from, whose size is what `--max-threads` sets.
 */
object PoolNames:
  /** Carrier threads of the virtual-thread scheduler, once a dump shows them carrying (see [[ThreadDump.byPool]]). */
  val VirtualCarriers = "virtual-carriers"
  /** Virtual threads without a name, grouped by the container (executor) that started them. */
  val UnnamedVirtual = "virtual"
  /**
   * Pekko names the threads of a virtual-thread dispatcher `<dispatcher>-virtual-thread-<n>`: labelled by the dispatcher,
   * as a platform pool is, so that they are the pool its gauges name.
   */
  private val PekkoVirtualSuffix = "-virtual-thread"
  /** Platform threads without a name (rare: `new Thread(r, "")`). */
  val Unnamed = "unnamed"

  private val MaxLabel = 60
  private val JettyQtp = """^qtp\d+(-.*)?$""".r
  /** Jetty renames a pool thread it lends to the acceptor (and, before Jetty 10, to a selector). */
  private val JettyRole = """^(.+?)-\d+-(acceptor|selector)-.*$""".r
  /** Identity hashes: `@6a1ccc70`, and decimal ones of 7 digits or more (`Scheduler-1685232414-1`). */
  private val HexIdentity = """@[0-9a-fA-F]{4,8}\b""".r
  private val DecimalIdentity = """-?(?<![0-9])[0-9]{7,}(?![0-9])""".r
  /** A connector's description, `{HTTP/1.1, (http/1.1)}{0.0.0.0:8080}`, and RMI's `(3)-127.0.0.1`. */
  private val Braces = """\{[^}]*\}""".r
  private val Connection = """\(\d+\)(-[0-9.:]+)?""".r
  private val Counter = """^(.*?)[-#_ ]?\d+$""".r
  /** Frames of Jetty's selector waiting for or handling I/O readiness, on whichever pool thread produces. */
  private val SelectorFrames = Seq("org.eclipse.jetty.io.ManagedSelector$SelectorProducer.select",
    "org.eclipse.jetty.io.ManagedSelector.select")

  /** The pool label of a thread name. */
  def label(name: String): String =
    if name.isEmpty then Unnamed
    else
      val base = name match
        case JettyQtp(_) => "qtp" + name.dropWhile(_ != '-')
        case other => other
      base match
        case JettyRole(pool, role) => s"${clean(pool)}-$role"
        case other => clean(other)

  /** The pool label of a dumped thread: its name's, unless its stack shows a role its name does not. */
  def of(thread: DumpedThread): String =
    val byName = label(thread.name)
    if thread.virtual && thread.name.isEmpty then
      thread.container.map(c => s"$UnnamedVirtual:${simpleName(c)}").getOrElse(UnnamedVirtual)
    else if thread.virtual && byName.endsWith(PekkoVirtualSuffix) then byName.stripSuffix(PekkoVirtualSuffix)
    else if !byName.endsWith("-selector") && thread.frames.take(12).exists(f => SelectorFrames.exists(f.contains)) then
      s"${family(byName)}-selector"
    else byName

  /** The pool a role's threads are drawn from (`qtp-acceptor` -> `qtp`); any other label is its own. */
  def family(label: String): String =
    Seq("-acceptor", "-selector").collectFirst { case role if label.endsWith(role) => label.dropRight(role.length) }
      .getOrElse(label)

  private def clean(name: String): String =
    val undecorated = Connection.replaceAllIn(Braces.replaceAllIn(HexIdentity.replaceAllIn(name, ""), ""), "")
    val withoutHashes = DecimalIdentity.replaceAllIn(undecorated, "").trim.stripSuffix("-")
    val label = withoutHashes match
      case Counter(prefix) if prefix.nonEmpty => prefix.stripSuffix("-").trim
      case other => other
    if label.isEmpty then name
    else if label.length <= MaxLabel then label
    else label.take(MaxLabel - 3) + "..."

  /** `java.util.concurrent.ThreadPerTaskExecutor@1b3f482b` -> `ThreadPerTaskExecutor`; `<root>` stays. */
  private def simpleName(container: String): String =
    container.takeWhile(c => c != '@' && c != '/').split('.').last
