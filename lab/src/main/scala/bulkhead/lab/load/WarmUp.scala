package bulkhead.lab.load

import scala.concurrent.duration.*

/**
 * A benchmark's warm-up as several short wrk runs. Each wrk run opens its connections anew, so the JIT compiles the
 * connection's life (accept, stream materialisation, close) as well as the request path. One long warm-up run left the
 * connection path cold: at -c1000 on 100 ms async work, the measured run's connection storm then made a p99 of
 * 0.9-1.0 s (p97 132 ms); after six 5 s runs the same measurement gave p99 112 ms. Seed 002 repeated its attempts for
 * the same reason.
 */
/**
 * What a warm-up did: how long it ran, and the longest answer of its last run (None: the run gave no figures). The
 * requests that run left in the service when it stopped are answered within about that long (they waited behind at
 * most as many as its answers did), inside whatever load comes next unless it waits for them.
 */
final case class WarmedUp(ran: FiniteDuration, lastLongest: Option[FiniteDuration])

object WarmUp:
  /** Length of one warm-up run: long enough for its connection storm to settle, short enough to repeat it. */
  val RunLength: FiniteDuration = 5.seconds

  /** The wrk runs that make up `total`: whole runs of [[RunLength]], the last one taking the remainder. */
  def runs(total: FiniteDuration): Seq[FiniteDuration] =
    if total <= Duration.Zero then Nil
    else
      val whole = (total.toMillis / RunLength.toMillis).toInt
      val rest = (total - RunLength * whole).toSeconds.seconds
      val runs = Seq.fill(whole)(RunLength)
      if rest >= 1.second then runs :+ rest
      else if runs.isEmpty then Seq(1.second)
      else runs

  /**
   * A JVM whose JIT compiler threads took less than this share of one core over the last warm-up run has settled. At
   * 200 clients on the 1 s pipeline (200 req/s), C2 took 15 % of a core over the 30 s after a 20 s warm-up, half the
   * service's CPU (and 8 % after 60 s). At 2,000 clients on shared cores it took 50-73 % after 60 s and settled only
   * after about 90 s (the case's own warm-up says so). A slow case warms faster at more connections (a scenario's
   * `warmup-connections`).
   */
  val SettledShare: Double = 0.03

  /**
   * The most a warm-up runs beyond the asked-for time while the JIT has not settled: its own length again, so that the
   * demo's and the tests' short warm-ups stay short.
   */
  def extraLimit(total: FiniteDuration): FiniteDuration = total

  /**
   * Drives the warm-up on `url` with wrk's closed loop and says how long it ran. `jit` reads the JIT CPU seconds of
   * the processes measured (None: no JVM among them): while the last run's share of a core is above
   * [[SettledShare]], the warm-up goes on in runs of [[RunLength]], up to [[extraLimit]] more. `onRun(i, n)` is told
   * before run i of the n asked for (from 1); `onExtra(share)` before each run beyond them, with the share that asked
   * for it. `closeEach`: a connection per request, as the measured load of a fresh-connection case.
   */
  def run(threads: Int, connections: Int, total: FiniteDuration, url: String,
      onRun: (Int, Int) => Unit = (_, _) => (), jit: () => Option[Double] = () => None,
      onExtra: Double => Unit = _ => (), closeEach: Boolean = false): WarmedUp =
    warm(total, length => Wrk.run(WrkLoad(threads, connections, length, Timeout, url, closeEach)).toOption
        .map((result, _) => result.latencyMaxMs.millis.min(Timeout)), jit, onRun, onExtra)

  /** A warm-up answer's longest wait: wrk counts a longer one as a timeout. */
  val Timeout: FiniteDuration = 10.seconds

  /** [[run]] with the load of one run given: `once(length)` drives one run and says its longest answer. */
  def warm(total: FiniteDuration, once: FiniteDuration => Option[FiniteDuration], jit: () => Option[Double],
      onRun: (Int, Int) => Unit = (_, _) => (), onExtra: Double => Unit = _ => ()): WarmedUp =
    val asked = runs(total)
    var lastLongest: Option[FiniteDuration] = None
    def timed(length: FiniteDuration): Option[Double] =
      val before = jit()
      lastLongest = once(length)
      for b <- before; a <- jit() yield (a - b) / length.toUnit(SECONDS)
    var lastShare: Option[Double] = None
    asked.zipWithIndex.foreach { (length, i) =>
      onRun(i + 1, asked.size)
      lastShare = timed(length)
    }
    var ran = asked.foldLeft(Duration.Zero: FiniteDuration)(_ + _)
    val limit = ran + (if asked.isEmpty then Duration.Zero else extraLimit(total))
    while lastShare.exists(_ > SettledShare) && ran + RunLength <= limit do
      onExtra(lastShare.get)
      lastShare = timed(RunLength)
      ran += RunLength
    WarmedUp(ran, lastLongest)
