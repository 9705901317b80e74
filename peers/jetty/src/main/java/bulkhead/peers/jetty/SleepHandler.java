package bulkhead.peers.jetty;

import bulkhead.peers.JsonError;
import bulkhead.peers.SleepRequest;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * `/hello` answers "OK"; `/work/pool?ms=100` sleeps `ms` on the thread Jetty gave the request (a QueuedThreadPool
 * worker: a blocking handler is never run on a selector), then answers "OK". The same paths as bulkhead's, so one
 * scenario drives both. Bad input is a 400 with a JSON error, an unknown path a 404.
 */
final class SleepHandler extends Handler.Abstract {
  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = Request.getPathInContext(request);
    if (!"GET".equals(request.getMethod())) {
      return error(response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, "method not allowed", request.getMethod());
    }
    switch (path) {
      case "/hello":
        return ok(response, callback);
      case "/work/pool": {
        SleepRequest sleep = SleepRequest.of(Request.extractQueryParameters(request).getValue("ms"));
        if (sleep.refusal != null) {
          return error(response, callback, HttpStatus.BAD_REQUEST_400, "bad ms", sleep.refusal);
        }
        Thread.sleep(sleep.ms);
        return ok(response, callback);
      }
      default:
        return error(response, callback, HttpStatus.NOT_FOUND_404, "not found", path);
    }
  }

  private static boolean ok(Response response, Callback callback) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    Content.Sink.write(response, true, "OK", callback);
    return true;
  }

  private static boolean error(Response response, Callback callback, int status, String error, String detail) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    Content.Sink.write(response, true, JsonError.body(error, detail), callback);
    return true;
  }
}
