import java.net.http.*; import java.net.URI; import java.io.InputStream;
public class T2 { public static void main(String[] a) throws Exception {
  var c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  long t = System.nanoTime();
  var r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:18099/")).build(), HttpResponse.BodyHandlers.ofInputStream());
  InputStream in = r.body();
  new Thread(() -> { try { Thread.sleep(1000); System.out.println("closing"); in.close(); } catch (Exception e) { System.out.println(e);} }).start();
  try { byte[] b = in.readNBytes(1000); System.out.println("read " + b.length + " after " + (System.nanoTime()-t)/1e9);
  } catch (Exception e) { System.out.println("ex " + e + " after " + (System.nanoTime()-t)/1e9); }
}}
