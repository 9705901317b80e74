package bulkhead.lab.record

import bulkhead.lab.sample.Sample

/**
 * Which samples read the load: those taken while it held the service, not while it started or drained.
 *
 * A load has two edges in the lab's clock: its start (second 0, the connections opening; a ramp's measured phase
 * starts inside the load, not at an edge of it) and its end (`to`, where every driver stops). A sample's `second` is
 * when the sampler began; its thread dump comes after a scrape and an attach, and the driver's clock starts a little
 * after the lab's, so within [[Slack]] of an edge a sample may read either side of it.
 *
 * The sample at the start is left out: it sees no load yet. The one at the end is read for what it holds, since its
 * timestamp cannot say on which side of the end its dump fell: one that holds fewer busy threads than every sample
 * inside the load, by more than such a count varies from one instant to another ([[drained]]), read the clients leaving
 * (a thousand sleeps in flight read as 243, a full pool of 1,000 threads as 798) and would dilute every mean over the
 * window, each occupancy's and through it each hold and bound. One that still holds the load is kept (an open loop's
 * last sample reads the backlog it left, which its answers still count). Edge samples are all kept when no sample lies
 * between the edges (a short run sampled rarely), and samples outside the window only when none lies in it.
 *
 * A closed loop's clients all start at once, but a server that accepts slowly takes them in over seconds: the first
 * samples inside the load then read the clients still arriving (Akka HTTP's pool of 1,000 threads held 199 and 679 in
 * its first two samples, 851 to 996 in the eleven after), and with them every mean over the window would read the
 * pool 88 % full where it was full. Leading samples that hold fewer busy threads than every later one inside the load,
 * by the same margin as a drain ([[drained]]), are left out as [[arriving]].
 */
object LoadWindow:
  /** How far from an edge of the load a sample may read the other side of it, in seconds. */
  val Slack: Double = 0.5

  /**
   * The samples of `all` that read the load measured from `from` to `to` seconds after it started: those inside its
   * edges and those at its end that still hold it, else every one in the window, else all of them.
   */
  def samples(all: Seq[Sample], from: Double, to: Double): Seq[Sample] =
    val inWindow = within(all, from, to)
    val inside = between(all, from, to)
    val kept = if inside.isEmpty then Nil else
      val least = inside.map(busy).min
      inWindow.filter(s => atEnd(s, to) && !atStart(s, from) && !drained(least, busy(s)))
    val read = (inside ++ kept).sortBy(_.second)
    if read.nonEmpty then read else if inWindow.nonEmpty then inWindow else all

  /**
   * The samples of `all` between the edges of the load measured from `from` to `to`, but those that read its clients
   * still arriving ([[arriving]]): each reads it at full strength.
   */
  def between(all: Seq[Sample], from: Double, to: Double): Seq[Sample] =
    val inside = within(all, from, to).filterNot(s => atStart(s, from) || atEnd(s, to)).sortBy(_.second)
    if from > 0 then inside else inside.drop(arriving(inside.map(busy)))

  /**
   * How many of a closed loop's first samples, busy threads `busy` in the order taken, read its clients still arriving:
   * the leading ones that each hold fewer than every later one, by more than a drain does ([[drained]]). A load that
   * starts inside the run (a ramp's measured phase) arrives by design, and is not read this way.
   */
  def arriving(busy: Seq[Int]): Int =
    busy.indices.find(i => i == busy.size - 1 || !drained(busy.drop(i + 1).min, busy(i))).getOrElse(0)

  /**
   * Whether any sample of `all` read the load at all: one in its window that is not the one taken as it started (which
   * sees no request yet). A recording of dumps (from half a second before its first) has no such start edge.
   */
  def sampled(all: Seq[Sample], from: Double, to: Double): Boolean =
    within(all, from, to).exists(s => !atStart(s, from))

  private def within(all: Seq[Sample], from: Double, to: Double): Seq[Sample] =
    all.filter(s => s.second >= from - Slack && s.second <= to + Slack)

  /**
   * A fall from `least` busy threads (the fewest any sample inside the load held) to `seen` that is the load leaving,
   * not noise: threads seen busy at an instant vary from one instant to the next by about the square root of their
   * count, as any count of independent arrivals does, so only a fall beyond that is read as a drain.
   */
  def drained(least: Int, seen: Int): Boolean = seen < least - math.sqrt(least.toDouble)

  /** Every thread the sample's dump saw busy, of every pool (virtual threads included): the requests it held. */
  def busy(s: Sample): Int = s.pools.map(_.busy).sum

  private def atStart(s: Sample, from: Double): Boolean = from <= 0 && s.second < Slack
  private def atEnd(s: Sample, to: Double): Boolean = s.second > to - Slack
