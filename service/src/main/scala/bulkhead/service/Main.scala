package bulkhead.service

import bulkhead.service.config.{EnrichmentSettings, Redaction, ServiceCommandLine, ServiceSettings}
import bulkhead.service.dispatch.Pools
import com.typesafe.config.{Config, ConfigException}
import org.apache.pekko.actor.CoordinatedShutdown
import org.slf4j.LoggerFactory
import sun.misc.Signal

import scala.concurrent.Await
import scala.concurrent.duration.Duration
import scala.util.control.NonFatal

/** `./bulkhead serve`: reads the configuration, starts the service, stops it gracefully on SIGTERM or Ctrl-C. */
object Main:
  def main(args: Array[String]): Unit =
    val (config, settings) = configured(args.toSeq) match
      case Right(c) => c
      case Left(message) =>
        if message.nonEmpty then System.err.println(message)
        sys.exit(2)
    val log = LoggerFactory.getLogger("bulkhead.service")
    val running =
      try Await.result(ServiceApp.start(settings, config), Duration(60, "s"))
      catch
        case NonFatal(e) =>
          val why = Redaction(Option(e.getMessage).getOrElse(e.getClass.getSimpleName),
            settings.enrichment.redis.password.map(_.reveal).toSeq)
          System.err.println(s"bulkhead serve: cannot start on ${settings.host}:${settings.port}: $why")
          sys.exit(1)
    log.info(StartupReport(settings, running.port, running.metricsPort))
    if !Pools.virtualThreadsAvailable then
      log.warn(s"JDK ${Runtime.version()} has no virtual threads: /work/virtual answers 501; use JDK 21+")
    val stop: Signal => Unit = _ => running.stop()
    Signal.handle(Signal("TERM"), s => stop(s))
    Signal.handle(Signal("INT"), s => stop(s))
    Await.ready(running.system.whenTerminated, Duration.Inf)
    // Stopped by a signal, the actor system was terminated; any other reason stopped it without being asked (the
    // cluster downed this node, or it could not join): exit 1, so that whoever runs it sees the node is gone.
    CoordinatedShutdown(running.system.classicSystem).shutdownReason() match
      case Some(reason) if reason != CoordinatedShutdown.ActorSystemTerminateReason =>
        log.error(s"bulkhead service stopped without being asked: $reason")
        sys.exit(1)
      case _ =>
        log.info("bulkhead service stopped")
        sys.exit(0)

  /**
   * The configuration and settings `args` ask for, on this process's descriptor limit and heap; or the line `main`
   * prints before it exits 2 (empty when the parser has printed its own), having started nothing.
   */
  def configured(args: Seq[String]): Either[String, (Config, ServiceSettings)] =
    // Errors may quote a URI (Lettuce's, Pekko's): never with its password.
    def redacted(message: String) = Redaction(message, sys.env.get(EnrichmentSettings.RedisPasswordVariable).toSeq)
    def refused(message: String) = Left(s"bulkhead serve: $message")
    ServiceCommandLine.parse(args) match
      case Left(message) => if message.nonEmpty then refused(message) else Left("")
      case Right(config) =>
        try
          val settings = ServiceSettings(config)
          val heapShort = HeapBudget.check(HeapBudget.processMaxHeap(), settings).left.toOption
          if !settings.server.refuseSmallHeap then
            heapShort.foreach(m => System.err.println(s"bulkhead serve: WARNING: $m; starting anyway " +
              "(bulkhead.service.server.refuse-small-heap = false): a heap that runs out ends the process"))
          DescriptorBudget.processLimit().map(DescriptorBudget.check(_, settings)).collectFirst { case Left(m) => m }
            .orElse(heapShort.filter(_ => settings.server.refuseSmallHeap))
            .fold(Right(config -> settings))(refused)
        catch case e: ConfigException => refused(s"bad configuration: ${redacted(e.getMessage)}")
