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
 *
 * And the heads of every connection together are bounded by `budget` ([[HeadBytesBudget]]): the bytes of a head that
 * has not ended are taken from it as they arrive, and given back when the head ends (its last bytes go to Pekko's
 * parser, which turns it into a request), when the connection is answered here, and when it ends by any path
 * (`postStop`). A head whose bytes find the budget spent gets 503 with Retry-After (JSON) and the connection closes.
 * optimization: a head that arrives whole in one read never waits for more bytes, so it takes nothing from the
 * budget: /hello pays no shared counter, and a small request (/health) is served however full the budget is.
 */
final class RequestHeadDeadline(timeout: FiniteDuration, maxHeadBytes: Int, budget: HeadBytesBudget,
    retryAfterSeconds: Long, serverHeader: String)
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
    // The connection was answered here (408, 431 or 503) and is closing: nothing more goes to Pekko's parser.
    private var timedOut = false
    // The head being counted: its bytes so far, how much of its closing CRLFCRLF was seen, whether it was seen, and
    // the connection's count of started requests when it began (a change means Pekko took a head: count anew).
    private var headBytes = 0
    private var endMatched = 0
    private var headEnded = false
    private var countedSince = scope.requestsStarted
    // Bytes of the unfinished head taken from the budget: given back once it ends, is answered, or the stage stops.
    private var taken = 0L

    override def preStart(): Unit = arm()

    override def postStop(): Unit = giveBack()

    private def giveBack(): Unit =
      budget.giveBack(taken)
      taken = 0

    /**
     * Counts the head's bytes in `bytes` (none while a request is in flight): the answer that ends the connection
     * when they pass the head's limit or the budget, else None. The bytes of a head still unfinished after them are
     * taken from the budget; once it ends, all of it is given back, as the parser takes it whole.
     */
    private def refusal(bytes: ByteString): Option[ByteString] =
      val started = scope.requestsStarted
      if started != countedSince then
        countedSince = started
        headBytes = 0
        endMatched = 0
        headEnded = false
      if headEnded || scope.busy then
        // A request started from bytes this stage did not see end a head (Pekko also takes bare-LF line ends).
        giveBack()
        None
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
        if headBytes > maxHeadBytes then Some(RequestHeadDeadline.tooLarge(maxHeadBytes, serverHeader))
        else if headEnded then
          giveBack()
          None
        else if budget.tryTake(i) then
          taken += i
          None
        else Some(RequestHeadDeadline.overBudget(budget.limit, retryAfterSeconds, serverHeader))

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
          giveBack()
          // Written, then the write side completes: the socket layer closes once the answer is out. Nothing more
          // goes to Pekko's parser, and what it renders for the truncated head is dropped.
          emit(toNet, RequestHeadDeadline.answer(timeout, serverHeader), () => complete(toNet))
        else completeStage()

    setHandler(fromNet, new InHandler:
      def onPush(): Unit =
        val bytes = grab(fromNet)
        if timedOut then pull(fromNet)
        else refusal(bytes) match
          case Some(answer) =>
            timedOut = true
            giveBack()
            emit(toNet, answer, () => complete(toNet))
            pull(fromNet)
          case None =>
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

  /**
   * The 503 written when an unfinished head finds the server's budget of head bytes in progress spent: the JSON error,
   * Retry-After, and `Connection: close`.
   */
  def overBudget(limit: Long, retryAfterSeconds: Long, serverHeader: String): ByteString =
    RawAnswer(StatusCodes.ServiceUnavailable,
      s"the service holds $limit bytes of request heads in progress already " +
        "(bulkhead.service.server.max-head-bytes-in-progress); retry", serverHeader,
      Seq("Retry-After" -> retryAfterSeconds.toString))
