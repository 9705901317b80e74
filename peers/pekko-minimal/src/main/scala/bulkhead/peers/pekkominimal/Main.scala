package bulkhead.peers.pekkominimal

import bulkhead.peers.PeerOptions
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.server.Directives.*

import scala.util.{Failure, Success}

/** The Pekko HTTP hello world of the documentation, default settings: the baseline bulkhead's tuning is measured by. */
object Main:
  private val Program = "pekko-minimal-peer"

  def main(args: Array[String]): Unit =
    val options = PeerOptions.parse(Program, args)
    given system: ActorSystem[Nothing] = ActorSystem(Behaviors.empty, "pekko-minimal-peer")
    import system.executionContext
    val route = path("hello")(get(complete("OK")))
    Http().newServerAt("127.0.0.1", options.port).bind(route).onComplete {
      case Success(binding) => options.announce(Program, binding.localAddress.getPort)
      case Failure(e) => options.cannotBind(Program, e.getMessage)
    }
