package bulkhead.peers.jetty;

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
  private static final int MaxMs = 60_000;

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
        String raw = Request.extractQueryParameters(request).getValue("ms");
        int ms;
        try {
          ms = raw == null ? 100 : Integer.parseInt(raw);
        } catch (NumberFormatException e) {
          return error(response, callback, HttpStatus.BAD_REQUEST_400, "bad ms", "ms must be a number, was '" + raw + "'");
        }
        if (ms < 0 || ms > MaxMs) {
          return error(response, callback, HttpStatus.BAD_REQUEST_400, "bad ms", "ms must be 0.." + MaxMs + ", was " + ms);
        }
        Thread.sleep(ms);
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
    Content.Sink.write(response, true, "{\"error\": \"" + json(error) + "\", \"detail\": \"" + json(detail) + "\"}",
        callback);
    return true;
  }

  private static String json(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.toString();
  }
}
