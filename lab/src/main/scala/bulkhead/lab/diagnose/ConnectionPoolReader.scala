package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}

/**
 * A pool of connections (JDBC, an HTTP client's): threads queue where they borrow one, and its holders mostly wait
 * in a socket read on it. Found by that shape, or by the service's meter of it counting connections, not by the pool's
 * class: a known library only adds the name of its setting to the fix.
 */
object ConnectionPoolReader extends WaitReader:
  val resource: Resource = Resource.ConnectionPool
  val unit = "connections"
  def claims(w: WaitResource): Boolean = !lockLike(w) && !semaphore(w) && w.mostlyHolders.contains("socket")
  override def claims(w: WaitResource, meter: Option[MeteredPool]): Boolean =
    claims(w) || !lockLike(w) && !semaphore(w) && connections(meter)

  /** The setting of well-known pools, by the frame where threads borrow. */
  private def setting(site: String): String =
    if site.contains("hikari") then " (HikariCP: maximumPoolSize)"
    else if site.contains("org.apache.hc.") || site.contains("org.apache.http.") then
      " (Apache HttpClient: PoolingHttpClientConnectionManager setMaxPerRoute and setMaxTotal)"
    else if site.contains("dbcp") || site.contains("commons.pool") then " (Commons Pool/DBCP: maxTotal)"
    else if site.contains("c3p0") then " (c3p0: maxPoolSize)"
    else ""

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    val peers = WaitResources.outbound(run).toSeq.sortBy(-_._2).take(2).map(_._1)
    Some(Fix(Nil, s"the connection pool borrowed at ${m.subject} of >= $n connections${setting(m.subject)} " +
      s"(${ResourceReader.because(m, run)}); the dependency behind it" +
      (if peers.isEmpty then "" else s" (${peers.mkString(", ")})") + s" must serve $n calls at once",
      FixKind.ConnectionPoolSize))
