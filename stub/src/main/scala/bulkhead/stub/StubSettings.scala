package bulkhead.stub

import com.typesafe.config.{Config, ConfigException}

import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The stub's configuration, read once and validated (a bad value names its key). */
final case class StubSettings(host: String, port: Int, portFile: Option[String], customers: Int, latency: Latency,
    faults: FaultPlan, noAnswerHold: FiniteDuration, admin: AdminListener, allowFaultHeader: Boolean = false,
    acceptBatch: Int = 64)

object StubSettings:
  def apply(config: Config): StubSettings =
    val k = "bulkhead.stub"
    def bad(key: String, msg: String) = new ConfigException.BadValue(s"$k.$key", msg)
    val port = config.getInt(s"$k.port")
    if port < 0 || port > 65535 then throw bad("port", s"must be 0..65535, was $port")
    val customers = config.getInt(s"$k.customers")
    if customers < 1 then throw bad("customers", s"must be at least 1, was $customers")
    val latency = Latency.parse(config.getString(s"$k.latency")).fold(e => throw bad("latency", e), identity)
    val faults = FaultPlan.parse(config.getStringList(s"$k.faults").asScala.toSeq).fold(e => throw bad("faults", e),
      identity)
    val acceptBatch = config.getInt(s"$k.accept-batch")
    if acceptBatch < 1 then throw bad("accept-batch", s"must be at least 1, was $acceptBatch")
    val host = config.getString(s"$k.host")
    val adminPort = config.getInt(s"$k.admin-port")
    if adminPort < -1 || adminPort > 65535 then throw bad("admin-port", s"must be -1 (on the SOAP listener) or 0..65535, was $adminPort")
    val admin =
      if adminPort >= 0 then AdminListener.Separate(config.getString(s"$k.admin-host"), adminPort)
      else if StubSettings.isLoopback(host) then AdminListener.OnSoapListener
      else throw bad("admin-port", s"the SOAP listener binds $host, not loopback: the admin endpoint changes the " +
        "stub's behaviour, so give it its own listener with admin-port (on admin-host, 127.0.0.1 by default)")
    StubSettings(
      host = host,
      port = port,
      portFile = Option(config.getString(s"$k.port-file")).filter(_.nonEmpty),
      customers = customers,
      latency = latency,
      faults = faults,
      noAnswerHold = config.getDuration(s"$k.no-answer-hold").toMillis.millis,
      admin = admin,
      allowFaultHeader = config.getBoolean(s"$k.allow-fault-header"),
      acceptBatch = acceptBatch)

  def isLoopback(host: String): Boolean =
    try java.net.InetAddress.getAllByName(host).forall(_.isLoopbackAddress)
    catch case _: java.net.UnknownHostException => false
