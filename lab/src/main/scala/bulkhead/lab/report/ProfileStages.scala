package bulkhead.lab.report

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Using

/**
 * A profiled run's CPU by stage of a request's and a connection's life (accept, set-up, parsing, routing, rendering,
 * read, write, close), read from async-profiler's collapsed stacks (`collapsed.txt`). Each stack counts for the first
 * stage, in [[Stages]]' order, one of whose patterns one of its frames matches: a thread woken inside a write counts
 * as waking threads, the request parser called from the stream interpreter as parsing. The patterns name Pekko's
 * (Akka 2.6's) and Akka 2.3's and Spray's classes, so that servers of both compare stage by stage.
 */
object ProfileStages:
  /** A stage and the frames (substrings) that place a stack in it. */
  final case class Stage(name: String, frames: Seq[String])

  val Stages: Seq[Stage] = Seq(
    Stage("JIT compiler", Seq("CompileBroker::", "C2Compiler::", "Compiler::compile")),
    Stage("GC", Seq("G1", "GCTaskThread", "WorkerThread::run", "SafepointSynchronize", "ConcurrentGCThread")),
    // A pool's threads going to sleep (park) and being woken (unpark): futexes and the scheduler, not work.
    Stage("threads parked and woken", Seq("ForkJoinPool.awaitWork", "ForkJoinPool.signalWork", "Unsafe.park",
      "Unsafe.unpark", "ForkJoinPool.tryAwaitWork", "ForkJoinPool.idleAwaitWork", "ForkJoinPool.deactivate")),
    Stage("accept", Seq("io/TcpListener", "ServerSocketChannelImpl.accept", "ConnectionSourceStage",
      "SelectionHandler.spawnChild", "spray/can/server/HttpListener")),
    Stage("connection set-up (actors, stream materialisation)", Seq("ActorCell.create", "Children.makeChild",
      "PhasedFusingActorMaterializer", "GraphInterpreterShell.init", "ActorGraphInterpreter.preStart",
      "RunnableGraph.run", "bulkhead/service/http/HttpServer.serve", "TcpConnection.completeConnect",
      "spray/can/server/HttpServerConnection.<init>", "spray/can/server/HttpServerConnection.preStart",
      "AbstractSelectableChannel.register", "SocketChannelImpl.configureBlocking")),
    Stage("parsing", Seq("HttpRequestParser", "HttpMessageParser", "HttpHeaderParser", "spray/can/parsing")),
    Stage("routing and handler", Seq("bulkhead/service/http/Routes", "bulkhead/service/http/HttpServer.answer",
      "server/directives", "RouteResult", "spray/routing", "bulkhead/peers")),
    Stage("rendering", Seq("HttpResponseRendererFactory", "ResponseRendering", "spray/can/rendering",
      "DateHeaderRendering", "http/impl/util/Rendering")),
    Stage("socket read", Seq("TcpConnection.doRead", "SocketChannelImpl.read")),
    Stage("socket write", Seq("TcpConnection.doWrite", "PendingBufferWrite", "SocketChannelImpl.write")),
    Stage("close", Seq("implCloseSelectableChannel", "SocketChannelImpl.close", "ActorCell.terminate",
      "FaultHandling.finishTerminate", "TcpConnection.handleClose", "cancelKeyAndClose",
      "TcpConnection.postStop")),
    Stage("selector loop and interest", Seq("SelectorImpl", "ChannelRegistryImpl", "EPoll")),
    Stage("stream interpreter", Seq("stream/impl/fusing", "stream/stage/GraphStageLogic", "http/impl/engine")),
    Stage("actor messaging", Seq("/dispatch/", "actor/ActorCell", "/actor/dungeon/", "ActorRef")))

  val Other = "other"

  /** The stage of one stack (frames from the thread's root to the leaf). */
  def stageOf(frames: Seq[String]): String =
    Stages.find(s => frames.exists(f => s.frames.exists(f.contains))).fold(Other)(_.name)

  /** Samples per stage in a collapsed-stacks file (`frame;frame;frame count` per line). */
  def read(file: Path): Either[String, Map[String, Long]] =
    if !Files.isRegularFile(file) then Left(s"no collapsed stacks at $file")
    else
      Right(Using.resource(Files.lines(file))(_.iterator.asScala.foldLeft(Map.empty[String, Long]) { (acc, line) =>
        val cut = line.lastIndexOf(' ')
        line.substring(cut + 1).toLongOption match
          case Some(n) if cut > 0 =>
            val stage = stageOf(line.substring(0, cut).split(';').toSeq)
            acc.updated(stage, acc.getOrElse(stage, 0L) + n)
          case _ => acc
      }))

  /**
   * CPU per request by stage: each server's CPU per request split in its stages' shares of the samples. `columns`
   * are (label, CPU per request in us, samples per stage).
   */
  def table(columns: Seq[(String, Double, Map[String, Long])]): String =
    val names = (Stages.map(_.name) :+ Other).filter(n => columns.exists(_._3.getOrElse(n, 0L) > 0))
    def us(c: (String, Double, Map[String, Long]), stage: String): Double =
      val total = c._3.values.sum.toDouble
      if total == 0 then 0.0 else c._2 * c._3.getOrElse(stage, 0L) / total
    val header = ("stage" +: columns.map(c => s"${c._1}, us CPU per request")).mkString("| ", " | ", " |")
    val rule = Seq.fill(columns.size + 1)("---").mkString("| ", " | ", " |")
    val rows = names.map(n => (n +: columns.map(c => f"${us(c, n)}%.1f (${100 * us(c, n) / c._2.max(1e-9)}%.0f %%)"))
      .mkString("| ", " | ", " |"))
    val total = ("total" +: columns.map(c => f"${c._2}%.1f")).mkString("| ", " | ", " |")
    (Seq(header, rule) ++ rows :+ total).mkString("\n")
