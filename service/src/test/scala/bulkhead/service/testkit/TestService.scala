package bulkhead.service.testkit

import bulkhead.service.config.ServiceSettings
import bulkhead.service.{RunningService, ServiceApp}
import com.typesafe.config.{Config, ConfigFactory}

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** Starts the real service in this JVM on a free loopback port, with configuration overrides; always stops it. */
object TestService:
  private val counter = AtomicInteger()

  def config(overrides: Map[String, Any]): Config =
    ConfigFactory.parseMap((Map[String, Any]("bulkhead.service.port" -> 0) ++ overrides).map((k, v) =>
      k -> v.asInstanceOf[AnyRef]).asJava)
      .withFallback(ConfigFactory.load()).resolve()

  def withService[A](overrides: (String, Any)*)(body: RunningService => A): A =
    val cfg = config(overrides.toMap)
    val name = s"bulkhead-test-${counter.incrementAndGet()}"
    val service = Await.result(ServiceApp.start(ServiceSettings(cfg), cfg, name), 60.seconds)
    try body(service)
    finally Await.ready(service.stop(), 30.seconds)

  def url(service: RunningService, path: String): String = s"http://127.0.0.1:${service.port}$path"

  /**
   * The server's two transports, as settings: the selector threads it ships with, and Pekko's TCP actors with Pekko's
   * own bind (the fallback), for the cases that hold the socket layer to its promises on both.
   */
  val Transports: Seq[(String, Seq[(String, Any)])] = Seq(
    "the selector transport" -> Nil,
    "Pekko's transport" -> Seq("bulkhead.service.server.transport" -> "pekko",
      "bulkhead.service.server.accept-batch" -> 1))
