package bulkhead.service.soap

import org.apache.pekko.stream.stage.{GraphStage, GraphStageLogic, OutHandler}
import org.apache.pekko.stream.{Attributes, Outlet, SourceShape}
import org.apache.pekko.util.ByteString

import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success, Try}

/**
 * A request body sent whole at the first pull, then held open until `end` completes: the stream completes then (after
 * the body, whenever `end` came), or fails with `end`'s failure at once. This is how a caller of Pekko's host pool
 * cancels a call: a failed request entity fails the call and closes its connection. One stage, where
 * `Source.single(body).concat(Source.futureSource(end))` would materialise three and a flattened substream per call.
 */
final class OpenEndedBody(body: ByteString, end: Future[Unit]) extends GraphStage[SourceShape[ByteString]]:
  private val out: Outlet[ByteString] = Outlet("OpenEndedBody.out")
  override val shape: SourceShape[ByteString] = SourceShape(out)

  override def createLogic(attributes: Attributes): GraphStageLogic = new GraphStageLogic(shape) with OutHandler:
    private var sent = false
    private var ended = false

    override def preStart(): Unit =
      val onEnd = getAsyncCallback[Try[Unit]] {
        case Success(_) => if sent then completeStage() else ended = true
        case Failure(e) => failStage(e)
      }
      end.onComplete(onEnd.invoke)(ExecutionContext.parasitic)

    override def onPull(): Unit =
      if !sent then
        sent = true
        push(out, body)
        if ended then completeStage()

    setHandler(out, this)
