package bulkhead.lab.load

/** Reads wrk's printed report (wrk 4.x), including the seeds' own outputs. */
object WrkParser:
  private val Header = """(\d+) threads and (\d+) connections""".r.unanchored
  private val Latency = """Latency\s+([\d.]+)(us|ms|s|m)\s+[\d.]+\w+\s+([\d.]+)(us|ms|s|m)""".r.unanchored
  private val Percentile = """^\s*(\d+)%\s+([\d.]+)(us|ms|s|m)\s*$""".r
  private val Requests = """(\d+) requests in ([\d.]+)(us|ms|s|m)""".r.unanchored
  private val Errors = """Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)""".r.unanchored
  private val Rate = """Requests/sec:\s+([\d.]+)""".r.unanchored
  private val Non2xx = """Non-2xx or 3xx responses: (\d+)""".r.unanchored

  def toMillis(value: String, unit: String): Double = unit match
    case "us" => value.toDouble / 1000.0
    case "ms" => value.toDouble
    case "s" => value.toDouble * 1000.0
    case "m" => value.toDouble * 60000.0

  def parse(output: String): Either[String, WrkResult] =
    val lines = output.linesIterator.toSeq
    def find[A](p: PartialFunction[String, A]): Option[A] = lines.collectFirst(p)
    val result = for
      (threads, connections) <- find { case Header(t, c) => (t.toInt, c.toInt) }
      (requests, duration) <- find { case Requests(n, d, u) => (n.toLong, toMillis(d, u) / 1000.0) }
      rate <- find { case Rate(r) => r.toDouble }
    yield
      val (avg, max) = find { case Latency(a, au, m, mu) => (toMillis(a, au), toMillis(m, mu)) }
        .getOrElse((Double.NaN, Double.NaN))
      val percentiles = lines.collect { case Percentile(p, v, u) => p.toInt -> toMillis(v, u) }.toMap
      val errors = find { case Errors(c, r, w, t) => SocketErrors(c.toLong, r.toLong, w.toLong, t.toLong) }
        .getOrElse(SocketErrors(0, 0, 0, 0))
      val non2xx = find { case Non2xx(n) => n.toLong }.getOrElse(0L)
      WrkResult(threads, connections, requests, duration, rate, avg, max, percentiles, errors, non2xx)
    result.toRight(s"not a wrk report: ${output.linesIterator.take(3).mkString(" | ").take(200)}")
