package bulkhead.service.http

import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.ParsingErrorHandler
import org.apache.pekko.http.javadsl.model.HttpResponse as JavaResponse
import org.apache.pekko.http.scaladsl.model.{ErrorInfo, StatusCode}
import org.apache.pekko.http.scaladsl.settings.ServerSettings

/**
 * Requests too malformed to reach the routes (bad request line, oversized URI or header, bad header syntax) get the
 * same JSON error as everything else instead of Pekko's plain text. Named in reference.conf
 * (`pekko.http.server.parsing.error-handler`); Pekko instantiates it by name.
 */
final class JsonParsingErrorHandler extends ParsingErrorHandler:
  def handle(status: StatusCode, error: ErrorInfo, log: LoggingAdapter, settings: ServerSettings): JavaResponse =
    log.debug("rejected a malformed request: {}", error.formatPretty)
    ApiError.response(status, error.summary.take(300))
