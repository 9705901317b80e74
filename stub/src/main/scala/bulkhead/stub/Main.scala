package bulkhead.stub

import com.typesafe.config.{ConfigException, ConfigFactory, ConfigValueFactory}
import scopt.OParser
import sun.misc.Signal

import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.control.NonFatal

/** `./bulkhead stub`: the third-party SOAP service. */
object Main:
  private final case class Options(values: Map[String, AnyRef] = Map.empty, faults: Vector[String] = Vector.empty)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    def str(flag: String, key: String, text: String) =
      opt[String](flag).text(s"$text (bulkhead.stub.$key)").action((v, o) => o.copy(values = o.values + (key -> v)))
    OParser.sequence(
      programName("bulkhead stub"),
      head("bulkhead stub: the third-party SOAP service (POST /soap, admin at /admin/latency and /admin/faults)"),
      opt[Int]("port").text("TCP port, 0 for any free port").validate(p =>
        if p >= 0 && p <= 65535 then success else failure(s"--port must be 0..65535, was $p"))
        .action((v, o) => o.copy(values = o.values + ("port" -> Integer.valueOf(v)))),
      str("host", "host", "interface to bind"),
      str("admin-host", "admin-host", "interface of the admin listener, used with --admin-port"),
      opt[Int]("admin-port").text("admin endpoint on its own listener (0 = any free port; default: on the SOAP " +
        "listener, loopback only)").validate(p =>
        if p >= 0 && p <= 65535 then success else failure(s"--admin-port must be 0..65535, was $p"))
        .action((v, o) => o.copy(values = o.values + ("admin-port" -> Integer.valueOf(v)))),
      opt[Int]("accept-batch").text("connections the SOAP listener accepts at a time " +
        "(bulkhead.stub.accept-batch)").validate(n =>
        if n >= 1 then success else failure(s"--accept-batch must be at least 1, was $n"))
        .action((v, o) => o.copy(values = o.values + ("accept-batch" -> Integer.valueOf(v)))),
      str("port-file", "port-file", "write the bound port here when ready"),
      opt[Int]("customers").text("customers 1..N exist").validate(n =>
        if n >= 1 then success else failure(s"--customers must be at least 1, was $n"))
        .action((v, o) => o.copy(values = o.values + ("customers" -> Integer.valueOf(v)))),
      opt[String]("latency").text("fixed:<ms> | uniform:<min>:<max> | normal:<mean>:<sd>")
        .validate(v => Latency.parse(v).fold(failure, _ => success))
        .action((v, o) => o.copy(values = o.values + ("latency" -> v))),
      opt[String]("fault").unbounded().text("kind=rate, e.g. server-error=0.5 (repeatable)")
        .validate(v => FaultPlan.parse(Seq(v)).fold(failure, _ => success))
        .action((v, o) => o.copy(faults = o.faults :+ v)),
      opt[Unit]("allow-fault-header").text("honour a request's X-Stub-Fault header (bulkhead.stub.allow-fault-header)")
        .action((_, o) => o.copy(values = o.values + ("allow-fault-header" -> java.lang.Boolean.TRUE))),
      help("help").text("print this help"))

  def main(args: Array[String]): Unit =
    val options = OParser.parse(parser, args, Options()).getOrElse(sys.exit(2))
    val withFaults =
      if options.faults.isEmpty then options.values else options.values + ("faults" -> options.faults.asJava)
    val overrides = withFaults.foldLeft(ConfigFactory.empty()) { case (c, (k, v)) =>
      c.withValue(s"bulkhead.stub.$k", ConfigValueFactory.fromAnyRef(v))
    }
    val config = overrides.withFallback(ConfigFactory.load()).resolve()
    val settings =
      try StubSettings(config)
      catch
        case e: ConfigException =>
          System.err.println(s"bulkhead stub: bad configuration: ${e.getMessage}")
          sys.exit(2)
    val stub =
      try Await.result(StubServer.start(settings, config), 30.seconds)
      catch
        case NonFatal(e) =>
          System.err.println(s"bulkhead stub: cannot start on ${settings.host}:${settings.port}: ${e.getMessage}")
          sys.exit(1)
    println(s"bulkhead stub listening on http://${settings.host}:${stub.port}/soap (JDK ${Runtime.version()}); " +
      s"customers 1..${settings.customers}, latency ${settings.latency.describe}, faults ${settings.faults.describe}; " +
      s"admin at http://${settings.admin match
          case AdminListener.Separate(h, _) => h
          case AdminListener.OnSoapListener => settings.host}:${stub.adminPort}/admin")
    Signal.handle(Signal("TERM"), _ => stub.stop())
    Signal.handle(Signal("INT"), _ => stub.stop())
    Await.ready(stub.system.whenTerminated, Duration.Inf)
    sys.exit(if stub.died.isCompleted then 1 else 0)
