package bulkhead.peers.tomcat;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * `/hello` answers "OK"; `/work/pool?ms=100` sleeps `ms` on the connector's executor thread that runs the request,
 * then answers "OK". The same paths as bulkhead's. Bad input is a 400 with a JSON error, an unknown path a 404.
 */
final class SleepServlet extends HttpServlet {
  private static final int MaxMs = 60_000;

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String path = request.getRequestURI();
    switch (path) {
      case "/hello":
        ok(response);
        return;
      case "/work/pool": {
        String raw = request.getParameter("ms");
        int ms;
        try {
          ms = raw == null ? 100 : Integer.parseInt(raw);
        } catch (NumberFormatException e) {
          error(response, 400, "bad ms", "ms must be a number, was '" + raw + "'");
          return;
        }
        if (ms < 0 || ms > MaxMs) {
          error(response, 400, "bad ms", "ms must be 0.." + MaxMs + ", was " + ms);
          return;
        }
        try {
          Thread.sleep(ms);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          error(response, 503, "interrupted", "the server is stopping");
          return;
        }
        ok(response);
        return;
      }
      default:
        error(response, 404, "not found", path);
    }
  }

  private static void ok(HttpServletResponse response) throws IOException {
    response.setContentType("text/plain; charset=utf-8");
    response.getWriter().write("OK");
  }

  private static void error(HttpServletResponse response, int status, String error, String detail) throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    response.getWriter().write("{\"error\": \"" + json(error) + "\", \"detail\": \"" + json(detail) + "\"}");
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
