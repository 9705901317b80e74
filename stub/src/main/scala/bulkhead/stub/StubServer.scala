package bulkhead.stub

import com.typesafe.config.Config
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import bulkhead.transport.IoLoops

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/**
 * A running stub: its port and state, and how to stop it. `died` completes with the fatal error its selector thread
 * died of, if it does (the stub then stops).
 */
final class RunningStub(val system: ActorSystem, val binding: Http.ServerBinding, val state: StubState,
    val metrics: StubMetrics, val adminBinding: Option[Http.ServerBinding], val died: Future[Throwable]):
  def port: Int = binding.localAddress.getPort
  /** Port of the admin endpoint (the SOAP port when it shares that listener). */
  def adminPort: Int = adminBinding.fold(port)(_.localAddress.getPort)
  def stop(): Future[Unit] =
    given ExecutionContext = system.dispatcher
    Future.sequence((binding +: adminBinding.toSeq).map(_.terminate(2.seconds)))
      .flatMap(_ => system.terminate()).map(_ => ())

/** Starts the stub on its own actor system. */
object StubServer:
  def start(settings: StubSettings, config: Config, name: String = "bulkhead-stub"): Future[RunningStub] =
    given system: ActorSystem = ActorSystem(name, config)
    given ExecutionContext = system.dispatcher
    val state = StubState(settings.latency, settings.faults)
    val metrics = StubMetrics()
    val routes = StubRoutes(CustomerDirectory(settings.customers), state, metrics, settings.noAnswerHold,
      settings.allowFaultHeader)
    // The SOAP listener's selector thread, stopped with the actor system. Dead, it takes the stub down: a stub that
    // accepts nothing and answers nothing would look to the service like a third party that hangs.
    val loops = IoLoops("bulkhead.stub.io", 1, 64 * 1024, (what, e) => system.log.error(e, what), (thread, e) =>
      System.err.println(s"bulkhead stub: the selector thread $thread died of $e; the stub stops")
      system.terminate())
    system.registerOnTermination(loops.shutdown())
    val started = settings.admin match
      case AdminListener.OnSoapListener =>
        HttpListener.bind(loops, settings.host, settings.port, settings.acceptBatch, routes.route).map(_ -> None)
      case AdminListener.Separate(host, port) =>
        for
          main <- HttpListener.bind(loops, settings.host, settings.port, settings.acceptBatch, routes.publicRoute)
          admin <- Http().newServerAt(host, port).bind(routes.adminRoute)
        yield main -> Some(admin)
    started.map { case (binding, admin) =>
      settings.portFile.foreach(f => Files.writeString(Path.of(f), binding.localAddress.getPort.toString))
      RunningStub(system, binding, state, metrics, admin, loops.loops.head.whenDead)
    }.recoverWith { case e => system.terminate().flatMap(_ => Future.failed(e)) }
