package bulkhead.lab.diagnose

/**
 * An earlier verdict's prediction beside the run made after its fix: `predicted 160.0 req/s (then: cpu), measured
 * 152.0 = 0.95`, and what caps now. `ratio` is the measurement over the prediction.
 */
final case class Expectation(from: String, fix: Option[String], predicted: Double, predictedCaps: String,
    measured: Double, ratio: Double, nowCaps: String):
  /** The measurement reached the prediction, within [[Expectation.Band]] below it. */
  def met: Boolean = ratio >= 1 - Expectation.Band
  def line: String =
    f"predicted $predicted%.1f req/s (then: $predictedCaps), measured $measured%.1f = $ratio%.2f; now $nowCaps caps"

object Expectation:
  /** A prediction met within this share below it counts as met (the accuracy suite's band for a verified fix). */
  val Band: Double = 0.10

  def of(prediction: Prediction, verdict: Verdict): Expectation =
    Expectation(prediction.from, prediction.fix, prediction.perSecond, prediction.caps, verdict.measured,
      verdict.measured / prediction.perSecond, verdict.name)
