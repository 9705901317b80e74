package bulkhead.peers.spray

import akka.actor.{Actor, ActorSystem, Props}
import akka.io.IO
import akka.pattern.ask
import akka.util.Timeout
import bulkhead.peers.PeerOptions
import spray.can.Http
import spray.routing.HttpService

import scala.concurrent.duration._

/** The route actor of seed 002's Spray server: `/hello` answers "OK". */
class HelloService extends Actor with HttpService {
  def actorRefFactory = context
  def receive = runRoute(path("hello")(get(complete("OK"))))
}

/** Seed 002's Spray hello world (spray-can + spray-routing 1.3.4), written from its description. */
object Main {
  private val Program = "spray-peer"

  def main(args: Array[String]): Unit = {
    val options = PeerOptions.parse(Program, args)
    implicit val system: ActorSystem = ActorSystem("spray-peer")
    implicit val timeout: Timeout = Timeout(30.seconds)
    import system.dispatcher
    val handler = system.actorOf(Props[HelloService], "hello")
    (IO(Http) ? Http.Bind(handler, interface = "127.0.0.1", port = options.port)).foreach {
      case bound: Http.Bound => options.announce(Program, bound.localAddress.getPort)
      case other =>
        system.shutdown()
        options.cannotBind(Program, other)
    }
  }
}
