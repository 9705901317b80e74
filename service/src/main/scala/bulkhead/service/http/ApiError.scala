package bulkhead.service.http

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.*
import org.apache.pekko.http.scaladsl.model.*

/** The JSON body of every error answer: `{"error": "...", "detail": "..."}`. Never a stack trace. */
final case class ApiError(error: String, detail: String)

object ApiError:
  given JsonValueCodec[ApiError] = JsonCodecMaker.make

  def response(status: StatusCode, detail: String, headers: Seq[HttpHeader] = Nil): HttpResponse =
    HttpResponse(status, headers, entity(status, detail))

  def entity(status: StatusCode, detail: String): HttpEntity.Strict =
    HttpEntity(ContentTypes.`application/json`, writeToArray(ApiError(status.reason, detail)))
