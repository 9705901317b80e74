package bulkhead.lab.load

import scala.concurrent.duration.*

/**
 * A benchmark's warm-up as several short wrk runs. Each wrk run opens its connections anew, so the JIT compiles the
 * connection's life (accept, stream materialisation, close) as well as the request path. One long warm-up run left the
 * connection path cold: at -c1000 on 100 ms async work, the measured run's connection storm then made a p99 of
 * 0.9-1.0 s (p97 132 ms); after six 5 s runs the same measurement gave p99 112 ms. Seed 002 repeated its attempts for
 * the same reason.
 */
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

  /** Drives the warm-up on `url` with wrk's closed loop; `onRun(i, n)` is told before run i of n (from 1). */
  def run(threads: Int, connections: Int, total: FiniteDuration, url: String,
      onRun: (Int, Int) => Unit = (_, _) => ()): Unit =
    val all = runs(total)
    all.zipWithIndex.foreach { (length, i) =>
      onRun(i + 1, all.size)
      Wrk.run(WrkLoad(threads, connections, length, 10.seconds, url))
    }
