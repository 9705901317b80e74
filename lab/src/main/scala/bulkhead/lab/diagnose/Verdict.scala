package bulkhead.lab.diagnose

import bulkhead.lab.model.{CapName, FixKind, Resource}

/**
 * A setting that serves the offered load: service flags the lab can re-run with (and the path to load instead, when
 * the fix moves the work to another route), the sentence for a person, and its kind. `setting` names what to change
 * where the lab knows it (a flag, a configuration key, a server's setting), `value` what to set it to where the fix is
 * a size.
 */
final case class Fix(flags: Seq[String], sentence: String, kind: FixKind = FixKind.PoolSize,
    path: Option[String] = None, setting: Option[String] = None, value: Option[Double] = None):
  /**
   * `flags` with this fix applied: a flag (or a `--set key=`) given again replaces the earlier value. A flag without a
   * value (`--allow-default-dispatcher-work`) stands alone: flags are not simply pairs.
   */
  def applyTo(flags: Seq[String]): Seq[String] =
    def key(option: Seq[String]) = if option.head == "--set" then option.last.takeWhile(_ != '=') else option.head
    val mine = Fix.options(this.flags)
    val replaced = mine.map(key).toSet
    Fix.options(flags).filterNot(o => o.size == 2 && replaced(key(o))).flatten ++ mine.flatten

object Fix:
  /** A command line as its options: a flag with its value, or a flag alone when the next word is another flag. */
  def options(flags: Seq[String]): Seq[Seq[String]] = flags match
    case flag +: value +: rest if flag.startsWith("--") && !value.startsWith("--") => Seq(flag, value) +: options(rest)
    case word +: rest => Seq(word) +: options(rest)
    case _ => Nil

/**
 * A cap in requests per second and what it is: for a resource measured by Little's law, its size, its mean
 * occupancy (threads busy, permits or connections held, cores busy) and the hold per request in seconds.
 */
final case class Cap(resource: Resource, subject: String, perSecond: Double, why: String,
    size: Option[Double] = None, occupancy: Option[Double] = None, hold: Option[Double] = None):
  def named: CapName = CapName(resource, Option.when(subject.nonEmpty && CapName.Subjected(resource))(subject))
  def name: String = named.text

/**
 * The diagnosis of a run: what caps throughput (`cap`), the measured throughput (expected answers per second), the
 * errors when they are a material share, the setting that serves the offered load, and what caps after it
 * (`next`: the prediction `--verify` measures).
 */
final case class Verdict(cap: Cap, measured: Double, errors: Option[String], fix: Option[Fix], next: Option[Cap],
    cpuMicrosPerRequest: Option[Double], chain: Seq[String] = Nil):
  def resource: Resource = if errors.isDefined then Resource.Errors else cap.resource
  /** `pool blocking-pool`, `cpu`, `errors` ...: what the accuracy suite compares with a case's expectation. */
  def named: CapName = if errors.isDefined then CapName(Resource.Errors) else cap.named
  def name: String = named.text
  def predicted: Double = cap.perSecond
  def ratio: Double = measured / predicted
  def explanation: String =
    (errors.toSeq ++ Option.when(chain.size > 1)(s"chain: ${chain.mkString(" -> ")}") :+ cap.why :+
      fix.fold("no setting to change")(f => s"fix: ${f.sentence}") :++
      next.map(n => f"then: ${n.name} caps at ${n.perSecond}%.1f req/s (${n.why})")).mkString("; ")
  /** The verdict line of `lab run` and `lab diagnose`. */
  def line(name: String): String =
    f"=> $name: $measured%.1f req/s, bound $predicted%.1f (${cap.name}); $explanation"
