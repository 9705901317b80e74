package bulkhead.peers.tomcat;

import bulkhead.peers.JsonError;
import bulkhead.peers.SleepRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * `/hello` answers "OK"; `/work/pool?ms=100` sleeps `ms` on the connector's executor thread that runs the request,
 * then answers "OK". The same paths as bulkhead's. Bad input is a 400 with a JSON error, an unknown path a 404.
 */
final class SleepServlet extends HttpServlet {
  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String path = request.getRequestURI();
    switch (path) {
      case "/hello":
        ok(response);
        return;
      case "/work/pool": {
        SleepRequest sleep = SleepRequest.of(request.getParameter("ms"));
        if (sleep.refusal != null) {
          error(response, 400, "bad ms", sleep.refusal);
          return;
        }
        try {
          Thread.sleep(sleep.ms);
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
    response.getWriter().write(JsonError.body(error, detail));
  }
}
