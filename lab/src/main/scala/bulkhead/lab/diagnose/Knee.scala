package bulkhead.lab.diagnose

/**
 * Where a capacity curve bends: the first step at which the service stops following the offered rate (it answers less
 * than [[Knee.ServedShare]] of it as expected) or at which p99 leaves its floor (above [[Knee.LatencyFactor]] times
 * the first step's). Throughput there is what the service can do: past its cap an open loop's answers flatten at the
 * cap while the rest queue or fail, so it is the figure set beside the Little's-law cap.
 */
final case class Knee(at: StepFigures, why: String):
  /** The throughput at the knee: the service's capacity as the open loop measured it. */
  def throughput: Double = at.answered

object Knee:
  /** Below this share of the offered rate answered, the service no longer follows the load. */
  val ServedShare = 0.95
  /** Above this multiple of the first step's p99, latency has left its floor: requests queue. */
  val LatencyFactor = 3.0

  /** The knee of `steps` (in any order), or None when every step was followed at the floor's latency. */
  def find(steps: Seq[StepFigures]): Option[Knee] =
    val ordered = steps.sortBy(_.step)
    ordered.headOption.flatMap { first =>
      ordered.iterator.flatMap(s => reason(s, first).map(Knee(s, _))).nextOption()
    }

  private def reason(s: StepFigures, first: StepFigures): Option[String] =
    val served = Option.when(s.servedShare < ServedShare)(
      f"answered ${s.answered}%.1f of ${s.offered}%.1f req/s offered (${s.servedShare * 100}%.0f %%, under " +
        f"${ServedShare * 100}%.0f %%)")
    val slow = Option.when(first.p99Ms > 0 && s.p99Ms > LatencyFactor * first.p99Ms)(
      f"p99 ${s.p99Ms}%,.0f ms, ${s.p99Ms / first.p99Ms}%.1fx the first step's ${first.p99Ms}%,.0f ms (over " +
        f"${LatencyFactor}%.0fx)")
    Option(Seq(served, slow).flatten).filter(_.nonEmpty).map(_.mkString("; "))
