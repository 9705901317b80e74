package bulkhead.lab.cli

import bulkhead.lab.Bench

/** `lab bench SUITE` (also `./bulkhead bench SUITE`): configurations side by side, medians and ratios. */
object BenchCommand extends LabCommand:
  val name = "bench"
  val summary = s"side-by-side benchmarks: ${Bench.Suites.mkString(" | ")} (bench --help)"

  def main(args: Seq[String]): Int =
    Bench.main(args.toArray)
    0
