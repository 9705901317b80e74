package bulkhead.lab.faults

import bulkhead.lab.load.{LargeHeads, RequestFlood, RetryStorm, SlowBodies, SlowReaders}
import bulkhead.lab.record.{BreakerExpectation, FaultExpectation}

import java.nio.charset.StandardCharsets.US_ASCII

/**
 * The fault matrix's hostile clients: clients that send what a server must bound (heads at its size limit, by the
 * thousand), what it must not log line by line (illegal headers, GET bodies), what ties a connection up (bodies a
 * byte a second, answers never read), and retries that ignore Retry-After. Beside them the steady users run as in
 * every fault and must see nothing but their usual answers; the hostile clients' own answers are recorded apart
 * (with the statuses the design gives them) and judged by [[bulkhead.lab.checks.HostileChecks]]: /health within a
 * second, the log bounded, heap and threads back. Each is sized to run in seconds on two cores.
 */
object HostileCases:
  /** Connections holding a head just under max-head-bytes: a few thousand, the issue's "thousands of connections". */
  val LargeHeadConnections = 2000
  /** Connections sending a whole head past max-head-bytes: each must get 431. */
  val OversizedHeads = 200
  /** A flood's requests a second and connections: 2,000 a second for the 3 s hold, paced. */
  val FloodPerSecond = 2000
  val FloodConnections = 16
  val SlowClients = 200
  val RetryingUsers = 20

  private val Quiet = FaultExpectation(Set.empty, BreakerExpectation.StaysClosed)

  private def hello(port: Int, headers: String, body: String = "") =
    s"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n$headers\r\n$body".getBytes(US_ASCII)

  /**
   * Forty headers of names Pekko parses into its model, with values it cannot parse (it keeps them raw and serves the
   * request); every tenth request also carries a header line with no colon, which ends it with 400.
   */
  def illegalHeaders(port: Int, i: Int): Array[Byte] =
    val junk = (0 until 5).map(k =>
      s"Date: yesterday $k\r\nAccept: ;;;=$k\r\nContent-Type: ??$k\r\nIf-Modified-Since: never\r\nAuthorization: \r\n" +
        s"Cookie: ;=;=\r\nOrigin: ::$k\r\nRange: bytes=z-$k\r\n").mkString
    hello(port, junk + (if i % 10 == 9 then "NoColonHere\r\n" else ""))

  /** A GET with a body: a 1 KB Content-Length body, or (every other one) a chunked body, which Pekko streams. */
  def getWithBody(port: Int, i: Int): Array[Byte] =
    if i % 2 == 0 then hello(port, "Content-Length: 1024\r\n", "b" * 1024)
    else hello(port, "Transfer-Encoding: chunked\r\n", s"10\r\n${"c" * 16}\r\n10\r\n${"d" * 16}\r\n0\r\n\r\n")

  val all: Seq[FaultCase] = Seq(
    FaultCase("large-heads", s"$LargeHeadConnections connections each holding a request head just under " +
      s"max-head-bytes, finished at clear; $OversizedHeads more sending a head past it", Quiet,
      (t, _) =>
        val under = t.maxHeadBytes - 512
        // Opening 2,000 heads of 64 KB takes seconds on two cores: the first may pass the service's deadline for a
        // head before the clearing, and its 408 then is the service's design, not a fault.
        t.startHostile("large-heads", s"$LargeHeadConnections connections each holding a $under-byte head unfinished, " +
          "the blank line sent at clear", Set(200), Some(LateDesign(t.requestHeadTimeout,
            "the service's request-head-timeout", Set(408))))((port, log) =>
          LargeHeads.hold("large-heads", LargeHeadConnections, port, under, log))
        t.startHostile("oversized-heads", s"$OversizedHeads connections each sending a whole head of " +
          s"${t.maxHeadBytes + 1024} bytes", Set(431))((port, log) =>
          LargeHeads.sendWhole("oversized-heads", OversizedHeads, port, t.maxHeadBytes + 1024, log)),
      t =>
        t.heldHeap("large-heads")
        t.stopHostile("large-heads")),
    FaultCase("illegal-headers", s"a flood of GET /hello with 40 illegal header values each ($FloodPerSecond a " +
      "second), every tenth with a header line that does not parse", Quiet,
      (t, hold) => t.startHostile("illegal-headers", s"$FloodPerSecond requests a second on $FloodConnections " +
        "connections, 40 illegal header values each, every tenth with a line without a colon", Set(200, 400))(
        (port, log) => RequestFlood.start("illegal-headers", FloodConnections, port,
          (FloodPerSecond * hold.toMillis / 1000).toInt, FloodPerSecond, log)(illegalHeaders(port, _))),
      _.stopHostile("illegal-headers")),
    FaultCase("get-bodies", s"a flood of GET /hello carrying bodies ($FloodPerSecond a second), half of them chunked",
      Quiet,
      (t, hold) => t.startHostile("get-bodies", s"$FloodPerSecond requests a second on $FloodConnections connections, " +
        "a 1 KB body or a chunked one", Set(200))((port, log) => RequestFlood.start("get-bodies", FloodConnections, port,
          (FloodPerSecond * hold.toMillis / 1000).toInt, FloodPerSecond, log)(getWithBody(port, _))),
      _.stopHostile("get-bodies")),
    FaultCase("slow-bodies", s"$SlowClients clients sending a 1,000-byte body one byte a second", Quiet,
      (t, _) => t.startHostile("slow-bodies", s"$SlowClients clients, GET /hello with Content-Length 1000 and a body " +
        "byte a second, again a second after each answer", Set(200))((port, log) =>
        SlowBodies.start("slow-bodies", SlowClients, port, _ => "/hello", log)),
      _.stopHostile("slow-bodies")),
    FaultCase("slow-readers", s"$SlowClients clients sending 16 pipelined GET /metrics each and reading nothing", Quiet,
      (t, _) => t.startHostile("slow-readers", s"$SlowClients connections with a ${SlowReaders.ReceiveBuffer}-byte " +
        "receive buffer, 16 pipelined GET /metrics each (12 KB answers), never read; closed at clear", Set.empty)(
        (port, log) => SlowReaders.start("slow-readers", SlowClients, port, "/metrics", 16, log)),
      _.stopHostile("slow-readers")),
    FaultCase("retry-storm", s"the third party resets every call (the breaker opens) while $RetryingUsers clients " +
      "retry every refusal at once, ignoring Retry-After, to the end of the run",
      FaultExpectation(Set(502, 503), BreakerExpectation.Opens),
      (t, _) =>
        t.stubFaults("reset=1.0")
        t.startHostile("retry-storm", s"$RetryingUsers keep-alive users on /customers/{id} that send again the moment " +
          "an answer comes, a 503 included", Set(200, 502, 503))((port, log) =>
          RetryStorm.start("retry-storm", RetryingUsers, port, n => s"/customers/${n % 100 + 1}", log)),
      _.stubFaults("")))
