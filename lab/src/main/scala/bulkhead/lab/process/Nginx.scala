package bulkhead.lab.process

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * nginx from the OS packages as the ceiling of this machine: one worker (one core, like a JVM server's fair share
 * here), `/hello` answered from configuration, no access log. Started in the foreground on a free loopback port.
 */
object Nginx:
  def config(dir: Path, port: Int): String =
    s"""worker_processes 1;
       |pid ${dir.resolve("nginx.pid")};
       |error_log ${dir.resolve("nginx-error.log")} warn;
       |worker_rlimit_nofile 20000;
       |events { worker_connections 16384; multi_accept on; }
       |http {
       |  access_log off;
       |  client_body_temp_path ${dir.resolve("nginx-tmp")};
       |  proxy_temp_path ${dir.resolve("nginx-tmp")};
       |  fastcgi_temp_path ${dir.resolve("nginx-tmp")};
       |  uwsgi_temp_path ${dir.resolve("nginx-tmp")};
       |  scgi_temp_path ${dir.resolve("nginx-tmp")};
       |  keepalive_requests 1000000;
       |  server {
       |    listen 127.0.0.1:$port backlog=4096;
       |    location = /hello { default_type text/plain; return 200 "OK"; }
       |  }
       |}
       |""".stripMargin

  def start(into: Path): Served =
    // nginx reads -c and the paths in its configuration relative to its -p prefix: every path absolute.
    val dir = into.toAbsolutePath
    val port = Stack.freePort()
    Files.createDirectories(dir.resolve("nginx-tmp"))
    val conf = dir.resolve("nginx.conf")
    Files.writeString(conf, config(dir, port))
    val binary = Seq("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx").find(p => Files.isExecutable(Path.of(p)))
      .getOrElse(throw IllegalStateException("nginx is not installed: apt-get install nginx-light (./bulkhead installs it as root)"))
    val child = Children.start("nginx", Seq(binary, "-p", dir.toString, "-c", conf.toString, "-g", "daemon off;"), dir)
    Stack.awaitPort(child, port, 15.seconds)
    val served = Served(child, port)
    Stack.awaitReady(served, "/hello")
    served
