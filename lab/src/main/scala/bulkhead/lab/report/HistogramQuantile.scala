package bulkhead.lab.report

/**
 * Quantiles of a Prometheus histogram (cumulative counts by upper bound `le`), computed as PromQL's
 * `histogram_quantile` does: linear within the bucket the rank falls in, the highest finite bound when it falls in
 * `+Inf`. A histogram's counts only grow, so the difference of two scrapes is the distribution between them.
 */
object HistogramQuantile:
  /** `le` as a number: `+Inf` is infinite; Micrometer writes the others as decimals. */
  def bound(le: String): Option[Double] =
    if le == "+Inf" || le == "Inf" then Some(Double.PositiveInfinity) else le.toDoubleOption

  /** The counts between two scrapes, by bound; None if a count went down (the service restarted in between). */
  def between(before: Map[String, Double], after: Map[String, Double]): Option[Map[String, Double]] =
    val delta = after.map((le, n) => le -> (n - before.getOrElse(le, 0.0)))
    Option.when(delta.values.forall(_ >= 0))(delta)

  /** The value at quantile `q` (0..1), in the histogram's unit; None for an empty histogram. */
  def apply(q: Double, buckets: Map[String, Double]): Option[Double] =
    require(q >= 0 && q <= 1, s"quantile must be in 0..1, was $q")
    val sorted = buckets.toSeq.flatMap((le, n) => bound(le).map(_ -> n)).sortBy(_._1)
    val total = sorted.lastOption.filter(_._1.isPosInfinity).map(_._2).getOrElse(0.0)
    if total <= 0 then None
    else
      val rank = q * total
      val at = sorted.indexWhere(_._2 >= rank)
      val (upper, count) = sorted(at)
      val (lower, below) = if at == 0 then (0.0, 0.0) else sorted(at - 1)
      if upper.isPosInfinity then Some(lower)
      else if count == below then Some(upper)
      else Some(lower + (upper - lower) * (rank - below) / (count - below))
