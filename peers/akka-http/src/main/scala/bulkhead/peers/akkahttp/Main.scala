package bulkhead.peers.akkahttp

import akka.actor.ActorSystem
import akka.http.scaladsl.Http
import akka.http.scaladsl.server.Directives._
import akka.http.scaladsl.server.Route
import akka.pattern.after
import bulkhead.peers.PeerOptions
import com.typesafe.config.ConfigFactory

import scala.concurrent.duration._
import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success}

/**
 * Seeds 000-003 on their own framework, written from their descriptions: `/hello` answers "OK" without blocking
 * (seeds 001, 002, 003); `/work/default?ms=100` sleeps in a Future on the default dispatcher (seed 001's first
 * server); `/work/pool?ms=100` sleeps on "my-blocking-dispatcher" (seed 001's fix, seed 000's 1000 threads);
 * `/work/async?ms=100` waits on the scheduler. The same paths as bulkhead, so one scenario drives both.
 */
object Main {
  private val Program = "akka-http-peer"

  def main(args: Array[String]): Unit = {
    val options = PeerOptions.parse(Program, args)
    val overrides = ConfigFactory.parseString(
      s"my-blocking-dispatcher.thread-pool-executor.fixed-pool-size = ${options.blockingPoolSize}\n" +
        (if (options.maxConnections > 0) s"akka.http.server.max-connections = ${options.maxConnections}" else ""))
    implicit val system: ActorSystem = ActorSystem("akka-http-peer", overrides.withFallback(ConfigFactory.load()))
    val blocking: ExecutionContext = system.dispatchers.lookup("my-blocking-dispatcher")
    implicit val ec: ExecutionContext = system.dispatcher

    def sleep(ms: Int)(on: ExecutionContext): Future[String] = Future { Thread.sleep(ms.toLong); "OK" }(on)
    val ms = parameter("ms".as[Int].withDefault(100))
    val route: Route = concat(
      path("hello")(get(complete("OK"))),
      path("work" / "default")(get(ms(n => complete(sleep(n)(system.dispatcher))))),
      path("work" / "pool")(get(ms(n => complete(sleep(n)(blocking))))),
      path("work" / "async")(get(ms(n => complete(after(n.millis, system.scheduler)(Future.successful("OK")))))))

    Http().newServerAt("127.0.0.1", options.port).bind(route).onComplete {
      case Success(binding) => options.announce(Program, binding.localAddress.getPort)
      case Failure(e) =>
        system.terminate()
        options.cannotBind(Program, e.getMessage)
    }
  }
}
