package bulkhead.lab.sample

/** Where a JVM's JMX agent listens (`-Dcom.sun.management.jmxremote.port`): `HOST:PORT`, `[::1]:PORT` for IPv6. */
final case class JmxAddress(host: String, port: Int):
  /** The agent's RMI connector, as `jconsole HOST:PORT` reaches it. */
  def serviceUrl: String = s"service:jmx:rmi:///jndi/rmi://${hostPart}:$port/jmxrmi"
  def text: String = s"$hostPart:$port"
  private def hostPart = if host.contains(':') then s"[$host]" else host
  override def toString: String = text

object JmxAddress:
  private val Bracketed = """^\[([0-9a-fA-F:.]+)\]:(\d+)$""".r
  private val Plain = """^([A-Za-z0-9.-]+):(\d+)$""".r

  def parse(text: String): Either[String, JmxAddress] =
    val parsed = text.trim match
      case Bracketed(host, port) => port.toIntOption.map(JmxAddress(host, _))
      case Plain(host, port) => port.toIntOption.map(JmxAddress(host, _))
      case _ => None
    parsed.filter(a => a.port >= 1 && a.port <= 65535)
      .toRight(s"'$text' is not HOST:PORT (e.g. 127.0.0.1:9010, the JVM's -Dcom.sun.management.jmxremote.port)")
