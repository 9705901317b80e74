package bulkhead.stub

import com.typesafe.config.Config
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/** A running stub: its port and state, and how to stop it. */
final class RunningStub(val system: ActorSystem, val binding: Http.ServerBinding, val state: StubState,
    val metrics: StubMetrics):
  def port: Int = binding.localAddress.getPort
  def stop(): Future[Unit] =
    given ExecutionContext = system.dispatcher
    binding.terminate(2.seconds).flatMap(_ => system.terminate()).map(_ => ())

/** Starts the stub on its own actor system. */
object StubServer:
  def start(settings: StubSettings, config: Config, name: String = "bulkhead-stub"): Future[RunningStub] =
    given system: ActorSystem = ActorSystem(name, config)
    given ExecutionContext = system.dispatcher
    val state = StubState(settings.latency, settings.faults)
    val metrics = StubMetrics()
    val routes = StubRoutes(CustomerDirectory(settings.customers), state, metrics, settings.noAnswerHold)
    Http().newServerAt(settings.host, settings.port).bind(routes.route).map { binding =>
      settings.portFile.foreach(f => Files.writeString(Path.of(f), binding.localAddress.getPort.toString))
      RunningStub(system, binding, state, metrics)
    }.recoverWith { case e => system.terminate().flatMap(_ => Future.failed(e)) }
