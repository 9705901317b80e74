package bulkhead.service.http

import org.apache.pekko.http.scaladsl.model.StatusCodes
import org.apache.pekko.stream.*
import org.apache.pekko.stream.stage.*
import org.apache.pekko.util.ByteString

import scala.concurrent.duration.FiniteDuration

/**
 * A connection's bytes, between the socket and Pekko's HTTP layer: a request head that has begun must reach the
 * handler within `timeout`, else the client gets 408 (JSON) and the connection closes. Pekko HTTP has no such deadline
 * (its idle-timeout restarts at every byte, so a client sending a byte a minute keeps a connection for ever); this is
 * what frees connections from slow-header clients. A new connection owes its first head too: one that sends nothing
 * in `timeout` is closed without an answer. Idle keep-alive connections between requests are left to idle-timeout.
 * The end of the client's bytes ends the connection's [[ConnectionScope]] (an attribute of the stream it is
 * materialised in: one blueprint serves every connection), which abandons the requests still in flight.
 *
 * optimization: one timer per connection and deadline, never one per request; it is re-armed by the first bytes
 * after it fired, so a trickling head is answered within two deadlines at most.
 *
 * A head is also bounded in bytes: one longer than `maxHeadBytes` (its bytes up to the blank line that ends it) gets
 * 431 (JSON) and the connection closes, before Pekko's parser holds more of it. Pekko bounds each header, not their
 * sum. Bytes are counted while no request of the connection is in flight, so a body is never counted; a head
 * pipelined behind a request in flight is left to Pekko's per-header limits.
 */
final class RequestHeadDeadline(timeout: FiniteDuration, maxHeadBytes: Int, serverHeader: String)
    extends GraphStage[BidiShape[ByteString, ByteString, ByteString, ByteString]]:
  private val fromHttp = Inlet[ByteString]("RequestHeadDeadline.fromHttp")
  private val toNet = Outlet[ByteString]("RequestHeadDeadline.toNet")
  private val fromNet = Inlet[ByteString]("RequestHeadDeadline.fromNet")
  private val toHttp = Outlet[ByteString]("RequestHeadDeadline.toHttp")
  val shape: BidiShape[ByteString, ByteString, ByteString, ByteString] = BidiShape(fromHttp, toNet, fromNet, toHttp)

  def createLogic(inherited: Attributes): GraphStageLogic = new TimerGraphStageLogic(shape):
    private val scope = ConnectionScope.of(inherited)
    private var armed = false
    private var startedAtArm = 0L
    private var bytesSinceArm = false
    // The connection was answered here (408 or 431) and is closing: nothing more goes to Pekko's parser.
    private var timedOut = false
    // The head being counted: its bytes so far, how much of its closing CRLFCRLF was seen, whether it was seen, and
    // the connection's count of started requests when it began (a change means Pekko took a head: count anew).
    private var headBytes = 0
    private var endMatched = 0
    private var headEnded = false
    private var countedSince = scope.requestsStarted

    override def preStart(): Unit = arm()

    /** Counts the head's bytes in `bytes` (none while a request is in flight); false once they pass the limit. */
    private def withinHeadLimit(bytes: ByteString): Boolean =
      val started = scope.requestsStarted
      if started != countedSince then
        countedSince = started
        headBytes = 0
        endMatched = 0
        headEnded = false
      if headEnded || scope.busy then true
      else
        var i = 0
        while !headEnded && i < bytes.length do
          val b = bytes(i)
          endMatched =
            if b == '\r' then (if endMatched == 2 then 3 else 1)
            else if b == '\n' && (endMatched == 1 || endMatched == 3) then endMatched + 1
            else 0
          headEnded = endMatched == 4
          i += 1
        headBytes += i
        headBytes <= maxHeadBytes

    private def arm(): Unit =
      armed = true
      startedAtArm = scope.requestsStarted
      bytesSinceArm = false
      scheduleOnce(RequestHeadDeadline.TimerKey, timeout)

    override protected def onTimer(key: Any): Unit =
      armed = false
      val headArrived = scope.requestsStarted != startedAtArm || scope.busy
      if !headArrived && !timedOut then
        if bytesSinceArm then
          timedOut = true
          // Written, then the write side completes: the socket layer closes once the answer is out. Nothing more
          // goes to Pekko's parser, and what it renders for the truncated head is dropped.
          emit(toNet, RequestHeadDeadline.answer(timeout, serverHeader), () => complete(toNet))
        else completeStage()

    setHandler(fromNet, new InHandler:
      def onPush(): Unit =
        val bytes = grab(fromNet)
        if timedOut then pull(fromNet)
        else if !withinHeadLimit(bytes) then
          timedOut = true
          emit(toNet, RequestHeadDeadline.tooLarge(maxHeadBytes, serverHeader), () => complete(toNet))
          pull(fromNet)
        else
          if !armed && !scope.busy then arm()
          bytesSinceArm = true
          push(toHttp, bytes)
      override def onUpstreamFinish(): Unit =
        scope.end()
        if timedOut then completeStage() else complete(toHttp)
      override def onUpstreamFailure(e: Throwable): Unit =
        scope.end()
        failStage(e))

    setHandler(toHttp, new OutHandler:
      def onPull(): Unit = if !timedOut then pull(fromNet)
      override def onDownstreamFinish(cause: Throwable): Unit =
        scope.end()
        cancel(fromNet, cause))

    setHandler(fromHttp, new InHandler:
      def onPush(): Unit =
        val bytes = grab(fromHttp)
        if !timedOut then push(toNet, bytes)
      override def onUpstreamFinish(): Unit = if !timedOut then complete(toNet)
      override def onUpstreamFailure(e: Throwable): Unit = if !timedOut then fail(toNet, e))

    setHandler(toNet, new OutHandler:
      def onPull(): Unit = if !timedOut then pull(fromHttp)
      override def onDownstreamFinish(cause: Throwable): Unit =
        scope.end()
        cancel(fromHttp, cause))

object RequestHeadDeadline:
  private val TimerKey = "request-head"

  /** The 408 written when a head is late: the JSON error of every other answer, and `Connection: close`. */
  def answer(timeout: FiniteDuration, serverHeader: String): ByteString =
    RawAnswer(StatusCodes.RequestTimeout,
      s"the request head did not arrive within $timeout (bulkhead.service.server.request-head-timeout)", serverHeader)

  /** The 431 written when a head passes `maxHeadBytes`: the JSON error, and `Connection: close`. */
  def tooLarge(maxHeadBytes: Int, serverHeader: String): ByteString =
    RawAnswer(StatusCodes.RequestHeaderFieldsTooLarge,
      s"the request head is longer than $maxHeadBytes bytes (bulkhead.service.server.max-head-bytes)", serverHeader)
