package bulkhead.stub

import org.apache.pekko.actor.ClassicActorSystemProvider
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.server.Directives.*
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.stream.scaladsl.Source
import org.apache.pekko.util.ByteString

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}

/**
 * POST /soap (the third party), the admin paths (latency and faults at run time), /metrics. A request's
 * `X-Stub-Fault` header is honoured only when `allowFaultHeader` (else any caller of the public listener could
 * change how the stub answers).
 */
final class StubRoutes(directory: CustomerDirectory, state: StubState, metrics: StubMetrics,
    noAnswerHold: FiniteDuration, allowFaultHeader: Boolean = false)(using system: ClassicActorSystemProvider):
  private given ExecutionContext = system.classicSystem.dispatcher
  private val xml = ContentType(MediaTypes.`text/xml`, HttpCharsets.`UTF-8`)
  private val MaxRequestBytes = 64 * 1024L

  /** The third party's own paths. */
  val publicRoute: Route = concat(
    path("soap")(post(soapRoute)),
    path("health")(get(complete(json("""{"status":"up"}""")))))

  /** Paths that change or reveal the stub's behaviour: on a loopback listener unless configured otherwise. */
  val adminRoute: Route = concat(
    path("admin" / "state")(get(complete(json(state.describe)))),
    path("admin" / "latency")(post(parameter("value")(v => change(Latency.parse(v))(state.setLatency)))),
    path("admin" / "faults")(post(parameter("value".optional) { v =>
      change(FaultPlan.parse(v.toSeq.flatMap(_.split(',').toSeq)))(state.setFaults)
    })),
    path("metrics")(get(complete(HttpEntity(ContentTypes.`text/plain(UTF-8)`, metrics.registry.scrape())))))

  /** Both, for a stub whose admin shares the (loopback) SOAP listener. */
  val route: Route = concat(publicRoute, adminRoute)

  private val held = HeldAnswers(HeldAnswers.timer())
  metrics.countHung(() => held.hung)

  /** Applies a parsed change of behaviour and releases what the new state would already have answered; 400 if bad. */
  private def change[A](parsed: Either[String, A])(set: A => Unit): Route = parsed match
    case Right(value) =>
      set(value)
      releaseHeld()
      complete(json(state.describe))
    case Left(err) => complete(StatusCodes.BadRequest, json(s"""{"error":"Bad Request","detail":"$err"}"""))

  private def releaseHeld(): Unit = held.release(state.latency, state.faults.rates.getOrElse(Fault.NoAnswer, 0.0) > 0)

  private def json(s: String) = HttpEntity(ContentTypes.`application/json`, s)

  private def soapRoute: Route =
    (optionalHeaderValueByName("SOAPAction") & optionalHeaderValueByName("X-Stub-Fault") &
        optionalHeaderValueByName(SoapMessages.DeadlineHeader)) { (action, askedFault, deadline) =>
      extractRequest { request =>
        val mediaType = request.entity.contentType.mediaType
        if mediaType != MediaTypes.`text/xml` then
          complete(StatusCodes.UnsupportedMediaType, soapFault(s"Content-Type must be text/xml, was $mediaType"))
        else if !action.map(_.stripPrefix("\"").stripSuffix("\"")).contains(SoapMessages.GetCustomerAction) then
          complete(StatusCodes.InternalServerError,
            soapFault(s"SOAPAction must be \"${SoapMessages.GetCustomerAction}\""))
        else
          askedFault.filter(_ => allowFaultHeader).map(Fault.parse) match
            case Some(Left(err)) => complete(StatusCodes.BadRequest, soapFault(err))
            case other =>
              val fault = other.flatMap(_.toOption).orElse(state.faults.draw())
              entity(as[ByteString]) { body =>
                SoapMessages.readGetCustomer(body.toArrayUnsafe()) match
                  case Left(err) => complete(StatusCodes.InternalServerError, soapFault(err))
                  case Right(id) =>
                    metrics.arrived(deadline.flatMap(_.trim.toLongOption))
                    complete(answer(id, fault))
              }
      }
    }

  private def soapFault(text: String) = HttpEntity(xml, SoapMessages.fault("Client", text))

  /** The answer after the configured latency; no thread waits (a timer completes it). */
  private def answer(id: Long, fault: Option[Fault]): Future[HttpResponse] =
    metrics.started()
    fault.foreach(metrics.fault)
    val delay = state.latency.sampleMs().millis
    val response = fault match
      case Some(Fault.NoAnswer) =>
        held.answerAfter(delay, () => respond(id, None), Some(noAnswerHold -> HttpResponse(StatusCodes.GatewayTimeout)))
      case Some(Fault.Hang) =>
        held.answerAfter(delay, () => respond(id, None), Some(noAnswerHold -> HttpResponse(StatusCodes.GatewayTimeout)),
          releasable = false)
      case _ => held.answerAfter(delay, () => respond(id, fault), None)
    // Counted out on the thread that completes the answer, before the HTTP layer writes it: once the bytes are on
    // their way the caller may send its next call, and a count left to a dispatcher task could come after that call's.
    response.onComplete(_ => metrics.finished())(ExecutionContext.parasitic)
    response

  private def respond(id: Long, fault: Option[Fault]): HttpResponse =
    val customer = directory.find(id)
    def ok(bytes: Array[Byte]) = HttpResponse(StatusCodes.OK, entity = HttpEntity(xml, bytes))
    fault match
      case Some(Fault.ServerError) =>
        HttpResponse(StatusCodes.InternalServerError, entity = HttpEntity(xml,
          SoapMessages.fault("Server", "Internal error of the third party (injected)")))
      case Some(Fault.Reset) =>
        // The connection is aborted after the first bytes of the answer.
        HttpResponse(StatusCodes.OK, entity = HttpEntity.Chunked.fromData(xml,
          Source.single(ByteString("<?xml")).concat(Source.failed(RuntimeException("reset (injected)")))))
      case Some(Fault.MalformedXml) => ok(SoapMessages.malformed)
      case Some(Fault.Xxe) => ok(SoapMessages.xxe)
      case Some(Fault.BillionLaughs) => ok(SoapMessages.billionLaughs)
      case Some(Fault.Oversized) =>
        customer.map(SoapMessages.oversizedParts) match
          case Some((head, tail)) =>
            HttpResponse(StatusCodes.OK, entity = HttpEntity.Default(xml, head.length + StubRoutes.Padding.length +
              tail.length, Source(List(ByteString(head), StubRoutes.Padding, ByteString(tail)))))
          case None => ok(SoapMessages.unknownCustomer(id))
      case Some(Fault.Trickle) =>
        val bytes = customer.map(SoapMessages.customer).getOrElse(SoapMessages.unknownCustomer(id))
        // A byte every 100 ms while the fault lasts; once it is cleared, the rest at once: a third party that
        // recovers sends what it was sending at its normal speed (as held answers are released, see HeldAnswers).
        HttpResponse(StatusCodes.OK, entity = HttpEntity.Chunked.fromData(xml,
          Source(bytes.toIndexedSeq).map(b => ByteString(b)).mapAsync(1) { b =>
            if state.faults.rates.getOrElse(Fault.Trickle, 0.0) > 0 then
              org.apache.pekko.pattern.after(100.millis)(Future.successful(b))(system.classicSystem)
            else Future.successful(b)
          }))
      case _ =>
        customer match
          case Some(c) => ok(SoapMessages.customer(c))
          case None =>
            HttpResponse(StatusCodes.InternalServerError, entity = HttpEntity(xml, SoapMessages.unknownCustomer(id)))

object StubRoutes:
  /** The 4 MB comment of the oversized fault, built once. */
  lazy val Padding: ByteString = ByteString(SoapMessages.padding(4 * 1024 * 1024))
