package bulkhead.service

import bulkhead.service.testkit.HttpProbe.*
import bulkhead.service.testkit.TestService.*
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{ConnectException, Socket}
import scala.concurrent.Await
import scala.concurrent.duration.*

/**
 * The service over real sockets. The cases that hold the socket layer to its promises (answering, draining on stop,
 * several listeners on a port, counting connections) run on both transports: the selector threads it ships with and
 * Pekko's TCP actors (`server.transport = pekko`), so that the fallback cannot rot unseen.
 */
@Slow
class ServiceOverSocketSpec extends AnyFlatSpec with Matchers:

  behavior of "The service"

  for (transport, on) <- Transports do
    it should s"answer /hello and /health over a real socket ($transport)" in withService(on*) { s =>
      val hello = get(url(s, "/hello"))
      (hello.status, hello.body) shouldBe (200, "OK")
      hello.headers.get("content-type") shouldBe Some("text/plain; charset=UTF-8")
      get(url(s, "/health")).status shouldBe 200
    }

    it should s"drain an in-flight request on stop, then refuse connections ($transport)" in {
      var port = 0
      withService(on*) { s =>
        port = s.port
        val inFlight = getAsync(url(s, "/work/pool?ms=1000"))
        eventually()(metric(get(url(s, "/metrics")).body, """executor_active_threads{name="blocking-pool"}""")
          .contains(1.0)) shouldBe true
        Await.result(s.stop(), 30.seconds)
        inFlight.get().status shouldBe 200
      }
      a[ConnectException] should be thrownBy Socket("127.0.0.1", port)
    }

    it should "listen on several sockets of one port (SO_REUSEPORT), answer through each, and close them all on stop" +
      s" (accepting in batches, $transport)" in {
      var port = 0
      withService(on ++ Seq("bulkhead.service.server.listeners" -> 3, "bulkhead.service.server.accept-batch" -> 16)*) {
        s =>
          port = s.port
          s.binding.bindings should have size 3
          s.binding.bindings.map(_.localAddress.getPort).distinct shouldBe Seq(port)
          listening(port) shouldBe 3
          // Connections opened together are spread by the kernel over the listeners; every one is answered.
          val replies = (1 to 60).map(_ => getAsync(url(s, "/hello?fresh"))).map(_.get())
          replies.map(_.status).distinct shouldBe Seq(200)
          Await.result(s.stop(), 30.seconds)
      }
      listening(port) shouldBe 0
      a[ConnectException] should be thrownBy Socket("127.0.0.1", port)
    }

    it should s"count the connections it serves in /metrics, up as they open and down as they close ($transport)" in
      withService(on*) { s =>
        def open = metric(get(url(s, "/metrics")).body, "http_server_connections_open").get
        val before = open // the scrape's own connection(s)
        val sockets = (1 to 5).map(_ => Socket("127.0.0.1", s.port))
        try eventually()(open >= before + 5) shouldBe true
        finally sockets.foreach(_.close())
        eventually()(open <= before) shouldBe true
      }

  it should "run exactly fixed-pool-size /work/pool requests at once, queueing the rest" in withService(
    "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 4) { s =>
    // Twice the pool: one round running, one queued (two rounds of 1.5 s).
    val calls = (1 to 8).map(_ => getAsync(url(s, "/work/pool?ms=1500")))
    val busy = """executor_active_threads{name="blocking-pool"}"""
    val queued = """executor_queued_tasks{name="blocking-pool"}"""
    eventually()(metric(get(url(s, "/metrics")).body, queued).contains(4.0)) shouldBe true
    val text = get(url(s, "/metrics")).body
    metric(text, busy) shouldBe Some(4.0)
    metric(text, """executor_pool_size_threads{name="blocking-pool"}""") shouldBe Some(4.0)
    val threads = calls.map(_.get()).map { r =>
      r.status shouldBe 200
      "\"thread\":\"([^\"]+)\"".r.findFirstMatchIn(r.body).get.group(1)
    }
    threads.distinct should have size 4
    all(threads) should include("bulkhead.dispatch.blocking-pool")
  }

  it should "keep its blocking pool and its gauges across an idle period (no executor re-creation)" in withService(
    "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 3) { s =>
    val completed = """executor_completed_tasks_total{name="blocking-pool"}"""
    get(url(s, "/work/pool?ms=1")).status shouldBe 200
    val before = metric(get(url(s, "/metrics")).body, completed).get
    Thread.sleep(1500) // longer than Pekko's default dispatcher shutdown-timeout of 1 s
    (1 to 3).map(_ => getAsync(url(s, "/work/pool?ms=1"))).foreach(_.get().status shouldBe 200)
    metric(get(url(s, "/metrics")).body, completed).get shouldBe before + 3
  }

  it should "keep /hello answering while the blocking pool is saturated" in withService(
    "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 2) { s =>
    // Twice the pool: both threads held 3 s and two calls queued behind them (two rounds).
    val blocked = (1 to 4).map(_ => getAsync(url(s, "/work/pool?ms=3000")))
    eventually()(metric(get(url(s, "/metrics")).body, """executor_queued_tasks{name="blocking-pool"}""")
      .contains(2.0)) shouldBe true
    get(url(s, "/hello")).status shouldBe 200
    // /hello was answered while every blocking call was still held by the pool or its queue.
    blocked.count(_.isDone) shouldBe 0
    blocked.foreach(_.get().status shouldBe 200)
  }

  it should "starve /hello when /work/default blocks every default-dispatcher thread (the anti-pattern, on purpose)" in
    withService(
      "bulkhead.service.work.allow-default-dispatcher" -> true,
      "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min" -> 2,
      "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max" -> 2) { s =>
      // Twice the dispatcher's threads: both blocked, two more queued behind them with /hello (two rounds).
      val blocking = (1 to 4).map(_ => getAsync(url(s, "/work/default?ms=1500")))
      Thread.sleep(700) // let the blocking requests reach the dispatcher first (a busy machine opens 4 sockets slowly)
      val hello = get(url(s, "/hello"))
      hello.status shouldBe 200
      // /hello could only be served once a blocked default-dispatcher thread came free: some blocking work was done.
      blocking.count(_.isDone) should be > 0
      blocking.foreach(_.get().status shouldBe 200)
    }

  /**
   * 5,000 clients each send 60 s of pool work and leave at once. Every request of a client gone is abandoned, and a
   * full pool sheds: the queue never passes its bound, and once the abandoned work has left, the next request is
   * answered at once.
   */
  private def flood(s: bulkhead.service.RunningService, bound: Int) =
    val probe = bulkhead.service.dispatch.PoolProbe(s.system.name, bulkhead.service.dispatch.Pools.Blocking)
    @volatile var flooding = true
    var deepest = 0.0
    val watcher = Thread(() => while flooding do { deepest = deepest.max(probe.queuedTasks.getOrElse(0.0)); Thread.sleep(5) })
    watcher.start()
    val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
    val request = "GET /work/pool?ms=60000 HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes("ISO-8859-1")
    try
      val round: Runnable = () => (1 to 1250).foreach { _ =>
        val socket = Socket("127.0.0.1", s.port)
        socket.getOutputStream.write(request)
        socket.close()
      }
      val rounds = (1 to 4).map(_ => pool.submit(round))
      rounds.foreach(_.get(60, java.util.concurrent.TimeUnit.SECONDS))
    finally
      pool.shutdownNow()
      flooding = false
      watcher.join()
    deepest should be <= bound.toDouble
    // The abandoned work leaves the pool (each client's close cancels its request), then the pool answers at once.
    eventually()(metric(get(url(s, "/metrics")).body, """work_in_flight{mode="pool"}""").contains(0.0)) shouldBe true
    val start = System.nanoTime()
    get(url(s, "/work/pool?ms=1"), timeoutSeconds = 2).status shouldBe 200
    (System.nanoTime() - start).nanos should be < 2.seconds

  it should "stay within its queue bound and answer at once after 5,000 connections sent 60 s of pool work and left" in
    withService() { s =>
      flood(s, config(Map.empty).getInt("bulkhead.dispatch.blocking-pool.thread-pool-executor.task-queue-size"))
    }

  // The shipped bound (10,000 queued) is above what 5,000 clients can fill: the same flood on a pool of 20 with 70
  // queued and admitted shows the bound is enforced, not just unreached. Accepted in batches, the flood's requests
  // arrive together: once a pool whose queue was smaller than what it admitted ran refused work on the default
  // dispatcher, and the service took over 30 s to stop.
  it should "stay within a small queue bound under the same flood, shedding what does not fit" in withService(
    "bulkhead.service.server.accept-batch" -> 64,
    "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 20,
    "bulkhead.dispatch.blocking-pool.thread-pool-executor.task-queue-size" -> 70,
    "bulkhead.service.work.max-in-flight.pool" -> 70) { s => flood(s, 70) }

  it should "answer /work above max-in-flight with a JSON 503 and Retry-After at once, over a socket" in withService(
    "bulkhead.service.work.max-in-flight.async" -> 3) { s =>
    val held = (1 to 3).map(_ => getAsync(url(s, "/work/async?ms=3000")))
    eventually()(metric(get(url(s, "/metrics")).body, """work_in_flight{mode="async"}""").contains(3.0)) shouldBe true
    val start = System.nanoTime()
    val shed = get(url(s, "/work/async?ms=3000"), timeoutSeconds = 2)
    (System.nanoTime() - start).nanos should be < 1.second
    shed.status shouldBe 503
    shed.headers.get("content-type") shouldBe Some("application/json")
    shed.headers.get("retry-after") shouldBe Some("1")
    shed.body should include("max-in-flight")
    held.foreach(_.get().status shouldBe 200)
    get(url(s, "/work/async?ms=1")).status shouldBe 200
  }

  it should "answer /hello and /work through the routing tree, timed by route, when the fast path is off" in withService(
      "bulkhead.service.server.fast-path" -> false) { s =>
    get(url(s, "/hello")).body shouldBe "OK"
    get(url(s, "/hello")).body shouldBe "OK"
    val text = get(url(s, "/metrics")).body
    metric(text, """http_server_requests_seconds_count{route="hello",status="200"}""") shouldBe Some(2.0)
    get(url(s, "/work/async?ms=1")).status shouldBe 200
    get(url(s, "/work/turbo")).status shouldBe 400
  }

  it should "record no per-request meter when they are off, and still answer every route" in withService(
      "bulkhead.service.metrics.per-request" -> false) { s =>
    get(url(s, "/hello")).body shouldBe "OK"
    get(url(s, "/work/async?ms=1")).status shouldBe 200
    get(url(s, "/work/nope")).status shouldBe 400
    val text = get(url(s, "/metrics")).body
    text should not include "http_server_requests"
    text should include("http_server_connections_open")
  }

  /** Listening sockets on the port, from /proc/net/tcp and tcp6 (state 0A). */
  private def listening(port: Int): Int =
    val hex = f":$port%04X"
    Seq("/proc/net/tcp", "/proc/net/tcp6").map(java.nio.file.Path.of(_)).filter(java.nio.file.Files.isReadable)
      .map(f => java.nio.file.Files.readAllLines(f).toArray.map(_.toString).drop(1).count { line =>
        val fields = line.trim.split("\\s+")
        fields(1).endsWith(hex) && fields(3) == "0A"
      }).sum
