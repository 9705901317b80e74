package bulkhead.lab.diagnose

import bulkhead.lab.sample.{ThreadWait, WaitGraph}

/**
 * Which library a pool found from waits belongs to, read from the frames the waiters parked in: the pool's own code
 * (the frame that lends, nearest the wait), the library the caller took it through, and the caller. Found without a
 * list of libraries: a library is named by its package. A known library only adds the name of the setting that sizes
 * its pool ([[PoolLibrary.Settings]]); any other is "an object pool at" its frame.
 */
final case class PoolLibrary(lentAt: String, library: String, through: Option[(String, String)],
    caller: Option[String]):
  /** `org.apache.commons.pool2 (GenericObjectPool.borrowObject), taken through redis.clients.jedis (...)`. */
  def describe: String =
    s"$library (${PoolLibrary.short(lentAt)})" + through.fold("")((lib, at) => s", taken through $lib " +
      s"(${PoolLibrary.short(at)})") + caller.fold("")(c => s" in $c")

  /** The setting that sizes it, where its library's configuration names one (the caller's library first). */
  def setting: Option[String] =
    (through.map(_._1).toSeq :+ library).flatMap(PoolLibrary.settingOf).headOption

object PoolLibrary:
  /** Names of methods that lend an object of a bounded set (a pool's borrow, a lease, a permit's acquire). */
  private val Lending = Seq("borrow", "acquire", "lease", "checkout", "checkOut", "obtain", "take", "poll", "get",
    "reserve", "claim", "allocate", "fetch")

  /** Package names that say where in a library a class sits, not which library it is. */
  private val Inner = Set("impl", "internal", "util", "utils", "concurrent", "spi", "support", "classic", "io")

  private val HttpClient5 = "Apache HttpClient 5: PoolingHttpClientConnectionManager (PoolingAsyncClientConnectionManager " +
    "for the async client) setMaxConnPerRoute and setMaxConnTotal"

  /**
   * The setting that sizes the pool of well-known libraries, by the library's package: detail only (a pool of any
   * library is found and sized from its waits without it).
   */
  val Settings: Seq[(String, String)] = Seq(
    "redis.clients.jedis" -> "JedisPoolConfig.setMaxTotal (Commons Pool's maxTotal, 8 by default)",
    "org.apache.commons.pool2" -> "GenericObjectPoolConfig.setMaxTotal (maxTotal, 8 by default)",
    "org.apache.commons.dbcp2" -> "maxTotal",
    "com.zaxxer.hikari" -> "HikariCP: maximumPoolSize",
    "com.mchange.v2.c3p0" -> "c3p0: maxPoolSize",
    "org.apache.tomcat.jdbc.pool" -> "maxActive",
    "org.apache.hc.client5" -> HttpClient5,
    "org.apache.hc.core5" -> HttpClient5,
    "org.apache.http" -> "Apache HttpClient 4: PoolingHttpClientConnectionManager setDefaultMaxPerRoute and setMaxTotal",
    "io.lettuce.core" -> "Lettuce: BoundedPoolConfig maxTotal",
    "okhttp3" -> "OkHttp: Dispatcher.setMaxRequestsPerHost and setMaxRequests",
    "org.eclipse.jetty.client" -> "Jetty HttpClient: setMaxConnectionsPerDestination",
    "io.netty.channel.pool" -> "Netty: FixedChannelPool maxConnections",
    "io.vertx.core" -> "Vert.x: PoolOptions.setHttp1MaxSize",
    "org.apache.pekko.http" -> "pekko.http.host-connection-pool.max-connections (and max-open-requests)",
    "akka.http" -> "akka.http.host-connection-pool.max-connections (and max-open-requests)")

  def settingOf(library: String): Option[String] =
    Settings.collectFirst { case (pkg, s) if library == pkg || library.startsWith(pkg + ".") => s }

  /** A frame's library: its package without the names that only place a class inside it. */
  def libraryOf(method: String): String =
    val names = ThreadWait.packageOf(method).split('.').toSeq
    val kept = names.reverse.dropWhile(Inner).reverse
    (if kept.isEmpty then names else kept).mkString(".")

  /** `org.apache.commons.pool2.impl.GenericObjectPool.borrowObject` -> `GenericObjectPool.borrowObject`. */
  def short(method: String): String =
    val cls = ThreadWait.classOf(method)
    s"${cls.drop(cls.lastIndexOf('.') + 1)}.${method.drop(method.lastIndexOf('.') + 1)}"

  private def lends(method: String): Boolean =
    val name = method.drop(method.lastIndexOf('.') + 1)
    Lending.exists(name.startsWith)

  /**
   * The frame of the resource's own code that lends, if the waiters parked in such code: the outermost lending frame
   * of the library that lends nearest the wait (`GenericObjectPool.borrowObject` around its deque's `takeFirst`).
   */
  def lentAt(w: WaitResource): Option[String] = w.through.find(lends).map { first =>
    w.through.dropWhile(_ != first).takeWhile(m => WaitGraph.sameLibrary(m, first)).filter(lends).last
  }

  /** The library of a pool found from waits, when the waiters parked in code that lends. */
  def of(w: WaitResource): Option[PoolLibrary] = lentAt(w).map { at =>
    val library = libraryOf(at)
    val after = w.through.dropWhile(_ != at).dropWhile(m => WaitGraph.sameLibrary(m, at))
    PoolLibrary(at, library, after.headOption.map(m => libraryOf(m) -> after.reverse.find(lends).getOrElse(m)), w.caller)
  }
