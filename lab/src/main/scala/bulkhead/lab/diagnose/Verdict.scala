package bulkhead.lab.diagnose

/** A setting that serves the offered load: service flags the lab can re-run with, and the sentence for a person. */
final case class Fix(flags: Seq[String], sentence: String):
  /** `flags` with this fix applied: a flag (or a `--set key=`) given again replaces the earlier value. */
  def applyTo(flags: Seq[String]): Seq[String] =
    def key(pair: Seq[String]) = if pair.head == "--set" then pair.last.takeWhile(_ != '=') else pair.head
    val mine = this.flags.grouped(2).toSeq
    val replaced = mine.map(key).toSet
    flags.grouped(2).toSeq.filterNot(p => p.size == 2 && replaced(key(p))).flatten ++ mine.flatten

/** A cap in requests per second and what it is. */
final case class Cap(resource: Resource, subject: String, perSecond: Double, why: String):
  def name: String = if subject.isEmpty then resource.key else s"${resource.key} $subject"

/**
 * The diagnosis of a run: what caps throughput (`cap`), the measured throughput (expected answers per second), the
 * errors when they are a material share, the setting that serves the offered load, and what caps after it
 * (`next`: the prediction `--verify` measures).
 */
final case class Verdict(cap: Cap, measured: Double, errors: Option[String], fix: Option[Fix], next: Option[Cap],
    cpuMicrosPerRequest: Option[Double]):
  def resource: Resource = if errors.isDefined then Resource.Errors else cap.resource
  /** `pool blocking-pool`, `cpu`, `errors` ...: what the accuracy suite compares with a case's expectation. */
  def name: String = if errors.isDefined then Resource.Errors.key else cap.name
  def predicted: Double = cap.perSecond
  def ratio: Double = measured / predicted
  def explanation: String =
    (errors.toSeq :+ cap.why :+ fix.fold("no setting to change")(f => s"fix: ${f.sentence}") :++
      next.map(n => f"then: ${n.name} caps at ${n.perSecond}%.1f req/s (${n.why})")).mkString("; ")
  /** The verdict line of `lab run` and `lab diagnose`. */
  def line(name: String): String =
    f"=> $name: $measured%.1f req/s, bound $predicted%.1f (${cap.name}); $explanation"
