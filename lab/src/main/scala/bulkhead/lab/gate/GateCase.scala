package bulkhead.lab.gate

/** The three checks of one case. */
final case class GateCase(label: String, baseline: Gate.Rounds, candidate: Gate.Rounds, floor: Double):
  import Gate.*

  def checks: Seq[CheckResult] = Seq(resource, cap, cpu)

  private def rounds(n: Int) = if n == 1 then "1 round" else s"$n rounds"

  def resource: CheckResult =
    val was = baseline.named.distinct
    val now = candidate.mostNamed
    val inBaseline = was.map(n => s"$n in ${baseline.named.count(_ == n)} of ${baseline.named.size}").mkString(", ")
    val seen = s"new: $now in ${candidate.named.count(_ == now)} of ${candidate.named.size} rounds; baseline: $inBaseline"
    if was.contains(now) then CheckResult(label, GateCheck.Resource, Outcome.Pass, s"$now, as the baseline ($seen)")
    else CheckResult(label, GateCheck.Resource, Outcome.Fail, s"changed: ${was.mkString(" or ")} -> $now ($seen)")

  def cap: CheckResult =
    val f = Figure(baseline.throughputs, candidate.throughputs, floor)
    val figures = f"${f.after}%.1f req/s (median of ${rounds(candidate.records.size)}) against ${f.before}%.1f " +
      f"(${rounds(baseline.records.size)}), ${f.change * 100}%+.1f %%"
    if f.change < -f.noise then CheckResult(label, GateCheck.Cap, Outcome.Fail, s"fell: $figures, beyond ${f.noiseText}")
    else CheckResult(label, GateCheck.Cap, Outcome.Pass, s"$figures, within ${f.noiseText}")

  def cpu: CheckResult =
    val (was, now) = (baseline.cpuMicros, candidate.cpuMicros)
    if was.isEmpty || now.isEmpty then
      val missing = Seq(Option.when(was.isEmpty)("the baseline"), Option.when(now.isEmpty)("the new run")).flatten
      CheckResult(label, GateCheck.Cpu, Outcome.Skipped, s"not compared: ${missing.mkString(" and ")} recorded no CPU " +
        "per request (no CPU readings of the service)")
    else
      val f = Figure(was, now, floor)
      val figures = f"${f.after}%.1f us (median of ${rounds(now.size)}) against ${f.before}%.1f " +
        f"(${rounds(was.size)}), ${f.change * 100}%+.1f %%"
      if f.change > f.noise then CheckResult(label, GateCheck.Cpu, Outcome.Fail, s"rose: $figures, beyond ${f.noiseText}")
      else CheckResult(label, GateCheck.Cpu, Outcome.Pass, s"$figures, within ${f.noiseText}")
